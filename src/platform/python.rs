//! Python in the page, for HumanEval: CPython compiled to wasm (Pyodide)
//! in a dedicated module Web Worker (`/humaneval/worker.mjs`, copied with
//! Pyodide into `dist/` by the build), started on the first program, so
//! the start page never fetches it. Generated code never runs on the
//! page's thread; the worker removes the network and storage from its own
//! scope before it runs any program (see the worker).
//!
//! One program at a time: it is posted, and its verdict must come within
//! [`TIME_LIMIT_MS`] of the post (the worker's start is not counted);
//! else the worker is terminated (a program cannot be interrupted any
//! other way), the verdict is `timed out`, and the next program starts a
//! fresh worker. A worker that dies on a program (e.g. a stack overflow
//! in the interpreter) gives `failed: …` and is replaced the same way.

use super::module_worker::{field, text_field, ModuleWorker, WorkerMsg};
use crate::engine::domains::tasks::humaneval::{PythonRunner, Runner, Verdict, TIME_LIMIT_MS};
use futures::future::{select, Either, LocalBoxFuture};
use futures::lock::Mutex;
use futures::StreamExt;
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::prelude::*;

/// The worker (the build puts Pyodide beside it, in `/pyodide/`).
pub const WORKER_URL: &str = "/humaneval/worker.mjs";
/// How long Pyodide may take to start (fetching ~12 MB the first time).
pub const STARTUP_MS: u32 = 120_000;

/// What the worker says.
enum Msg {
    Ready,
    Verdict {
        id: u32,
        verdict: Verdict,
    },
    Fatal {
        id: u32,
        message: String,
    },
    /// The worker's script failed (not a program's fault).
    Broken(String),
}

impl WorkerMsg for Msg {
    fn read(data: JsValue) -> Option<Msg> {
        let id = field(&data, "id").and_then(|v| v.as_f64()).unwrap_or(0.0) as u32;
        match field(&data, "type")?.as_string()?.as_str() {
            "ready" => Some(Msg::Ready),
            "verdict" => Some(Msg::Verdict {
                id,
                verdict: Verdict {
                    passed: field(&data, "passed")?.as_bool()?,
                    result: field(&data, "result")?.as_string()?,
                },
            }),
            "fatal" => Some(Msg::Fatal {
                id,
                message: text_field(&data, "message"),
            }),
            _ => None,
        }
    }

    fn broken(why: String) -> Msg {
        Msg::Broken(why)
    }

    fn startup(&self) -> Option<Result<(), String>> {
        match self {
            Msg::Ready => Some(Ok(())),
            Msg::Broken(why) | Msg::Fatal { message: why, .. } => Some(Err(why.clone())),
            Msg::Verdict { .. } => None,
        }
    }
}

type Live = ModuleWorker<Msg>;

async fn start() -> Result<Live, String> {
    Ok(
        ModuleWorker::start(WORKER_URL, "Python's worker", STARTUP_MS)
            .await?
            .0,
    )
}

/// The page's Python: one worker, replaced after a timeout or a crash.
#[derive(Default)]
pub struct PyodideRunner {
    live: Mutex<Option<Live>>,
    next_id: std::cell::Cell<u32>,
}

impl PythonRunner for PyodideRunner {
    fn check(&self, program: String) -> LocalBoxFuture<'_, Result<Verdict, String>> {
        Box::pin(async move {
            let mut slot = self.live.lock().await;
            if slot.is_none() {
                *slot = Some(start().await?);
            }
            let live = slot.as_mut().ok_or("no worker")?;
            let id = self.next_id.get() + 1;
            self.next_id.set(id);
            live.post(&[("id", id.into()), ("program", program.into())])
                .map_err(|e| format!("cannot send the program to Python: {e}"))?;
            let mut limit = TimeoutFuture::new(TIME_LIMIT_MS);
            let failed = |result: String| Verdict {
                passed: false,
                result,
            };
            // (the outcome, whether the worker must be replaced)
            let (outcome, replace) = loop {
                match select(live.inbox.next(), limit).await {
                    Either::Left((Some(Msg::Verdict { id: got, verdict }), _)) if got == id => {
                        break (Ok(verdict), false)
                    }
                    Either::Left((Some(Msg::Fatal { id: got, message }), _)) if got == id => {
                        break (Ok(failed(format!("failed: {message}"))), true)
                    }
                    Either::Left((Some(Msg::Broken(why)), _)) => {
                        break (
                            Ok(failed(format!("failed: the interpreter stopped ({why})"))),
                            true,
                        )
                    }
                    Either::Left((None, _)) => {
                        break (Err("Python's worker went away".to_string()), true)
                    }
                    // A stale verdict or a second ready: wait on.
                    Either::Left((Some(_), rest)) => limit = rest,
                    Either::Right(_) => break (Ok(failed("timed out".into())), true),
                }
            };
            if replace {
                *slot = None;
            }
            outcome
        })
    }
}

thread_local! {
    static RUNNER: std::rc::Rc<Runner> =
        std::rc::Rc::new(Runner(std::rc::Rc::new(PyodideRunner::default())));
}

/// The tab's runner, as a run resource (its worker starts on the first
/// program, so a run that scores none never fetches Pyodide).
pub fn runner() -> std::rc::Rc<Runner> {
    RUNNER.with(|r| r.clone())
}
