//! The model on several cores in the browser: the worker the page started
//! (the leader) starts helper workers of the same script, each holding its
//! share of every matrix's rows (`split`). Wasm without threads has no
//! shared memory of its own, so each helper is linked to the leader by a
//! SharedArrayBuffer: the leader writes a product's input there and wakes
//! the helper (`Atomics.notify`), multiplies its own rows, then waits
//! (`Atomics.wait`, which workers may do) for the helper's rows.
//!
//! SharedArrayBuffer exists only on a cross-origin isolated page (served
//! with COOP `same-origin` and COEP `require-corp`); elsewhere the model
//! runs on one worker, as before.
//!
//! A link's buffer: 16 control words (`CTRL`), then the input (`input`
//! floats), then the helper's output rows or its error message.

use super::{intake, store};
use crate::model::split::{Op, Part, Peers, Rows, Shares};
use crate::model::Model;
use candle_core::quantized::gguf_file::Content;
use js_sys::{Atomics, Float32Array, Int32Array, SharedArrayBuffer, Uint8Array};
use std::cell::Cell;
use std::io::{Seek, SeekFrom};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker, WorkerOptions, WorkerType};

/// The name a helper worker is started with (`host::start` reads it).
pub const HELPER_NAME: &str = "roundtable-model-helper";
/// Workers at most, the leader included.
pub const MAX_WORKERS: usize = 4;
/// How long the leader waits for a helper's rows before giving up.
const TIMEOUT_MS: f64 = 30_000.0;
/// Loads of a control word before sleeping in `Atomics.wait` (a product
/// of a decode step takes tens of microseconds; waking takes about as long).
const SPINS: u32 = 50_000;

// Control words.
const REQ: u32 = 0;
const DONE: u32 = 1;
const KIND: u32 = 2;
const LAYER: u32 = 3;
const TOKENS: u32 = 4;
const INPUT_LEN: u32 = 5;
const STATUS: u32 = 6;
const OUTPUTS: u32 = 7;
/// Words 8..12: each output matrix's length.
const OUT_LEN: u32 = 8;
/// The helper's time computing its rows of the last product, µs.
const BUSY_US: u32 = 12;
const CTRL: u32 = 16;
/// `KIND` of the request that sends a helper back to its message loop.
const STOP: i32 = 0;

fn text(e: JsValue) -> String {
    intake::text(e)
}

thread_local! {
    /// The script helpers are started from: this worker's own, when the
    /// page started it through `host::start` (a test harness that runs
    /// the message loop itself has none, and gets no helpers).
    static SCRIPT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Records this worker's script (`host::start`): helpers may be started.
pub fn set_script(url: String) {
    SCRIPT.with(|s| *s.borrow_mut() = Some(url));
}

/// Workers this page can run the model on: 1 unless this worker was
/// started as the model's worker, the page is cross-origin isolated and it
/// has more than one core.
pub fn available() -> usize {
    if SCRIPT.with(|s| s.borrow().is_none()) {
        return 1;
    }
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let isolated = js_sys::Reflect::get(&scope, &"crossOriginIsolated".into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    if !isolated {
        return 1;
    }
    (scope.navigator().hardware_concurrency() as usize).clamp(1, MAX_WORKERS)
}

/// Views of one link's buffer.
struct Views {
    ctrl: Int32Array,
    data: Float32Array,
    bytes: Uint8Array,
    input: u32,
}

impl Views {
    fn new(sab: &SharedArrayBuffer, input: u32) -> Views {
        Views {
            ctrl: Int32Array::new_with_byte_offset_and_length(sab, 0, CTRL),
            data: Float32Array::new_with_byte_offset(sab, CTRL * 4),
            bytes: Uint8Array::new_with_byte_offset(sab, CTRL * 4),
            input,
        }
    }
    fn get(&self, i: u32) -> i32 {
        Atomics::load(&self.ctrl, i).unwrap_or(0)
    }
    fn set(&self, i: u32, v: i32) {
        let _ = Atomics::store(&self.ctrl, i, v);
    }
    /// Waits until word `i` is no longer `old`; false on timeout.
    fn wait_change(&self, i: u32, old: i32, timeout_ms: f64) -> bool {
        for _ in 0..SPINS {
            if self.get(i) != old {
                return true;
            }
        }
        let start = js_sys::Date::now();
        while self.get(i) == old {
            let left = timeout_ms - (js_sys::Date::now() - start);
            if left <= 0.0 {
                return false;
            }
            let _ = Atomics::wait_with_timeout(&self.ctrl, i, old, left.min(1_000.0));
        }
        true
    }
}

/// The leader's end of one helper.
struct Link {
    views: Views,
    seq: Cell<i32>,
}

/// The leader's helpers (`Peers` for `Model::set_peers`).
pub struct WorkerPeers {
    links: Vec<Link>,
    exchanges: Cell<u64>,
    /// Time in `ask` and waiting in `collect`, ms.
    spent: Cell<f64>,
    broken: Cell<bool>,
    /// When the last `ask` returned (the leader's own rows start).
    asked_at: Cell<f64>,
    /// The leader's time on its own rows, waiting, and each helper's.
    own_ms: Cell<f64>,
    wait_ms: Cell<f64>,
    peers_ms: Vec<Cell<f64>>,
}

impl WorkerPeers {
    fn new(links: Vec<Link>) -> WorkerPeers {
        WorkerPeers {
            peers_ms: links.iter().map(|_| Cell::new(0.0)).collect(),
            links,
            exchanges: Cell::new(0),
            spent: Cell::new(0.0),
            broken: Cell::new(false),
            asked_at: Cell::new(0.0),
            own_ms: Cell::new(0.0),
            wait_ms: Cell::new(0.0),
        }
    }
}

fn now() -> f64 {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    scope.performance().map_or(0.0, |p| p.now())
}

impl Peers for WorkerPeers {
    fn ask(&self, op: Op, m: usize, input: &[f32]) -> candle_core::Result<()> {
        let t0 = now();
        self.exchanges.set(self.exchanges.get() + 1);
        for link in &self.links {
            let v = &link.views;
            if input.len() > v.input as usize {
                candle_core::bail!(
                    "a product's input of {} values exceeds the helper's buffer of {}",
                    input.len(),
                    v.input
                )
            }
            v.data.subarray(0, input.len() as u32).copy_from(input);
            let (kind, layer) = op.code();
            v.set(KIND, kind as i32);
            v.set(LAYER, layer as i32);
            v.set(TOKENS, m as i32);
            v.set(INPUT_LEN, input.len() as i32);
            let seq = link.seq.get().wrapping_add(1);
            link.seq.set(seq);
            v.set(REQ, seq);
            let _ = Atomics::notify(&v.ctrl, REQ);
        }
        let t1 = now();
        self.spent.set(self.spent.get() + t1 - t0);
        self.asked_at.set(t1);
        Ok(())
    }

    fn collect(&self) -> candle_core::Result<Vec<Rows>> {
        let t0 = now();
        self.own_ms
            .set(self.own_ms.get() + (t0 - self.asked_at.get()).max(0.0));
        let rows = self.collect_rows();
        let waited = now() - t0;
        self.spent.set(self.spent.get() + waited);
        self.wait_ms.set(self.wait_ms.get() + waited);
        for (link, ms) in self.links.iter().zip(&self.peers_ms) {
            ms.set(ms.get() + f64::from(link.views.get(BUSY_US).max(0)) / 1000.0);
        }
        if rows.is_err() {
            self.broken.set(true);
        }
        rows
    }

    fn broken(&self) -> bool {
        self.broken.get()
    }

    fn workers(&self) -> usize {
        self.links.len() + 1
    }

    fn exchanged(&self) -> (u64, f64) {
        (self.exchanges.get(), self.spent.get())
    }

    fn shares(&self) -> Shares {
        Shares {
            own_ms: self.own_ms.get(),
            wait_ms: self.wait_ms.get(),
            peers_ms: self.peers_ms.iter().map(Cell::get).collect(),
        }
    }
}

impl WorkerPeers {
    fn collect_rows(&self) -> candle_core::Result<Vec<Rows>> {
        self.links
            .iter()
            .enumerate()
            .map(|(i, link)| {
                let v = &link.views;
                let seq = link.seq.get();
                loop {
                    let done = v.get(DONE);
                    if done == seq {
                        break;
                    }
                    if !v.wait_change(DONE, done, TIMEOUT_MS) {
                        candle_core::bail!(
                            "the model's helper worker {} stopped answering (out of memory?); the model loads again on the next request",
                            i + 1
                        )
                    }
                }
                let at = v.input;
                if v.get(STATUS) != 0 {
                    let len = v.get(OUT_LEN).max(0) as u32;
                    let mut msg = vec![0u8; len as usize];
                    v.bytes.subarray(at * 4, at * 4 + len).copy_to(&mut msg);
                    candle_core::bail!(
                        "the model's helper worker {} failed: {}",
                        i + 1,
                        String::from_utf8_lossy(&msg)
                    )
                }
                let mut off = at;
                (0..v.get(OUTPUTS).clamp(0, 4) as u32)
                    .map(|j| {
                        let len = v.get(OUT_LEN + j).max(0) as u32;
                        let rows = v.data.subarray(off, off + len).to_vec();
                        off += len;
                        Ok(rows)
                    })
                    .collect()
            })
            .collect()
    }
}

impl Drop for WorkerPeers {
    /// Sends the helpers back to their message loops (they drop their
    /// shares before the next model's).
    fn drop(&mut self) {
        for link in &self.links {
            link.views.set(KIND, STOP);
            let seq = link.seq.get().wrapping_add(1);
            link.views.set(REQ, seq);
            let _ = Atomics::notify(&link.views.ctrl, REQ);
        }
    }
}

/// The next message a helper worker posts (its `data`, a JSON string),
/// within `timeout_ms`.
async fn reply(worker: &Worker, timeout_ms: i32) -> Result<serde_json::Value, String> {
    let answer = js_sys::Promise::new(&mut |resolve, reject| {
        worker.set_onmessage(Some(&resolve));
        worker.set_onerror(Some(&reject));
    });
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let late = js_sys::Promise::new(&mut |_, reject| {
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(&reject, timeout_ms);
    });
    let promise = js_sys::Promise::race(&js_sys::Array::of2(&answer, &late));
    let ev = JsFuture::from(promise).await.map_err(|e| {
        if e.is_undefined() {
            return format!("no answer within {} s", timeout_ms / 1000);
        }
        let msg = js_sys::Reflect::get(&e, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| text(e));
        format!("the helper worker did not start: {msg}")
    })?;
    worker.set_onmessage(None);
    worker.set_onerror(None);
    let data = ev
        .dyn_into::<MessageEvent>()
        .map(|e| e.data())
        .map_err(|_| "the helper worker sent no message".to_string())?;
    let json = data.as_string().unwrap_or_default();
    serde_json::from_str(&json).map_err(|e| format!("the helper worker's message: {e}"))
}

/// Helper workers kept between models (starting one fetches and compiles
/// the wasm again). A model's `WorkerPeers` sends them back to their
/// message loops when it is dropped, ready for the next model's shares.
#[derive(Default)]
pub struct Helpers {
    workers: Vec<Worker>,
}

impl Helpers {
    /// Ends every helper (one stopped answering): the next model starts
    /// new ones.
    pub fn reset(&mut self) {
        for w in self.workers.drain(..) {
            w.terminate();
        }
    }

    /// Links `count - 1` helpers, each loading its share of stored model
    /// `sha256`; `exchange` is the widest product's input and output in
    /// floats.
    pub async fn link(
        &mut self,
        sha256: &str,
        count: usize,
        exchange: (usize, usize),
    ) -> Result<WorkerPeers, String> {
        let mut links = Vec::new();
        for index in 1..count {
            let worker = match self.workers.get(index - 1) {
                Some(w) => w.clone(),
                None => match spawn().await {
                    Ok(w) => {
                        self.workers.push(w.clone());
                        w
                    }
                    Err(e) => {
                        drop(WorkerPeers::new(links));
                        return Err(e);
                    }
                },
            };
            let (input, output) = exchange;
            let bytes = (CTRL as usize + input + output) * 4;
            let sab = SharedArrayBuffer::new(bytes as u32);
            let msg = serde_json::json!({ "helper": { "sha256": sha256, "index": index, "count": count, "input": input } });
            let post = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&post, &"msg".into(), &msg.to_string().into());
            let _ = js_sys::Reflect::set(&post, &"sab".into(), &sab);
            match reply_to(&worker, &post).await {
                Ok(v) if v.get("helper").and_then(|h| h.as_str()) == Some("ready") => {
                    links.push(Link {
                        views: Views::new(&sab, input as u32),
                        seq: Cell::new(0),
                    });
                }
                other => {
                    // This helper starts afresh next time; the linked ones
                    // are sent back to their loops (`links` dropped).
                    worker.terminate();
                    self.workers.remove(index - 1);
                    let why = match other {
                        Ok(v) => v
                            .get("message")
                            .and_then(|m| m.as_str())
                            .unwrap_or("no reason given")
                            .to_string(),
                        Err(e) => e,
                    };
                    drop(WorkerPeers::new(links));
                    return Err(format!("helper worker {index} of {count}: {why}"));
                }
            }
        }
        Ok(WorkerPeers::new(links))
    }
}

async fn reply_to(worker: &Worker, post: &js_sys::Object) -> Result<serde_json::Value, String> {
    // Loading a share reads a few hundred MB at most.
    let answer = reply(worker, 300_000);
    worker
        .post_message(post)
        .map_err(|e| format!("cannot reach the helper worker: {}", text(e)))?;
    answer.await
}

/// Starts a helper: this worker's own script, under `HELPER_NAME`.
async fn spawn() -> Result<Worker, String> {
    let Some(url) = SCRIPT.with(|s| s.borrow().clone()) else {
        return Err("this worker was not started as the model's worker".into());
    };
    let opts = WorkerOptions::new();
    opts.set_type(WorkerType::Module);
    opts.set_name(HELPER_NAME);
    let worker = Worker::new_with_options(&url, &opts)
        .map_err(|e| format!("the browser would not start a helper worker: {}", text(e)))?;
    let hello = match reply(&worker, 60_000).await {
        Ok(h) => h,
        Err(e) => {
            worker.terminate();
            return Err(e);
        }
    };
    if hello.get("helper").and_then(|h| h.as_str()) != Some("started") {
        worker.terminate();
        return Err(format!("the helper worker said {hello}"));
    }
    Ok(worker)
}

fn post(v: serde_json::Value) {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let _ = scope.post_message(&JsValue::from_str(&v.to_string()));
}

/// A helper's message loop: each message loads a share, then serves
/// products until the leader sends `STOP`.
pub fn start_helper() {
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        wasm_bindgen_futures::spawn_local(on_message(ev.data()));
    });
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
    post(serde_json::json!({ "helper": "started" }));
}

async fn on_message(data: JsValue) {
    let json = js_sys::Reflect::get(&data, &"msg".into())
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_default();
    let sab = js_sys::Reflect::get(&data, &"sab".into())
        .ok()
        .and_then(|s| s.dyn_into::<SharedArrayBuffer>().ok());
    let req: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
    let h = &req["helper"];
    let (Some(sha256), Some(index), Some(count), Some(input), Some(sab)) = (
        h["sha256"].as_str(),
        h["index"].as_u64(),
        h["count"].as_u64(),
        h["input"].as_u64(),
        sab,
    ) else {
        post(
            serde_json::json!({ "helper": "error", "message": "the leader's request was not understood" }),
        );
        return;
    };
    let part = Part {
        index: index as usize,
        count: count as usize,
    };
    match load(sha256, part).await {
        Ok(model) => {
            post(serde_json::json!({ "helper": "ready" }));
            serve(&model, &Views::new(&sab, input as u32));
        }
        Err(message) => post(serde_json::json!({ "helper": "error", "message": message })),
    }
}

async fn load(sha256: &str, part: Part) -> Result<Model, String> {
    let (mut reader, _) = store::open(sha256).await?;
    let content = Content::read(&mut reader).map_err(|e| e.to_string())?;
    reader.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    let arch = content
        .metadata
        .get("general.architecture")
        .and_then(|v| v.to_string().ok())
        .cloned()
        .unwrap_or_default();
    Model::load_part(&content, &mut reader, &arch, 1, part).map_err(|e| e.to_string())
}

/// Answers the leader's products until it sends `STOP`; blocks this
/// worker meanwhile (it has nothing else to do).
fn serve(model: &Model, v: &Views) {
    let mut seen = v.get(REQ);
    loop {
        if v.get(REQ) == seen {
            // The leader may be away for long (between requests): no timeout.
            v.wait_change(REQ, seen, f64::INFINITY);
        }
        seen = v.get(REQ);
        let kind = v.get(KIND);
        if kind == STOP {
            return;
        }
        let len = v.get(INPUT_LEN).max(0) as u32;
        let input = v.data.subarray(0, len.min(v.input)).to_vec();
        let started = now();
        let result = Op::from_code(kind as u32, v.get(LAYER) as u32)
            .ok_or_else(|| format!("unknown product {kind}"))
            .and_then(|op| {
                model
                    .serve(op, v.get(TOKENS).max(0) as usize, &input)
                    .map_err(|e| e.to_string())
            });
        let capacity = v.data.length().saturating_sub(v.input);
        let total: usize = result.as_ref().map_or(0, |r| r.iter().map(Vec::len).sum());
        match result {
            Ok(rows) if total as u32 <= capacity && rows.len() <= 4 => {
                let mut off = v.input;
                for (j, r) in rows.iter().enumerate() {
                    v.data.subarray(off, off + r.len() as u32).copy_from(r);
                    v.set(OUT_LEN + j as u32, r.len() as i32);
                    off += r.len() as u32;
                }
                v.set(OUTPUTS, rows.len() as i32);
                v.set(STATUS, 0);
            }
            other => {
                let msg = match other {
                    Err(e) => e,
                    Ok(_) => format!("{total} output values exceed the buffer of {capacity}"),
                };
                let bytes = msg.as_bytes();
                let n = bytes.len().min(capacity as usize * 4) as u32;
                let at = v.input * 4;
                v.bytes.subarray(at, at + n).copy_from(&bytes[..n as usize]);
                v.set(OUT_LEN, n as i32);
                v.set(STATUS, 1);
            }
        }
        v.set(
            BUSY_US,
            ((now() - started) * 1000.0).min(f64::from(i32::MAX)) as i32,
        );
        v.set(DONE, seen);
        let _ = Atomics::notify(&v.ctrl, DONE);
    }
}
