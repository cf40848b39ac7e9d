//! The steps that answer in a shape: the compiler's `{"plan", "notes"}`
//! (narrowed to the trip's days) and the critic's `{"summary", "problems",
//! "approved"}`; the demo writes them exactly, and a reply in another shape
//! is still read, and flagged.

use super::replies::{calls, calls_of, repairs_for};
use crate::common::*;
use roundtable::engine::coordinators::travel::contract::*;
use roundtable::engine::coordinators::travel::planning::{
    critic_schema, plan_room, plan_schema, read_review, Review,
};
use roundtable::engine::model::reply::{Repair, RepairKind};
use roundtable::engine::run::{RunEvent, RunStatus};

/// The compiler's step asks for its shape (`{"plan": [...], "notes": ...}`,
/// its JSON Schema carried by the request); the demo's compiler writes it
/// exactly. A plan in another shape is still read, and flagged: the bare
/// list of days (the solo agent's format), a day without one of its keys.
#[test]
fn the_compiler_is_asked_for_its_shape_and_a_plan_in_another_is_flagged() {
    // Narrowed to the trip's days: exactly that many, no more, no fewer.
    let days = query(1)["days"].as_u64().expect("days") as usize;
    let shape = plan_schema().with_items("plan", days, days);
    let (status, events) = run(Variant::Orchestrator, query(1), ToolMode::Native);
    assert_eq!(status, RunStatus::Finished);
    let compiler = calls_of(&events, COMPILER);
    assert!(!compiler.is_empty());
    let all = calls(&events);
    for c in &compiler {
        let req = &all[c].2;
        assert_eq!(req.params.schema.as_ref(), Some(&shape), "call {c}");
        // Room for the whole plan, whatever the run's longest answer.
        assert_eq!(req.params.max_tokens, Some(plan_room(days)), "call {c}");
        let text = events
            .iter()
            .find_map(|e| match &e.event {
                RunEvent::LlmResponse { call, response, .. } if call == c => {
                    Some(response.text.clone())
                }
                _ => None,
            })
            .expect("answered");
        let value: serde_json::Value = serde_json::from_str(&text).expect("the demo writes JSON");
        assert_eq!(shape.check(&value), Ok(()), "{text}");
        assert!(repairs_for(&events, *c).is_empty());
    }
    assert!(evaluation(&events).delivered);

    fn bare(text: &str) -> String {
        let v: serde_json::Value = serde_json::from_str(text).expect("JSON");
        format!("```json\n{}\n```", v["plan"])
    }
    fn no_dinner(text: &str) -> String {
        let mut v: serde_json::Value = serde_json::from_str(text).expect("JSON");
        if let Some(day) = v["plan"][0].as_object_mut() {
            day.remove("dinner");
        }
        v.to_string()
    }
    type Change = fn(&str) -> String;
    let changes: [(&str, Change); 2] = [
        ("a bare list of days", bare),
        ("a day without dinner", no_dinner),
    ];
    for (what, change) in changes {
        let model = tampered(move |req, mut r| {
            if req.step.as_deref() == Some(STEP_COMPILER) {
                r.text = change(&r.text);
            }
            r
        });
        let (status, events) = run_on(
            model,
            Variant::Orchestrator,
            query(1),
            ToolMode::Native,
            None,
        );
        assert_eq!(status, RunStatus::Finished, "{what}");
        assert!(evaluation(&events).delivered, "{what}: the plan is read");
        for c in calls_of(&events, COMPILER) {
            let found = repairs_for(&events, c);
            assert_eq!(found.len(), 1, "{what}: flagged once");
            assert_eq!(found[0].len(), 1, "{what}: {found:?}");
            assert_eq!(found[0][0].kind, RepairKind::Shape, "{what}");
            assert!(
                found[0][0].detail.contains("does not fit the step's shape"),
                "{what}: {found:?}"
            );
        }
    }
}

/// The critic's review is read from its shape, and nothing in it is taken
/// in silence: approved with problems listed, or not approved with none,
/// is flagged and taken as problems; prose is read by its APPROVED line
/// and flagged; an empty reply is not approved, flagged.
#[test]
fn the_critics_review_is_read_from_its_shape_and_every_misreading_flagged() {
    let shaped = |approved: bool, problems: &[&str]| {
        serde_json::json!({"summary": "checked", "problems": problems, "approved": approved})
            .to_string()
    };
    let kinds = |r: &[Repair]| r.iter().map(|r| r.kind.clone()).collect::<Vec<_>>();
    let (review, repairs) = read_review(&shaped(true, &[]));
    assert_eq!((review, kinds(&repairs)), (Review::Approved, vec![]));
    let (review, repairs) = read_review(&shaped(false, &["Day 2, lunch: used twice."]));
    assert_eq!((review, kinds(&repairs)), (Review::Problems, vec![]));
    for (reply, what) in [
        (
            shaped(true, &["Day 3: no hotel."]),
            "approved with a problem",
        ),
        (shaped(false, &[]), "not approved, no problem"),
        ("Looks right.\nAPPROVED".to_string(), "prose approving"),
        (
            "Day 2: dinner should be cheaper.".to_string(),
            "prose objecting",
        ),
        ("   ".to_string(), "empty"),
    ] {
        let (review, repairs) = read_review(&reply);
        assert_eq!(repairs.len(), 1, "{what}: flagged once: {repairs:?}");
        let approved = what == "prose approving";
        assert_eq!(review == Review::Approved, approved, "{what}");
    }
    // The step asks for the shape; the demo's critic writes it exactly.
    let (status, events) = run(Variant::Orchestrator, query(2), ToolMode::Native);
    assert_eq!(status, RunStatus::Finished);
    let critic = calls_of(&events, CRITIC);
    assert!(!critic.is_empty());
    let all = calls(&events);
    for c in critic {
        assert_eq!(all[&c].2.params.schema, Some(critic_schema()));
        assert!(repairs_for(&events, c).is_empty());
    }
    let order: Vec<String> = critic_schema().schema["properties"]
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    assert_eq!(
        order,
        ["summary", "problems", "approved"],
        "the verdict last"
    );
    let order: Vec<String> = plan_schema().schema["properties"]
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    assert_eq!(order, ["plan", "notes"], "the plan first");
}
