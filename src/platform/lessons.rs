//! Lessons the teacher wrote, kept in IndexedDB (`lessons`: key → `{v,
//! key, updated_ms, bundle}`, the bundle in its file format). A lesson is
//! checked before it is stored and again when it is read back: a damaged
//! record, or one from a newer version, is an error naming it, never a
//! panic, and the list shows it so it can be deleted.

use super::idb::{self, StoreDecl, StoreError};
use crate::engine::lesson::Bundle;
use serde::{Deserialize, Serialize};

const LESSONS: &str = "lessons";
/// The store (see `idb`): added in version 5.
pub const STORES: &[StoreDecl] = &[StoreDecl::new(LESSONS, 5)];
const RECORD_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Record {
    v: u32,
    key: String,
    #[serde(default)]
    updated_ms: f64,
    bundle: serde_json::Value,
}

/// A saved lesson as the list shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum Saved {
    Ok {
        key: String,
        title: String,
        runs: usize,
        steps: usize,
        questions: usize,
        updated_ms: f64,
    },
    Unreadable {
        key: String,
        message: String,
    },
}

fn write_failed(e: &StoreError) -> String {
    if e.quota {
        "Browser storage is full, so the lesson could not be saved. Export it as a file, or delete old runs and lessons, then try again.".into()
    } else {
        format!(
            "Saving the lesson to the browser's storage failed ({}).",
            e.detail
        )
    }
}

/// A new key for a lesson.
pub fn new_key() -> String {
    format!(
        "lesson-{}-{:x}",
        js_sys::Date::now() as u64,
        (js_sys::Math::random() * 1e9) as u64
    )
}

/// Checks and stores `bundle` as `key`.
pub async fn save(key: &str, bundle: &Bundle) -> Result<(), String> {
    bundle.validate()?;
    let record = Record {
        v: RECORD_VERSION,
        key: key.into(),
        updated_ms: js_sys::Date::now(),
        bundle: serde_json::to_value(bundle).map_err(|e| e.to_string())?,
    };
    let text = serde_json::to_string(&record).map_err(|e| e.to_string())?;
    idb::put_text(LESSONS, key, &text)
        .await
        .map_err(|e| write_failed(&e))
}

fn read(key: &str, text: &str) -> Result<(Bundle, f64), String> {
    let r: Record = serde_json::from_str(text)
        .map_err(|e| format!("The stored lesson \"{key}\" is damaged ({e}). Delete it."))?;
    if r.v > RECORD_VERSION {
        return Err(format!(
            "The lesson \"{key}\" was stored by a newer version of Roundtable: open it there."
        ));
    }
    let bundle = Bundle::from_tree(r.bundle)
        .map_err(|e| format!("The stored lesson \"{key}\" cannot be opened: {e}"))?;
    Ok((bundle, r.updated_ms))
}

/// The saved lessons, newest first.
pub async fn list() -> Result<Vec<Saved>, String> {
    let keys = idb::keys(LESSONS).await.map_err(|e| e.user_message())?;
    let mut out = Vec::new();
    for key in keys {
        let text = match idb::get_text(LESSONS, &key).await {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(e) => {
                out.push(Saved::Unreadable {
                    key,
                    message: e.user_message(),
                });
                continue;
            }
        };
        out.push(match read(&key, &text) {
            Ok((b, updated_ms)) => {
                let lesson = b.lesson.unwrap_or_default();
                Saved::Ok {
                    key,
                    title: lesson.title.clone(),
                    runs: b.runs.len(),
                    steps: lesson.steps.len(),
                    questions: lesson.questions(),
                    updated_ms,
                }
            }
            Err(message) => Saved::Unreadable { key, message },
        });
    }
    out.sort_by(|a, b| {
        let t = |s: &Saved| match s {
            Saved::Ok { updated_ms, .. } => *updated_ms,
            Saved::Unreadable { .. } => f64::MAX,
        };
        t(b).total_cmp(&t(a))
    });
    Ok(out)
}

pub async fn load(key: &str) -> Result<Bundle, String> {
    let text = idb::get_text(LESSONS, key)
        .await
        .map_err(|e| e.user_message())?
        .ok_or_else(|| "That lesson is not in this browser any more.".to_string())?;
    read(key, &text).map(|(b, _)| b)
}

pub async fn delete(key: &str) -> Result<(), String> {
    idb::delete(LESSONS, key)
        .await
        .map_err(|e| e.user_message())
}
