//! HumanEval in a MAEL run: the final answer's completion is read (flagged
//! when repaired), run with the platform's Python runner (here a recording
//! stand-in; the real one is tested in `cli.rs` and in Chromium), and the
//! verdict is the score, recorded with what ran; a run without a runner
//! fails with a clear message rather than scoring 0.

use crate::common::*;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::view::MaelView;
use roundtable::engine::domains::tasks::humaneval::{self, Checked, PythonRunner, Runner, Verdict};
use roundtable::engine::domains::tasks::{parse_jsonl, Dataset};
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::{ChatModel, ChatRequest, ChatResponse};
use roundtable::engine::run::RunStatus;
use roundtable::engine::views::Fold;
use std::cell::RefCell;
use std::rc::Rc;

/// Passes a program when it holds `a + b`; keeps every program.
#[derive(Default)]
struct Recording(RefCell<Vec<String>>);

impl PythonRunner for Recording {
    fn check(
        &self,
        program: String,
    ) -> futures::future::LocalBoxFuture<'_, Result<Verdict, String>> {
        let passed = program.contains("return a + b");
        self.0.borrow_mut().push(program);
        Box::pin(async move {
            Ok(Verdict {
                passed,
                result: if passed {
                    "passed".into()
                } else {
                    "failed: ".into()
                },
            })
        })
    }
}

fn task() -> roundtable::engine::domains::tasks::Task {
    let row = serde_json::json!({"task_id": "HumanEval/900", "prompt": "def add(a, b):\n    \"\"\"Add two numbers.\"\"\"\n", "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n", "entry_point": "add"});
    parse_jsonl(Dataset::Humaneval, &row.to_string(), "t")
        .expect("task")
        .remove(0)
}

/// The demo model, except that every solution is `code`.
fn solver(code: &'static str) -> Rc<dyn ChatModel> {
    let demo = DemoModel::instant(Rc::new(FakeClock::new()), every_script);
    Rc::new(
        ScriptedModel::new("solver").otherwise(move |req: &ChatRequest| {
            match req.step.as_deref() {
                Some(STEP_SOLVE) | Some(STEP_AGGREGATE) => ChatResponse {
                    text: code.into(),
                    ..ChatResponse::default()
                },
                Some(STEP_JUDGE) => ChatResponse {
                    text: r#"{"solvable": true, "reason": "small"}"#.into(),
                    ..ChatResponse::default()
                },
                Some(STEP_CRITIQUE) => ChatResponse {
                    text: r#"{"adequate": true, "feedback": ""}"#.into(),
                    ..ChatResponse::default()
                },
                _ => demo.answer(req),
            }
        }),
    )
}

fn run_scored(
    code: &'static str,
) -> (
    RunStatus,
    Vec<roundtable::engine::run::LoggedEvent>,
    Rc<Recording>,
) {
    let python = Rc::new(Recording::default());
    let p = python.clone();
    let (status, events) = run_attached(
        &task(),
        Mode::None,
        solver(code),
        |o| o.learn = false,
        |ctx| {
            ctx.insert_resource(Rc::new(Runner(p)));
        },
    );
    (status, events, python)
}

#[test]
fn the_answer_runs_with_the_official_program_and_its_verdict_is_the_score() {
    let (status, events, python) =
        run_scored("Sure.\n```python\ndef add(a, b):\n    return a + b\n```\nAnswer: see above");
    assert_eq!(status, RunStatus::Finished);
    assert_eq!(result(&events).score, 1.0);
    let ran = python.0.borrow();
    assert_eq!(ran.len(), 1);
    assert!(ran[0].starts_with(
        "def add(a, b):\n    \"\"\"Add two numbers.\"\"\"\n\ndef add(a, b):\n    return a + b\n"
    ));
    assert!(ran[0].ends_with("\ncheck(add)"), "{}", ran[0]);
    let checked: Vec<Checked> = notes(&events, STORE_PROGRAM);
    assert_eq!(checked[0].verdict.result, "passed");
    assert!(checked[0].repairs.is_empty());
    // The view shows the verdict and the code, as text.
    let mut view = MaelView::default();
    for e in &events {
        view.apply(e);
    }
    let html = roundtable::engine::coordinators::mael::html::tree::tree_html(&view, &[]);
    assert!(
        html.contains("Tests: passed") && html.contains("The completion that ran"),
        "{html}"
    );
}

#[test]
fn a_repaired_completion_is_flagged_and_a_wrong_one_scores_zero() {
    // A body without indentation, no fence: read, flagged twice, and wrong.
    let (status, events, _) = run_scored("return a - b");
    assert_eq!(status, RunStatus::Finished);
    assert_eq!(result(&events).score, 0.0);
    let checked: Vec<Checked> = notes(&events, STORE_PROGRAM);
    assert_eq!(checked[0].completion, "    return a - b\n");
    assert_eq!(checked[0].repairs.len(), 2, "{:?}", checked[0].repairs);
    // Flagged on the reply it was read from, as every repaired reply is.
    let flagged: Vec<usize> = events
        .iter()
        .filter_map(|e| match &e.event {
            roundtable::engine::run::RunEvent::ReplyRepaired { repairs, .. } => Some(repairs.len()),
            _ => None,
        })
        .collect();
    assert_eq!(flagged, [2]);
    let mut view = MaelView::default();
    for e in &events {
        view.apply(e);
    }
    let html = roundtable::engine::coordinators::mael::html::tree::tree_html(&view, &[]);
    assert!(
        html.contains("repaired: the reply had no ```python block"),
        "{html}"
    );
    // Markup in the code stays text.
    let (_, events, _) = run_scored("```python\ndef add(a, b):\n    return '<b>x</b>'\n```");
    let mut view = MaelView::default();
    for e in &events {
        view.apply(e);
    }
    let html = roundtable::engine::coordinators::mael::html::tree::tree_html(&view, &[]);
    assert!(html.contains("&lt;b&gt;x&lt;/b&gt;") && !html.contains("<b>x</b>"));
}

#[test]
fn without_a_runner_the_run_fails_and_says_why() {
    let (status, events) = run_attached(
        &task(),
        Mode::None,
        solver("return a + b"),
        |o| o.learn = false,
        |_| {},
    );
    assert_eq!(status, RunStatus::Failed);
    let said = format!("{:?}", events.last().map(|e| &e.event));
    assert!(said.contains("no Python runner"), "{said}");
    let _ = humaneval::TIME_LIMIT_MS;
}

/// `humaneval-score` on a small problem file of its own (runs without
/// `../shared`): one line per sample, in input order, with the official
/// verdicts, through Node and Pyodide.
#[test]
fn humaneval_score_gives_the_official_verdicts_in_order() {
    use crate::mock::{cli, tmp};
    let problems = tmp("he-problems.jsonl");
    let row = serde_json::json!({"task_id": "T/0", "prompt": "def add(a, b):\n    \"\"\"Sum.\"\"\"\n", "test": "def check(candidate):\n    assert candidate(2, 3) == 5\n", "entry_point": "add"});
    std::fs::write(&problems, row.to_string()).expect("write");
    let samples = tmp("he-samples.jsonl");
    let completions = [
        ("    return a + b\n", "passed"),
        ("    return a - b\n", "failed: "),
        ("    while True:\n        pass\n", "timed out"),
        ("    raise SystemExit(0)\n", "failed: 0"),
        ("    return (\n", "failed: "),
        ("    print('x' * 100000)\n    return a + b\n", "passed"),
    ];
    let lines: Vec<String> = completions
        .iter()
        .map(|(c, _)| serde_json::json!({"task_id": "T/0", "completion": c}).to_string())
        .collect();
    std::fs::write(&samples, lines.join("\n")).expect("write");
    let (code, out, err) = cli(
        &[
            "humaneval-score",
            "--problems",
            &problems,
            "--samples",
            &samples,
            "--json",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let got: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(got.len(), completions.len(), "{out}");
    for (g, (c, want)) in got.iter().zip(completions) {
        assert_eq!(g["task_id"], "T/0");
        let result = g["result"].as_str().unwrap_or("");
        // A syntax error's message names the error; the others are exact.
        if want == "failed: " && c.contains("return (") {
            assert!(result.starts_with("failed: "), "{c:?}: {result}");
        } else {
            assert_eq!(result, want, "{c:?}");
        }
        assert_eq!(g["passed"], want == "passed", "{c:?}");
    }
    // pass@1 over the one problem: 2 of 6 samples passed.
    assert!(err.contains("pass@1 0.3333"), "{err}");
    // An unknown task is refused before anything runs.
    std::fs::write(&samples, r#"{"task_id": "T/9", "completion": ""}"#).expect("write");
    let (code, _, err) = cli(
        &[
            "humaneval-score",
            "--problems",
            &problems,
            "--samples",
            &samples,
        ],
        None,
    );
    assert_eq!(code, 2);
    assert!(err.contains("\"T/9\", which"), "{err}");
}

/// The shared HumanEval file: every canonical solution passes, and every
/// broken one of `e2e/fixtures/humaneval-broken.jsonl` gets the verdict the
/// official harness gives it (`scripts/humaneval-reference.py` checks the
/// fixture against CPython; the Chromium worker is held to the same lines
/// in `e2e/humaneval.test.mjs`).
#[test]
fn shared_humaneval_canonical_and_broken_solutions_get_the_official_verdicts() {
    use crate::mock::{cli, tmp};
    let base = std::env::var("ROUNDTABLE_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let problems = base.join("datasets/humaneval/HumanEval.jsonl");
    let text = std::fs::read_to_string(&problems).unwrap_or_else(|e| {
        panic!(
            "the shared HumanEval file is missing ({e}): {}",
            problems.display()
        )
    });
    let mut samples = Vec::new();
    let mut want = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("row");
        samples.push(
            serde_json::json!({"task_id": v["task_id"], "completion": v["canonical_solution"]}),
        );
        want.push("passed".to_string());
    }
    assert_eq!(samples.len(), 164);
    let fixture = include_str!("../../e2e/fixtures/humaneval-broken.jsonl");
    for line in fixture.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("fixture row");
        samples.push(serde_json::json!({"task_id": v["task_id"], "completion": v["completion"]}));
        // Pyodide's CPython 3.14 words a few messages its own way; the
        // fixture gives those beside the official text (same pass / fail).
        let official = v["expected_result"].as_str().expect("expected");
        let here = v["pyodide_result"].as_str().unwrap_or(official);
        assert_eq!(here == "passed", official == "passed", "{line}");
        want.push(here.to_string());
    }
    let file = tmp("he-shared-samples.jsonl");
    let lines: Vec<String> = samples.iter().map(|s| s.to_string()).collect();
    std::fs::write(&file, lines.join("\n")).expect("write");
    let p = problems.to_string_lossy();
    let (code, out, err) = cli(
        &[
            "humaneval-score",
            "--problems",
            &p,
            "--samples",
            &file,
            "--json",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    eprintln!("[humaneval] {}", err.trim());
    let got: Vec<String> = out
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            v["result"].as_str().unwrap_or("").to_string()
        })
        .collect();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "sample {i}: {}", samples[i]);
    }
}
