//! The workspace's Python in the page: a project's `main.py` run in
//! Pyodide in a dedicated module Web Worker (`/srdd/worker.mjs`, which the
//! build copies beside HumanEval's; `web/srdd/project.mjs` does the work),
//! started on the first run, so no page fetches Pyodide until a project
//! is run. The worker locks the interpreter in as HumanEval's does (no
//! network, storage or page).
//!
//! One project at a time. A run has [`RUN_SECONDS`] from its post; a
//! program still running then is stopped the only way one can be: the
//! worker is terminated (`stopped`), and the next run starts a fresh one.
//! A worker that dies on a program counts as the traceback CPython would
//! print (`died`), and is replaced the same way.

use super::module_worker::{field, text_field, ModuleWorker, WorkerMsg};
use super::python::STARTUP_MS;
use crate::engine::base::clock::Clock;
use crate::engine::domains::srdd::run::{Files, ProjectRunner, Ran, Scale, OUTPUT_CAP};
use crate::engine::domains::srdd::RUN_SECONDS;
use futures::future::{select, Either, LocalBoxFuture};
use futures::lock::Mutex;
use futures::StreamExt;
use gloo_timers::future::TimeoutFuture;
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;

pub const WORKER_URL: &str = "/srdd/worker.mjs";
/// How long measuring a project's code may take (it runs no program).
const MEASURE_MS: u32 = 30_000;

enum Msg {
    Ready {
        python: String,
        pyodide: String,
    },
    Out {
        id: u32,
        kind: String,
        text: String,
    },
    Ran {
        id: u32,
    },
    Measured {
        id: u32,
        scale: Result<Scale, String>,
    },
    Refused {
        id: u32,
        message: String,
    },
    Fatal {
        id: Option<u32>,
        message: String,
    },
    Broken(String),
}

impl WorkerMsg for Msg {
    fn read(data: JsValue) -> Option<Msg> {
        let id = field(&data, "id")
            .and_then(|v| v.as_f64())
            .map(|v| v as u32);
        let text = |k: &str| text_field(&data, k);
        Some(match field(&data, "type")?.as_string()?.as_str() {
            "ready" => Msg::Ready {
                python: text("python"),
                pyodide: text("pyodide"),
            },
            "out" => Msg::Out {
                id: id?,
                kind: text("kind"),
                text: text("text"),
            },
            "ran" => Msg::Ran { id: id? },
            "measured" => Msg::Measured {
                id: id?,
                scale: field(&data, "scale")
                    .and_then(|v| js_sys::JSON::stringify(&v).ok())
                    .and_then(|s| s.as_string())
                    .ok_or_else(|| "no figures".to_string())
                    .and_then(|s| {
                        serde_json::from_str(&s)
                            .map_err(|e| format!("the figures are not Table 3's ({e})"))
                    }),
            },
            "refused" => Msg::Refused {
                id: id?,
                message: text("message"),
            },
            "fatal" => Msg::Fatal {
                id,
                message: text("message"),
            },
            _ => return None,
        })
    }

    fn broken(why: String) -> Msg {
        Msg::Broken(why)
    }

    fn startup(&self) -> Option<Result<(), String>> {
        match self {
            Msg::Ready { .. } => Some(Ok(())),
            Msg::Broken(why) | Msg::Fatal { message: why, .. } => Some(Err(why.clone())),
            _ => None,
        }
    }
}

/// The page's project runner: one worker, replaced after a stop or a
/// death.
#[derive(Default)]
pub struct PageProjects {
    live: Mutex<Option<ModuleWorker<Msg>>>,
    next_id: Cell<u32>,
    /// "Pyodide 0.29 (CPython 3.14)", once a worker has started.
    version: RefCell<Option<String>>,
    /// How long the last call waited for a new worker to start, in ms.
    started_ms: Cell<Option<f64>>,
}

/// The files as the worker takes them: `[{path, text}]`.
fn files_js(files: &Files) -> JsValue {
    let list = js_sys::Array::new();
    for (path, text) in files {
        let f = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&f, &"path".into(), &path.into());
        let _ = js_sys::Reflect::set(&f, &"text".into(), &text.into());
        list.push(&f);
    }
    list.into()
}

fn capped(text: String) -> String {
    match text.char_indices().nth(OUTPUT_CAP) {
        Some((at, _)) => text[..at].to_string(),
        None => text,
    }
}

enum End {
    Ran,
    Stopped,
    Died(String),
}

impl PageProjects {
    /// Sends one message and hands the worker's replies for it to `on`
    /// until it returns a value; `None` from a timeout.
    async fn ask<T>(
        &self,
        op: &str,
        files: &Files,
        folder: Option<&str>,
        limit_ms: u32,
        mut on: impl FnMut(Msg) -> Option<T>,
    ) -> Result<Option<T>, String> {
        let mut slot = self.live.lock().await;
        self.started_ms.set(None);
        if slot.is_none() {
            let clock = super::clock::BrowserClock;
            let t0 = clock.now_ms();
            let (live, ready) =
                ModuleWorker::start(WORKER_URL, "The project runner", STARTUP_MS).await?;
            if let Msg::Ready { python, pyodide } = ready {
                *self.version.borrow_mut() = Some(format!("Pyodide {pyodide} (CPython {python})"));
            }
            self.started_ms.set(Some(clock.now_ms() - t0));
            *slot = Some(live);
        }
        let live = slot.as_mut().ok_or("no worker")?;
        let id = self.next_id.get() + 1;
        self.next_id.set(id);
        let folder = folder.map_or(JsValue::NULL, JsValue::from);
        live.post(&[
            ("id", id.into()),
            ("op", op.into()),
            ("files", files_js(files)),
            ("folder", folder),
        ])?;
        let mut timer = TimeoutFuture::new(limit_ms);
        let (outcome, replace) = loop {
            match select(live.inbox.next(), timer).await {
                Either::Left((Some(Msg::Broken(why)), _)) => {
                    break (
                        on(Msg::Fatal {
                            id: Some(id),
                            message: why,
                        })
                        .map(Some),
                        true,
                    )
                }
                Either::Left((Some(m), rest)) => {
                    timer = rest;
                    let mine = match &m {
                        Msg::Out { id: got, .. }
                        | Msg::Ran { id: got }
                        | Msg::Measured { id: got, .. }
                        | Msg::Refused { id: got, .. } => *got == id,
                        Msg::Fatal { id: got, .. } => got.is_none_or(|g| g == id),
                        _ => false,
                    };
                    let fatal = matches!(m, Msg::Fatal { .. });
                    if mine {
                        if let Some(v) = on(m) {
                            break (Some(Some(v)), fatal);
                        }
                    }
                }
                Either::Left((None, _)) => break (None, true),
                Either::Right(_) => break (Some(None), true),
            }
        };
        if replace {
            *slot = None;
        }
        outcome.ok_or_else(|| "the project runner went away".to_string())
    }
}

impl PageProjects {
    /// How long the last run or measure waited for Python to start (a new
    /// worker: the first run, or the one after a stop), in seconds.
    pub fn start_seconds(&self) -> Option<f64> {
        self.started_ms.get().map(|ms| ms / 1000.0)
    }
}

impl ProjectRunner for PageProjects {
    fn name(&self) -> String {
        match &*self.version.borrow() {
            Some(v) => format!("{v}, in the page"),
            None => "Pyodide, in the page".into(),
        }
    }

    fn run(&self, files: Files, folder: String) -> LocalBoxFuture<'_, Result<Ran, String>> {
        Box::pin(async move {
            let mut ran = Ran {
                utf8: true,
                ..Ran::default()
            };
            let mut refused = None;
            let end = {
                let on = |m: Msg| match m {
                    Msg::Out { kind, text, .. } => {
                        match kind.as_str() {
                            "stdout" => ran.stdout.push_str(&text),
                            "stderr" => ran.stderr.push_str(&text),
                            "traceback" => ran.traceback = true,
                            "not-utf8" => ran.utf8 = false,
                            "gui" if !ran.gui.contains(&text) => ran.gui.push(text),
                            "blocked" => ran.blocked = Some(text),
                            _ => {}
                        }
                        None
                    }
                    Msg::Ran { .. } => Some(End::Ran),
                    Msg::Refused { message, .. } => {
                        refused = Some(message);
                        Some(End::Ran)
                    }
                    Msg::Fatal { message, .. } => Some(End::Died(message)),
                    _ => None,
                };
                let folder = (!folder.is_empty()).then_some(folder.as_str());
                self.ask("run", &files, folder, RUN_SECONDS as u32 * 1000, on)
                    .await?
                    .unwrap_or(End::Stopped)
            };
            if let Some(why) = refused {
                return Err(format!("the project could not be run: {why}"));
            }
            match end {
                End::Ran => {}
                End::Stopped => ran.stopped = true,
                End::Died(why) => {
                    ran.traceback = true;
                    ran.died = Some(why);
                }
            }
            // The worker marks a traceback as it is written; stderr is read
            // for one too, as the script reads it.
            ran.traceback |= ran.stderr.to_lowercase().contains("traceback");
            ran.stdout = capped(ran.stdout);
            ran.stderr = capped(ran.stderr);
            Ok(ran)
        })
    }

    fn measure(&self, files: Files) -> LocalBoxFuture<'_, Result<Scale, String>> {
        Box::pin(async move {
            let got = self
                .ask("measure", &files, None, MEASURE_MS, |m| match m {
                    Msg::Measured { scale, .. } => Some(scale),
                    Msg::Refused { message, .. } => Some(Err(message)),
                    Msg::Fatal { message, .. } => {
                        Some(Err(format!("Python died measuring the code: {message}")))
                    }
                    _ => None,
                })
                .await?;
            got.unwrap_or_else(|| {
                Err(format!(
                    "measuring the code took over {} s",
                    MEASURE_MS / 1000
                ))
            })
        })
    }
}

thread_local! {
    static PROJECTS: std::rc::Rc<PageProjects> = std::rc::Rc::new(PageProjects::default());
}

/// The tab's project runner (its worker starts on the first run).
pub fn projects() -> std::rc::Rc<PageProjects> {
    PROJECTS.with(|p| p.clone())
}

/// The tab's project runner as a run resource: MAEL's SRDD runs run and
/// score their projects in it, ACT's notebook runs its cells in it.
pub fn runner() -> std::rc::Rc<crate::engine::domains::srdd::run::Runner> {
    std::rc::Rc::new(crate::engine::domains::srdd::run::Runner(projects()))
}
