//! Python for the CLI: HumanEval programs run in Pyodide (CPython compiled
//! to wasm) inside Node, by `web/humaneval/node-score.mjs`, the same
//! checking code the page's worker runs, so a verdict cannot differ
//! between the two. One Node process serves every program of a command:
//! JSON lines `{"program"}` in, `{"passed", "result"}` out, in order; it
//! enforces the time limit itself (a worker thread it replaces).
//!
//! `ROUNDTABLE_HUMANEVAL_RUNNER` names another script (tests); `node`
//! must be on the PATH (`make` puts the one setup checked there).

use futures::future::LocalBoxFuture;
use roundtable::engine::domains::tasks::humaneval::{PythonRunner, Verdict, TIME_LIMIT_MS};
use std::cell::RefCell;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// `node SCRIPT ARGS…` with its stdin and stdout piped (stderr the CLI's):
/// the CLI's Pyodide runners. `what` and `why` say, in an error, which
/// script is missing and why Node is needed.
pub fn spawn_node(
    script: &str,
    args: &[String],
    (what, why): (&str, &str),
) -> Result<(Child, ChildStdin, BufReader<ChildStdout>), String> {
    if !std::path::Path::new(script).is_file() {
        return Err(format!(
            "{what} {script} is missing (it comes with Roundtable's sources)"
        ));
    }
    let mut child = Command::new("node")
        .arg(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start node ({e}): {why}"))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("node started without pipes".into());
    };
    Ok((child, stdin, BufReader::new(stdout)))
}

/// The script, beside the sources the binary was built from.
fn script() -> String {
    std::env::var("ROUNDTABLE_HUMANEVAL_RUNNER").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/web/humaneval/node-score.mjs").to_string()
    })
}

struct Process {
    child: Child,
    /// Lent to the writer thread during a batch.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

/// The Node process, started on the first program.
#[derive(Default)]
pub struct NodePython {
    process: RefCell<Option<Process>>,
}

impl NodePython {
    fn start() -> Result<Process, String> {
        let (child, stdin, stdout) = spawn_node(
            &script(),
            &["--timeout-ms".into(), TIME_LIMIT_MS.to_string()],
            ("the Python runner", "HumanEval runs Python in Pyodide through Node; run `make setup` or put node on the PATH"),
        )?;
        Ok(Process {
            child,
            stdin: Some(stdin),
            stdout,
        })
    }

    /// Runs the programs in order, `on_verdict(i, verdict)` as each ends;
    /// the input is written from a thread so a long batch cannot fill
    /// both pipes.
    pub fn check_all(
        &self,
        programs: Vec<String>,
        mut on_verdict: impl FnMut(usize, Verdict),
    ) -> Result<(), String> {
        let mut slot = self.process.borrow_mut();
        if slot.is_none() {
            *slot = Some(Self::start()?);
        }
        let p = slot.as_mut().ok_or("no runner")?;
        let n = programs.len();
        let mut stdin = p.stdin.take().ok_or("the runner's input is gone")?;
        let writer = std::thread::spawn(move || -> std::io::Result<ChildStdin> {
            for program in programs {
                let line = serde_json::json!({ "program": program }).to_string();
                stdin.write_all(line.as_bytes())?;
                stdin.write_all(b"\n")?;
            }
            stdin.flush()?;
            Ok(stdin)
        });
        let mut line = String::new();
        for i in 0..n {
            line.clear();
            let read = p.stdout.read_line(&mut line);
            if !matches!(read, Ok(k) if k > 0) {
                *slot = None;
                return Err("the Python runner stopped (see its message above)".into());
            }
            let v: serde_json::Value = serde_json::from_str(line.trim())
                .map_err(|e| format!("the Python runner wrote a line that is not JSON ({e})"))?;
            if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
                return Err(format!("the Python runner refused a program: {e}"));
            }
            let verdict: Verdict = serde_json::from_value(v)
                .map_err(|e| format!("the Python runner's verdict is not readable ({e})"))?;
            on_verdict(i, verdict);
        }
        let stdin = writer
            .join()
            .map_err(|_| "the runner's input thread failed".to_string())?
            .map_err(|e| format!("cannot write to the Python runner: {e}"))?;
        p.stdin = Some(stdin);
        Ok(())
    }
}

impl Drop for NodePython {
    fn drop(&mut self) {
        if let Some(mut p) = self.process.get_mut().take() {
            drop(p.stdin.take());
            let _ = p.child.wait();
        }
    }
}

impl PythonRunner for NodePython {
    fn check(&self, program: String) -> LocalBoxFuture<'_, Result<Verdict, String>> {
        Box::pin(async move {
            let mut out = None;
            self.check_all(vec![program], |_, v| out = Some(v))?;
            out.ok_or_else(|| "the Python runner gave no verdict".to_string())
        })
    }
}
