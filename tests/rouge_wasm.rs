//! ROUGE scoring throughput in headless Chromium (wasm, release, as the app
//! is built): a 420-word output against 200 references of 16 words, all
//! four ROUGE types, the output prepared once (`Prediction`, how ACT scores
//! a deliverable), stemming off and on; the scores are checked against
//! the one-off `rouge::score`, so a wrong fast path fails. `make bench`
//! runs it and prints pairs per second. Not part of `make test` (it times,
//! it does not test behaviour).
#![cfg(target_arch = "wasm32")]

use roundtable::engine::domains::rouge::{score, Prediction};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const VOCAB: &[&str] = &[
    "the",
    "a",
    "of",
    "and",
    "to",
    "tea",
    "brewing",
    "leaves",
    "oolong",
    "rooibos",
    "gaiwan",
    "steeping",
    "water",
    "temperature",
    "morning",
    "caffeine",
    "relaxing",
    "evening",
    "kitchen",
    "lighting",
    "layered",
    "warm",
    "designs",
    "spaces",
    "ventilation",
    "thermal",
    "materials",
    "wardrobe",
    "fibres",
    "tailored",
    "customers",
    "offerings",
    "service",
    "menus",
];

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

fn text(seed: &mut u64, words: usize) -> String {
    (0..words)
        .map(|i| {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let w = VOCAB[(*seed >> 33) as usize % VOCAB.len()];
            if i % 20 == 19 {
                format!("{w}\n")
            } else {
                format!("{w} ")
            }
        })
        .collect()
}

#[wasm_bindgen_test]
fn rouge_pairs_per_second() {
    let mut seed = 7u64;
    let output = text(&mut seed, 420);
    let refs: Vec<String> = (0..200).map(|_| text(&mut seed, 16)).collect();
    // Warm-up: the first calls run before the engine has optimised the code.
    for stem in [false, true, false, true] {
        let p = Prediction::new(&output, stem);
        for r in &refs {
            std::hint::black_box(p.score(r));
        }
    }
    for stem in [false, true] {
        let mut rates = Vec::new();
        for _ in 0..7 {
            let t = now();
            let p = Prediction::new(&output, stem);
            let mut sum = 0.0;
            for r in &refs {
                sum += p.score(r).rouge_l.recall;
            }
            let ms = (now() - t).max(1e-3);
            rates.push(refs.len() as f64 / ms * 1000.0);
            assert!(sum > 0.0);
        }
        for r in refs.iter().take(5) {
            assert_eq!(
                Prediction::new(&output, stem).score(r),
                score(r, &output, stem)
            );
        }
        rates.sort_by(|a, b| a.total_cmp(b));
        console_log!(
            "ROUGE 1/2/L/Lsum in Chromium (wasm, release), 420-word output × 16-word references, stemming {}: {:.0} pairs/s (output prepared once)",
            if stem { "on" } else { "off" },
            rates[rates.len() / 2]
        );
    }
}
