//! Verdict parity with the official TravelPlanner evaluator on the shared
//! fixtures (/work/shared/travelplanner, or $ROUNDTABLE_SHARED/travelplanner).
//! Tests named `shared_*` need that data and panic loudly without it.

use roundtable::engine::domains::travel::eval::parity::{case_input, compare_with_official};
use roundtable::engine::domains::travel::{
    aggregate, evaluate, parse_queries_jsonl, Check, PlanEvaluation, Query, TravelDb,
};
use serde_json::Value;
use std::path::PathBuf;

fn travelplanner_dir() -> PathBuf {
    let base = std::env::var("ROUNDTABLE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = base.join("travelplanner");
    assert!(
        dir.join("eval_cases_public.jsonl").is_file() && dir.join("database").is_dir(),
        "the shared TravelPlanner data is missing: expected {} (set ROUNDTABLE_SHARED to the folder holding travelplanner/)",
        dir.display()
    );
    dir
}

fn load() -> (TravelDb, Vec<Query>, Vec<Value>) {
    let dir = travelplanner_dir();
    let db = TravelDb::from_dir(&dir.join("database")).expect("database loads");
    let queries_text = std::fs::read_to_string(dir.join("train_queries.jsonl")).expect("queries");
    let queries = parse_queries_jsonl(&queries_text, "train_queries.jsonl").expect("queries parse");
    let cases = std::fs::read_to_string(dir.join("eval_cases_public.jsonl"))
        .expect("cases")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("case is JSON"))
        .collect();
    (db, queries, cases)
}

fn evaluate_case(db: &TravelDb, queries: &[Query], case: &Value) -> (Query, PlanEvaluation) {
    let (q, plan) = case_input(case, queries).expect("the case's query and plan");
    let e = evaluate(db, &q, &plan);
    (q, e)
}

#[test]
fn shared_public_cases_match_official_verdicts() {
    let (db, queries, cases) = load();
    assert_eq!(cases.len(), 225);
    let mut compared = 0usize;
    let mut mismatches = Vec::new();
    for case in &cases {
        let (_, e) = evaluate_case(&db, &queries, case);
        let c = compare_with_official(case, &e);
        compared += c.compared;
        mismatches.extend(c.mismatches);
    }
    println!("compared {compared} verdicts over {} cases", cases.len());
    assert!(
        mismatches.is_empty(),
        "{} of {compared} verdicts differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn shared_gold_plans_pass_every_check() {
    let (db, queries, _) = load();
    assert_eq!(queries.len(), 45);
    let mut evals = Vec::new();
    for q in &queries {
        let plan = q.annotated_plan.as_ref().expect("gold plan");
        let e = evaluate(&db, q, plan);
        for check in Check::COMMONSENSE.into_iter().chain(Check::HARD) {
            let v = e.verdict(check).expect("verdict present");
            assert_ne!(
                v.pass,
                Some(false),
                "query {} {}: {:?}",
                q.idx,
                check.key(),
                v.message
            );
        }
        evals.push(e);
    }
    let items: Vec<(&Query, &PlanEvaluation)> = queries.iter().zip(&evals).collect();
    let s = aggregate(&items);
    assert_eq!(s.final_passed, 45);
    assert_eq!((s.commonsense_total, s.hard_total), (360, 105));
    assert_eq!(s.commonsense_passed, 360);
    assert_eq!(s.hard_passed, 105);
    assert!((s.final_rate() - 1.0).abs() < 1e-12);
}

#[test]
fn shared_database_row_counts_after_official_filtering() {
    let dir = travelplanner_dir().join("database");
    let db = TravelDb::from_dir(&dir).expect("database loads");
    let s = &db.stats;
    assert_eq!(
        (s.accommodations.read, s.accommodations.dropped),
        (5047, 762)
    );
    assert_eq!(db.accommodations.len(), 4285);
    assert_eq!((s.attractions.read, s.attractions.dropped), (5302, 0));
    assert_eq!((s.restaurants.read, s.restaurants.dropped), (9551, 0));
    assert_eq!((s.flights.read, s.flights.dropped), (313, 0));
    assert_eq!(db.roads.len(), 17602);
    assert_eq!(db.cities.len(), 312);
    // The same files through the contents-based loader (as the browser does it).
    let mut files = Vec::new();
    for rel in [
        "accommodations/clean_accommodations_2022.csv",
        "attractions/attractions.csv",
        "restaurants/clean_restaurant_2022.csv",
        "googleDistanceMatrix/distance.csv",
        "background/citySet_with_states.txt",
        "flights/flights_train_subset.csv",
    ] {
        let text = std::fs::read_to_string(dir.join(rel)).expect("file");
        files.push((format!("database/{rel}"), text));
    }
    let again = TravelDb::from_files(&files).expect("loads from contents");
    assert_eq!(again.stats, db.stats);
}
