//! The fallback store, for browsers without OPFS sync access handles: each
//! model is one IndexedDB record `{record: <StoredModel JSON>, blob}` in
//! the database `roundtable-models` (not the app's own database, whose
//! schema the app versions). The record and the file are written in one
//! transaction, so a failed copy leaves nothing; a stored Blob is read in
//! slices, as a picked file is.

use super::intake::{check_and_hash, record, storage_full, text};
use super::reader::BlobReader;
use crate::protocol::StoredModel;
use std::io::BufReader;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, IdbDatabase, IdbRequest, IdbTransactionMode, WorkerGlobalScope};

const DB: &str = "roundtable-models";
const STORE: &str = "models";

async fn wait(req: &IdbRequest) -> Result<JsValue, String> {
    let p = js_sys::Promise::new(&mut |resolve, reject| {
        req.set_onsuccess(Some(&resolve));
        req.set_onerror(Some(&reject));
    });
    let r = JsFuture::from(p).await;
    req.set_onsuccess(None);
    req.set_onerror(None);
    r.map_err(|_| {
        req.error()
            .ok()
            .flatten()
            .map(|e| e.message())
            .unwrap_or_else(|| "IndexedDB refused the request".into())
    })?;
    req.result().map_err(text)
}

async fn open() -> Result<IdbDatabase, String> {
    let scope: WorkerGlobalScope = js_sys::global().unchecked_into();
    let factory = scope
        .indexed_db()
        .ok()
        .flatten()
        .ok_or("This browser gives the page neither OPFS nor IndexedDB, so it cannot keep a model file. Use a current browser outside private browsing.")?;
    let req = factory.open_with_u32(DB, 1).map_err(text)?;
    let upgrade = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        let db = ev
            .target()
            .and_then(|t| t.dyn_into::<IdbRequest>().ok())
            .and_then(|r| r.result().ok())
            .and_then(|d| d.dyn_into::<IdbDatabase>().ok());
        if let Some(db) = db {
            if !db.object_store_names().contains(STORE) {
                let _ = db.create_object_store(STORE);
            }
        }
    });
    req.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let db = wait(&req).await;
    req.set_onupgradeneeded(None);
    db?.dyn_into::<IdbDatabase>().map_err(text)
}

fn store(
    db: &IdbDatabase,
    mode: IdbTransactionMode,
) -> Result<(web_sys::IdbTransaction, web_sys::IdbObjectStore), String> {
    let tx = db
        .transaction_with_str_and_mode(STORE, mode)
        .map_err(text)?;
    let s = tx.object_store(STORE).map_err(text)?;
    Ok((tx, s))
}

async fn committed(tx: &web_sys::IdbTransaction) -> Result<(), String> {
    let p = js_sys::Promise::new(&mut |resolve, reject| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onerror(Some(&reject));
        tx.set_onabort(Some(&reject));
    });
    JsFuture::from(p).await.map(|_| ()).map_err(|_| {
        let detail = tx.error().map(|e| e.message()).unwrap_or_default();
        storage_full(detail)
    })
}

/// The readable records (damaged ones are skipped).
pub async fn list() -> Result<Vec<StoredModel>, String> {
    let db = open().await?;
    let (_, s) = store(&db, IdbTransactionMode::Readonly)?;
    let all = wait(&s.get_all().map_err(text)?).await?;
    let mut out: Vec<StoredModel> = js_sys::Array::from(&all)
        .iter()
        .filter_map(|v| js_sys::Reflect::get(&v, &"record".into()).ok())
        .filter_map(|r| r.as_string())
        .filter_map(|r| serde_json::from_str::<StoredModel>(&r).ok())
        .collect();
    db.close();
    out.sort_by(|a, b| a.added.total_cmp(&b.added));
    Ok(out)
}

/// Checks `blob`, hashes it, and stores it with its record in one transaction.
pub async fn import(
    blob: Blob,
    file_name: &str,
    now: f64,
    progress: &dyn Fn(&str, u64, u64),
) -> Result<StoredModel, String> {
    let (info, sha) = check_and_hash(&blob, progress)?;
    if let Some(m) = list().await?.into_iter().find(|m| m.info.sha256 == sha) {
        return Ok(m);
    }
    let file_id = format!("m{}", &sha[..12]);
    let model = record(info, sha, file_name, now, "indexeddb", &file_id);
    let json = serde_json::to_string(&model).map_err(|e| e.to_string())?;
    let value = js_sys::Object::new();
    js_sys::Reflect::set(&value, &"record".into(), &json.into()).map_err(text)?;
    js_sys::Reflect::set(&value, &"blob".into(), &blob).map_err(text)?;
    let db = open().await?;
    let (tx, s) = store(&db, IdbTransactionMode::Readwrite)?;
    s.put_with_key(&value, &file_id.into()).map_err(text)?;
    let r = committed(&tx).await;
    db.close();
    r.map(|_| model)
}

pub async fn delete(sha256: &str) -> Result<bool, String> {
    let Some(m) = list().await?.into_iter().find(|m| m.info.sha256 == sha256) else {
        return Ok(false);
    };
    let db = open().await?;
    let (tx, s) = store(&db, IdbTransactionMode::Readwrite)?;
    s.delete(&m.file_id.into()).map_err(text)?;
    let r = committed(&tx).await;
    db.close();
    r.map(|_| true)
}

/// A reader over a stored model, and its size (None: not stored here).
pub async fn open_model(sha256: &str) -> Result<Option<(BufReader<BlobReader>, u64)>, String> {
    let Some(m) = list().await?.into_iter().find(|m| m.info.sha256 == sha256) else {
        return Ok(None);
    };
    let db = open().await?;
    let (_, s) = store(&db, IdbTransactionMode::Readonly)?;
    let value = wait(&s.get(&m.file_id.into()).map_err(text)?).await?;
    db.close();
    let blob: Blob = js_sys::Reflect::get(&value, &"blob".into())
        .map_err(text)?
        .dyn_into()
        .map_err(|_| "The stored model is damaged: add its file again in Settings.".to_string())?;
    let size = blob.size() as u64;
    let r = BlobReader::new(blob).map_err(|e| e.to_string())?;
    Ok(Some((BufReader::with_capacity(1 << 20, r), size)))
}
