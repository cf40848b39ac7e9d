//! Odd replies a real model may give, at every step: the run ends, and
//! each repaired reply is recorded once; the demo's replies need none.

use super::{calls, kinds, three_line_task};
use crate::common::*;
use crate::repaired_log::repaired;
use crate::step_counts::StepCounts;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::domains::tasks::builtin::{tasks, Split};
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::{ChatRequest, ChatResponse};
use roundtable::engine::run::RunStatus;
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;

#[test]
fn a_demo_run_records_no_repaired_reply() {
    let memory = Rc::new(Memory::lexical("test"));
    for (i, task) in tasks(Split::Train).iter().take(4).enumerate() {
        let mode = Mode::ALL[i % Mode::ALL.len()];
        let (status, events) = run(task, mode, Some(memory.clone()));
        assert_eq!(status, RunStatus::Finished);
        assert!(!calls(&events).is_empty());
        let r = repaired(&events);
        assert!(r.is_empty(), "{}: {r:?}", task.id);
        assert!(notes::<Value>(&events, "unlearned").is_empty());
    }
    assert!(!memory.pool.borrow().is_empty());
}

/// Replies a real model may give, per step; the model cycles through them.
fn odd_replies(step: &str) -> Vec<String> {
    let long = "All of this is fine and well considered. ".repeat(2_600);
    let list = "- cost of the mugs\n".repeat(6_000);
    let odd = "ｓｃｏｒｅ：９/１０ 👩‍👩‍👧 \u{202E}ǝnɹʇ \u{0}\u{FEFF}ß\u{0130}{\"";
    let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut out = match step {
        STEP_JUDGE => v(&[
            "Solvable: no, I'd split it.",
            r#"{"solvable": "no", "reason": "three lines"#,
            "I think this is fine as it is, honestly.",
            "No.",
            r#"{"solvable": false, "reason": "three lines"}"#,
        ]),
        STEP_DECOMPOSE => v(&[
            "Here you go:\n```json\n{\"subtasks\": [\"Find the cost of the mugs.\", \"Find the cost of the pens.\"]}\n```",
            r#"{"subtasks": ["Find the cost of the mugs.", "Find the cost of the pens."#,
            "1. mugs\n2. pens",
            "Let me think about it.",
            &list,
        ]),
        STEP_CRITIQUE => v(&[
            r#"{"adequate": "false", "feedback": "check the pens"}"#,
            r#"{"adequate": "TRUE"}"#,
            "Looks adequate to me.",
            r#"{"adequate": tru"#,
            r#"{"adequate": true, "feedback": ""}"#,
        ]),
        STEP_EVALUATE => v(&[
            "In step 3 the total is right … 9/10",
            r#"{"score": 12, "reason": "great"}"#,
            "no idea",
            r#"{"score": 7"#,
            r#"{"score": 7, "reason": "fine"}"#,
        ]),
        _ => v(&["Answer: 7", "Answer: ７ 👩‍👩‍👧\u{202E}"]),
    };
    out.push(long);
    out.push(odd.into());
    out
}

/// Whether `text` is exactly the JSON `step` asks for (no repair needed).
fn clean(step: &str, text: &str) -> bool {
    let t = text.trim();
    match step {
        STEP_JUDGE => serde_json::from_str::<Judgement>(t).is_ok(),
        STEP_DECOMPOSE => serde_json::from_str::<Decomposition>(t).is_ok(),
        STEP_CRITIQUE => serde_json::from_str::<Critique>(t).is_ok(),
        STEP_EVALUATE => serde_json::from_str::<Rating>(t).is_ok_and(|r| r.score <= 10),
        _ => true,
    }
}

#[test]
fn odd_replies_end_the_run_and_each_repaired_reply_is_recorded_once() {
    let mut kinds_seen: Vec<RepairKind> = Vec::new();
    let mut longest = 0;
    for offset in 0..7 {
        let counts = StepCounts::default();
        let model = Rc::new(
            ScriptedModel::new("odd").otherwise(move |req: &ChatRequest| {
                let step = req.step.clone().unwrap_or_default();
                let n = counts.next(&step);
                let replies = odd_replies(&step);
                ChatResponse {
                    text: replies[(offset + n) % replies.len()].clone(),
                    ..ChatResponse::default()
                }
            }),
        );
        let memory = Rc::new(Memory::lexical("test"));
        let (status, events) = run_with(
            &three_line_task(),
            Mode::Step,
            Some(memory.clone()),
            model,
            |_| {},
        );
        assert_eq!(status, RunStatus::Finished, "offset {offset}");
        assert!(events.last().is_some_and(|e| e.event.is_terminal()));
        let rep = repaired(&events);
        for (_, repairs) in &rep {
            for k in kinds(repairs) {
                if !kinds_seen.contains(&k) {
                    kinds_seen.push(k);
                }
            }
        }
        let mut per_call: HashMap<u32, usize> = HashMap::new();
        for (call, repairs) in &rep {
            assert!(!repairs.is_empty());
            *per_call.entry(*call).or_default() += 1;
        }
        assert!(
            per_call.values().all(|n| *n == 1),
            "offset {offset}: a reply recorded twice: {per_call:?}"
        );
        for (call, step, _, reply) in calls(&events) {
            longest = longest.max(reply.len());
            let flagged = per_call.contains_key(&call);
            assert_eq!(
                flagged,
                !clean(&step, &reply),
                "offset {offset}, call {call} ({step}): {}",
                reply.chars().take(80).collect::<String>()
            );
        }
        // Whatever was read, the pool holds rewards in [0, 1] only.
        assert!(memory
            .pool
            .borrow()
            .entries
            .iter()
            .all(|e| (0.0..=1.0).contains(&e.reward)));
    }
    // The script went through what it is meant to: long replies, and
    // every way of reading one.
    assert!(longest >= 100_000, "{longest}");
    for k in [
        RepairKind::Fence,
        RepairKind::AroundText,
        RepairKind::Closed,
        RepairKind::Shape,
        RepairKind::Clamped,
        RepairKind::Default,
        RepairKind::AskedAgain,
    ] {
        assert!(
            kinds_seen.contains(&k),
            "{k:?} never happened: {kinds_seen:?}"
        );
    }
}
