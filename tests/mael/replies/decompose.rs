//! The decompose step: a clean list trimmed to the free neighbours (or
//! rid of empty items) is flagged as repaired.

use super::{demo_but, repairs_of, run_three_lines};
use crate::common::*;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::model::ChatModel;
use roundtable::engine::run::RunStatus;
use std::rc::Rc;

/// The demo model, except that the decomposer gives `subtasks` as clean
/// JSON.
fn decomposer(subtasks: &'static [&'static str]) -> Rc<dyn ChatModel> {
    demo_but(STEP_DECOMPOSE, move |_| {
        serde_json::json!({ "subtasks": subtasks }).to_string()
    })
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
