//! Hostile replies at every step (chatter, cut-off, wrapped or unknown
//! JSON, 100 KB, odd Unicode, unknown tools, nothing): no run crashes, and
//! every reply to a JSON step is flagged exactly once; speech never is.

use super::calls;
use crate::common::*;
use crate::repaired_log::repaired;
use crate::step_counts::StepCounts;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::coordinators::act::plus::{Bank, BankData};
use roundtable::engine::domains::creative::ComplexTask;
use roundtable::engine::model::ChatRequest;
use roundtable::engine::run::{RunEvent, RunStatus};
use std::collections::HashMap;
use std::rc::Rc;

/// The steps whose replies ACT reads as JSON.
const JSON_STEPS: [&str; 10] = [
    STEP_DECOMPOSE,
    STEP_EXPERTISE,
    STEP_FUSE,
    STEP_EXPLORE,
    STEP_ACQUIRE,
    STEP_REFLECT,
    STEP_FOLLOWUP,
    STEP_INSTRUCT,
    STEP_CHECK,
    STEP_RESCORE,
];

/// The steps whose replies are speech (posted, never read as JSON).
const SPEECH_STEPS: [&str; 6] = [
    STEP_TEAM_OPINION,
    STEP_TEAM_ADVICE,
    STEP_ANSWER,
    STEP_PROD_OPINION,
    STEP_DRAFT,
    STEP_REASSERT,
];

const KINDS: usize = 9;

/// Reply `kind` for a request whose well-formed reply is `good`: chatter,
/// half of the JSON, the JSON wrapped in another shape, 100 KB, odd
/// Unicode, JSON of no known shape, unknown tools, nothing, the JSON
/// followed by 100 KB.
fn hostile(kind: usize, good: &str, step: &str) -> String {
    match kind % KINDS {
        0 => "Sure! Here's my answer:".into(),
        1 => {
            let n = good.chars().count() / 2;
            good.chars().take(n.max(1)).collect()
        }
        2 => match serde_json::from_str::<serde_json::Value>(good) {
            Ok(v) => serde_json::json!({ "result": [v] }).to_string(),
            Err(_) => format!("{{\"result\": \"{good}\"}}"),
        },
        3 => format!("{}\n{good}", "Lorem ipsum {[ dolor ".repeat(5_000)),
        4 => "🙂\u{202e} ｛“task”： “全角”｝ \u{0}\u{feff}é\u{301}\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}".into(),
        5 => r#"{"unexpected": [1, 2, {"deep": null}]}"#.into(),
        6 if step == STEP_INSTRUCT => {
            r#"{"subtasks": [{"tool": "teleport", "input": 5}, {"tool": "calculator", "input": {"expr": "1/0"}}]}"#.into()
        }
        8 => format!("{good}\n{}", "and {so} on [and on] ".repeat(5_000)),
        _ => String::new(),
    }
}

/// The scripted team, except that every JSON step (and some speech)
/// answers with a hostile reply; each step goes through the kinds from
/// `offset` on.
fn hostile_model(offset: usize) -> roundtable::engine::model::scripted::ScriptedModel {
    let counts = StepCounts::default();
    model(move |req: &ChatRequest| {
        let step = req.step.clone().unwrap_or_default();
        let n = counts.next(&step) + offset;
        if JSON_STEPS.contains(&step.as_str()) {
            return Some(hostile(n, &script(req), &step));
        }
        if step == STEP_JUDGE {
            return Some(["Score: 99", "I cannot say.", "Score: 1"][n % 3].to_string());
        }
        // Speech: every third reply is odd (it is posted, never read).
        (SPEECH_STEPS.contains(&step.as_str()) && n % 3 == 0).then(|| {
            if n % 2 == 0 {
                "{[ long speech ".repeat(1_000)
            } else {
                hostile(4, "", &step)
            }
        })
    })
}

/// A run ended with a terminal event; every `reply_repaired` names a call
/// that answered, at most once; every reply to a JSON step here is
/// hostile, so each has exactly one; speech is never flagged.
fn check_accounting(label: &str, r: &Run) -> HashMap<String, usize> {
    assert_eq!(r.status, RunStatus::Finished, "{label}: {:?}", r.failure());
    assert!(
        matches!(
            r.events.last().map(|e| &e.event),
            Some(RunEvent::RunFinished { .. })
        ),
        "{label}: no terminal event last"
    );
    let calls = calls(&r.events);
    assert!(
        calls
            .values()
            .any(|(step, _)| JSON_STEPS.contains(&step.as_str())),
        "{label}: no reply to a JSON step"
    );
    let mut flagged: HashMap<u32, usize> = HashMap::new();
    for (call, repairs) in repaired(&r.events) {
        assert!(!repairs.is_empty(), "{label}: empty repairs for {call}");
        assert!(calls.contains_key(&call), "{label}: unknown call {call}");
        *flagged.entry(call).or_default() += 1;
    }
    for (call, (step, _)) in &calls {
        let n = flagged.get(call).copied().unwrap_or(0);
        if JSON_STEPS.contains(&step.as_str()) {
            assert_eq!(n, 1, "{label}: call {call} ({step})");
        } else if SPEECH_STEPS.contains(&step.as_str()) {
            assert_eq!(n, 0, "{label}: call {call} ({step}) is speech");
        } else {
            assert!(n <= 1, "{label}: call {call} ({step})");
        }
    }
    let mut kinds: HashMap<String, usize> = HashMap::new();
    for (call, repairs) in repaired(&r.events) {
        if std::env::var("SHOW").is_ok() {
            println!("{label} {call} {}: {repairs:?}", calls[&call].0);
        }
        for x in repairs {
            *kinds.entry(x.kind.label().to_string()).or_default() += 1;
        }
    }
    kinds
}

#[test]
fn hostile_replies_never_crash_a_run_and_each_is_flagged_once() {
    let mut kinds: HashMap<String, usize> = HashMap::new();
    let mut add = |k: HashMap<String, usize>| {
        for (label, n) in k {
            *kinds.entry(label).or_default() += n;
        }
    };
    for offset in 0..KINDS {
        let typed = run_full(
            ComplexTask::free("Design a cafe with a reading corner."),
            Variant::Act,
            hostile_model(offset),
            None,
            |o, _| o.tools = vec!["calculator".into(), "word_count".into()],
        );
        add(check_accounting(
            &format!("typed task, offset {offset}"),
            &typed,
        ));
        let set = run_with(Variant::Act, hostile_model(offset), |o, _| {
            o.judge = true;
            o.tools = vec!["calculator".into()];
        });
        add(check_accounting(
            &format!("built-in task, offset {offset}"),
            &set,
        ));
        // ACT+: a clean first trial fills the bank; the second re-scores.
        let bank = Rc::new(Bank::lexical(BankData::empty("t")));
        let first = run_full(
            task(),
            Variant::ActPlus,
            model(|_| None),
            Some(bank.clone()),
            |_, _| {},
        );
        assert_eq!(first.status, RunStatus::Finished);
        let second = run_full(
            task(),
            Variant::ActPlus,
            hostile_model(offset),
            Some(bank.clone()),
            |_, _| {},
        );
        add(check_accounting(&format!("act+, offset {offset}"), &second));
        assert!(!second.asked(STEP_RESCORE).is_empty());
    }
    let mut kinds: Vec<(String, usize)> = kinds.into_iter().collect();
    kinds.sort();
    println!("repairs by kind: {kinds:?}");
    for kind in [
        "other shape mapped",
        "default used",
        "asked again",
        "number clamped",
        "text around the JSON dropped",
        "cut-off JSON closed",
    ] {
        assert!(kinds.iter().any(|(k, _)| k == kind), "no {kind}: {kinds:?}");
    }
}
