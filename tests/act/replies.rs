//! Replies as real models write them: every reply ACT reads as JSON goes
//! through the lenient reader, and every reply that needed a repair (or
//! could not be read) is recorded once, as a `reply_repaired` event of
//! its call. The demo team writes exactly what is asked: none. The
//! regression tests each pin one repair (another JSON shape, a preamble
//! taken as a task, a follow-up with neither field, one uncapped keyword).

use super::common::*;
use super::repaired_log::repaired;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::coordinators::act::plus::{Bank, BankData};
use roundtable::engine::coordinators::act::setup::configure;
use roundtable::engine::coordinators::{self, every_script};
use roundtable::engine::domains::creative::{builtin, ComplexTask};
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::reply::{Repair, RepairKind};
use roundtable::engine::model::ChatRequest;
use roundtable::engine::run::{
    LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus,
};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Each call's step and reply text.
fn calls(events: &[LoggedEvent]) -> HashMap<u32, (String, String)> {
    let mut steps: HashMap<u32, String> = HashMap::new();
    let mut out = HashMap::new();
    for e in events {
        match &e.event {
            RunEvent::LlmRequest { call, request, .. } => {
                steps.insert(*call, request.step.clone().unwrap_or_default());
            }
            RunEvent::LlmResponse { call, response, .. } => {
                let step = steps.get(call).cloned().unwrap_or_default();
                out.insert(*call, (step, response.text.clone()));
            }
            _ => {}
        }
    }
    out
}

/// The repairs recorded for the calls of `step` in a scripted run.
fn repairs_of(r: &Run, step: &str) -> Vec<Repair> {
    let calls = calls(&r.events);
    repaired(&r.events)
        .into_iter()
        .filter(|(c, _)| calls.get(c).is_some_and(|(s, _)| s == step))
        .flat_map(|(_, r)| r)
        .collect()
}

fn demo_run(
    task: ComplexTask,
    variant: Variant,
    bank: Option<Rc<Bank>>,
    tweak: impl FnOnce(&mut ActOptions),
) -> (RunStatus, Vec<LoggedEvent>) {
    let mut config = RunConfig::new(ID, "", ModelSpec::demo());
    configure(&mut config, task, variant);
    let mut options: ActOptions = serde_json::from_value(config.options.clone()).expect("options");
    tweak(&mut options);
    config.options = serde_json::to_value(&options).expect("json");
    let clock = Rc::new(FakeClock::new());
    let ctx = RunCtx::new(
        config,
        ModelRouter::single(Rc::new(DemoModel::instant(clock.clone(), every_script))),
        clock,
    );
    if let Some(b) = bank {
        ctx.insert_resource(b);
    }
    let status = futures::executor::block_on(coordinators::execute(&ctx));
    (status, ctx.events())
}

#[test]
fn demo_runs_record_no_repaired_reply() {
    let mut runs = Vec::new();
    for variant in Variant::ALL {
        let task = builtin::task(1, None, 4);
        runs.push((
            format!("{variant:?}"),
            demo_run(task, variant, None, |o| o.judge = true),
        ));
    }
    runs.push((
        "tools".into(),
        demo_run(builtin::task(2, None, 4), Variant::Act, None, |o| {
            o.tools = vec!["calculator".into(), "word_count".into()]
        }),
    ));
    runs.push((
        "typed task".into(),
        demo_run(
            ComplexTask::free(roundtable::engine::coordinators::act::EXAMPLE_TASK),
            Variant::Act,
            None,
            |_| {},
        ),
    ));
    // ACT+ twice on one bank: the second run takes the team over and re-scores.
    let bank = Rc::new(Bank::lexical(BankData::empty("demo")));
    for n in [3, 4] {
        runs.push((
            format!("act+ trial {n}"),
            demo_run(
                builtin::task(n, None, 4),
                Variant::ActPlus,
                Some(bank.clone()),
                |_| {},
            ),
        ));
    }
    for (label, (status, events)) in &runs {
        assert_eq!(*status, RunStatus::Finished, "{label}");
        let found = repaired(events);
        assert!(found.is_empty(), "{label}: {found:?}");
    }
    let steps: Vec<String> = runs
        .iter()
        .flat_map(|(_, (_, e))| calls(e).into_values().map(|(s, _)| s))
        .collect();
    for step in [
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
        STEP_JUDGE,
    ] {
        assert!(steps.iter().any(|s| s == step), "no demo reply to {step}");
    }
}

// ------------------------------------------------------------ regressions

#[test]
fn knowledge_in_another_json_shape_is_mapped_and_flagged() {
    // Grouped by speaker and wrapped: the old reader stored nothing, silently.
    let r = run(
        Variant::Act,
        model(|req| {
            if req.step.as_deref() != Some(STEP_ACQUIRE) {
                return None;
            }
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
            Some(serde_json::json!({ "result": groups }).to_string())
        }),
    );
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
        repaired(&r.events)
            .iter()
            .filter(|(c, _)| calls(&r.events)[c].0 == STEP_ACQUIRE)
            .count(),
        r.asked(STEP_ACQUIRE).len()
    );

    // A bare list where {"tasks": [...]} was expected: four tasks, not one line of JSON.
    let r = run_full(
        ComplexTask::free("Design a cafe."),
        Variant::Act,
        model(|req| {
            (req.step.as_deref() == Some(STEP_DECOMPOSE)).then(|| {
                r#"[{"subject": "Pick teas"}, {"subject": "Plan room"}, {"subject": "Set prices"}, {"subject": "Plan events"}]"#.to_string()
            })
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
    let r = run(
        Variant::Act,
        model(|req| {
            (req.step.as_deref() == Some(STEP_ACQUIRE))
                .then(|| r#"{"facts": 3, "more": "none"}"#.to_string())
        }),
    );
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
fn a_preamble_is_never_taken_as_the_task() {
    let r = run(
        Variant::Act,
        model(|req| {
            (req.step.as_deref() == Some(STEP_EXPLORE)).then(|| {
                if name_of(req) == "Agent A" {
                    "Sure! Here's my task:\n\n**Pick calm evening teas**".to_string()
                } else {
                    "Sure! Here's my task:".to_string()
                }
            })
        }),
    );
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
fn a_follow_up_without_question_or_done_ends_the_one_to_one_flagged() {
    for reply in [
        r#"{"thoughts": "the expert was clear"}"#,
        r#"{"question": ""}"#,
    ] {
        let r = run(
            Variant::Act,
            model(move |req| {
                (req.step.as_deref() == Some(STEP_FOLLOWUP)).then(|| reply.to_string())
            }),
        );
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

#[test]
fn only_a_task_key_is_read_as_the_explored_task() {
    // serde_json keeps keys alphabetical: "reasoning" before "subject".
    let r = run(
        Variant::Act,
        model(|req| {
            (req.step.as_deref() == Some(STEP_EXPLORE)).then(|| {
                if name_of(req) == "Agent A" {
                    r#"{"reasoning": "I think the team needs calm", "subject": "Pick calm evening teas"}"#
                        .to_string()
                } else {
                    r#"{"reasoning": "I think the room is fine", "mood": "calm"}"#.to_string()
                }
            })
        }),
    );
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

#[test]
fn a_100_kb_key_is_echoed_capped() {
    let key = "ключ".repeat(25_000);
    let r = run(
        Variant::Act,
        model(move |req| match req.step.as_deref() {
            Some(STEP_EXPLORE) => {
                Some(serde_json::json!({ key.clone(): {"task": "Plan a quiet room"} }).to_string())
            }
            Some(STEP_ACQUIRE) => Some(
                serde_json::json!({ key.clone(): {"episodes": [], "knowledge": []} }).to_string(),
            ),
            _ => None,
        }),
    );
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    let echoed = format!("{}…", "ключ".repeat(15));
    for step in [STEP_EXPLORE, STEP_ACQUIRE] {
        let repairs = repairs_of(&r, step);
        assert!(!repairs.is_empty(), "{step}");
        assert!(repairs.iter().any(|x| x.detail.contains(&echoed)), "{step}");
        for x in &repairs {
            assert!(
                x.detail.chars().count() < 200,
                "{step}: {} bytes",
                x.detail.len()
            );
        }
    }
    // The key is in the replies (and their streamed text), nowhere else.
    let mut seen = 0;
    for e in &r.events {
        if matches!(
            e.event,
            RunEvent::LlmResponse { .. } | RunEvent::LlmDelta { .. }
        ) {
            continue;
        }
        seen += 1;
        let json = serde_json::to_string(e).expect("json");
        assert!(
            json.len() < 50_000,
            "{} bytes in {}",
            json.len(),
            json.chars().take(300).collect::<String>()
        );
    }
    assert!(seen > 0);
}

#[test]
fn expertise_without_commas_is_split_and_capped() {
    let r = run(
        Variant::Act,
        model(|req| {
            (req.step.as_deref() == Some(STEP_EXPERTISE)).then(|| {
                if name_of(req).starts_with("Agent A,") {
                    "Here are my keywords:\n- tea blending\n- water chemistry\n* caffeine\n4. evening rituals\n5. ceramics".to_string()
                } else {
                    "interior design and space planning and furniture arrangement and lighting design for cozy reading nooks".to_string()
                }
            })
        }),
    );
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    let expertise = r.notes::<ExpertiseRecord>(STORE_EXPERTISE);
    assert_eq!(expertise.len(), 8);
    for (agent, e) in &expertise {
        assert!(!e.keywords.is_empty() && e.keywords.len() <= 4, "{agent}");
        for k in &e.keywords {
            assert!(k.chars().count() <= 40, "{agent}: {k}");
            assert!(!k.contains('\n') && !k.ends_with(':'), "{agent}: {k}");
        }
    }
    let a = expertise
        .iter()
        .find(|(agent, _)| agent == "a1")
        .map(|(_, e)| e.keywords.clone())
        .unwrap_or_default();
    assert_eq!(
        a,
        [
            "tea blending",
            "water chemistry",
            "caffeine",
            "evening rituals"
        ]
    );
    let repairs = repairs_of(&r, STEP_EXPERTISE);
    assert!(repairs
        .iter()
        .any(|x| x.kind == RepairKind::Clamped && x.detail.contains("cut to 40 characters")));
    assert!(repairs
        .iter()
        .any(|x| x.kind == RepairKind::Clamped && x.detail.contains("5 keywords cut to 4")));
    // Every one of the 8 replies was text, not JSON: each flagged once.
    assert_eq!(
        repaired(&r.events)
            .iter()
            .filter(|(c, _)| calls(&r.events)[c].0 == STEP_EXPERTISE)
            .count(),
        8
    );
}

// ------------------------------------------------------- hostile replies

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
    let seen: RefCell<HashMap<String, usize>> = RefCell::new(HashMap::new());
    model(move |req: &ChatRequest| {
        let step = req.step.clone().unwrap_or_default();
        let n = {
            let mut seen = seen.borrow_mut();
            let n = seen.entry(step.clone()).or_default();
            *n += 1;
            *n - 1 + offset
        };
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
