//! The evaluator's ratings: a score in prose is the last explicit one,
//! clamped to the scale; a rating cut off right after its number is not
//! rated, and its sub-solution is not stored.

use super::{demo_but, evaluator_scores, repairs_of, run_three_lines, run_three_lines_learning};
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::run::RunStatus;
use serde_json::Value;

#[test]
fn a_score_in_prose_is_the_last_explicit_one_and_clamped_to_the_scale() {
    // The old fallback took the first number: 0.3 here.
    let evaluator = demo_but(STEP_EVALUATE, |_| {
        "In step 3 the total is right … 9/10".into()
    });
    let (status, events) = run_three_lines(evaluator, |_| {});
    assert_eq!(status, RunStatus::Finished);
    let scores = evaluator_scores(&events);
    assert!(!scores.is_empty());
    assert!(scores.iter().all(|s| s.as_f64() == Some(0.9)), "{scores:?}");
    assert!(repairs_of(&events, STEP_EVALUATE)
        .iter()
        .all(|k| k == &[RepairKind::Shape]));

    let evaluator = demo_but(STEP_EVALUATE, |_| {
        r#"{"score": 12, "reason": "great"}"#.into()
    });
    let (_, events) = run_three_lines(evaluator, |_| {});
    let scores = evaluator_scores(&events);
    assert!(!scores.is_empty(), "the evaluator never ran");
    assert!(scores.iter().all(|s| s.as_f64() == Some(1.0)), "{scores:?}");
    let flagged = repairs_of(&events, STEP_EVALUATE);
    assert!(!flagged.is_empty(), "no evaluator call");
    assert!(flagged.iter().all(|k| k == &[RepairKind::Clamped]));
}

#[test]
fn a_rating_cut_off_right_after_its_number_is_not_rated() {
    // `{"score": 1` may be 10 cut short: the old text fallback read it
    // from the cut JSON as 1, and the solution was stored as rated 0.1.
    let evaluator = demo_but(STEP_EVALUATE, |_| r#"{"score": 1"#.into());
    let (status, events, memory) = run_three_lines_learning(evaluator, |_| {});
    assert_eq!(status, RunStatus::Finished);
    let scores = evaluator_scores(&events);
    assert!(!scores.is_empty(), "the evaluator never ran");
    assert!(scores.iter().all(Value::is_null), "{scores:?}");
    let flagged = repairs_of(&events, STEP_EVALUATE);
    assert_eq!(flagged.len(), 2 * scores.len());
    assert!(
        flagged
            .chunks(2)
            .all(|p| p[0] == [RepairKind::AskedAgain] && p[1] == [RepairKind::Default]),
        "{flagged:?}"
    );
    // No sub-solution's solve is stored: its reward needs its rating.
    let pool = memory.pool.borrow();
    assert!(!pool.is_empty());
    assert!(
        pool.entries
            .iter()
            .all(|e| !(e.step == StepKind::Solve && e.depth > 0)),
        "a sub-solution stored with an unmeasured reward"
    );
}
