//! The mechanism tests of ACT_NOTES §8 for break time, the production
//! meeting and tools (18–26), a typed task, and the evaluation.

use super::common::*;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::run::{Audience, RunEvent, RunStatus};

#[test]
fn m18_19_20_21_22_break_time_with_one_expert_each() {
    let r = run(Variant::Act, model(|_| None));
    let experts: Vec<(String, String)> = r
        .events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::AgentAdded {
                agent, role, name, ..
            } if role == ROLE_EXPERT => Some((agent.clone(), name.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(experts.len(), 4, "(18) one expert per member");
    let breaks = r.notes::<BreakRecord>(STORE_BREAK);
    for (id, name) in &experts {
        let member = breaks
            .iter()
            .find(|(_, b)| &b.expert == id)
            .map(|(_, b)| b.member.clone())
            .expect("a break record names the expert's member");
        assert_eq!(*id, format!("{member}.x0"));
        let letter = (b'A' + member[1..].parse::<u8>().unwrap_or(1) - 1) as char;
        assert_eq!(*name, format!("Expert on DEEPEN-Agent {letter}"));
        // Its expertise came from the members' step.
        assert!(r.asked(STEP_EXPERTISE).iter().any(|(a, _)| a == id));
    }
    // (19) an expert's request: its task, expertise and the 1:1 only.
    for (agent, text) in r.asked(STEP_ANSWER) {
        assert!(agent.ends_with(".x0"));
        for banned in [
            "FUSED-G",
            "OPINION of",
            "ADVICE of",
            "NOTE-BY",
            H_TEAM_TASK,
            H_KNOWLEDGE,
        ] {
            assert!(!text.contains(banned), "{agent} saw {banned}");
        }
        assert!(text.contains("FIRST QUESTION of"));
    }
    // (20) stops at the first "no further questions": one pair each.
    assert_eq!(r.asked(STEP_ANSWER).len(), 4);
    assert_eq!(r.asked(STEP_FOLLOWUP).len(), 4);
    let ask_forever = run(
        Variant::Act,
        model(|req| {
            (req.step.as_deref() == Some(STEP_FOLLOWUP))
                .then(|| r#"{"question": "And more?"}"#.to_string())
        }),
    );
    assert_eq!(
        ask_forever.asked(STEP_ANSWER).len(),
        4 * 3,
        "the cap: 3 pairs"
    );
    assert_eq!(ask_forever.asked(STEP_FOLLOWUP).len(), 4 * 2);
    assert!(ask_forever
        .notes::<BreakRecord>(STORE_BREAK)
        .iter()
        .all(|(_, b)| b.pairs == 3 && b.ended == "cap"));
    // (21) break-time messages go to the pair only; experts never speak in production.
    let mut phase = String::new();
    for e in &r.events {
        match &e.event {
            RunEvent::PhaseStarted { phase: p, .. } => phase = p.clone(),
            RunEvent::MessagePosted { from, to, .. } if phase == PHASE_BREAK => match to {
                Audience::To(pair) => {
                    // Exactly a member and the expert it created.
                    let b = breaks
                        .iter()
                        .find(|(_, b)| pair.contains(&b.member) && pair.contains(&b.expert));
                    assert!(pair.len() == 2 && b.is_some(), "{from} → {pair:?}");
                }
                Audience::Public => panic!("a public message in break time from {from}"),
            },
            RunEvent::MessagePosted { from, .. } if phase == PHASE_PRODUCTION => {
                assert!(from.starts_with('a'))
            }
            _ => {}
        }
    }
    // (22) − break time: no experts, no break requests.
    let r = run(Variant::NoBreakTime, model(|_| None));
    assert!(!r
        .events
        .iter()
        .any(|e| matches!(&e.event, RunEvent::AgentAdded { role, .. } if role == ROLE_EXPERT)));
    assert!(r.steps().iter().all(|s| !s.starts_with("act.break.")));
}

#[test]
fn m23_24_25_production_rounds_until_the_check_passes() {
    // The check fails once with an issue, then passes.
    let checks = std::cell::Cell::new(0);
    let r = run(
        Variant::Act,
        model(move |req| {
            (req.step.as_deref() == Some(STEP_CHECK)).then(|| {
                checks.set(checks.get() + 1);
                if checks.get() == 1 {
                    r#"{"ok": false, "issues": ["ISSUE: Agent C's prices are missing"]}"#
                        .to_string()
                } else {
                    r#"{"ok": true, "issues": []}"#.to_string()
                }
            })
        }),
    );
    // (23) each opinion request holds T_{i,0}, the current task, G and the block.
    for (agent, text) in r.asked(STEP_PROD_OPINION) {
        for h in [H_INITIAL, H_CURRENT, H_TEAM_TASK, H_KNOWLEDGE] {
            assert!(
                section(&text, h).is_some_and(|s| !s.is_empty()),
                "{agent} {h}"
            );
        }
    }
    // (24) the draft holds all opinions; the issues go to every member; then a new draft.
    let drafts = r.asked(STEP_DRAFT);
    assert_eq!(drafts.len(), 2);
    for n in ["A", "B", "C", "D"] {
        assert!(drafts[0]
            .1
            .contains(&format!("PRODUCTION OPINION of Agent {n}.")));
        assert!(drafts[1].1.contains(&format!("REASSERTED by Agent {n}.")));
    }
    let reassert = r.asked(STEP_REASSERT);
    assert_eq!(reassert.len(), 4);
    assert!(reassert
        .iter()
        .all(|(_, t)| t.contains("ISSUE: Agent C's prices are missing")));
    assert!(r.result().accepted);
    assert_eq!(r.result().rounds, 2);
    // (25) over the word limit: never accepted, whatever the leader says; the
    // last draft is final at the cap.
    let long: String = "word ".repeat(500);
    let r = run(
        Variant::Act,
        model(move |req| (req.step.as_deref() == Some(STEP_DRAFT)).then(|| long.clone())),
    );
    let result = r.result();
    assert!(!result.accepted);
    assert_eq!(result.rounds, 3);
    assert_eq!(r.asked(STEP_DRAFT).len(), 3);
    let checks = r.notes::<CheckRecord>(STORE_CHECK);
    assert!(checks.iter().all(|(_, c)| c.over_limit && !c.ok));
    assert!(checks[0]
        .1
        .issues
        .iter()
        .any(|i| i.contains("500 words; the limit is 450")));
    assert_eq!(result.words, 500);
}

#[test]
fn m26_tools_only_when_defined_at_most_three_unique() {
    let r = run(Variant::Act, model(|_| None));
    assert!(
        r.asked(STEP_INSTRUCT).is_empty(),
        "no tool step when tools are off"
    );
    // AgentVerse's file system on the run's workspace, and submit_task; the
    // shell is listed as not offered, and a sub-task on it is dropped.
    let plan = r#"{"subtasks": [
        {"task": "notes/a.md says twelve", "tool": "FileSystemEnv_write_to_file", "arguments": {"filepath": "notes/a.md", "content": "twelve"}},
        {"task": "again", "tool": "FileSystemEnv_write_to_file", "arguments": {"filepath": "b.md", "content": "x"}},
        {"task": "the notes read back", "tool": "FileSystemEnv_read_from_file", "arguments": {"filepath": "notes/a.md"}},
        {"task": "list", "tool": "shell_command_executor", "arguments": {"command": "ls"}},
        {"task": "done", "tool": "submit_task", "arguments": {"status": "finished", "conclusion": "noted"}}]}"#;
    let r = run_with(
        Variant::Act,
        model(move |req| (req.step.as_deref() == Some(STEP_INSTRUCT)).then(|| plan.to_string())),
        |o, _| {
            o.tools = [
                "FileSystemEnv_write_to_file",
                "FileSystemEnv_read_from_file",
                "submit_task",
                "shell_command_executor",
            ]
            .map(String::from)
            .to_vec()
        },
    );
    let asked = r.asked(STEP_INSTRUCT);
    assert_eq!(asked.len(), 4);
    assert!(
        asked[0]
            .1
            .contains("- shell_command_executor: not offered (a browser has no shell"),
        "{}",
        asked[0].1
    );
    assert!(
        asked[0].1.contains("small, specific, executable"),
        "Table 26's instruct step"
    );
    let called: Vec<String> = r
        .events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::ToolCalled { tool, agent, .. } if agent == "a1" => Some(tool.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        called,
        [
            "FileSystemEnv_write_to_file",
            "FileSystemEnv_read_from_file",
            "submit_task"
        ]
    );
    assert!(r.events.iter().any(|e| matches!(&e.event,
        RunEvent::FileWritten { agent, path, text, .. } if agent == "a1" && path == "notes/a.md" && text == "twelve")));
    let drafts = r.asked(STEP_DRAFT);
    assert!(
        drafts[0]
            .1
            .contains("[FileSystemEnv_read_from_file: the notes read back] twelve"),
        "{}",
        drafts[0].1
    );
    assert!(drafts[0]
        .1
        .contains("[submit_task: done] submitted (finished): noted"));
}

#[test]
fn a_typed_task_is_split_by_the_facilitator_and_malformed_replies_never_crash() {
    let r = run_full(
        roundtable::engine::domains::creative::ComplexTask::free("Design a cafe."),
        Variant::Act,
        model(|req| match req.step.as_deref() {
            Some(STEP_ACQUIRE) | Some(STEP_FUSE) | Some(STEP_REFLECT) | Some(STEP_CHECK)
            | Some(STEP_EXPLORE) => Some("this is not json at all".into()),
            _ => None,
        }),
        None,
        |_, _| {},
    );
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    assert_eq!(r.asked(STEP_DECOMPOSE).len(), 1);
    let parts = r.notes::<PartsRecord>(STORE_PARTS);
    assert_eq!(parts[0].1.parts.len(), 4);
    // One repair retry per acquisition, then nothing stored, flagged.
    assert_eq!(r.asked(STEP_ACQUIRE).len(), 2 * 8);
    assert!(r.notes::<Knowledge>(STORE_KNOWLEDGE).is_empty());
    assert!(r
        .notes::<AcquisitionRecord>(STORE_ACQUISITION)
        .iter()
        .all(|(_, a)| a.flags.iter().any(|f| f.contains("nothing stored"))));
    // The check that cannot be read does not pass: three rounds.
    assert_eq!(r.result().rounds, 3);
    assert!(
        r.score("rouge1").is_none(),
        "a typed task has no references"
    );
}

#[test]
fn evaluation_scores_rouge_and_the_judge_and_a_scoreless_judge_is_a_parse_failure() {
    let r = run_with(
        Variant::Act,
        model(|req| {
            (req.step.as_deref() == Some(STEP_DRAFT))
                .then(|| "Oolong and rooibos under warm light and wood.".to_string())
        }),
        |o, _| o.judge = true,
    );
    // Parts 1 and 2 fully recalled, 3 and 4 not: recall 0.5.
    assert!(
        (r.score("rouge1").unwrap_or(0.0) - 0.5).abs() < 1e-9,
        "{:?}",
        r.score("rouge1")
    );
    assert_eq!(r.score("judge_score"), Some(2.0));
    let judge = r.asked(STEP_JUDGE);
    assert!(judge[0].1.contains("oolong and rooibos"));
    // The agents never saw a reference.
    for q in &r.requests {
        if q.step.as_deref() != Some(STEP_JUDGE) {
            let t = q.last_user().unwrap_or_default();
            assert!(!t.contains("tasting flight") && !t.contains("ceremony workshops"));
        }
    }
    let r = run_with(
        Variant::Act,
        model(|req| (req.step.as_deref() == Some(STEP_JUDGE)).then(|| "I cannot say.".to_string())),
        |o, _| o.judge = true,
    );
    assert_eq!(r.score("judge_score"), None);
    assert_eq!(r.notes::<JudgeRecord>(STORE_JUDGE)[0].1.score, None);
    assert_eq!(r.result().judge, None);
}

#[test]
fn a_tool_task_gets_ten_production_rounds_and_other_tasks_keep_three() {
    // What the options configure: a task is a tool task when its options
    // name tools.
    let mut o = ActOptions::for_task(task());
    assert!(!o.is_tool_task());
    assert_eq!(o.production_rounds(), 3);
    o.tools = vec!["FileSystemEnv_write_to_file".into()];
    assert!(o.is_tool_task());
    assert_eq!(o.production_rounds(), TOOL_ROUNDS);
    assert_eq!(TOOL_ROUNDS, 10);
    // Options saved before the field existed get 10 for tools, 3 otherwise.
    let mut old = serde_json::to_value(&o).expect("json");
    old["limits"]
        .as_object_mut()
        .expect("limits")
        .remove("tool_rounds");
    let read: ActOptions = serde_json::from_value(old).expect("older options");
    assert_eq!(read.limits.tool_rounds, 10);
    assert_eq!(read.limits.production_rounds, 3);
    // The run: a leader's check that never passes.
    let never = || {
        model(|req| {
            (req.step.as_deref() == Some(STEP_CHECK))
                .then(|| r#"{"ok": false, "issues": ["ISSUE: not yet"]}"#.to_string())
        })
    };
    let plain = run(Variant::Act, never());
    assert_eq!(plain.asked(STEP_DRAFT).len(), 3);
    assert_eq!(plain.result().rounds, 3);
    assert!(!plain.result().accepted);
    let tools = run_with(Variant::Act, never(), |o, _| {
        o.tools = vec!["FileSystemEnv_write_to_file".into(), "submit_task".into()]
    });
    assert_eq!(tools.asked(STEP_DRAFT).len(), 10);
    assert_eq!(tools.asked(STEP_CHECK).len(), 10);
    assert_eq!(tools.result().rounds, 10);
    assert!(!tools.result().accepted);
    // Up to 10: a check that passes ends the rounds early.
    let early = run_with(Variant::Act, model(|_| None), |o, _| {
        o.tools = vec!["calculator".into()]
    });
    assert_eq!(early.result().rounds, 1);
    // The count is the options': a tool task's own cap is kept.
    let five = run_with(Variant::Act, never(), |o, _| {
        o.tools = vec!["FileSystemEnv_write_to_file".into()];
        o.limits.tool_rounds = 5;
    });
    assert_eq!(five.result().rounds, 5);
}

#[test]
fn the_judge_gets_one_component_per_part_its_references_joined_by_a_bar() {
    let mut t = task();
    t.parts[0].references = vec![
        "oolong and rooibos".into(),
        "green | black blend; iced".into(),
    ];
    let r = run_full(t, Variant::Act, model(|_| None), None, |o, _| {
        o.judge = true
    });
    let judge = r.asked(STEP_JUDGE);
    assert_eq!(judge.len(), 1);
    let text = &judge[0].1;
    let components: Vec<&str> = section(text, H_COMPONENTS)
        .unwrap_or("")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(
        components,
        [
            "1. oolong and rooibos | green / black blend; iced",
            "2. warm light and wood",
            "3. a tasting flight",
            "4. tea ceremony workshops",
        ]
    );
    // The prompt names the separator it uses.
    assert!(text.contains("separated by \" | \""));
}
