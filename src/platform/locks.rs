//! Web Locks (`navigator.locks`): one tab at a time holds a named lock,
//! across every tab of the origin. A pool's learning takes its lock, so
//! two tabs never learn into one pool (each would save its own copy over
//! the other's); the second is refused with a message, not queued.
//!
//! The lock is held while the [`Held`] guard lives: its drop resolves the
//! promise the lock's callback returned, which releases it (closing the
//! tab releases it too). Browsers without the API (or an insecure page)
//! get a guard that holds nothing: one tab learns as before.

use futures::channel::oneshot;
use js_sys::{Function, Object, Promise, Reflect};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A held lock; dropping it releases the lock.
pub struct Held {
    release: Option<Function>,
    /// Kept alive while the lock is held (the browser calls it once).
    _callback: Option<Closure<dyn FnMut(JsValue) -> JsValue>>,
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(f) = self.release.take() {
            let _ = f.call0(&JsValue::NULL);
        }
    }
}

/// The lock of the pool `name`.
pub fn pool_lock(name: &str) -> String {
    format!("roundtable.pool.{name}")
}

/// Takes the lock `name` if no tab holds it: None when one does.
pub async fn try_lock(name: &str) -> Option<Held> {
    let unsupported = || Held {
        release: None,
        _callback: None,
    };
    let Some((locks, request)) = web_sys::window()
        .and_then(|w| Reflect::get(&w.navigator(), &"locks".into()).ok())
        .filter(|l| l.is_object())
        .and_then(|l| {
            let f = Reflect::get(&l, &"request".into()).ok()?;
            Some((l, f.dyn_into::<Function>().ok()?))
        })
    else {
        return Some(unsupported());
    };
    // The promise the callback returns, and how to resolve it.
    let resolve: Rc<RefCell<Option<Function>>> = Rc::default();
    let held = {
        let resolve = resolve.clone();
        Promise::new(&mut move |res, _| *resolve.borrow_mut() = Some(res))
    };
    let (tx, rx) = oneshot::channel::<bool>();
    let mut tx = Some(tx);
    let callback = Closure::<dyn FnMut(JsValue) -> JsValue>::new(move |lock: JsValue| {
        let got = !lock.is_null() && !lock.is_undefined();
        if let Some(tx) = tx.take() {
            let _ = tx.send(got);
        }
        if got {
            held.clone().into()
        } else {
            JsValue::NULL
        }
    });
    let options = Object::new();
    let _ = Reflect::set(&options, &"ifAvailable".into(), &JsValue::TRUE);
    let asked = request.call3(
        &locks,
        &JsValue::from_str(name),
        &options,
        callback.as_ref().unchecked_ref(),
    );
    if asked.is_err() {
        // The page may not use locks (e.g. an opaque origin): as without them.
        return Some(unsupported());
    }
    if !rx.await.unwrap_or(false) {
        return None;
    }
    let release = resolve.borrow_mut().take();
    Some(Held {
        release,
        _callback: Some(callback),
    })
}

// What this tab has claimed (`claim_in_tab`).
thread_local! {
    static CLAIMED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// A claim this tab holds on a name, until dropped.
pub struct TabClaim(String);

impl Drop for TabClaim {
    fn drop(&mut self) {
        CLAIMED.with(|c| c.borrow_mut().retain(|k| k != &self.0));
    }
}

/// Claims `key` in this tab (an ACT+ bank being filled: a second run or
/// batch on it would lose one's updates); None when it is claimed already.
pub fn claim_in_tab(key: &str) -> Option<TabClaim> {
    CLAIMED.with(|c| {
        let mut c = c.borrow_mut();
        if c.iter().any(|k| k == key) {
            None
        } else {
            c.push(key.to_string());
            Some(TabClaim(key.to_string()))
        }
    })
}

/// The claim of the knowledge bank `name`.
pub fn bank_claim(name: &str) -> String {
    format!("roundtable.bank.{name}")
}
