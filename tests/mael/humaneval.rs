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
