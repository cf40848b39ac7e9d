//! The critique step: a yes/no written as text is mapped and flagged; an
//! unreadable critique is asked again once, and never passed as adequate.

use super::{calls, demo_but, repairs_of, run_three_lines};
use crate::common::*;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::run::RunStatus;
use serde_json::Value;

#[test]
fn a_critique_that_writes_false_as_text_is_not_adequate() {
    // The old reader took {"adequate": "false"} as adequate.
    let critic = demo_but(STEP_CRITIQUE, |_| {
        r#"{"adequate": "false", "feedback": "Check the offer."}"#.into()
    });
    let (status, events) = run_three_lines(critic, |o| {
        o.learn = false;
        o.max_rounds = 1;
    });
    assert_eq!(status, RunStatus::Finished);
    let critiques: Vec<Value> = notes(&events, STORE_CRITIQUE);
    assert!(!critiques.is_empty());
    assert!(
        critiques.iter().all(|c| c["adequate"] == false),
        "{critiques:?}"
    );
    let solutions: Vec<SolutionRecord> = notes(&events, STORE_SOLUTION);
    assert_eq!(
        solutions.iter().filter(|s| s.version > 0).count(),
        critiques.len(),
        "every solution goes back for a refinement"
    );
    // Each critique reply is flagged once, as a mapped shape.
    let flagged = repairs_of(&events, STEP_CRITIQUE);
    assert_eq!(flagged.len(), critiques.len());
    assert!(
        flagged.iter().all(|k| k == &[RepairKind::Shape]),
        "{flagged:?}"
    );

    // "TRUE" / "yes" are adequate, also flagged.
    let critic = demo_but(STEP_CRITIQUE, |n| {
        format!(
            r#"{{"adequate": "{}"}}"#,
            if n % 2 == 0 { "TRUE" } else { "yes" }
        )
    });
    let (_, events) = run_three_lines(critic, |o| o.learn = false);
    let critiques: Vec<Value> = notes(&events, STORE_CRITIQUE);
    assert!(!critiques.is_empty(), "the critique step never ran");
    assert!(critiques.iter().all(|c| c["adequate"] == true));
    let flagged = repairs_of(&events, STEP_CRITIQUE);
    assert!(!flagged.is_empty(), "no critique call");
    assert!(flagged.iter().all(|k| k == &[RepairKind::Shape]));
}

#[test]
fn an_unreadable_critique_is_asked_again_once_and_never_passed_as_adequate() {
    let critic = demo_but(STEP_CRITIQUE, |_| "Looks adequate to me.".into());
    let (status, events) = run_three_lines(critic, |o| {
        o.learn = false;
        o.max_rounds = 1;
    });
    assert_eq!(status, RunStatus::Finished);
    let critiques: Vec<Value> = notes(&events, STORE_CRITIQUE);
    assert!(!critiques.is_empty());
    assert!(
        critiques.iter().all(|c| c["adequate"] == false),
        "the default is not adequate: {critiques:?}"
    );
    // Two calls per critique: the first flagged "asked again", the second
    // (with a reminder of the JSON) flagged "default used".
    let critique_calls: Vec<_> = calls(&events)
        .into_iter()
        .filter(|c| c.1 == STEP_CRITIQUE)
        .collect();
    assert_eq!(critique_calls.len(), 2 * critiques.len());
    let reminded = critique_calls
        .iter()
        .filter(|c| {
            c.2.last_user()
                .is_some_and(|u| u.contains("could not be read") && u.contains("\"adequate\""))
        })
        .count();
    assert_eq!(reminded, critiques.len());
    let flagged = repairs_of(&events, STEP_CRITIQUE);
    let asked = flagged
        .iter()
        .filter(|k| k == &&[RepairKind::AskedAgain])
        .count();
    let defaulted = flagged
        .iter()
        .filter(|k| k == &&[RepairKind::Default])
        .count();
    assert_eq!((asked, defaulted), (critiques.len(), critiques.len()));
    // A second reply that reads is used (and the first still flagged).
    let critic = demo_but(STEP_CRITIQUE, |n| {
        if n % 2 == 0 {
            "Looks adequate to me.".into()
        } else {
            r#"{"adequate": true, "feedback": ""}"#.into()
        }
    });
    let (_, events) = run_three_lines(critic, |o| o.learn = false);
    let critiques: Vec<Value> = notes(&events, STORE_CRITIQUE);
    // (0 == 2 · 0 would pass if the step never ran.)
    assert!(!critiques.is_empty(), "the critique step never ran");
    assert!(critiques.iter().all(|c| c["adequate"] == true));
    let flagged = repairs_of(&events, STEP_CRITIQUE);
    assert_eq!(flagged.len(), 2 * critiques.len());
    assert!(flagged
        .chunks(2)
        .all(|p| p[0] == [RepairKind::AskedAgain] && p[1].is_empty()));
}
