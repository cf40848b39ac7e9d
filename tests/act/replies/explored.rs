//! Regressions of the task an exploration reply gives: a preamble is
//! never taken as the task, and only a task key is read as one.

use super::{repairs_of, run_answering};
use crate::common::*;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::run::RunStatus;

#[test]
fn a_preamble_is_never_taken_as_the_task() {
    let r = run_answering(STEP_EXPLORE, |req| {
        if name_of(req) == "Agent A" {
            "Sure! Here's my task:\n\n**Pick calm evening teas**".to_string()
        } else {
            "Sure! Here's my task:".to_string()
        }
    });
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    let tasks = r.notes::<TaskRecord>(STORE_TASK);
    for (agent, t) in &tasks {
        assert!(
            !t.subject.to_lowercase().starts_with("sure"),
            "{agent}: {}",
            t.subject
        );
    }
    let a1: Vec<&TaskRecord> = tasks
        .iter()
        .filter(|(a, _)| a == "a1")
        .map(|(_, t)| t)
        .collect();
    assert_eq!(a1[1].subject, "Pick calm evening teas");
    let a2: Vec<&TaskRecord> = tasks
        .iter()
        .filter(|(a, _)| a == "a2")
        .map(|(_, t)| t)
        .collect();
    assert_eq!(a2[1].subject, "Plan the room", "the current task is kept");
    assert!(a2[1]
        .flags
        .iter()
        .any(|f| f.contains("current one is kept")));
    let repairs = repairs_of(&r, STEP_EXPLORE);
    // 3 members × 2 updates with only a preamble: the stated default.
    assert_eq!(
        repairs
            .iter()
            .filter(|x| x.kind == RepairKind::Default)
            .count(),
        6
    );
    assert_eq!(
        repairs
            .iter()
            .filter(|x| x.kind == RepairKind::Shape)
            .count(),
        2
    );
}

#[test]
fn only_a_task_key_is_read_as_the_explored_task() {
    // serde_json keeps keys alphabetical: "reasoning" before "subject".
    let r = run_answering(STEP_EXPLORE, |req| {
        if name_of(req) == "Agent A" {
            r#"{"reasoning": "I think the team needs calm", "subject": "Pick calm evening teas"}"#
                .to_string()
        } else {
            r#"{"reasoning": "I think the room is fine", "mood": "calm"}"#.to_string()
        }
    });
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    let tasks = r.notes::<TaskRecord>(STORE_TASK);
    let of = |agent: &str| -> Vec<TaskRecord> {
        tasks
            .iter()
            .filter(|(a, _)| a == agent)
            .map(|(_, t)| t.clone())
            .collect()
    };
    let (a1, a2) = (of("a1"), of("a2"));
    assert!(a1.len() > 1 && a2.len() > 1, "the tasks were explored");
    for t in &a1[1..] {
        assert_eq!(t.subject, "Pick calm evening teas");
    }
    for t in &a2[1..] {
        assert_eq!(t.subject, "Plan the room", "the current task is kept");
        assert!(t.flags.iter().any(|f| f.contains("current one is kept")));
    }
    let repairs = repairs_of(&r, STEP_EXPLORE);
    assert!(!repairs.is_empty());
    assert!(repairs
        .iter()
        .any(|x| x.kind == RepairKind::Shape && x.detail.contains("\"subject\"")));
    assert!(repairs.iter().all(|x| !x.detail.contains("I think")));
}
