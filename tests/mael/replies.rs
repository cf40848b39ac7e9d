//! Real models' replies: what each step reads from a reply that is not
//! the JSON it asked for, that every repaired or unreadable reply is
//! recorded once against its call, that an unreadable reply is never
//! taken as an answer (a critique is asked again, then not adequate; a
//! judgement defaults to solving alone; a rating is asked again, then not
//! measured and kept out of the pool), and the paper's temperature.
//!
//! Payloads are read as JSON values where the shape changed, so these
//! tests also run against older code (to see them fail there).

use crate::common::*;
use crate::repaired_log::repaired;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::experience::Experience;
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::domains::tasks::builtin::{tasks, Split};
use roundtable::engine::domains::tasks::Task;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::reply::{Repair, RepairKind};
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::{ChatModel, ChatRequest, ChatResponse};
use roundtable::engine::run::{LoggedEvent, RunEvent, RunStatus};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// The demo model, except that `step`'s replies come from `reply(n)`
/// (n = how many `step` requests came before).
fn demo_but(step: &'static str, reply: impl Fn(usize) -> String + 'static) -> Rc<dyn ChatModel> {
    let demo = DemoModel::instant(Rc::new(FakeClock::new()), every_script);
    let seen = RefCell::new(0usize);
    Rc::new(
        ScriptedModel::new("demo-but").otherwise(move |req: &ChatRequest| {
            if req.step.as_deref() == Some(step) {
                let n = seen.replace_with(|n| *n + 1);
                return ChatResponse {
                    text: reply(n),
                    ..ChatResponse::default()
                };
            }
            demo.answer(req)
        }),
    )
}

fn kinds(repairs: &[Repair]) -> Vec<RepairKind> {
    repairs.iter().map(|r| r.kind.clone()).collect()
}

/// Every answered call: (call, step tag, request, reply).
fn calls(events: &[LoggedEvent]) -> Vec<(u32, String, ChatRequest, String)> {
    let mut asked: HashMap<u32, (String, ChatRequest)> = HashMap::new();
    let mut out = Vec::new();
    for e in events {
        match &e.event {
            RunEvent::LlmRequest { call, request, .. } => {
                asked.insert(
                    *call,
                    (request.step.clone().unwrap_or_default(), request.clone()),
                );
            }
            RunEvent::LlmResponse { call, response, .. } => {
                if let Some((step, req)) = asked.remove(call) {
                    out.push((*call, step, req, response.text.clone()));
                }
            }
            _ => {}
        }
    }
    out
}

/// The repairs recorded for each call of `step`, in call order (empty:
/// none recorded).
fn repairs_of(events: &[LoggedEvent], step: &str) -> Vec<Vec<RepairKind>> {
    let rep = repaired(events);
    calls(events)
        .iter()
        .filter(|c| c.1 == step)
        .map(|c| {
            rep.iter()
                .filter(|(call, _)| *call == c.0)
                .flat_map(|(_, r)| kinds(r))
                .collect()
        })
        .collect()
}

fn three_line_task() -> Task {
    tasks(Split::Train)
        .into_iter()
        .find(|t| t.prompt.matches("\n- ").count() >= 3)
        .expect("a built-in task of three lines or more")
}

#[test]
fn a_critique_that_writes_false_as_text_is_not_adequate() {
    // The old reader took {"adequate": "false"} as adequate.
    let critic = demo_but(STEP_CRITIQUE, |_| {
        r#"{"adequate": "false", "feedback": "Check the offer."}"#.into()
    });
    let (status, events) = run_with(&three_line_task(), Mode::None, None, critic, |o| {
        o.learn = false;
        o.max_rounds = 1;
    });
    assert_eq!(status, RunStatus::Finished);
    let critiques: Vec<Value> = notes(&events, STORE_CRITIQUE);
    assert!(!critiques.is_empty());
    assert!(
        critiques.iter().all(|c| c["adequate"] == false),
        "{critiques:?}"
    );
    let solutions: Vec<SolutionRecord> = notes(&events, STORE_SOLUTION);
    assert_eq!(
        solutions.iter().filter(|s| s.version > 0).count(),
        critiques.len(),
        "every solution goes back for a refinement"
    );
    // Each critique reply is flagged once, as a mapped shape.
    let flagged = repairs_of(&events, STEP_CRITIQUE);
    assert_eq!(flagged.len(), critiques.len());
    assert!(
        flagged.iter().all(|k| k == &[RepairKind::Shape]),
        "{flagged:?}"
    );

    // "TRUE" / "yes" are adequate, also flagged.
    let critic = demo_but(STEP_CRITIQUE, |n| {
        format!(
            r#"{{"adequate": "{}"}}"#,
            if n % 2 == 0 { "TRUE" } else { "yes" }
        )
    });
    let (_, events) = run_with(&three_line_task(), Mode::None, None, critic, |o| {
        o.learn = false
    });
    let critiques: Vec<Value> = notes(&events, STORE_CRITIQUE);
    assert!(!critiques.is_empty(), "the critique step never ran");
    assert!(critiques.iter().all(|c| c["adequate"] == true));
    let flagged = repairs_of(&events, STEP_CRITIQUE);
    assert!(!flagged.is_empty(), "no critique call");
    assert!(flagged.iter().all(|k| k == &[RepairKind::Shape]));
}

#[test]
fn an_unreadable_critique_is_asked_again_once_and_never_passed_as_adequate() {
    let critic = demo_but(STEP_CRITIQUE, |_| "Looks adequate to me.".into());
    let (status, events) = run_with(&three_line_task(), Mode::None, None, critic, |o| {
        o.learn = false;
        o.max_rounds = 1;
    });
    assert_eq!(status, RunStatus::Finished);
    let critiques: Vec<Value> = notes(&events, STORE_CRITIQUE);
    assert!(!critiques.is_empty());
    assert!(
        critiques.iter().all(|c| c["adequate"] == false),
        "the default is not adequate: {critiques:?}"
    );
    // Two calls per critique: the first flagged "asked again", the second
    // (with a reminder of the JSON) flagged "default used".
    let critique_calls: Vec<_> = calls(&events)
        .into_iter()
        .filter(|c| c.1 == STEP_CRITIQUE)
        .collect();
    assert_eq!(critique_calls.len(), 2 * critiques.len());
    let reminded = critique_calls
        .iter()
        .filter(|c| {
            c.2.last_user()
                .is_some_and(|u| u.contains("could not be read") && u.contains("\"adequate\""))
        })
        .count();
    assert_eq!(reminded, critiques.len());
    let flagged = repairs_of(&events, STEP_CRITIQUE);
    let asked = flagged
        .iter()
        .filter(|k| k == &&[RepairKind::AskedAgain])
        .count();
    let defaulted = flagged
        .iter()
        .filter(|k| k == &&[RepairKind::Default])
        .count();
    assert_eq!((asked, defaulted), (critiques.len(), critiques.len()));
    // A second reply that reads is used (and the first still flagged).
    let critic = demo_but(STEP_CRITIQUE, |n| {
        if n % 2 == 0 {
            "Looks adequate to me.".into()
        } else {
            r#"{"adequate": true, "feedback": ""}"#.into()
        }
    });
    let (_, events) = run_with(&three_line_task(), Mode::None, None, critic, |o| {
        o.learn = false
    });
    let critiques: Vec<Value> = notes(&events, STORE_CRITIQUE);
    // (0 == 2 · 0 would pass if the step never ran.)
    assert!(!critiques.is_empty(), "the critique step never ran");
    assert!(critiques.iter().all(|c| c["adequate"] == true));
    let flagged = repairs_of(&events, STEP_CRITIQUE);
    assert_eq!(flagged.len(), 2 * critiques.len());
    assert!(flagged
        .chunks(2)
        .all(|p| p[0] == [RepairKind::AskedAgain] && p[1].is_empty()));
}

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
        let (status, events) = run_with(&three_line_task(), Mode::None, None, judge, |o| {
            o.learn = false
        });
        assert_eq!(status, RunStatus::Finished, "{reply}");
        assert_eq!(decomposed(&events), split, "{reply}");
        let j: Vec<JudgementRecord> = notes(&events, STORE_JUDGEMENT);
        assert_eq!(j[0].solvable, !split, "{reply}");
        assert!(j[0].note.is_some(), "{reply}");
        assert_eq!(repairs_of(&events, STEP_JUDGE), [vec![kind]], "{reply}");
    }
}

/// The evaluator's ratings of sub-solutions: their `score` as recorded
/// (a number, or null when not rated).
fn evaluator_scores(events: &[LoggedEvent]) -> Vec<Value> {
    notes::<Value>(events, STORE_RATING)
        .into_iter()
        .filter(|r| r["by"] == "evaluator")
        .map(|r| r["score"].clone())
        .collect()
}

#[test]
fn a_score_in_prose_is_the_last_explicit_one_and_clamped_to_the_scale() {
    // The old fallback took the first number: 0.3 here.
    let evaluator = demo_but(STEP_EVALUATE, |_| {
        "In step 3 the total is right … 9/10".into()
    });
    let (status, events) = run_with(&three_line_task(), Mode::None, None, evaluator, |_| {});
    assert_eq!(status, RunStatus::Finished);
    let scores = evaluator_scores(&events);
    assert!(!scores.is_empty());
    assert!(scores.iter().all(|s| s.as_f64() == Some(0.9)), "{scores:?}");
    assert!(repairs_of(&events, STEP_EVALUATE)
        .iter()
        .all(|k| k == &[RepairKind::Shape]));

    let evaluator = demo_but(STEP_EVALUATE, |_| {
        r#"{"score": 12, "reason": "great"}"#.into()
    });
    let (_, events) = run_with(&three_line_task(), Mode::None, None, evaluator, |_| {});
    let scores = evaluator_scores(&events);
    assert!(!scores.is_empty(), "the evaluator never ran");
    assert!(scores.iter().all(|s| s.as_f64() == Some(1.0)), "{scores:?}");
    let flagged = repairs_of(&events, STEP_EVALUATE);
    assert!(!flagged.is_empty(), "no evaluator call");
    assert!(flagged.iter().all(|k| k == &[RepairKind::Clamped]));
}

#[test]
fn a_rating_cut_off_right_after_its_number_is_not_rated() {
    // `{"score": 1` may be 10 cut short: the old text fallback read it
    // from the cut JSON as 1, and the solution was stored as rated 0.1.
    let evaluator = demo_but(STEP_EVALUATE, |_| r#"{"score": 1"#.into());
    let memory = Rc::new(Memory::lexical("test"));
    let (status, events) = run_with(
        &three_line_task(),
        Mode::None,
        Some(memory.clone()),
        evaluator,
        |_| {},
    );
    assert_eq!(status, RunStatus::Finished);
    let scores = evaluator_scores(&events);
    assert!(!scores.is_empty(), "the evaluator never ran");
    assert!(scores.iter().all(Value::is_null), "{scores:?}");
    let flagged = repairs_of(&events, STEP_EVALUATE);
    assert_eq!(flagged.len(), 2 * scores.len());
    assert!(
        flagged
            .chunks(2)
            .all(|p| p[0] == [RepairKind::AskedAgain] && p[1] == [RepairKind::Default]),
        "{flagged:?}"
    );
    // No sub-solution's solve is stored: its reward needs its rating.
    let pool = memory.pool.borrow();
    assert!(!pool.is_empty());
    assert!(
        pool.entries
            .iter()
            .all(|e| !(e.step == StepKind::Solve && e.depth > 0)),
        "a sub-solution stored with an unmeasured reward"
    );
}

#[test]
fn a_step_that_took_its_default_never_enters_the_pool() {
    // An unreadable reply is the step's output; when the step took its
    // stated default, that reply went into the pool with a measured
    // reward, and retrieval served it as a worked example.
    const MARK: &str = "GARBLED-7Q";
    let cases: [(&str, StepKind, &str); 3] = [
        (STEP_JUDGE, StepKind::Judge, "hmm, I would decompose this"),
        (
            STEP_DECOMPOSE,
            StepKind::Decompose,
            "Let me think about it.",
        ),
        (STEP_CRITIQUE, StepKind::Critique, "Looks adequate to me."),
    ];
    for (step, kind, reply) in cases {
        let model = demo_but(step, move |_| format!("{reply} {MARK}"));
        let memory = Rc::new(Memory::lexical("test"));
        let (status, events) = run_with(
            &three_line_task(),
            Mode::None,
            Some(memory.clone()),
            model,
            |o| o.max_rounds = 1,
        );
        assert_eq!(status, RunStatus::Finished, "{step}");
        let asked = calls(&events).iter().filter(|c| c.1 == step).count();
        assert!(asked > 0, "{step} never ran");
        assert!(
            repairs_of(&events, step)
                .iter()
                .any(|k| k.contains(&RepairKind::Default)),
            "{step}: no default taken"
        );
        // Nothing with the unreadable reply in the pool or its record.
        let pool = memory.pool.borrow();
        assert!(!pool.is_empty(), "{step}: the run learned nothing");
        assert!(
            pool.entries.iter().all(|e| !e.output.contains(MARK)),
            "{step}: an unreadable reply was stored"
        );
        assert!(pool.entries.iter().all(|e| e.step != kind), "{step}");
        let exps: Vec<Experience> = notes(&events, STORE_EXPERIENCE);
        assert!(exps.iter().all(|e| !e.output.contains(MARK)), "{step}");
        // Each such step is noted as not stored, with why.
        let unlearned: Vec<Value> = notes(&events, "unlearned");
        let named: Vec<&Value> = unlearned
            .iter()
            .filter(|u| u["step"] == serde_json::json!(kind))
            .collect();
        let taken = notes::<Value>(
            &events,
            match kind {
                StepKind::Judge => STORE_JUDGEMENT,
                StepKind::Decompose => STORE_DECOMPOSITION,
                _ => STORE_CRITIQUE,
            },
        )
        .len();
        assert!(taken > 0, "{step}");
        assert_eq!(named.len(), taken, "{step}: {unlearned:?}");
        assert!(
            named.iter().all(|u| u["reason"]
                .as_str()
                .is_some_and(|r| r.contains("could not be read") && r.contains("default"))),
            "{step}: {named:?}"
        );
    }
}

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
        let (status, events) = run_with(
            &three_line_task(),
            Mode::None,
            None,
            decomposer(list),
            |o| {
                o.team = team(&[(0, 1), (0, 2)], 3);
                o.learn = false;
            },
        );
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
    let (_, events) = run_with(
        &three_line_task(),
        Mode::None,
        None,
        decomposer(&SEVEN[..4]),
        |o| {
            o.team = team(&[(0, 1), (0, 2)], 3);
            o.learn = false;
        },
    );
    let d: Vec<DecompositionRecord> = notes(&events, STORE_DECOMPOSITION);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].subtasks.len(), 4);
    assert_eq!(
        repairs_of(&events, STEP_DECOMPOSE),
        [Vec::<RepairKind>::new()]
    );
}

#[test]
fn an_unread_score_never_reaches_the_pool_as_a_reward() {
    let evaluator = demo_but(STEP_EVALUATE, |_| "no idea".into());
    let memory = Rc::new(Memory::lexical("test"));
    let (status, events) = run_with(
        &three_line_task(),
        Mode::None,
        Some(memory.clone()),
        evaluator,
        |_| {},
    );
    assert_eq!(status, RunStatus::Finished);
    // Every sub-solution's rating was asked twice, then recorded unrated.
    let scores = evaluator_scores(&events);
    assert!(!scores.is_empty());
    assert!(scores.iter().all(Value::is_null), "{scores:?}");
    let flagged = repairs_of(&events, STEP_EVALUATE);
    assert_eq!(flagged.len(), 2 * scores.len());
    assert!(flagged
        .chunks(2)
        .all(|p| p[0] == [RepairKind::AskedAgain] && p[1] == [RepairKind::Default]));
    // The pool holds only steps whose reward was measured: the root's
    // aggregate (the metric) and the critiques that found a solution
    // adequate (0.5 by the formula, no rating involved). No solve of a
    // subtask, no split, no refining critique: their rewards need a
    // sub-solution's rating.
    let pool = memory.pool.borrow();
    let exps: Vec<Experience> = notes(&events, STORE_EXPERIENCE);
    assert_eq!(pool.len(), exps.len());
    assert_eq!(result(&events).learned, pool.len());
    let score = result(&events).score;
    for e in &pool.entries {
        match e.step {
            StepKind::Aggregate => assert_eq!((e.depth, e.reward), (0, score)),
            StepKind::Critique => assert_eq!(e.reward, 0.5),
            other => panic!(
                "{other:?} was stored with an unmeasured reward {}",
                e.reward
            ),
        }
    }
    let critiques: Vec<CritiqueRecord> = notes(&events, STORE_CRITIQUE);
    assert_eq!(
        pool.entries
            .iter()
            .filter(|e| e.step == StepKind::Critique)
            .count(),
        critiques.iter().filter(|c| c.adequate).count()
    );
    // The others are noted as not stored, with why.
    let unlearned: Vec<Value> = notes(&events, "unlearned");
    let decision_steps = requests(&events)
        .iter()
        .filter(|(_, s)| StepKind::ALL.iter().any(|k| k.tag() == s))
        .count();
    assert_eq!(
        unlearned.len() + pool.len(),
        decision_steps,
        "each decision step is stored or noted"
    );
    assert!(unlearned.iter().all(|u| u["reason"]
        .as_str()
        .is_some_and(|r| r.contains("could not be read"))));
}

#[test]
fn mael_samples_at_the_papers_temperature_unless_the_run_sets_one() {
    let temperatures = |events: &[LoggedEvent]| -> Vec<Option<f32>> {
        calls(events)
            .into_iter()
            .map(|c| c.2.params.temperature)
            .collect()
    };
    let started = |events: &[LoggedEvent]| {
        events
            .iter()
            .find_map(|e| match &e.event {
                RunEvent::RunStarted { config } => Some(config.clone()),
                _ => None,
            })
            .expect("started")
    };
    // A new run (the options every caller starts from): 0.2 in the run
    // file, and in every request (the demo's spec sets none).
    let (status, events) = run_with(&three_line_task(), Mode::None, None, demo(), |_| {});
    assert_eq!(status, RunStatus::Finished);
    let config = started(&events);
    assert_eq!(config.options["temperature"].as_f64(), Some(0.2f32 as f64));
    assert!(config.models.iter().all(|b| b.spec.temperature.is_none()));
    let t = temperatures(&events);
    assert!(!t.is_empty() && t.iter().all(|t| *t == Some(0.2)), "{t:?}");

    // The run's own temperature wins, in every request.
    let task = three_line_task();
    let mut config =
        roundtable::engine::run::RunConfig::new(ID, "", roundtable::engine::run::ModelSpec::demo());
    roundtable::engine::coordinators::mael::setup::configure(&mut config, task, Mode::None);
    config.models[0].spec.temperature = Some(0.7);
    let go = |config: roundtable::engine::run::RunConfig| {
        let ctx = roundtable::engine::run::RunCtx::new(
            config,
            roundtable::engine::run::ModelRouter::single(demo()),
            Rc::new(FakeClock::new()),
        );
        let status = futures::executor::block_on(roundtable::engine::coordinators::execute(&ctx));
        assert_eq!(status, RunStatus::Finished);
        ctx.events()
    };
    let t = temperatures(&go(config.clone()));
    assert!(!t.is_empty() && t.iter().all(|t| *t == Some(0.7)), "{t:?}");

    // A run recorded before (options without a temperature) asks as it
    // did, so it replays and forks call for call.
    config.models[0].spec.temperature = None;
    if let Some(o) = config.options.as_object_mut() {
        o.remove("temperature");
    }
    let t = temperatures(&go(config));
    assert!(!t.is_empty() && t.iter().all(Option::is_none), "{t:?}");

    // The learning phase's runs say it in their files too.
    let base =
        roundtable::engine::run::RunConfig::new(ID, "", roundtable::engine::run::ModelSpec::demo());
    let jobs = roundtable::engine::coordinators::mael::learn::learning_jobs(
        &base,
        &tasks(Split::Train)[..2],
        Mode::Step,
        |t| MaelOptions::for_task(t.clone()),
    );
    assert!(jobs
        .iter()
        .all(|j| j.config.options["temperature"].as_f64() == Some(0.2f32 as f64)));
}

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
        STEP_EVALUATE => {
            serde_json::from_str::<Rating>(t).is_ok_and(|r| (0.0..=10.0).contains(&r.score))
        }
        _ => true,
    }
}

#[test]
fn odd_replies_end_the_run_and_each_repaired_reply_is_recorded_once() {
    let mut kinds_seen: Vec<RepairKind> = Vec::new();
    let mut longest = 0;
    for offset in 0..7 {
        let seen: RefCell<HashMap<String, usize>> = RefCell::new(HashMap::new());
        let model = Rc::new(
            ScriptedModel::new("odd").otherwise(move |req: &ChatRequest| {
                let step = req.step.clone().unwrap_or_default();
                let n = {
                    let mut seen = seen.borrow_mut();
                    let n = seen.entry(step.clone()).or_insert(0);
                    *n += 1;
                    *n - 1
                };
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
