//! The TravelPlanner evaluator in headless Chromium (wasm, compiled as the
//! app is): every public parity case evaluated per pass, each verdict
//! compared with the official evaluator's, plans per second printed (median
//! of the passes) against the official evaluator's 7.4 plans/s.
//! `make bench` runs it (`e2e/travel-eval-wasm.mjs` serves the shared data
//! on 127.0.0.1 and sets ROUNDTABLE_TRAVEL_BUNDLE_URL at build time).
//! Not part of `make test` (it times; the parity itself is the native
//! `shared_public_cases_match_official_verdicts`).
#![cfg(target_arch = "wasm32")]

use roundtable::engine::domains::travel::eval::parity::{case_input, compare_with_official};
use roundtable::engine::domains::travel::{evaluate, parse_queries_jsonl, TravelDb};
use roundtable::platform::fetch::get_text;
use serde_json::Value;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Plans per second of the official evaluator (Python), as the issue measured it.
const OFFICIAL_PLANS_PER_S: f64 = 7.4;
const PASSES: usize = 9;

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

#[wasm_bindgen_test]
async fn every_public_case_in_the_browser() {
    let Some(url) = option_env!("ROUNDTABLE_TRAVEL_BUNDLE_URL") else {
        panic!("ROUNDTABLE_TRAVEL_BUNDLE_URL was not set at build time: run this through `make bench` (e2e/travel-eval-wasm.mjs)");
    };
    let bundle: Value =
        serde_json::from_str(&get_text(url).await.expect("the bundle")).expect("bundle JSON");
    let files: Vec<(String, String)> =
        serde_json::from_value(bundle["files"].clone()).expect("database files");
    let t = now();
    let db = TravelDb::from_files(&files).expect("the database loads");
    let load_ms = now() - t;
    let queries = parse_queries_jsonl(
        bundle["queries"].as_str().expect("queries"),
        "train_queries.jsonl",
    )
    .expect("queries parse");
    let cases: Vec<Value> = bundle["cases"]
        .as_str()
        .expect("cases")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a case is JSON"))
        .collect();
    let inputs: Vec<_> = cases
        .iter()
        .map(|c| case_input(c, &queries).expect("the case's query and plan"))
        .collect();

    let mut rates = Vec::with_capacity(PASSES);
    for pass in 0..PASSES {
        let t = now();
        let evaluations: Vec<_> = inputs.iter().map(|(q, p)| evaluate(&db, q, p)).collect();
        rates.push(inputs.len() as f64 / ((now() - t) / 1e3));
        if pass == 0 {
            let (mut compared, mut mismatches) = (0, Vec::new());
            for (case, e) in cases.iter().zip(&evaluations) {
                let c = compare_with_official(case, e);
                compared += c.compared;
                mismatches.extend(c.mismatches);
            }
            assert!(
                mismatches.is_empty(),
                "{} of {compared} verdicts differ from the official evaluator's:\n{}",
                mismatches.len(),
                mismatches.join("\n")
            );
            console_log!(
                "TravelPlanner evaluation in Chromium (wasm, release): {} cases, {compared} verdicts identical to the official evaluator's; database load {load_ms:.0} ms",
                cases.len()
            );
        }
    }
    rates.sort_by(|a, b| a.total_cmp(b));
    let median = rates[rates.len() / 2];
    console_log!(
        "  throughput (median of {PASSES} passes) {median:.0} plans/s = {:.0}× the official evaluator's {OFFICIAL_PLANS_PER_S} plans/s   goal ≥ 30×: {}",
        median / OFFICIAL_PLANS_PER_S,
        if median >= 30.0 * OFFICIAL_PLANS_PER_S { "met" } else { "NOT met" }
    );
    console_log!(
        "BENCH travel_eval_wasm plans_per_s={median:.1} cases={}",
        cases.len()
    );
}
