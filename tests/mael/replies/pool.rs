//! What stays out of the experience pool: a step that took its stated
//! default, and a sub-solution whose score could not be read (each noted
//! as not stored, with why).

use super::{calls, demo_but, evaluator_scores, repairs_of, run_three_lines_learning};
use crate::common::*;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::experience::Experience;
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::run::RunStatus;
use serde_json::Value;

#[test]
fn a_step_that_took_its_default_never_enters_the_pool() {
    // An unreadable reply is the step's output; when the step took its
    // stated default, that reply went into the pool with a measured
    // reward, and retrieval served it as a worked example.
    const MARK: &str = "GARBLED-7Q";
    let cases: [(&str, StepKind, &str); 3] = [
        (STEP_JUDGE, StepKind::Judge, "hmm, I would decompose this"),
        (
            STEP_DECOMPOSE,
            StepKind::Decompose,
            "Let me think about it.",
        ),
        (STEP_CRITIQUE, StepKind::Critique, "Looks adequate to me."),
    ];
    for (step, kind, reply) in cases {
        let model = demo_but(step, move |_| format!("{reply} {MARK}"));
        let (status, events, memory) = run_three_lines_learning(model, |o| o.max_rounds = 1);
        assert_eq!(status, RunStatus::Finished, "{step}");
        let asked = calls(&events).iter().filter(|c| c.1 == step).count();
        assert!(asked > 0, "{step} never ran");
        assert!(
            repairs_of(&events, step)
                .iter()
                .any(|k| k.contains(&RepairKind::Default)),
            "{step}: no default taken"
        );
        // Nothing with the unreadable reply in the pool or its record.
        let pool = memory.pool.borrow();
        assert!(!pool.is_empty(), "{step}: the run learned nothing");
        assert!(
            pool.entries.iter().all(|e| !e.output.contains(MARK)),
            "{step}: an unreadable reply was stored"
        );
        assert!(pool.entries.iter().all(|e| e.step != kind), "{step}");
        let exps: Vec<Experience> = notes(&events, STORE_EXPERIENCE);
        assert!(exps.iter().all(|e| !e.output.contains(MARK)), "{step}");
        // Each such step is noted as not stored, with why.
        let unlearned: Vec<Value> = notes(&events, "unlearned");
        let named: Vec<&Value> = unlearned
            .iter()
            .filter(|u| u["step"] == serde_json::json!(kind))
            .collect();
        let taken = notes::<Value>(
            &events,
            match kind {
                StepKind::Judge => STORE_JUDGEMENT,
                StepKind::Decompose => STORE_DECOMPOSITION,
                _ => STORE_CRITIQUE,
            },
        )
        .len();
        assert!(taken > 0, "{step}");
        assert_eq!(named.len(), taken, "{step}: {unlearned:?}");
        assert!(
            named.iter().all(|u| u["reason"]
                .as_str()
                .is_some_and(|r| r.contains("could not be read") && r.contains("default"))),
            "{step}: {named:?}"
        );
    }
}

#[test]
fn an_unread_score_never_reaches_the_pool_as_a_reward() {
    let evaluator = demo_but(STEP_EVALUATE, |_| "no idea".into());
    let (status, events, memory) = run_three_lines_learning(evaluator, |_| {});
    assert_eq!(status, RunStatus::Finished);
    // Every sub-solution's rating was asked twice, then recorded unrated.
    let scores = evaluator_scores(&events);
    assert!(!scores.is_empty());
    assert!(scores.iter().all(Value::is_null), "{scores:?}");
    let flagged = repairs_of(&events, STEP_EVALUATE);
    assert_eq!(flagged.len(), 2 * scores.len());
    assert!(flagged
        .chunks(2)
        .all(|p| p[0] == [RepairKind::AskedAgain] && p[1] == [RepairKind::Default]));
    // The pool holds only steps whose reward was measured: the root's
    // aggregate (the metric). No solve of a subtask, no split, no
    // critique (approving or refining, its reward needs a sub-solution's
    // rating).
    let pool = memory.pool.borrow();
    let exps: Vec<Experience> = notes(&events, STORE_EXPERIENCE);
    assert_eq!(pool.len(), exps.len());
    assert_eq!(result(&events).learned, pool.len());
    let score = result(&events).score;
    for e in &pool.entries {
        match e.step {
            StepKind::Aggregate => assert_eq!((e.depth, e.reward), (0, score)),
            other => panic!(
                "{other:?} was stored with an unmeasured reward {}",
                e.reward
            ),
        }
    }
    let critiques: Vec<CritiqueRecord> = notes(&events, STORE_CRITIQUE);
    assert!(critiques.iter().any(|c| c.adequate), "an approval was made");
    // The others are noted as not stored, with why.
    let unlearned: Vec<Value> = notes(&events, "unlearned");
    let decision_steps = requests(&events)
        .iter()
        .filter(|(_, s)| StepKind::ALL.iter().any(|k| k.tag() == s))
        .count();
    assert_eq!(
        unlearned.len() + pool.len(),
        decision_steps,
        "each decision step is stored or noted"
    );
    assert!(unlearned.iter().all(|u| u["reason"]
        .as_str()
        .is_some_and(|r| r.contains("could not be read"))));
}
