//! The judge step: a judgement in prose is read from its last explicit
//! verdict only; with none, the stated default (solving alone).

use super::{demo_but, repairs_of, run_three_lines};
use crate::common::*;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::run::{LoggedEvent, RunStatus};

#[test]
fn a_judgement_in_prose_is_read_from_its_last_explicit_verdict_only() {
    let decomposed = |events: &[LoggedEvent]| {
        requests(events)
            .iter()
            .any(|(_, step)| step == STEP_DECOMPOSE)
    };
    let cases = [
        // (reply, split?, what is flagged)
        ("No.", true, RepairKind::Shape),
        (
            "Solvable: yes. No false assumptions are needed.",
            false,
            RepairKind::Shape,
        ),
        (
            "solvable: true … on reflection, solvable: false",
            true,
            RepairKind::Shape,
        ),
        (r#"{"solvable": "no"}"#, true, RepairKind::Shape),
        // No explicit verdict: the stated default, solvable alone.
        ("hmm, I would decompose this", false, RepairKind::Default),
    ];
    for (reply, split, kind) in cases {
        let judge = demo_but(STEP_JUDGE, move |_| reply.into());
        let (status, events) = run_three_lines(judge, |o| o.learn = false);
        assert_eq!(status, RunStatus::Finished, "{reply}");
        assert_eq!(decomposed(&events), split, "{reply}");
        let j: Vec<JudgementRecord> = notes(&events, STORE_JUDGEMENT);
        assert_eq!(j[0].solvable, !split, "{reply}");
        assert!(j[0].note.is_some(), "{reply}");
        assert_eq!(repairs_of(&events, STEP_JUDGE), [vec![kind]], "{reply}");
    }
}
