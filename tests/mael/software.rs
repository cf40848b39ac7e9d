//! MAEL on software (SRDD): a pipeline decomposition (stages one after
//! another, each seeing the results before it), depth 2 on the default
//! team, and the demo model building Roundtable's own requirements end to
//! end through the CLI, its projects run in CPython: files written by
//! their agents, the critic reading the run, Table 2 and 3's figures,
//! Fig. 2's tokens and rounds relative to no experience, Fig. 4's quality
//! per iteration.

use crate::common::*;
use crate::mock::{cli, tmp};
use crate::workflow::{three_line_task, Yielding};
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::html::tree;
use roundtable::engine::coordinators::mael::topology::{Preset, Team};
use roundtable::engine::coordinators::mael::view::MaelView;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::{ChatModel, ChatRequest, ChatResponse};
use roundtable::engine::run::{RunEvent, RunStatus};
use roundtable::engine::views::Fold;
use serde_json::Value;
use std::cell::Cell;
use std::rc::Rc;

/// The demo, with `step`'s replies given by `reply`.
fn demo_but(
    step: &'static str,
    reply: impl Fn(&ChatRequest) -> String + 'static,
) -> Rc<dyn ChatModel> {
    let demo = DemoModel::instant(Rc::new(FakeClock::new()), every_script);
    Rc::new(
        ScriptedModel::new("scripted").otherwise(move |req: &ChatRequest| {
            if req.step.as_deref() == Some(step) {
                return ChatResponse {
                    text: reply(req),
                    ..ChatResponse::default()
                };
            }
            demo.answer(req)
        }),
    )
}

fn user_text(req: &ChatRequest) -> String {
    req.messages
        .last()
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

#[test]
fn a_pipeline_runs_its_stages_in_order_and_each_sees_the_ones_before() {
    let split = |mode: &'static str| {
        demo_but(STEP_DECOMPOSE, move |_| {
            serde_json::json!({"mode": mode, "subtasks": [
                {"task": "Find the cost of 2 mugs at $6 each.", "agent": "a2"},
                {"task": "Find the cost of 3 lamps at $18 each.", "agent": "a3"},
                {"task": "Find the cost of 10 pens at $2 each.", "agent": "a4"},
            ]})
            .to_string()
        })
    };
    let run = |mode: &'static str| {
        let model = Rc::new(Yielding {
            inner: split(mode),
            in_flight: Rc::new(Cell::new(0)),
            most: Rc::new(Cell::new(0)),
        });
        let (status, events) = run_with(&three_line_task(), Mode::None, None, model, |o| {
            o.team = Team::preset(Preset::Star, 4);
            o.learn = false;
        });
        assert_eq!(status, RunStatus::Finished);
        events
    };
    let events = run("pipeline");
    let d: Vec<DecompositionRecord> = notes(&events, STORE_DECOMPOSITION);
    assert_eq!(d[0].mode, Split::Pipeline);
    // Each stage's first solve is asked after the stage before it is
    // solved, and shows what the stages before it found.
    let mut solved: Vec<String> = Vec::new();
    let mut asked: Vec<(usize, String)> = Vec::new();
    for e in &events {
        match &e.event {
            RunEvent::LlmRequest { request, .. } if request.step.as_deref() == Some(STEP_SOLVE) => {
                asked.push((solved.len(), user_text(request)));
            }
            RunEvent::NoteWritten { store, payload, .. } if store == STORE_SOLUTION => {
                solved.push(payload["text"].as_str().unwrap_or_default().to_string());
            }
            _ => {}
        }
    }
    assert_eq!(asked[0].0, 0);
    assert!(!asked[0].1.contains(EARLIER_HEADING), "{}", asked[0].1);
    assert_eq!(asked[1].0, 1, "stage 2 waits for stage 1");
    assert!(
        asked[1].1.contains(&format!(
            "{EARLIER_HEADING}\n## Stage 1: Find the cost of 2 mugs"
        )),
        "{}",
        asked[1].1
    );
    assert!(asked[1].1.contains(solved[0].as_str()));
    assert_eq!(asked[2].0, 2, "stage 3 waits for stage 2");
    assert!(
        asked[2].1.contains("## Stage 2: Find the cost of 3 lamps"),
        "{}",
        asked[2].1
    );
    assert!(asked[2].1.contains(solved[1].as_str()));
    // Modules: all three asked at once, none shown the others.
    let events = run("modules");
    let d: Vec<DecompositionRecord> = notes(&events, STORE_DECOMPOSITION);
    assert_eq!(d[0].mode, Split::Modules);
    let firsts: Vec<(usize, bool)> = {
        let mut solved = 0;
        let mut out = Vec::new();
        for e in &events {
            match &e.event {
                RunEvent::LlmRequest { request, .. }
                    if request.step.as_deref() == Some(STEP_SOLVE) =>
                {
                    out.push((solved, user_text(request).contains(EARLIER_HEADING)));
                }
                RunEvent::NoteWritten { store, .. } if store == STORE_SOLUTION => solved += 1,
                _ => {}
            }
        }
        out
    };
    assert_eq!(&firsts[..3], [(0, false), (0, false), (0, false)]);
}

#[test]
fn on_the_default_team_a_part_can_be_split_again_at_depth_two() {
    // Every agent asked says "split": the hub splits among its three
    // neighbours; a joined leaf splits once more, to the other one.
    let eager = || {
        demo_but(STEP_JUDGE, |_| {
            "{\"solvable\": false, \"reason\": \"split it\"}".into()
        })
    };
    let (status, events) = run_with(&three_line_task(), Mode::None, None, eager(), |o| {
        o.max_depth = 2;
        o.learn = false;
    });
    assert_eq!(status, RunStatus::Finished);
    let tasks: Vec<TaskRecord> = notes(&events, STORE_TASK);
    let deep: Vec<&TaskRecord> = tasks.iter().filter(|t| t.depth == 2).collect();
    assert!(!deep.is_empty(), "{tasks:?}");
    for t in &deep {
        let pair = (t.assigner.as_str(), t.solver.as_str());
        assert!(pair == ("a2", "a3") || pair == ("a3", "a2"), "{pair:?}");
    }
    // a4's only neighbour is the hub: it never splits.
    assert!(tasks.iter().all(|t| t.assigner != "a4"));
    // A plain star stops at depth 1 whatever the agents say.
    let (_, events) = run_with(&three_line_task(), Mode::None, None, eager(), |o| {
        o.team = Team::preset(Preset::Star, 4);
        o.max_depth = 2;
        o.learn = false;
    });
    let tasks: Vec<TaskRecord> = notes(&events, STORE_TASK);
    assert!(tasks.iter().all(|t| t.depth <= 1));
}

#[test]
fn the_demo_builds_the_built_in_requirements_and_experience_saves_a_round() {
    assert!(
        std::process::Command::new("python3")
            .arg("--version")
            .output()
            .is_ok(),
        "SRDD's projects run in CPython: python3 must be on the PATH"
    );
    // One run: its files, its critique of the run, its figures.
    let out = tmp("srdd-run.json");
    let (code, _, err) = cli(
        &[
            "run",
            "--coordinator",
            "mael",
            "--dataset",
            "srdd",
            "--model",
            "demo",
            "--mode",
            "none",
            "--out",
            &out,
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("run file")).expect("json");
    let events = doc["events"].as_array().expect("events");
    let of = |kind: &str| -> Vec<&Value> {
        events.iter().filter_map(|e| e["event"].get(kind)).collect()
    };
    let note = |store: &str| -> Vec<&Value> {
        of("note_written")
            .into_iter()
            .filter(|n| n["store"] == store)
            .map(|n| &n["payload"])
            .collect()
    };
    let files: Vec<(&str, &str)> = of("file_written")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap_or(""),
                f["agent"].as_str().unwrap_or(""),
            )
        })
        .collect();
    // The core by one agent, main.py by the next stage's, then main.py again
    // after the critic saw its placeholder.
    assert_eq!(
        files,
        [
            ("unit_shifter.py", "a2"),
            ("main.py", "a3"),
            ("main.py", "a3")
        ],
        "{err}"
    );
    assert_eq!(note(STORE_DECOMPOSITION)[0]["mode"], "pipeline");
    let critiques: Vec<&str> = of("llm_request")
        .iter()
        .filter(|r| r["request"]["step"] == STEP_CRITIQUE)
        .filter_map(|r| r["request"]["messages"].as_array()?.last()?["content"].as_str())
        .collect();
    assert!(
        critiques
            .iter()
            .all(|c| c.contains(RUN_HEADING) && c.contains("Verdict: executable")),
        "{critiques:?}"
    );
    assert!(
        critiques.iter().any(|c| c.contains("1. Converts lengths")),
        "the critic saw the program's output"
    );
    let q: Vec<f64> = note(STORE_ITERATION)
        .iter()
        .map(|i| i["quality"].as_f64().unwrap_or(-1.0))
        .collect();
    assert_eq!(q.len(), 4, "{q:?}");
    assert_eq!(q[1], 0.0, "main.py with its placeholder is incomplete");
    assert!(q[2] > 0.0 && q[3] == q[2], "{q:?}");
    let score = of("score_computed")
        .into_iter()
        .find(|s| s["name"] == "score")
        .expect("score");
    assert!(
        score["detail"]["runner"]
            .as_str()
            .is_some_and(|r| r.contains("CPython")),
        "{score}"
    );
    assert_eq!(score["value"].as_f64(), Some(q[3]));
    for k in [
        "completeness",
        "executability",
        "consistency",
        "quality",
        "complexity",
        "lines",
        "tokens",
        "functions",
        "files",
    ] {
        assert!(score["detail"][k].is_number(), "{k}: {score}");
    }
    assert_eq!(score["detail"]["files"].as_f64(), Some(2.0));
    // What a viewer's call tree says of it.
    let run = roundtable::engine::run::RunDoc::from_json(
        &std::fs::read_to_string(&out).expect("run file"),
    )
    .expect("a run");
    let view = MaelView::of(&run.events);
    let html = tree::tree_html(&view, &[]);
    assert!(html.contains("Split into a pipeline"), "{html}");
    assert!(html.contains("Scored by python3 (CPython"), "{html}");
    assert!(
        html.contains("Quality after each step that wrote files: "),
        "{html}"
    );
    assert!(html.contains(">0%</span>"), "the dip: {html}");

    // A learning phase on the training split, then the modes compared.
    let pool = tmp("srdd-pool.json");
    let _ = std::fs::remove_file(&pool);
    let (code, _, err) = cli(
        &[
            "mael-learn",
            "--dataset",
            "srdd",
            "--model",
            "demo",
            "--out",
            &pool,
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let (code, stdout, err) = cli(
        &[
            "mael-eval",
            "--dataset",
            "srdd",
            "--model",
            "demo",
            "--pool",
            &pool,
            "--sizes",
            "none",
            "--json",
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let lines = crate::cli::lines(&stdout);
    let row = |label: &str| {
        lines
            .iter()
            .find(|l| l["label"] == label)
            .unwrap_or_else(|| panic!("{label}: {stdout}"))
    };
    let none = row("MAEL-ØExp");
    let step = row("MAEL-Step");
    assert_eq!(
        none["tasks"].as_array().map(Vec::len),
        Some(4),
        "the test split: {none}"
    );
    for r in [none, step] {
        assert_eq!(r["parts"]["completeness"].as_f64(), Some(1.0), "{r}");
        assert!(
            r["parts"]["lines"].as_f64().is_some_and(|l| l > 10.0),
            "{r}"
        );
    }
    // Fig. 2: the worked examples save the refinement round and its tokens.
    assert_eq!(none["relative_to_none"]["rounds"].as_f64(), Some(1.0));
    assert_eq!(
        step["relative_to_none"]["rounds"].as_f64(),
        Some(0.5),
        "{step}"
    );
    assert!(
        step["relative_to_none"]["completion_tokens"]
            .as_f64()
            .is_some_and(|t| t < 0.9),
        "{step}"
    );
    // Fig. 4: without experience a case dips to 0 before it is fixed; with
    // it, never.
    let curves: Vec<&Value> = lines.iter().filter(|l| l["figure"] == 4).collect();
    assert_eq!(curves.len(), 12, "four cases, three rows: {stdout}");
    let dips = |label: &str| {
        curves.iter().filter(|c| c["label"] == label).all(|c| {
            c["quality"]
                .as_array()
                .is_some_and(|q| q.iter().any(|x| x.as_f64() == Some(0.0)))
        })
    };
    assert!(dips("MAEL-ØExp"));
    assert!(
        curves
            .iter()
            .filter(|c| c["label"] == "MAEL-Step")
            .all(|c| {
                c["quality"]
                    .as_array()
                    .is_some_and(|q| q.iter().all(|x| x.as_f64().is_some_and(|v| v > 0.0)))
            }),
        "{stdout}"
    );
}
