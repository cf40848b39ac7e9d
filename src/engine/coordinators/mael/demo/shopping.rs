//! The demo team's arithmetic on shopping lines, written out as a careful
//! or a careless solver would, and its fixed rules (which lines the
//! hurried critic looks at closely).

use crate::engine::domains::tasks::builtin::{Deal, Item};
use crate::engine::domains::tasks::gsm8k::{final_number, format_number};

/// How a line is priced this time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pricing {
    /// The deal is overlooked (the slip).
    Careless,
    /// The deal is applied; the reason is named in the solution.
    Careful(&'static str),
}

/// The same kind of deal (the numbers may differ).
pub fn same_kind(a: Deal, b: Deal) -> bool {
    std::mem::discriminant(&a) == std::mem::discriminant(&b)
}

/// The final number of a solution.
pub fn number_in(text: &str) -> Option<f64> {
    final_number(text)
}

pub fn deal_words(d: Deal) -> &'static str {
    match d {
        Deal::None => "price",
        Deal::BuyGetFree(_) => "\"get 1 free\" offer",
        Deal::PercentOff(_) => "percentage off",
        Deal::SecondHalf => "half price on every second one",
    }
}

fn money(x: f64) -> String {
    format!("${}", format_number(x))
}

/// One line's solution text and cost.
pub fn line_solution(item: &Item, pricing: Pricing) -> (String, f64) {
    let base = item.cost_without_deal();
    let head = format!("{} {} at {} each", item.qty, item.name, money(item.price));
    match (item.deal, pricing) {
        (Deal::None, _) | (_, Pricing::Careless) => (
            format!(
                "{head}: {} × {} = {}.",
                item.qty,
                money(item.price),
                money(base)
            ),
            base,
        ),
        (deal, Pricing::Careful(because)) => {
            let cost = item.cost();
            let how = match deal {
                Deal::BuyGetFree(n) => {
                    let free = item.qty / (n + 1);
                    format!(
                        "every {} items, 1 is free, so {free} of the {} are free and I pay for {}: {} × {} = {}",
                        n + 1,
                        item.qty,
                        item.qty - free,
                        item.qty - free,
                        money(item.price),
                        money(cost)
                    )
                }
                Deal::PercentOff(p) => format!(
                    "{} × {} = {}, minus {p}% = {}",
                    item.qty,
                    money(item.price),
                    money(base),
                    money(cost)
                ),
                Deal::SecondHalf => {
                    let halves = item.qty / 2;
                    format!(
                        "{halves} of the {} are at half price: {} − {halves} × {} = {}",
                        item.qty,
                        money(base),
                        money(item.price / 2.0),
                        money(cost)
                    )
                }
                Deal::None => String::new(),
            };
            (
                format!("{head}, with the deal (as {because} shows): {how}."),
                cost,
            )
        }
    }
}

/// Whether the hurried critic looks closely at this line: a fixed third
/// of the lines (by a hash of the text), the same every run.
pub fn attention(line: &str) -> bool {
    let mut h: u32 = 2166136261;
    for b in line.trim().bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(16777619);
    }
    h % 3 == 0
}

/// A sentence with every concept (the demo's CommonGen text).
pub fn sentence(concepts: &[String]) -> String {
    match concepts {
        [] => String::new(),
        [one] => format!("There was a {one}."),
        _ => format!(
            "In one busy scene there was a {} and a {}.",
            concepts[..concepts.len() - 1].join(", a "),
            concepts[concepts.len() - 1]
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn careless_lines_overlook_the_deal_and_careful_ones_apply_it() {
        let item = Item {
            qty: 10,
            name: "pens".into(),
            price: 2.0,
            deal: Deal::BuyGetFree(4),
        };
        let (text, cost) = line_solution(&item, Pricing::Careless);
        assert_eq!(cost, 20.0);
        assert_eq!(number_in(&text), Some(20.0));
        let (text, cost) = line_solution(&item, Pricing::Careful("the feedback"));
        assert_eq!(cost, 16.0);
        assert_eq!(number_in(&text), Some(16.0), "{text}");
        assert!(text.contains("the feedback"));
        for deal in [Deal::PercentOff(20), Deal::SecondHalf] {
            let it = Item {
                deal,
                ..item.clone()
            };
            let (text, cost) = line_solution(&it, Pricing::Careful("x"));
            assert_eq!(number_in(&text), Some(cost), "{text}");
            assert_eq!(cost, it.cost());
        }
        assert!(same_kind(Deal::BuyGetFree(2), Deal::BuyGetFree(4)));
        assert!(!same_kind(Deal::BuyGetFree(2), Deal::SecondHalf));
    }
}
