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

use super::local_model::worker_error_text;
use crate::engine::domains::tasks::humaneval::{PythonRunner, Runner, Verdict, TIME_LIMIT_MS};
use futures::channel::mpsc::{unbounded, UnboundedReceiver};
use futures::future::{select, Either, LocalBoxFuture};
use futures::lock::Mutex;
use futures::StreamExt;
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The worker (the build puts Pyodide beside it, in `/pyodide/`).
pub const WORKER_URL: &str = "/humaneval/worker.mjs";
/// How long Pyodide may take to start (fetching ~12 MB the first time).
const STARTUP_MS: u32 = 120_000;

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

struct Live {
    worker: web_sys::Worker,
    inbox: UnboundedReceiver<Msg>,
    _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _onerror: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for Live {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

fn read(data: JsValue) -> Option<Msg> {
    let get = |k: &str| js_sys::Reflect::get(&data, &k.into()).ok();
    let id = get("id").and_then(|v| v.as_f64()).unwrap_or(0.0) as u32;
    match get("type")?.as_string()?.as_str() {
        "ready" => Some(Msg::Ready),
        "verdict" => Some(Msg::Verdict {
            id,
            verdict: Verdict {
                passed: get("passed")?.as_bool()?,
                result: get("result")?.as_string()?,
            },
        }),
        "fatal" => Some(Msg::Fatal {
            id,
            message: get("message")
                .and_then(|m| m.as_string())
                .unwrap_or_default(),
        }),
        _ => None,
    }
}

async fn start() -> Result<Live, String> {
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(WORKER_URL, &opts)
        .map_err(|e| format!("the browser would not start Python's worker ({e:?})"))?;
    let (tx, mut inbox) = unbounded();
    let to = tx.clone();
    let onmessage =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            if let Some(m) = read(ev.data()) {
                let _ = to.unbounded_send(m);
            }
        });
    let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        ev.prevent_default();
        let _ = tx.unbounded_send(Msg::Broken(worker_error_text(&ev)));
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    let ready = select(inbox.next(), TimeoutFuture::new(STARTUP_MS)).await;
    let live = |inbox| Live {
        worker,
        inbox,
        _onmessage: onmessage,
        _onerror: onerror,
    };
    match ready {
        Either::Left((Some(Msg::Ready), _)) => Ok(live(inbox)),
        Either::Left((Some(Msg::Broken(why) | Msg::Fatal { message: why, .. }), _)) => {
            drop(live(inbox));
            Err(format!("Python's worker could not start: {why}"))
        }
        Either::Left(_) => {
            drop(live(inbox));
            Err("Python's worker said something unexpected while starting".into())
        }
        Either::Right(_) => {
            drop(live(inbox));
            Err(format!(
                "Python did not start within {} s",
                STARTUP_MS / 1000
            ))
        }
    }
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
            let msg = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&msg, &"id".into(), &id.into());
            let _ = js_sys::Reflect::set(&msg, &"program".into(), &program.into());
            live.worker
                .post_message(&msg)
                .map_err(|e| format!("cannot send the program to Python ({e:?})"))?;
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
