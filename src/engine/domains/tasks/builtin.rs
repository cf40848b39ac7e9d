//! The built-in task set, written for Roundtable: shopping orders of two or
//! three line items from a small shop whose goods have standing offers
//! ("buy 4, get 1 free", "20% off", "every second one at half price"),
//! whose total is the answer. Every task splits naturally into one
//! subtask per line, and a careless solver who overlooks an offer gets a
//! wrong total: the kind of systematic slip a retrieved worked example of
//! the same item can fix. Generated deterministically: a training split
//! (for a learning phase) and a test split.

use super::{Dataset, Gold, Task};
use serde_json::Value;

/// A deal on a line item.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Deal {
    None,
    /// Buy `n`, get one more free: every `n + 1` items, one is free.
    BuyGetFree(u32),
    /// A percentage off the line.
    PercentOff(u32),
    /// Every second item at half price.
    SecondHalf,
}

impl Deal {
    fn text(self) -> String {
        match self {
            Deal::None => String::new(),
            Deal::BuyGetFree(n) => format!(", with a \"buy {n}, get 1 free\" offer"),
            Deal::PercentOff(p) => format!(", with {p}% off"),
            Deal::SecondHalf => ", with every second one at half price".into(),
        }
    }
}

/// One line of an order.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub qty: u32,
    pub name: String,
    pub price: f64,
    pub deal: Deal,
}

impl Item {
    /// The line as the task writes it (without a final period).
    pub fn text(&self) -> String {
        format!(
            "{} {} at ${} each{}",
            self.qty,
            self.name,
            super::gsm8k::format_number(self.price),
            self.deal.text()
        )
    }

    /// What the line costs with its deal.
    pub fn cost(&self) -> f64 {
        let q = self.qty as f64;
        match self.deal {
            Deal::None => q * self.price,
            Deal::BuyGetFree(n) => (self.qty - self.qty / (n + 1)) as f64 * self.price,
            Deal::PercentOff(p) => q * self.price * (100 - p) as f64 / 100.0,
            Deal::SecondHalf => q * self.price - (self.qty / 2) as f64 * self.price / 2.0,
        }
    }

    /// What the line costs if the deal is overlooked.
    pub fn cost_without_deal(&self) -> f64 {
        self.qty as f64 * self.price
    }
}

/// The shop's goods: (name, price, standing offer). Each item always has
/// the same kind of offer (the numbers vary), as in a real shop, so a past
/// order of the same item is a worked example of its offer.
const CATALOG: [(&str, f64, Offer); 16] = [
    ("pens", 2.0, Offer::BuyGetFree),
    ("jars", 2.0, Offer::BuyGetFree),
    ("rulers", 4.0, Offer::BuyGetFree),
    ("posters", 6.0, Offer::BuyGetFree),
    ("backpacks", 25.0, Offer::PercentOff),
    ("lamps", 18.0, Offer::PercentOff),
    ("puzzles", 16.0, Offer::PercentOff),
    ("kites", 20.0, Offer::SecondHalf),
    ("cushions", 14.0, Offer::SecondHalf),
    ("towels", 8.0, Offer::SecondHalf),
    ("notebooks", 3.0, Offer::None),
    ("calculators", 12.0, Offer::None),
    ("folders", 5.0, Offer::None),
    ("mugs", 6.0, Offer::None),
    ("candles", 4.0, Offer::None),
    ("plants", 10.0, Offer::None),
];

/// The kind of a standing offer.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Offer {
    None,
    BuyGetFree,
    PercentOff,
    SecondHalf,
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A line of catalog item `k`: its offer's numbers and a quantity that
/// makes the offer matter and the total whole.
fn line(rng: &mut Rng, k: usize) -> Item {
    let (name, price, offer) = CATALOG[k];
    let deal = match offer {
        Offer::None => Deal::None,
        Offer::BuyGetFree => Deal::BuyGetFree(2 + rng.below(3) as u32),
        Offer::PercentOff => Deal::PercentOff([10, 20, 50][rng.below(3) as usize]),
        Offer::SecondHalf => Deal::SecondHalf,
    };
    let qty = match deal {
        Deal::BuyGetFree(n) => (n + 1) * (1 + rng.below(2) as u32) + rng.below(n as u64) as u32,
        Deal::PercentOff(_) => 10 * (1 + rng.below(2) as u32),
        Deal::SecondHalf => 2 * (2 + rng.below(3) as u32),
        Deal::None => 2 + rng.below(7) as u32,
    };
    Item {
        qty,
        name: name.into(),
        price,
        deal,
    }
}

/// An order of 2 or 3 different items, at least one with an offer.
fn order(seed: u64) -> Vec<Item> {
    let mut rng = Rng(seed);
    let lines = 2 + rng.below(2) as usize;
    let mut picked: Vec<usize> = Vec::new();
    // The first pick is an item with an offer; the others any item.
    picked.push(rng.below(10) as usize);
    while picked.len() < lines {
        let k = rng.below(CATALOG.len() as u64) as usize;
        if !picked.contains(&k) {
            picked.push(k);
        }
    }
    let mut items: Vec<Item> = picked.into_iter().map(|k| line(&mut rng, k)).collect();
    // The offer line is not always first.
    let r = rng.below(lines as u64) as usize;
    items.rotate_left(r);
    items
}

pub const ANSWER_LINE: &str = "End with a line \"Answer: <number>\".";

/// The task text of an order.
pub fn prompt(items: &[Item]) -> String {
    let mut s = String::from("Find the total cost of this order:\n");
    for it in items {
        s.push_str(&format!("- {}.\n", it.text()));
    }
    s.push_str(ANSWER_LINE);
    s
}

/// The built-in split: `train` (40 tasks, for learning) or `test` (30,
/// as the paper tests on).
pub fn tasks(split: Split) -> Vec<Task> {
    let (n, base) = match split {
        Split::Train => (40, 1_000),
        Split::Test => (30, 9_000),
    };
    (0..n)
        .map(|i| {
            let items = order(base + i as u64);
            Task {
                dataset: Dataset::Builtin,
                id: format!("builtin:{}:{i}", split.id()),
                prompt: prompt(&items),
                gold: Gold::Number(items.iter().map(Item::cost).sum()),
            }
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    Train,
    Test,
}

impl Split {
    pub fn id(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Test => "test",
        }
    }
}

/// An imported task in the built-in shape: `{"prompt", "answer": number}`.
pub fn task_from_json(v: &Value, n: usize) -> Result<Task, String> {
    let prompt = super::text_field(v, "prompt")?;
    let answer = v
        .get("answer")
        .and_then(Value::as_f64)
        .ok_or("no numeric \"answer\"")?;
    Ok(Task {
        dataset: Dataset::Builtin,
        id: v
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("imported:{n}")),
        prompt: prompt.trim().to_string(),
        gold: Gold::Number(answer),
    })
}

/// The line items written in a text (an order, or one line of it), read
/// back: `<qty> <name> at $<price> each[, <deal>]`.
pub fn parse_items(text: &str) -> Vec<Item> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(at) = line.find(" at $") else {
            continue;
        };
        let head: Vec<&str> = line[..at].split_whitespace().collect();
        let Some(qty_pos) = head.iter().rposition(|w| w.parse::<u32>().is_ok()) else {
            continue;
        };
        let Ok(qty) = head[qty_pos].parse::<u32>() else {
            continue;
        };
        let name = head[qty_pos + 1..].join(" ");
        let rest = &line[at + 5..];
        let price_text: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let Ok(price) = price_text.trim_end_matches('.').parse::<f64>() else {
            continue;
        };
        let lower = rest.to_lowercase();
        let deal = if let Some(i) = lower.find("buy ") {
            lower[i + 4..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse::<u32>().ok())
                .map_or(Deal::None, Deal::BuyGetFree)
        } else if let Some(i) = lower.find("% off") {
            let digits: String = lower[..i]
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            digits.parse::<u32>().map_or(Deal::None, Deal::PercentOff)
        } else if lower.contains("half price") {
            Deal::SecondHalf
        } else {
            Deal::None
        };
        if name.is_empty() {
            continue;
        }
        out.push(Item {
            qty,
            name,
            price,
            deal,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deals_cost_what_they_say() {
        let it = |qty, price, deal| Item {
            qty,
            name: "x".into(),
            price,
            deal,
        };
        assert_eq!(it(10, 2.0, Deal::BuyGetFree(4)).cost(), 16.0);
        assert_eq!(it(7, 3.0, Deal::BuyGetFree(2)).cost(), 15.0);
        assert_eq!(it(10, 5.0, Deal::PercentOff(20)).cost(), 40.0);
        assert_eq!(it(5, 4.0, Deal::SecondHalf).cost(), 16.0);
        assert_eq!(it(5, 4.0, Deal::None).cost(), 20.0);
    }

    #[test]
    fn the_splits_are_deterministic_distinct_and_read_back() {
        let train = tasks(Split::Train);
        let test = tasks(Split::Test);
        assert_eq!((train.len(), test.len()), (40, 30));
        assert_eq!(train, tasks(Split::Train));
        for t in train.iter().chain(&test) {
            let items = parse_items(&t.prompt);
            assert!((2..=3).contains(&items.len()), "{}", t.prompt);
            assert!(items.iter().any(|i| i.deal != Deal::None), "{}", t.prompt);
            let total: f64 = items.iter().map(Item::cost).sum();
            assert_eq!(t.gold, Gold::Number(total), "{}", t.prompt);
            assert_eq!(total.fract(), 0.0, "a whole total: {}", t.prompt);
            // Overlooking a deal changes the answer.
            let careless: f64 = items.iter().map(Item::cost_without_deal).sum();
            assert_ne!(careless, total, "{}", t.prompt);
            assert_eq!(t.score(&format!("Answer: {total}")), 1.0);
        }
        assert!(train
            .iter()
            .all(|a| test.iter().all(|b| a.prompt != b.prompt)));
        // Every kind of deal appears in both splits.
        for split in [&train, &test] {
            let deals: Vec<Deal> = split
                .iter()
                .flat_map(|t| parse_items(&t.prompt))
                .map(|i| i.deal)
                .collect();
            assert!(deals.iter().any(|d| matches!(d, Deal::BuyGetFree(_))));
            assert!(deals.iter().any(|d| matches!(d, Deal::PercentOff(_))));
            assert!(deals.iter().any(|d| matches!(d, Deal::SecondHalf)));
        }
    }

    #[test]
    fn single_lines_and_imports_are_read() {
        let items =
            parse_items("Find the cost of 10 pens at $2 each, with a \"buy 4, get 1 free\" offer.");
        assert_eq!(items.len(), 1);
        assert_eq!(
            (items[0].qty, items[0].deal, items[0].cost()),
            (10, Deal::BuyGetFree(4), 16.0)
        );
        assert!(parse_items("no items here").is_empty());
        let t = task_from_json(
            &serde_json::json!({"prompt": "2 mugs at $6 each", "answer": 12}),
            3,
        )
        .expect("task");
        assert_eq!(
            (t.id.as_str(), t.gold.clone()),
            ("imported:3", Gold::Number(12.0))
        );
        assert!(task_from_json(&serde_json::json!({"prompt": "x", "answer": "12"}), 0).is_err());
    }
}
