//! The decompose step: a clean list trimmed to the free neighbours (or
//! rid of empty items) is flagged as repaired; each subtask goes to the
//! neighbour the decomposer names, and round robin only as a flagged
//! fallback.

use super::{demo_but, repairs_of, run_three_lines};
use crate::common::*;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::model::ChatModel;
use roundtable::engine::run::RunStatus;
use std::rc::Rc;

/// The demo model, except that the decomposer gives `subtasks` as clean
/// JSON, to a2 and a3 in turn.
fn decomposer(subtasks: &'static [&'static str]) -> Rc<dyn ChatModel> {
    demo_but(STEP_DECOMPOSE, move |_| {
        let given: Vec<serde_json::Value> = (subtasks.iter().enumerate())
            .map(|(i, t)| {
                let agent = ["a2", "a3"][i % 2];
                serde_json::json!({"task": t, "agent": agent})
            })
            .collect();
        serde_json::json!({"mode": "modules", "subtasks": given}).to_string()
    })
}

/// The demo model, except that the decomposer replies `reply`.
fn replying(reply: serde_json::Value) -> Rc<dyn ChatModel> {
    demo_but(STEP_DECOMPOSE, move |_| reply.to_string())
}

#[test]
fn each_subtask_goes_to_the_neighbour_named_and_round_robin_is_flagged() {
    // A star a1–{a2, a3, a4}: the root a1 has three free neighbours.
    let solvers = |model: Rc<dyn ChatModel>| {
        let (status, events) = run_three_lines(model, |o| {
            o.team = team(&[(0, 1), (0, 2), (0, 3)], 4);
            o.learn = false;
        });
        assert_eq!(status, RunStatus::Finished);
        let tasks: Vec<TaskRecord> = notes(&events, STORE_TASK);
        let subs: Vec<String> = (tasks.iter().filter(|t| t.depth == 1))
            .map(|t| t.solver.clone())
            .collect();
        let d: Vec<DecompositionRecord> = notes(&events, STORE_DECOMPOSITION);
        (subs, repairs_of(&events, STEP_DECOMPOSE), d[0].note.clone())
    };
    // Named by id: where the decomposer said, even all to one agent, and
    // not flagged.
    let (subs, repairs, note) = solvers(replying(
        serde_json::json!({"mode": "modules", "subtasks": [
            {"task": "Find the cost of the first line.", "agent": "a4"},
            {"task": "Find the cost of the second line.", "agent": "a4"},
            {"task": "Find the cost of the third line.", "agent": "a3"},
        ]}),
    ));
    assert_eq!(subs, ["a4", "a4", "a3"]);
    assert_eq!(repairs, [Vec::<RepairKind>::new()]);
    assert_eq!(note, None);
    // By name or in another case: still read as that neighbour, and
    // flagged (the shape asked names the free neighbours by id).
    let (subs, repairs, _) = solvers(replying(
        serde_json::json!({"mode": "modules", "subtasks": [
            {"task": "Find the cost of the first line.", "agent": "a4"},
            {"task": "Find the cost of the second line.", "agent": "A4"},
            {"task": "Find the cost of the third line.", "agent": "a3"},
        ]}),
    ));
    assert_eq!(subs, ["a4", "a4", "a3"]);
    assert_eq!(repairs, [vec![RepairKind::Shape]]);
    // Plain texts: round robin, flagged, and said in the decomposition.
    let (subs, repairs, note) = solvers(replying(
        serde_json::json!({"mode": "modules", "subtasks": [
            "Find the cost of the first line.",
            "Find the cost of the second line.",
            "Find the cost of the third line.",
        ]}),
    ));
    assert_eq!(subs, ["a2", "a3", "a4"]);
    assert_eq!(repairs, [vec![RepairKind::Shape]]);
    let note = note.unwrap_or_default();
    assert!(
        note.contains("subtask 1 named no neighbour and went to a2")
            && note.contains("round robin"),
        "{note}"
    );
    // Itself (on the call path) or a stranger: round robin among the
    // free neighbours for those only, flagged with the name it gave.
    let (subs, repairs, note) = solvers(replying(
        serde_json::json!({"mode": "modules", "subtasks": [
            {"task": "Find the cost of the first line.", "agent": "a1"},
            {"task": "Find the cost of the second line.", "agent": "a3"},
            {"task": "Find the cost of the third line.", "agent": "zed"},
        ]}),
    ));
    assert_eq!(subs, ["a2", "a3", "a3"]);
    assert_eq!(repairs, [vec![RepairKind::Shape]]);
    let note = note.unwrap_or_default();
    assert!(
        note.contains("subtask 1 named \"a1\", not a free neighbour")
            && note.contains("subtask 3 named \"zed\"")
            && !note.contains("subtask 2"),
        "{note}"
    );
}
#[test]
fn a_decomposition_trimmed_to_the_free_neighbours_is_flagged() {
    // A star a1–{a2, a3}: two free neighbours, so at most four subtasks.
    // The old step cut a clean list of seven to four (and dropped empty
    // items) and recorded the reply as unrepaired.
    const SEVEN: &[&str] = &[
        "Find the cost of the mugs.",
        "Find the cost of the lamps.",
        "Find the cost of the pens.",
        "Apply the pen offer.",
        "Add the mugs and the lamps.",
        "Add the pens.",
        "Give the total.",
    ];
    const BLANKS: &[&str] = &["Find the cost of the mugs.", "", "  ", "Add it all up."];
    const BOTH: &[&str] = &[
        "Find the cost of the mugs.",
        "",
        "Find the cost of the lamps.",
        "Find the cost of the pens.",
        "Apply the pen offer.",
        "Give the total.",
    ];
    let cases: [(&[&str], usize, Vec<RepairKind>, &str); 3] = [
        (SEVEN, 4, vec![RepairKind::Clamped], "only the first 4"),
        (BLANKS, 2, vec![RepairKind::Other], "2 empty subtasks"),
        (
            BOTH,
            4,
            vec![RepairKind::Other, RepairKind::Clamped],
            "only the first 4",
        ),
    ];
    for (list, kept, kinds, said) in cases {
        let (status, events) = run_three_lines(decomposer(list), |o| {
            o.team = team(&[(0, 1), (0, 2)], 3);
            o.learn = false;
        });
        assert_eq!(status, RunStatus::Finished, "{list:?}");
        let d: Vec<DecompositionRecord> = notes(&events, STORE_DECOMPOSITION);
        assert_eq!(d.len(), 1, "{list:?}");
        assert_eq!(d[0].subtasks.len(), kept, "{list:?}");
        assert!(
            d[0].note.as_deref().is_some_and(|n| n.contains(said)),
            "{list:?}: {:?}",
            d[0].note
        );
        assert_eq!(repairs_of(&events, STEP_DECOMPOSE), [kinds], "{list:?}");
    }
    // A clean list that fits is not flagged.
    let (_, events) = run_three_lines(decomposer(&SEVEN[..4]), |o| {
        o.team = team(&[(0, 1), (0, 2)], 3);
        o.learn = false;
    });
    let d: Vec<DecompositionRecord> = notes(&events, STORE_DECOMPOSITION);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].subtasks.len(), 4);
    assert_eq!(
        repairs_of(&events, STEP_DECOMPOSE),
        [Vec::<RepairKind>::new()]
    );
}
