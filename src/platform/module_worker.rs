//! A dedicated module Web Worker that speaks in messages: started, awaited
//! until it says it is ready, read into the host's own message type, and
//! terminated when dropped. HumanEval's checker (`platform::python`) and
//! the workspace's project runner (`platform::project`) are two.

use super::local_model::worker_error_text;
use futures::channel::mpsc::{unbounded, UnboundedReceiver};
use futures::future::{select, Either};
use futures::StreamExt;
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// What a host reads from its worker's messages.
pub trait WorkerMsg: Sized + 'static {
    /// A message, or `None` for one the host does not know (ignored).
    fn read(data: JsValue) -> Option<Self>;
    /// The worker's script failed (an error event, not a program's fault).
    fn broken(why: String) -> Self;
    /// While starting: `Some(Ok(()))` for "ready", `Some(Err(why))` for a
    /// worker that cannot start, `None` for anything else.
    fn startup(&self) -> Option<Result<(), String>>;
}

pub struct ModuleWorker<M> {
    worker: web_sys::Worker,
    pub inbox: UnboundedReceiver<M>,
    _onmessage: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _onerror: Closure<dyn FnMut(web_sys::Event)>,
}

impl<M> Drop for ModuleWorker<M> {
    fn drop(&mut self) {
        // A message already queued must not reach the dropped closures.
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

impl<M: WorkerMsg> ModuleWorker<M> {
    /// Starts `url`; `what` names it in errors ("Python's worker"). The
    /// first message must be its ready within `startup_ms`.
    pub async fn start(url: &str, what: &str, startup_ms: u32) -> Result<(Self, M), String> {
        let opts = web_sys::WorkerOptions::new();
        opts.set_type(web_sys::WorkerType::Module);
        let worker = web_sys::Worker::new_with_options(url, &opts)
            .map_err(|e| format!("the browser would not start {what} ({e:?})"))?;
        let (tx, inbox) = unbounded();
        let to = tx.clone();
        let onmessage =
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
                if let Some(m) = M::read(ev.data()) {
                    let _ = to.unbounded_send(m);
                }
            });
        let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            ev.prevent_default();
            let _ = tx.unbounded_send(M::broken(worker_error_text(&ev)));
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        let mut live = ModuleWorker {
            worker,
            inbox,
            _onmessage: onmessage,
            _onerror: onerror,
        };
        let first = select(live.inbox.next(), TimeoutFuture::new(startup_ms)).await;
        match first {
            Either::Left((Some(m), _)) => match m.startup() {
                Some(Ok(())) => Ok((live, m)),
                Some(Err(why)) => Err(format!("{what} could not start: {why}")),
                None => Err(format!("{what} said something unexpected while starting")),
            },
            Either::Left((None, _)) => Err(format!("{what} went away while starting")),
            Either::Right(_) => Err(format!(
                "{what} did not start within {} s",
                startup_ms / 1000
            )),
        }
    }

    /// Posts an object of these fields.
    pub fn post(&self, fields: &[(&str, JsValue)]) -> Result<(), String> {
        let msg = js_sys::Object::new();
        for (k, v) in fields {
            let _ = js_sys::Reflect::set(&msg, &(*k).into(), v);
        }
        self.worker
            .post_message(&msg)
            .map_err(|e| format!("cannot send a message to the worker ({e:?})"))
    }
}

/// A field of a worker's message.
pub fn field(data: &JsValue, key: &str) -> Option<JsValue> {
    js_sys::Reflect::get(data, &key.into())
        .ok()
        .filter(|v| !v.is_undefined())
}

/// A text field, or "" where it is missing or not text.
pub fn text_field(data: &JsValue, key: &str) -> String {
    field(data, key)
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}
