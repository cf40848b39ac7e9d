//! Regressions of replies in another shape: knowledge grouped by speaker
//! and wrapped, a bare list of tasks, JSON of a shape nothing maps, and a
//! follow-up with neither a question nor `done`.

use super::{answering, repaired_replies, repairs_of, run_answering};
use crate::common::*;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::domains::creative::ComplexTask;
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::run::RunStatus;

#[test]
fn knowledge_in_another_json_shape_is_mapped_and_flagged() {
    // Grouped by speaker and wrapped: the old reader stored nothing, silently.
    let r = run_answering(STEP_ACQUIRE, |req| {
        let speakers = section(req.last_user().unwrap_or_default(), H_SPEAKERS).unwrap_or("");
        let groups: Vec<serde_json::Value> = speakers
            .split(", ")
            .filter(|s| !s.is_empty())
            .map(|s| {
                serde_json::json!({
                    "subject": s,
                    "episodes": [format!("{s} spoke about tea")],
                    "knowledge": [{"summary": format!("GROUPED note about {s}."), "keywords": ["a", "b"], "importance": 6}],
                })
            })
            .collect();
        serde_json::json!({ "result": groups }).to_string()
    });
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    let knowledge = r.notes::<Knowledge>(STORE_KNOWLEDGE);
    assert!(
        knowledge
            .iter()
            .any(|(_, k)| k.summary.starts_with("GROUPED note")),
        "the grouped entries are stored"
    );
    assert!(!r.notes::<Episode>(STORE_EPISODE).is_empty());
    let shapes = repairs_of(&r, STEP_ACQUIRE);
    assert!(
        shapes.iter().any(|x| x.kind == RepairKind::Shape),
        "{shapes:?}"
    );
    // Every acquisition reply is flagged once.
    assert_eq!(
        repaired_replies(&r, STEP_ACQUIRE),
        r.asked(STEP_ACQUIRE).len()
    );

    // A bare list where {"tasks": [...]} was expected: four tasks, not one line of JSON.
    let r = run_full(
        ComplexTask::free("Design a cafe."),
        Variant::Act,
        answering(STEP_DECOMPOSE, |_| {
            r#"[{"subject": "Pick teas"}, {"subject": "Plan room"}, {"subject": "Set prices"}, {"subject": "Plan events"}]"#.to_string()
        }),
        None,
        |_, _| {},
    );
    let parts = r.notes::<PartsRecord>(STORE_PARTS);
    let subjects: Vec<&str> = parts[0]
        .1
        .parts
        .iter()
        .map(|p| p.subject.as_str())
        .collect();
    assert_eq!(
        subjects,
        ["Pick teas", "Plan room", "Set prices", "Plan events"]
    );
    assert!(repairs_of(&r, STEP_DECOMPOSE)
        .iter()
        .any(|x| x.kind == RepairKind::Shape));

    // JSON of a shape nothing maps: asked again once, then a stated default.
    let r = run_answering(STEP_ACQUIRE, |_| {
        r#"{"facts": 3, "more": "none"}"#.to_string()
    });
    assert_eq!(r.asked(STEP_ACQUIRE).len(), 2 * 8);
    let kinds: Vec<RepairKind> = repairs_of(&r, STEP_ACQUIRE)
        .into_iter()
        .map(|x| x.kind)
        .collect();
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == RepairKind::AskedAgain)
            .count(),
        8
    );
    assert_eq!(
        kinds.iter().filter(|k| **k == RepairKind::Default).count(),
        8
    );
}

#[test]
fn a_follow_up_without_question_or_done_ends_the_one_to_one_flagged() {
    for reply in [
        r#"{"thoughts": "the expert was clear"}"#,
        r#"{"question": ""}"#,
    ] {
        let r = run_answering(STEP_FOLLOWUP, move |_| reply.to_string());
        assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
        let breaks = r.notes::<BreakRecord>(STORE_BREAK);
        assert_eq!(breaks.len(), 4);
        for (_, b) in &breaks {
            assert_eq!(b.ended, "no question could be read", "{reply}");
        }
        let repairs = repairs_of(&r, STEP_FOLLOWUP);
        assert_eq!(repairs.len(), 4, "{reply}: {repairs:?}");
        assert!(repairs.iter().all(
            |x| x.kind == RepairKind::Default && x.detail.starts_with("ended the 1:1 because")
        ));
    }
    // {"done": true} ends it as written: no flag.
    let r = run(Variant::Act, model(|_| None));
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    assert!(!r.asked(STEP_FOLLOWUP).is_empty(), "the follow-up step ran");
    assert!(repairs_of(&r, STEP_FOLLOWUP).is_empty());
    let breaks = r.notes::<BreakRecord>(STORE_BREAK);
    assert_eq!(breaks.len(), 4, "every 1:1 is recorded");
    assert!(breaks
        .iter()
        .all(|(_, b)| b.ended == "no further questions"));
}

/// Held to its shape, an acquisition can only be about the speakers its
/// prompt lists: each request's schema narrows both `subject` fields to
/// exactly those names, so a reply about anyone else does not fit it.
#[test]
fn an_acquisition_is_held_to_the_speakers_its_prompt_lists() {
    use roundtable::engine::run::RunEvent;
    let mut captured = Vec::new();
    let r = run_answering(STEP_ACQUIRE, |_| String::new());
    for e in &r.events {
        if let RunEvent::LlmRequest { request, .. } = &e.event {
            if request.step.as_deref() == Some(STEP_ACQUIRE) {
                captured.push(request.clone());
            }
        }
    }
    assert!(!captured.is_empty(), "acquisitions were asked");
    for req in captured {
        let listed: Vec<String> = section(req.last_user().unwrap_or_default(), H_SPEAKERS)
            .unwrap_or("")
            .split(", ")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        assert!(!listed.is_empty());
        let shape = req.params.schema.clone().expect("the step's shape");
        for list in ["episodes", "knowledge"] {
            let at = format!("/properties/{list}/items/properties/subject/enum");
            assert_eq!(
                shape.schema.pointer(&at),
                Some(&serde_json::json!(listed)),
                "{list}"
            );
        }
        let about = |who: &str| {
            serde_json::json!({
                "episodes": [{"subject": who, "text": "spoke about tea"}],
                "knowledge": [{"subject": who, "summary": "Tea is a drink.", "keywords": ["tea"], "source": who, "importance": 5}],
            })
        };
        assert_eq!(shape.check(&about(&listed[0])), Ok(()));
        assert!(shape.check(&about("speaker name")).is_err());
    }
}
