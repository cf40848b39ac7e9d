//! The worker's message loop (wasm32 only). The page posts
//! `{msg: <ToWorker JSON>, file?: File}`; the worker answers with
//! `FromWorker` JSON strings. Requests run one at a time, in order; a
//! `Cancel` is seen at once (it is not queued) and stops its generation
//! before the next token or prompt chunk: the loop yields to the event loop
//! after every step.

pub mod intake;
pub mod locks;
pub mod peers;
pub mod reader;
pub mod store;
pub mod store_idb;

use crate::generate::{Engine, Step};
use crate::gguf::inspect::MEMORY_BUDGET;
use crate::model::split::{Part, Watch};
use crate::protocol::{ChatTurn, FromWorker, GenParams, ToWorker};
use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{Blob, DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};

/// Where the worker's answers go: the page (`postMessage`), or a test.
pub type Post = Rc<dyn Fn(&FromWorker)>;

pub struct State {
    /// The loaded model and its file's hash.
    engine: Option<(String, Engine)>,
    cancelled: HashSet<u32>,
    queue: VecDeque<(ToWorker, Option<Blob>)>,
    busy: bool,
    post: Post,
    /// Workers holding other shares of the model (a cross-origin isolated
    /// page only).
    helpers: peers::Helpers,
}

pub type Shared = Rc<RefCell<State>>;

/// A worker's state, answering through `post`.
pub fn new_state(post: Post) -> Shared {
    Rc::new(RefCell::new(State {
        engine: None,
        cancelled: HashSet::new(),
        queue: VecDeque::new(),
        busy: false,
        post,
        helpers: peers::Helpers::default(),
    }))
}

/// Marks generation `id` to stop before its next step (what a `Cancel`
/// message does).
pub fn cancel(state: &Shared, id: u32) {
    state.borrow_mut().cancelled.insert(id);
}

fn send(state: &Shared, msg: &FromWorker) {
    let post = state.borrow().post.clone();
    post(msg);
}

/// Tells the page how far request `id` has come in its `stage`.
fn progress(state: &Shared, id: u32, stage: &str, done: u64, total: u64) {
    let stage = stage.into();
    send(
        state,
        &FromWorker::Progress {
            id,
            stage,
            done,
            total,
        },
    );
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn post_to_page(msg: &FromWorker) {
    if let Ok(json) = serde_json::to_string(msg) {
        let _ = scope().post_message(&JsValue::from_str(&json));
    }
}

fn now() -> f64 {
    js_sys::Date::now()
}

/// Lets queued messages (a cancel) run; a message-channel round trip, not
/// a timer (timers are clamped to 4 ms).
async fn yield_now() {
    let Ok(channel) = MessageChannel::new() else {
        return;
    };
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        channel.port1().set_onmessage(Some(&resolve));
        let _ = channel.port2().post_message(&JsValue::NULL);
    });
    let _ = JsFuture::from(promise).await;
}

/// Installs the message loop; the loader (`worker.js`) calls it once the
/// wasm is instantiated.
#[wasm_bindgen]
pub fn start() {
    if scope().name() == peers::HELPER_NAME {
        return peers::start_helper();
    }
    peers::set_script(scope().location().href());
    let state = new_state(Rc::new(post_to_page));
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let data = ev.data();
        let json = js_sys::Reflect::get(&data, &"msg".into())
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_default();
        let file = js_sys::Reflect::get(&data, &"file".into())
            .ok()
            .and_then(|f| f.dyn_into::<Blob>().ok());
        match serde_json::from_str::<ToWorker>(&json) {
            Ok(ToWorker::Cancel { id }) => {
                state.borrow_mut().cancelled.insert(id);
            }
            Ok(msg) => {
                let start = {
                    let mut s = state.borrow_mut();
                    s.queue.push_back((msg, file));
                    !std::mem::replace(&mut s.busy, true)
                };
                if start {
                    spawn_local(drain(state.clone()));
                }
            }
            // Answered by its id if it has one (a page and a worker of
            // different versions), so the page does not wait forever.
            Err(e) => post_to_page(&FromWorker::Error {
                id: serde_json::from_str::<serde_json::Value>(&json)
                    .ok()
                    .and_then(|v| v.get("id").and_then(|i| i.as_u64()))
                    .unwrap_or(0) as u32,
                message: format!(
                    "The in-browser model did not understand the page ({e}): reload the page."
                ),
            }),
        }
    });
    scope().set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
    post_to_page(&FromWorker::Ready);
}

async fn drain(state: Shared) {
    loop {
        let next = state.borrow_mut().queue.pop_front();
        let Some((msg, file)) = next else {
            state.borrow_mut().busy = false;
            return;
        };
        handle(&state, msg, file).await;
    }
}

/// Runs one request to its final answer.
pub async fn handle(state: &Shared, msg: ToWorker, file: Option<Blob>) {
    let id = match &msg {
        ToWorker::Import { id, .. }
        | ToWorker::List { id }
        | ToWorker::Delete { id, .. }
        | ToWorker::DeleteLeftover { id, .. }
        | ToWorker::RestoreLeftover { id, .. }
        | ToWorker::Load { id, .. }
        | ToWorker::Generate { id, .. }
        | ToWorker::Cancel { id } => *id,
    };
    let result = match msg {
        ToWorker::Import { file_name, .. } => match file {
            None => Err("no file came with the request".to_string()),
            Some(blob) => {
                let report =
                    |stage: &str, done: u64, total: u64| progress(state, id, stage, done, total);
                store::import(blob, &file_name, now(), &report)
                    .await
                    .map(|model| FromWorker::Imported { id, model })
            }
        },
        ToWorker::List { .. } => store::list().await.map(|l| FromWorker::Models {
            id,
            models: l.models,
            storage: "opfs".into(),
            leftovers: l.leftovers,
        }),
        ToWorker::DeleteLeftover { file_id, .. } => store::delete_leftover(&file_id)
            .await
            .map(|_| FromWorker::Deleted { id }),
        ToWorker::RestoreLeftover {
            file_id,
            known_names,
            ..
        } => {
            let report =
                |stage: &str, done: u64, total: u64| progress(state, id, stage, done, total);
            store::restore_leftover(&file_id, &known_names, now(), &report)
                .await
                .map(|model| FromWorker::Imported { id, model })
        }
        ToWorker::Delete { sha256, .. } => {
            let loaded = state.borrow().engine.as_ref().map(|(s, _)| s.clone());
            if loaded.as_deref() == Some(sha256.as_str()) {
                state.borrow_mut().engine = None;
            }
            store::delete(&sha256)
                .await
                .map(|_| FromWorker::Deleted { id })
        }
        ToWorker::Load { sha256, .. } => load(state, id, &sha256).await,
        ToWorker::Generate {
            sha256,
            turns,
            params,
            ..
        } => match load(state, id, &sha256).await {
            Ok(_) => generate(state, id, turns, params).await,
            Err(e) => Err(e),
        },
        ToWorker::Cancel { .. } => return,
    };
    state.borrow_mut().cancelled.remove(&id);
    send(
        state,
        &result.unwrap_or_else(|message| FromWorker::Error { id, message }),
    );
}

async fn load(state: &Shared, id: u32, sha256: &str) -> Result<FromWorker, String> {
    let loaded = state
        .borrow()
        .engine
        .as_ref()
        .map(|(s, e)| (s.clone(), e.info.clone(), e.peers_broken()));
    match loaded {
        Some((s, info, false)) if s == sha256 => {
            return Ok(FromWorker::Loaded { id, info, ms: 0.0 });
        }
        // A helper stopped answering: new helpers, the model again.
        Some((_, _, true)) => {
            let mut s = state.borrow_mut();
            s.engine = None;
            s.helpers.reset();
        }
        _ => {}
    }
    // Free the old model first: two may not fit.
    state.borrow_mut().engine = None;
    let t0 = now();
    let (mut reader, size) = store::open(sha256).await?;
    progress(state, id, "loading", 0, size);
    // Every core the page may use: the leader loads its share of the
    // rows, then each helper its own (one at a time: a stored file opens
    // for one reader).
    let count = peers::available();
    let part = Part { index: 0, count };
    let mut engine = Engine::load_part(&mut reader, size, MEMORY_BUDGET, part)?;
    drop(reader);
    if count > 1 {
        let mut helpers = std::mem::take(&mut state.borrow_mut().helpers);
        let linked = helpers
            .link(sha256, count, engine.exchange_floats())
            .await
            .and_then(|p| engine.set_peers(Box::new(p)));
        state.borrow_mut().helpers = helpers;
        if let Err(why) = linked {
            // One worker, then, with every row.
            web_sys::console::warn_1(&format!("The model runs on one core: {why}").into());
            let (mut reader, size) = store::open(sha256).await?;
            engine = Engine::load(&mut reader, size)?;
        }
    }
    engine.info.sha256 = sha256.to_string();
    let info = engine.info.clone();
    state.borrow_mut().engine = Some((sha256.to_string(), engine));
    Ok(FromWorker::Loaded {
        id,
        info,
        ms: now() - t0,
    })
}

async fn generate(
    state: &Shared,
    id: u32,
    turns: Vec<ChatTurn>,
    params: GenParams,
) -> Result<FromWorker, String> {
    let mut job = {
        let mut s = state.borrow_mut();
        let (_, engine) = s
            .engine
            .as_mut()
            .ok_or("No model is loaded in the worker: pick one in Settings.")?;
        engine.start(&turns, &params)?
    };
    send(
        state,
        &FromWorker::Started {
            id,
            prompt_tokens: job.prompt_tokens() as u32,
            reused: job.reused as u32,
        },
    );
    let t0 = now();
    // The split is watched from the prompt's first layer: a core another
    // program keeps busy slows the reading as much as the writing, and a
    // fall back early spares both.
    let mut watch = split_watch(state);
    let mut first_token: Option<f64> = None;
    // The exchanges with helper workers when the first token came.
    let mut at_first = (0u64, 0.0f64);
    let exchanged = |state: &Shared| {
        let s = state.borrow();
        s.engine.as_ref().map_or((0, 0.0), |(_, e)| e.exchanged())
    };
    // Products exchanged before a fall back to one worker (the whole model
    // it then loads counts from zero): while writing, and in all.
    let mut carried = (0u64, 0.0f64);
    let mut at_start = exchanged(state);
    let mut carried_all = 0u64;
    let done = |job: &crate::generate::Job,
                finish: &str,
                first: Option<f64>,
                from: (u64, f64),
                carried: (u64, f64),
                all: (u64, u64)| {
        let end = now();
        let first = first.unwrap_or(end);
        let (n, ms) = exchanged(state);
        let (workers, shares) = {
            let s = state.borrow();
            s.engine
                .as_ref()
                .map_or((1, None), |(_, e)| (e.info.workers, e.shares()))
        };
        let shares = shares.unwrap_or_default();
        FromWorker::Done {
            id,
            prompt_tokens: job.prompt_tokens() as u32,
            output_tokens: job.output_tokens() as u32,
            reused: job.reused as u32,
            finish: finish.into(),
            prefill_ms: first - t0,
            decode_ms: end - first,
            exchanges: n.saturating_sub(from.0) + carried.0,
            exchange_ms: ms - from.1 + carried.1,
            // What the parts exchanged before a fall back, and since.
            all_exchanges: all.0 + n.saturating_sub(all.1),
            workers,
            share_ms: if shares.peers_ms.is_empty() {
                Vec::new()
            } else {
                std::iter::once(shares.own_ms)
                    .chain(shares.peers_ms)
                    .collect()
            },
            wait_ms: shares.wait_ms,
            held: job.held(),
        }
    };
    loop {
        if state.borrow_mut().cancelled.remove(&id) {
            let all = (carried_all, at_start.0);
            return Ok(done(&job, "cancelled", first_token, at_first, carried, all));
        }
        let step = {
            let mut s = state.borrow_mut();
            let (_, engine) = s.engine.as_mut().ok_or("The model was unloaded.")?;
            engine.step(&mut job)?
        };
        match step {
            Step::Prefill { done, total } => {
                progress(state, id, "prefill", done as u64, total as u64)
            }
            Step::Token { text } => {
                if first_token.is_none() {
                    first_token = Some(now());
                    at_first = exchanged(state);
                }
                if !text.is_empty() {
                    send(state, &FromWorker::Delta { id, text });
                }
            }
            Step::Done(f) => {
                let all = (carried_all, at_start.0);
                return Ok(done(&job, f.as_str(), first_token, at_first, carried, all));
            }
        }
        // A pass holds activations only: the weights may change between
        // any two steps, a prompt's layers included.
        if split_slower(state, &mut watch) {
            let (n, ms) = exchanged(state);
            if first_token.is_some() {
                carried = (n.saturating_sub(at_first.0), ms - at_first.1);
            }
            carried_all += n.saturating_sub(at_start.0);
            one_worker(state, id).await;
            at_first = exchanged(state);
            at_start = at_first;
            watch = None;
        }
        yield_now().await;
    }
}

/// A watch on the split (None on one worker): `split::Watch`.
fn split_watch(state: &Shared) -> Option<Watch> {
    let s = state.borrow();
    let (_, engine) = s.engine.as_ref()?;
    let shares = engine.shares()?;
    let (n, _) = engine.exchanged();
    Some(Watch::new(engine.info.workers as usize, now(), &shares, n))
}

/// Whether the window just ended shows one worker would be faster.
fn split_slower(state: &Shared, watch: &mut Option<Watch>) -> bool {
    let Some(w) = watch.as_mut() else {
        return false;
    };
    let s = state.borrow();
    let Some((_, engine)) = s.engine.as_ref() else {
        return false;
    };
    match engine.shares() {
        Some(shares) => w.slower(now(), &shares, engine.exchanged().0),
        None => false,
    }
}

/// The model goes on on this worker alone, with every row (another
/// program is busy on a core: the split waited more than it gained). The
/// generation keeps its place; the page is told (`Progress` "one-worker").
/// Where the whole model cannot be read now, the split goes on.
async fn one_worker(state: &Shared, id: u32) {
    let Some(sha256) = state.borrow().engine.as_ref().map(|(s, _)| s.clone()) else {
        return;
    };
    let whole = match store::open(&sha256).await {
        Ok((mut reader, size)) => Engine::load(&mut reader, size),
        Err(e) => Err(e),
    };
    match whole {
        Ok(whole) => {
            if let Some((_, engine)) = state.borrow_mut().engine.as_mut() {
                engine.adopt_whole(whole);
            }
            progress(state, id, "one-worker", 1, 1);
        }
        Err(why) => web_sys::console::warn_1(
            &format!("The model stays split over its workers: {why}").into(),
        ),
    }
}
