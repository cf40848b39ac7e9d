//! The in-browser model: a Web Worker running `crates/llm-worker` (candle,
//! its own wasm, built with SIMD), started on first use, so the start page
//! never fetches it. This module is the page's side: one worker per tab,
//! requests by id, the stored models (list, add, delete), and
//! [`LocalModel`], a [`ChatModel`] that streams from it.
//!
//! If the worker dies (a model too big for the tab's memory, say), every
//! waiting request gets a clear error and the next request starts a fresh
//! worker.

pub use crate::engine::model::worker_protocol as protocol;

use crate::engine::base::cancel::CancelToken;
use crate::engine::model::local::gen_params;
use crate::engine::model::spec::LocalSampling;
use crate::engine::model::{Call, Completion};
use crate::engine::model::{ChatModel, ChatResponse, ModelError, StreamDelta, Usage};
use futures::channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use futures::future::{select, Either};
use futures::StreamExt;
use protocol::{FromWorker, Leftover, StoredModel, ToWorker};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The worker's loader (scripts/build-wasm.sh puts it and its wasm there).
pub const WORKER_URL: &str = "/llm-worker/worker.js";
/// New prompt tokens above which the user is told the answer will be slow.
pub const SLOW_PROMPT_TOKENS: u32 = 400;
/// How long the worker may take to fetch and start its wasm.
const STARTUP_MS: u32 = 120_000;

struct Bridge {
    worker: web_sys::Worker,
    pending: RefCell<HashMap<u32, UnboundedSender<FromWorker>>>,
    next_id: Cell<u32>,
    ready: Cell<bool>,
    backlog: RefCell<Vec<js_sys::Object>>,
    _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _onerror: Closure<dyn FnMut(web_sys::Event)>,
    _startup: gloo_timers::callback::Timeout,
}

thread_local! {
    static BRIDGE: RefCell<Option<Rc<Bridge>>> = const { RefCell::new(None) };
    /// Prompt tokens read per second, measured on the last answer.
    /// (Before the first measure: a small model's figure on one core is
    /// a few times this; a cautious start.)
    static PREFILL_RATE: Cell<f64> = const { Cell::new(25.0) };
}

fn terminal(msg: &FromWorker) -> Option<u32> {
    match msg {
        FromWorker::Imported { id, .. }
        | FromWorker::Models { id, .. }
        | FromWorker::Deleted { id }
        | FromWorker::Loaded { id, .. }
        | FromWorker::Done { id, .. }
        | FromWorker::Error { id, .. } => Some(*id),
        _ => None,
    }
}

fn id_of(msg: &FromWorker) -> Option<u32> {
    match msg {
        FromWorker::Ready => None,
        FromWorker::Progress { id, .. }
        | FromWorker::Started { id, .. }
        | FromWorker::Delta { id, .. } => Some(*id),
        other => terminal(other),
    }
}

/// Ends the worker: every waiting request gets `why`.
fn fail_all(why: &str) {
    let dead = BRIDGE.with(|b| b.borrow_mut().take());
    if let Some(bridge) = dead {
        bridge.worker.terminate();
        for (id, tx) in bridge.pending.borrow_mut().drain() {
            let _ = tx.unbounded_send(FromWorker::Error {
                id,
                message: why.to_string(),
            });
        }
    }
}

/// What a worker's `error` event says. A script that cannot be fetched
/// fires a plain Event (no message): read without assuming an ErrorEvent.
pub fn worker_error_text(ev: &web_sys::Event) -> String {
    js_sys::Reflect::get(ev, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "its code could not be loaded".to_string())
}

fn bridge() -> Result<Rc<Bridge>, String> {
    if let Some(b) = BRIDGE.with(|b| b.borrow().clone()) {
        return Ok(b);
    }
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(WORKER_URL, &opts)
        .map_err(|e| format!("The browser would not start the model worker: {e:?}"))?;
    let onmessage =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|ev: web_sys::MessageEvent| {
            let Some(json) = ev.data().as_string() else {
                return;
            };
            let Ok(msg) = serde_json::from_str::<FromWorker>(&json) else {
                return;
            };
            let Some(bridge) = BRIDGE.with(|b| b.borrow().clone()) else {
                return;
            };
            if msg == FromWorker::Ready {
                bridge.ready.set(true);
                for m in bridge.backlog.borrow_mut().drain(..) {
                    let _ = bridge.worker.post_message(&m);
                }
                return;
            }
            let Some(id) = id_of(&msg) else { return };
            let done = terminal(&msg).is_some();
            let tx = if done {
                bridge.pending.borrow_mut().remove(&id)
            } else {
                bridge.pending.borrow().get(&id).cloned()
            };
            if let Some(tx) = tx {
                let _ = tx.unbounded_send(msg);
            }
        });
    let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(|ev: web_sys::Event| {
        ev.prevent_default();
        let what = worker_error_text(&ev);
        fail_all(&format!(
            "The in-browser model stopped ({what}). If a model was loading or answering, it may need more memory than this tab has: try a smaller model (SmolLM2-135M or -360M). The next request starts it again."
        ));
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    let startup = gloo_timers::callback::Timeout::new(STARTUP_MS, || {
        let stuck = BRIDGE.with(|b| b.borrow().as_ref().is_some_and(|b| !b.ready.get()));
        if stuck {
            fail_all("The in-browser model did not start within two minutes: check your connection and reload the page.");
        }
    });
    let b = Rc::new(Bridge {
        worker,
        pending: RefCell::new(HashMap::new()),
        next_id: Cell::new(1),
        ready: Cell::new(false),
        backlog: RefCell::new(Vec::new()),
        _onmessage: onmessage,
        _onerror: onerror,
        _startup: startup,
    });
    BRIDGE.with(|slot| *slot.borrow_mut() = Some(b.clone()));
    Ok(b)
}

/// Sends a request; its messages arrive on the receiver until a final one.
fn request(
    make: impl FnOnce(u32) -> ToWorker,
    file: Option<&web_sys::File>,
) -> Result<(u32, UnboundedReceiver<FromWorker>), String> {
    let b = bridge()?;
    let id = b.next_id.get();
    b.next_id.set(id + 1);
    let msg = make(id);
    let json = serde_json::to_string(&msg).map_err(|e| e.to_string())?;
    let obj = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&obj, &"msg".into(), &json.into());
    if let Some(f) = file {
        let _ = js_sys::Reflect::set(&obj, &"file".into(), f);
    }
    let (tx, rx) = unbounded();
    b.pending.borrow_mut().insert(id, tx);
    if b.ready.get() {
        let _ = b.worker.post_message(&obj);
    } else {
        b.backlog.borrow_mut().push(obj);
    }
    Ok((id, rx))
}

fn cancel(id: u32) {
    if let Some(b) = BRIDGE.with(|b| b.borrow().clone()) {
        let json = serde_json::to_string(&ToWorker::Cancel { id }).unwrap_or_default();
        let obj = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&obj, &"msg".into(), &json.into());
        let _ = b.worker.post_message(&obj);
        b.pending.borrow_mut().remove(&id);
    }
}

/// Waits for the final message, handing progress to `progress`.
async fn finish(
    mut rx: UnboundedReceiver<FromWorker>,
    progress: &dyn Fn(&str, u64, u64),
) -> Result<FromWorker, String> {
    while let Some(msg) = rx.next().await {
        match msg {
            FromWorker::Progress {
                stage, done, total, ..
            } => progress(&stage, done, total),
            FromWorker::Error { message, .. } => return Err(message),
            other if terminal(&other).is_some() => return Ok(other),
            _ => {}
        }
    }
    Err("The in-browser model stopped answering.".into())
}

/// What the model store holds: the models, and files that are not usable
/// models (for the user to restore or delete).
pub struct Stored {
    pub models: Vec<StoredModel>,
    pub leftovers: Vec<Leftover>,
}

/// Notes a stored model in this page's ledgers (its facts for the Run
/// page, and that the store holds it).
fn note(m: &StoredModel, label: String) {
    super::model_facts::note_model(&m.info.sha256, m.info.context, m.info.params);
    super::model_ledger::note_stored(
        &m.info.sha256,
        super::model_ledger::Entry {
            label,
            file_name: m.file_name.clone(),
            added: m.added,
        },
    );
}

/// The models stored in this browser; `label` names one for the ledger.
pub async fn list(label: impl Fn(&StoredModel) -> String) -> Result<Stored, String> {
    let (_, rx) = request(|id| ToWorker::List { id }, None)?;
    match finish(rx, &|_, _, _| {}).await? {
        FromWorker::Models {
            models, leftovers, ..
        } => {
            for m in &models {
                note(m, label(m));
            }
            Ok(Stored { models, leftovers })
        }
        _ => Err("unexpected answer from the model worker".into()),
    }
}

/// Checks `file` and copies it into the browser's storage.
pub async fn import(
    file: web_sys::File,
    label: impl Fn(&StoredModel) -> String,
    progress: &dyn Fn(&str, u64, u64),
) -> Result<StoredModel, String> {
    let name = file.name();
    let (_, rx) = request(
        |id| ToWorker::Import {
            id,
            file_name: name,
        },
        Some(&file),
    )?;
    imported(rx, label, progress).await
}

async fn imported(
    rx: UnboundedReceiver<FromWorker>,
    label: impl Fn(&StoredModel) -> String,
    progress: &dyn Fn(&str, u64, u64),
) -> Result<StoredModel, String> {
    match finish(rx, progress).await? {
        FromWorker::Imported { model, .. } => {
            note(&model, label(&model));
            Ok(model)
        }
        _ => Err("unexpected answer from the model worker".into()),
    }
}

/// The user's Delete of a stored model.
pub async fn delete(sha256: &str) -> Result<(), String> {
    let sha = sha256.to_string();
    let (_, rx) = request(|id| ToWorker::Delete { id, sha256: sha }, None)?;
    finish(rx, &|_, _, _| {}).await?;
    super::model_ledger::forget(sha256);
    Ok(())
}

/// The user's Delete of a leftover file of the store.
pub async fn delete_leftover(file_id: &str) -> Result<(), String> {
    let file_id = file_id.to_string();
    let (_, rx) = request(|id| ToWorker::DeleteLeftover { id, file_id }, None)?;
    finish(rx, &|_, _, _| {}).await.map(|_| ())
}

/// Checks a leftover's model file again and keeps it as a model.
pub async fn restore_leftover(
    file_id: &str,
    label: impl Fn(&StoredModel) -> String,
    progress: &dyn Fn(&str, u64, u64),
) -> Result<StoredModel, String> {
    let file_id = file_id.to_string();
    let known_names = super::model_ledger::file_names();
    let (_, rx) = request(
        |id| ToWorker::RestoreLeftover {
            id,
            file_id,
            known_names,
        },
        None,
    )?;
    imported(rx, label, progress).await
}

/// Asks the browser to keep this site's storage until the user clears it
/// (not evicted when the disk runs low). Some(true): granted.
pub async fn persist() -> Option<bool> {
    storage_call("persist").await
}

/// Whether the browser keeps this site's storage until the user clears it.
pub async fn persisted() -> Option<bool> {
    storage_call("persisted").await
}

/// `navigator.storage[method]()`, awaited, as a boolean.
async fn storage_call(method: &str) -> Option<bool> {
    let nav = web_sys::window()?.navigator();
    let storage = js_sys::Reflect::get(&nav, &"storage".into()).ok()?;
    let f: js_sys::Function = js_sys::Reflect::get(&storage, &method.into())
        .ok()?
        .dyn_into()
        .ok()?;
    let p: js_sys::Promise = f.call0(&storage).ok()?.dyn_into().ok()?;
    wasm_bindgen_futures::JsFuture::from(p)
        .await
        .ok()?
        .as_bool()
}

/// What the user sees while the local model works (None: nothing).
pub type StatusSink = Rc<dyn Fn(Option<String>)>;

/// A chat model answering from a GGUF file in this browser.
pub struct LocalModel {
    name: String,
    sha256: String,
    /// The spec's sampler settings (none: llama.cpp's defaults).
    sampling: LocalSampling,
    status: StatusSink,
}

impl LocalModel {
    /// The model a (validated) spec names: its name, file hash and sampler
    /// settings.
    pub fn for_spec(spec: &crate::engine::run::ModelSpec, status: StatusSink) -> Self {
        LocalModel {
            name: spec.model.clone(),
            sha256: spec.file_sha256.clone().unwrap_or_default(),
            sampling: spec.sampling.local.clone(),
            status,
        }
    }
}

/// The conversation as the worker's chat template gets it.
pub use crate::engine::model::local::turns;

fn local_err(detail: String) -> ModelError {
    ModelError::Local { detail }
}

impl LocalModel {
    /// The status while the model reads a prompt of `prompt_tokens` tokens,
    /// `reused` of them from its cache. A long prompt sets `slow_note` (kept
    /// for the progress lines after it).
    fn reading_status(&self, prompt_tokens: u32, reused: u32, slow_note: &mut String) -> String {
        let new = prompt_tokens.saturating_sub(reused);
        let secs = new as f64 / PREFILL_RATE.with(Cell::get).max(1.0);
        if new > SLOW_PROMPT_TOKENS {
            *slow_note = format!(
                " This prompt is long: a model in the browser reads about {:.0} tokens a second, so the answer starts in about {secs:.0} s. Shorter tasks and fewer agents are faster.",
                PREFILL_RATE.with(Cell::get)
            );
        }
        format!(
            "{}: reading the prompt ({new} new tokens{}).{slow_note}",
            self.name,
            if reused > 0 {
                format!(", {reused} reused")
            } else {
                String::new()
            }
        )
    }

    /// Notes how fast this model read `fed` prompt tokens in `prefill_ms`
    /// (for the next long prompt's estimate), if enough to tell.
    fn note_read_rate(&self, fed: u32, prefill_ms: f64) {
        if fed >= 32 && prefill_ms > 0.0 {
            let rate = fed as f64 * 1000.0 / prefill_ms;
            PREFILL_RATE.with(|r| r.set(rate));
            super::model_facts::note_read_rate(&self.sha256, rate);
        }
    }

    /// The answer `text` once the worker is done with it (`finish` says
    /// why), or the cancellation.
    fn response(
        &self,
        text: String,
        prompt_tokens: u32,
        output_tokens: u32,
        finish: String,
    ) -> Result<ChatResponse, ModelError> {
        if finish == "cancelled" {
            return Err(ModelError::Cancelled);
        }
        Ok(ChatResponse {
            text,
            tool_calls: Vec::new(),
            usage: Usage::counted(prompt_tokens as u64, output_tokens as u64),
            finish_reason: Some(finish),
            model: Some(self.name.clone()),
            replayed: false,
            structured: None,
        })
    }
}

/// The worker's next message about request `id`; the user's cancel (the
/// request is cancelled) or a worker gone silent ends the call.
async fn next_message(
    rx: &mut UnboundedReceiver<FromWorker>,
    cancel: &CancelToken,
    id: u32,
    status: &StatusSink,
) -> Result<FromWorker, ModelError> {
    match select(rx.next(), cancel.cancelled()).await {
        Either::Left((Some(m), _)) => Ok(m),
        Either::Left((None, _)) => {
            status(None);
            Err(local_err("The in-browser model stopped answering.".into()))
        }
        Either::Right(_) => {
            cancel_and_clear(id, status);
            Err(ModelError::Cancelled)
        }
    }
}

impl ChatModel for LocalModel {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a> {
        let Call { req, sink, cancel } = call;
        Box::pin(async move {
            let status = self.status.clone();
            let params = gen_params(req, &self.sampling);
            let turns = turns(req);
            let sha256 = self.sha256.clone();
            let (id, mut rx) = request(
                |id| ToWorker::Generate {
                    id,
                    sha256,
                    turns,
                    params,
                },
                None,
            )
            .map_err(local_err)?;
            let mut text = String::new();
            let mut slow_note = String::new();
            loop {
                match next_message(&mut rx, cancel, id, &status).await? {
                    FromWorker::Started {
                        prompt_tokens,
                        reused,
                        ..
                    } => status(Some(self.reading_status(
                        prompt_tokens,
                        reused,
                        &mut slow_note,
                    ))),
                    FromWorker::Progress { stage, .. } if stage == "loading" => {
                        status(Some(format!("Loading {} in this browser…", self.name)));
                    }
                    FromWorker::Progress { stage, .. } if stage == "one-worker" => {
                        status(Some(format!(
                            "{} now runs on one core: another program is busy on the other, and splitting the model waited more than it gained.",
                            self.name
                        )));
                    }
                    FromWorker::Progress {
                        stage, done, total, ..
                    } if stage == "prefill" => {
                        status(Some(format!(
                            "{}: reading the prompt, {done} of {total} tokens.{slow_note}",
                            self.name
                        )));
                    }
                    FromWorker::Delta { text: d, .. } => {
                        if text.is_empty() {
                            status(Some(format!("{} is answering…", self.name)));
                        }
                        text.push_str(&d);
                        sink(StreamDelta::Text(d));
                    }
                    FromWorker::Done {
                        prompt_tokens,
                        output_tokens,
                        reused,
                        finish,
                        prefill_ms,
                        held,
                        ..
                    } => {
                        status(None);
                        self.note_read_rate(prompt_tokens.saturating_sub(reused), prefill_ms);
                        return self
                            .response(text, prompt_tokens, output_tokens, finish)
                            .map(|mut r| {
                                r.structured = crate::engine::model::local::held_mode(req, held);
                                r
                            });
                    }
                    FromWorker::Error { message, .. } => {
                        status(None);
                        return Err(local_err(message));
                    }
                    _ => {}
                }
            }
        })
    }
}

fn cancel_and_clear(id: u32, status: &StatusSink) {
    cancel(id);
    status(None);
}
