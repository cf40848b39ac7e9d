//! Web Locks (`navigator.locks`), shared by every tab and worker of the
//! site: a copy into the model store holds the lock of its file until its
//! record is written, so a lister in any tab can tell a copy in progress
//! from one that was cut off (a closed tab releases its locks).

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The lock a copy into the store holds for its file id.
pub fn copy_lock(file_id: &str) -> String {
    format!("roundtable-models/copy/{file_id}")
}

fn manager() -> Option<JsValue> {
    let nav = Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
    Reflect::get(&nav, &"locks".into())
        .ok()
        .filter(|l| !l.is_undefined() && !l.is_null())
}

/// A held lock, released when dropped (or by [`Held::release`], which
/// waits until the browser has let it go).
pub struct Held {
    release: Option<Function>,
    /// Settles once the lock is let go.
    gone: Option<Promise>,
}

impl Held {
    pub async fn release(mut self) {
        if let Some(f) = self.release.take() {
            let _ = f.call0(&JsValue::NULL);
        }
        if let Some(p) = self.gone.take() {
            let _ = JsFuture::from(p).await;
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(f) = self.release.take() {
            let _ = f.call0(&JsValue::NULL);
        }
        if let Some(p) = self.gone.take() {
            // A rejected request is nobody's error here.
            wasm_bindgen_futures::spawn_local(async move {
                let _ = JsFuture::from(p).await;
            });
        }
    }
}

/// Waits for the exclusive lock `name`. Where the browser has no Web Locks,
/// nothing is held (the store then never calls a file without its record
/// abandoned unless it is an hour old).
pub async fn hold(name: &str) -> Result<Held, String> {
    let Some(locks) = manager() else {
        return Ok(Held {
            release: None,
            gone: None,
        });
    };
    let request: Function = Reflect::get(&locks, &"request".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("navigator.locks.request is missing")?;
    let mut release = None;
    let held_until = Promise::new(&mut |resolve, _| release = Some(resolve));
    let mut grant = None;
    let granted = Promise::new(&mut |resolve, _| grant = Some(resolve));
    let (Some(release), Some(grant)) = (release, grant) else {
        return Err("could not make a promise".into());
    };
    let callback = Closure::once_into_js(move |_lock: JsValue| -> JsValue {
        let _ = grant.call0(&JsValue::NULL);
        held_until.into()
    });
    let all = request
        .call2(&locks, &name.into(), &callback)
        .map_err(super::intake::text)?;
    let held = Held {
        release: Some(release),
        // The request's own promise settles when the lock is released.
        gone: all.dyn_into::<Promise>().ok(),
    };
    JsFuture::from(granted).await.map_err(super::intake::text)?;
    Ok(held)
}

/// The names of the locks held now, anywhere on the site (None: this
/// browser has no Web Locks, or would not say).
pub async fn held() -> Option<Vec<String>> {
    let locks = manager()?;
    let query: Function = Reflect::get(&locks, &"query".into())
        .ok()?
        .dyn_into()
        .ok()?;
    let p: Promise = query.call0(&locks).ok()?.dyn_into().ok()?;
    let snapshot = JsFuture::from(p).await.ok()?;
    let held = Reflect::get(&snapshot, &"held".into()).ok()?;
    Some(
        js_sys::Array::from(&held)
            .iter()
            .filter_map(|l| Reflect::get(&l, &"name".into()).ok()?.as_string())
            .collect(),
    )
}
