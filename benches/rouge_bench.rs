//! ROUGE scoring throughput (release): a 420-word output (21 lines of 20
//! words) against 16-word references, all four ROUGE types, in pairs per
//! second, stemming off and on. Two ways: `rouge::score` tokenizing both
//! texts every time, and a `Prediction` prepared once and scored against
//! each reference (how a coordinator scores one output against many
//! references). Prints medians of 7 rounds. Run with `make bench`.

use roundtable::engine::domains::rouge::{score, Prediction};
use std::hint::black_box;
use std::time::Instant;

/// Words with the suffixes the stemmer works on, and short ones it skips.
const VOCAB: &[&str] = &[
    "the",
    "a",
    "of",
    "and",
    "to",
    "in",
    "is",
    "was",
    "for",
    "on",
    "with",
    "by",
    "at",
    "it",
    "running",
    "runner",
    "runs",
    "ran",
    "generously",
    "generous",
    "conditional",
    "conditions",
    "happiness",
    "happy",
    "electricity",
    "electrical",
    "oscillators",
    "oscillating",
    "nation",
    "national",
    "relational",
    "relations",
    "hopefully",
    "hopeful",
    "controlling",
    "controlled",
    "adoption",
    "adopted",
    "agreed",
    "agreement",
    "ponies",
    "skies",
    "dying",
    "news",
    "stories",
    "storyteller",
    "writing",
    "written",
    "characters",
    "character",
    "dragon",
    "dragons",
    "castle",
    "knights",
    "knight",
    "queen",
    "kingdom",
    "kingdoms",
    "river",
    "rivers",
    "mountain",
    "mountains",
    "journey",
    "journeys",
    "travelled",
    "travelling",
    "ocean",
    "oceans",
    "gulf",
    "capital",
    "capitals",
    "city",
    "cities",
    "famous",
    "famously",
    "invented",
    "invention",
    "inventor",
    "scientist",
    "scientific",
    "discovered",
    "discovery",
    "painting",
    "painted",
    "painter",
    "musician",
    "musical",
    "founded",
    "founder",
    "foundation",
    "peppers",
    "medal",
    "medals",
    "gymnastics",
    "youngest",
    "winner",
    "winning",
    "silver",
    "golden",
    "novel",
    "novels",
    "author",
    "authors",
    "published",
    "publishing",
    "century",
    "centuries",
    "battle",
    "battles",
    "emperor",
    "empire",
    "empires",
    "ancient",
    "modern",
    "quickly",
    "slowly",
    "beautiful",
    "beautifully",
    "darkness",
    "brightness",
    "singing",
    "singer",
    "songs",
];

/// A deterministic pseudo-random stream (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn words(rng: &mut Rng, n: usize) -> Vec<&'static str> {
    (0..n).map(|_| VOCAB[rng.below(VOCAB.len())]).collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let output: String = (0..21)
        .map(|_| {
            let mut line = words(&mut rng, 20).join(" ");
            line.push('.');
            line
        })
        .collect::<Vec<_>>()
        .join("\n");
    let references: Vec<String> = (0..200)
        .map(|_| {
            let mut s = words(&mut rng, 16).join(" ");
            s[..1].make_ascii_uppercase();
            s.push('?');
            s
        })
        .collect();
    assert_eq!(output.split_whitespace().count(), 420);

    for stem in [false, true] {
        let label = if stem { "stemming on " } else { "stemming off" };
        let mut one_off = Vec::new();
        let mut prepared = Vec::new();
        let mut checksum = 0.0;
        for _ in 0..7 {
            let t = Instant::now();
            let mut pairs = 0usize;
            while t.elapsed().as_secs_f64() < 0.3 {
                for r in &references {
                    checksum += black_box(score(r, &output, stem)).rouge_lsum.fmeasure;
                }
                pairs += references.len();
            }
            one_off.push(pairs as f64 / t.elapsed().as_secs_f64());

            let t = Instant::now();
            let mut pairs = 0usize;
            while t.elapsed().as_secs_f64() < 0.3 {
                let p = Prediction::new(black_box(&output), stem);
                for r in &references {
                    checksum += black_box(p.score(r)).rouge_lsum.fmeasure;
                }
                pairs += references.len();
            }
            prepared.push(pairs as f64 / t.elapsed().as_secs_f64());
        }
        println!(
            "ROUGE 1/2/L/Lsum, 420-word output × 16-word references, {label}: \
             {:.0} pairs/s one-off (rouge::score), {:.0} pairs/s with the output prepared once \
             per 200 references (Prediction) (checksum {checksum:.3})",
            median(one_off),
            median(prepared)
        );
    }
}
