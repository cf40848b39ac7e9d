//! The retrieval benchmark in headless Chromium: top-1 over a 50,000-entry
//! × 384-dim pool (`experience::bench_pool`, the same pool and queries as
//! the native `benches/mael_bench.rs`), compiled as the app is (release:
//! size-optimised, LTO). `make bench` runs it and prints the median; the
//! hits are checked against a plain scan, so a wrong fast path fails.
//! Not part of `make test` (it times, it does not test behaviour).
#![cfg(target_arch = "wasm32")]

use roundtable::engine::coordinators::mael::contract::Scoring;
use roundtable::engine::coordinators::mael::experience::{bench_pool, score};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

#[wasm_bindgen_test]
fn top_1_over_50000_entries_of_384_dims() {
    const N: usize = 50_000;
    const DIMS: usize = 384;
    let (pool, queries) = bench_pool(N, DIMS, 31);
    let scoring = Scoring::default();
    let mut times = Vec::new();
    for q in &queries {
        let t = now();
        let hits = pool.rank(q, &scoring, 1, |_| true);
        times.push(now() - t);
        // The same answer as a plain scan (score, then reward, then index).
        let best = (0..pool.len())
            .map(|i| {
                let sim: f32 = pool.vector(i).iter().zip(q).map(|(a, b)| a * b).sum();
                (score(sim as f64, pool.entries[i].reward, &scoring), i)
            })
            .fold((f64::MIN, 0), |a, b| if b.0 > a.0 + 1e-6 { b } else { a });
        assert_eq!(hits.len(), 1);
        assert!(
            hits[0].index == best.1 || (hits[0].score - best.0).abs() < 1e-5,
            "top-1 {} ({}) vs plain scan {} ({})",
            hits[0].index,
            hits[0].score,
            best.1,
            best.0
        );
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let line = format!(
        "MAEL retrieval: top-1 over {N} entries × {DIMS} dims, in Chromium (wasm, release): median {:.2} ms over {} queries",
        times[times.len() / 2],
        times.len()
    );
    console_log!("{line}");
}
