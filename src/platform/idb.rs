//! The app's one IndexedDB database (via rexie) and its schema. Each store
//! is declared by the module that uses it ([`StoreDecl`]: History's runs
//! and chunks in `history.rs`, imported travel databases and query sets in
//! `travel_store.rs`, MAEL's experience pools in `experience_store.rs`,
//! imported task sets in `task_sets.rs`, ACT's knowledge banks and task
//! sets in `act_store.rs`, the teacher's lessons in `lessons.rs`); this module only assembles the declarations into
//! the database's schema. Values are JSON text under string (or array) keys;
//! each module versions its own records.
//!
//! Migrations: the database's version is the highest `since` of any
//! store. A module that needs a new store declares it with the next
//! version; opening the database then creates it and keeps every other
//! store's data. A store missing from the schema would be *deleted* by
//! such an upgrade (rexie drops what it is not given), so stores are never
//! removed from their module's list, and the in-browser test opens
//! databases written by every earlier version and checks that nothing is
//! lost.

use super::{act_store, experience_store, history, lessons, task_sets, travel_store};
use rexie::{KeyRange, ObjectStore, Rexie, Store, Transaction, TransactionMode};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// A store, and the schema version that added it.
#[derive(Clone, Copy, Debug)]
pub struct StoreDecl {
    pub name: &'static str,
    pub since: u32,
}

impl StoreDecl {
    /// The store `name`, added in schema version `since`.
    pub const fn new(name: &'static str, since: u32) -> StoreDecl {
        StoreDecl { name, since }
    }
}

/// Every module's stores.
const SCHEMA: &[&[StoreDecl]] = &[
    history::STORES,
    travel_store::STORES,
    experience_store::STORES,
    task_sets::STORES,
    act_store::STORES,
    lessons::STORES,
];

/// The database the app uses.
pub const DB_NAME: &str = "roundtable";

/// The schema's version: the highest `since` (v1: runs, chunks; v2: the
/// travel planner's imports; v3: MAEL's experience pools, imported task
/// sets; v4: ACT's knowledge banks and task sets).
pub const fn version() -> u32 {
    let mut v = 1;
    let mut i = 0;
    while i < SCHEMA.len() {
        let mut j = 0;
        while j < SCHEMA[i].len() {
            if SCHEMA[i][j].since > v {
                v = SCHEMA[i][j].since;
            }
            j += 1;
        }
        i += 1;
    }
    v
}

/// Every store's name.
pub fn store_names() -> impl Iterator<Item = &'static str> {
    SCHEMA.iter().flat_map(|m| m.iter()).map(|s| s.name)
}

thread_local! {
    static DB: RefCell<Option<Rc<Rexie>>> = const { RefCell::new(None) };
}

/// A storage failure, with what the user can do.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreError {
    pub quota: bool,
    pub detail: String,
}

impl StoreError {
    pub(crate) fn from_rexie(e: rexie::Error) -> Self {
        let detail = match &e {
            rexie::Error::IdbError(inner) => inner.to_string(),
            other => other.to_string(),
        };
        let quota = detail.contains("Quota") || detail.contains("quota");
        StoreError { quota, detail }
    }

    pub fn user_message(&self) -> String {
        if self.quota {
            "Browser storage is full, so this run could not be saved to History. Delete old runs in History (export them first if you want to keep them), then try again.".into()
        } else {
            format!("Saving to the browser's storage failed ({}). The run goes on, but History may miss it.", self.detail)
        }
    }
}

/// Opens (creating or upgrading) the database `name` with the schema.
pub async fn open(name: &str) -> Result<Rexie, StoreError> {
    let mut builder = Rexie::builder(name).version(version());
    for store in store_names() {
        builder = builder.add_object_store(ObjectStore::new(store));
    }
    builder.build().await.map_err(StoreError::from_rexie)
}

/// The app's database, opened once per tab.
pub async fn db() -> Result<Rc<Rexie>, StoreError> {
    if let Some(db) = DB.with(|d| d.borrow().clone()) {
        return Ok(db);
    }
    let db = Rc::new(open(DB_NAME).await?);
    DB.with(|d| *d.borrow_mut() = Some(db.clone()));
    Ok(db)
}

/// `name` in a transaction of its own (commit with `Transaction::done`).
pub(super) async fn open_store(
    name: &str,
    mode: TransactionMode,
) -> Result<(Transaction, Store), StoreError> {
    let d = db().await?;
    let tx = d
        .transaction(&[name], mode)
        .map_err(StoreError::from_rexie)?;
    let store = tx.store(name).map_err(StoreError::from_rexie)?;
    Ok((tx, store))
}

/// `name` read-only in a transaction of its own, a failure as the text
/// shown to the user (the database's message, or the browser's error).
pub(super) async fn read_store(name: &str) -> Result<(Transaction, Store), String> {
    let d = db().await.map_err(|e| e.user_message())?;
    let tx = d
        .transaction(&[name], TransactionMode::ReadOnly)
        .map_err(|e| e.to_string())?;
    let store = tx.store(name).map_err(|e| e.to_string())?;
    Ok((tx, store))
}

/// The key of chunk `n` of what is stored as `name` (a run's events, a
/// pool's experiences): `[name, n]`.
pub(super) fn chunk_key(name: &str, n: u32) -> JsValue {
    js_sys::Array::of2(&JsValue::from_str(name), &JsValue::from_f64(n as f64)).into()
}

/// The keys of `name`'s chunks from the `from`th on.
pub(super) fn chunk_range(name: &str, from: u32) -> Result<KeyRange, StoreError> {
    KeyRange::bound(
        &chunk_key(name, from),
        &chunk_key(name, u32::MAX),
        None,
        None,
    )
    .map_err(|e| StoreError {
        quota: false,
        detail: e.to_string(),
    })
}

/// The text under `key` in `store`, if any (a value that is not text reads
/// as none), a failure as the text shown to the user ([`read_store`]).
pub(super) async fn read_text(store: &str, key: &str) -> Result<Option<String>, String> {
    let (_tx, s) = read_store(store).await?;
    let v = s
        .get(JsValue::from_str(key))
        .await
        .map_err(|e| e.to_string())?;
    Ok(v.and_then(|v| v.as_string()))
}

/// Writes `value` under `key` in `store`.
pub async fn put_text(store: &str, key: &str, value: &str) -> Result<(), StoreError> {
    put_at(store, &JsValue::from_str(key), value).await
}

/// Writes `value` under `key` (a string or an array) in `store`.
pub(super) async fn put_at(store: &str, key: &JsValue, value: &str) -> Result<(), StoreError> {
    let (tx, s) = open_store(store, TransactionMode::ReadWrite).await?;
    s.put(&JsValue::from_str(value), Some(key))
        .await
        .map_err(StoreError::from_rexie)?;
    tx.done().await.map_err(StoreError::from_rexie).map(|_| ())
}

/// Keeps `value` as JSON text under `key` in `store`.
pub async fn put_json<T: serde::Serialize>(
    store: &str,
    key: &str,
    value: &T,
) -> Result<(), StoreError> {
    put_text(
        store,
        key,
        &serde_json::to_string(value).unwrap_or_default(),
    )
    .await
}

/// The JSON record kept as `name` in `store`, read as `T`; when it is
/// missing or does not read, a message naming it (`what`: "task set")
/// that says to import it again.
pub async fn get_json<T: serde::de::DeserializeOwned>(
    store: &str,
    name: &str,
    what: &str,
) -> Result<T, String> {
    let text = get_text(store, name)
        .await
        .map_err(|e| e.user_message())?
        .ok_or_else(|| {
            format!("The {what} \"{name}\" is not in this browser any more: import it again.")
        })?;
    serde_json::from_str(&text)
        .map_err(|e| format!("The stored {what} \"{name}\" is damaged ({e}): import it again."))
}

/// The text under `key` in `store`, if any (a value that is not text reads as none).
pub async fn get_text(store: &str, key: &str) -> Result<Option<String>, StoreError> {
    let (_tx, s) = open_store(store, TransactionMode::ReadOnly).await?;
    let v = s
        .get(JsValue::from_str(key))
        .await
        .map_err(StoreError::from_rexie)?;
    Ok(v.and_then(|v| v.as_string()))
}

/// The string keys of `store`.
pub async fn keys(store: &str) -> Result<Vec<String>, StoreError> {
    let (_tx, s) = open_store(store, TransactionMode::ReadOnly).await?;
    let k = s
        .get_all_keys(None, None)
        .await
        .map_err(StoreError::from_rexie)?;
    Ok(k.into_iter().filter_map(|k| k.as_string()).collect())
}

/// Deletes `key` from `store`.
pub async fn delete(store: &str, key: &str) -> Result<(), StoreError> {
    let (tx, s) = open_store(store, TransactionMode::ReadWrite).await?;
    s.delete(JsValue::from_str(key))
        .await
        .map_err(StoreError::from_rexie)?;
    tx.done().await.map_err(StoreError::from_rexie).map(|_| ())
}
