//! Model files in the Origin Private File System, in the directory
//! `roundtable-models`: `<id>.gguf` and, written last, `<id>.json` (a
//! `StoredModel`). A file without its record is a copy that did not finish
//! and is removed; nothing is stored half-way. Where OPFS sync access
//! handles are missing, models go to IndexedDB instead (`store_idb`); the
//! functions here list, open and delete from both.

use super::reader::{BlobReader, SyncReader};
use crate::digest::hex;
use crate::inspect::{inspect, MEMORY_BUDGET};
use crate::protocol::{ModelInfo, StoredModel};
use sha2::{Digest, Sha256};
use std::io::{BufReader, Read, Seek};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, DedicatedWorkerGlobalScope, FileSystemDirectoryHandle, FileSystemFileHandle,
    FileSystemGetDirectoryOptions, FileSystemGetFileOptions, FileSystemReadWriteOptions,
    FileSystemSyncAccessHandle,
};

const DIR: &str = "roundtable-models";
const COPY_CHUNK: u64 = 4 << 20;

pub(super) fn text(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The store's directory, or why there is none.
pub async fn dir() -> Result<FileSystemDirectoryHandle, String> {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let storage = scope.navigator().storage();
    let root = JsFuture::from(storage.get_directory()).await.map_err(|e| {
        format!("This browser gives the page no private file storage (OPFS), so it cannot keep a model file: {}. Use a current Chrome, Edge, Firefox or Safari, outside private browsing.", text(e))
    })?;
    let root: FileSystemDirectoryHandle = root.unchecked_into();
    let opts = FileSystemGetDirectoryOptions::new();
    opts.set_create(true);
    let d = JsFuture::from(root.get_directory_handle_with_options(DIR, &opts))
        .await
        .map_err(|e| format!("cannot open the model store: {}", text(e)))?;
    Ok(d.unchecked_into())
}

async fn file(
    dir: &FileSystemDirectoryHandle,
    name: &str,
    create: bool,
) -> Result<FileSystemFileHandle, String> {
    let opts = FileSystemGetFileOptions::new();
    opts.set_create(create);
    JsFuture::from(dir.get_file_handle_with_options(name, &opts))
        .await
        .map(|h| h.unchecked_into())
        .map_err(|e| format!("cannot open {name}: {}", text(e)))
}

async fn sync_handle(h: &FileSystemFileHandle) -> Result<FileSystemSyncAccessHandle, String> {
    JsFuture::from(h.create_sync_access_handle())
        .await
        .map(|h| h.unchecked_into())
        .map_err(|e| format!("cannot open the model file for reading: {}", text(e)))
}

async fn names(dir: &FileSystemDirectoryHandle) -> Result<Vec<String>, String> {
    let iter = dir.keys();
    let mut out = Vec::new();
    loop {
        let next = JsFuture::from(iter.next().map_err(text)?)
            .await
            .map_err(text)?;
        let done = js_sys::Reflect::get(&next, &"done".into()).map_err(text)?;
        if done.as_bool().unwrap_or(true) {
            break;
        }
        if let Some(n) = js_sys::Reflect::get(&next, &"value".into())
            .map_err(text)?
            .as_string()
        {
            out.push(n);
        }
    }
    Ok(out)
}

async fn remove(dir: &FileSystemDirectoryHandle, name: &str) {
    let _ = JsFuture::from(dir.remove_entry(name)).await;
}

/// A file's `File` (no lock: another tab may hold a sync handle on it).
async fn snapshot(dir: &FileSystemDirectoryHandle, name: &str) -> Result<web_sys::File, String> {
    let h = file(dir, name, false).await?;
    JsFuture::from(h.get_file())
        .await
        .map(|f| f.unchecked_into())
        .map_err(|e| format!("cannot read {name}: {}", text(e)))
}

async fn read_text(dir: &FileSystemDirectoryHandle, name: &str) -> Result<String, String> {
    let f = snapshot(dir, name).await?;
    JsFuture::from(f.text())
        .await
        .ok()
        .and_then(|t| t.as_string())
        .ok_or_else(|| format!("cannot read {name}"))
}

/// A copy older than this without its record did not finish (an import
/// in progress, in this tab or another, writes every few milliseconds).
const ABANDONED_MS: f64 = 3_600_000.0;

async fn write_bytes(
    dir: &FileSystemDirectoryHandle,
    name: &str,
    bytes: &[u8],
) -> Result<(), String> {
    let h = sync_handle(&file(dir, name, true).await?).await?;
    let opts = FileSystemReadWriteOptions::new();
    opts.set_at(0.0);
    let r = h
        .truncate_with_u32(0)
        .and_then(|_| h.write_with_u8_array_and_options(bytes, &opts))
        .and_then(|_| h.flush());
    h.close();
    r.map_err(|e| format!("cannot write {name}: {}", text(e)))
}

/// A stored model's bytes, from either store.
pub trait ReadSeek: Read + Seek {}
impl<T: Read + Seek> ReadSeek for T {}

/// Whether this browser has OPFS with sync access handles (in a worker).
pub fn opfs_available() -> bool {
    let global = js_sys::global();
    let scope: DedicatedWorkerGlobalScope = global.clone().unchecked_into();
    let has_dir = js_sys::Reflect::get(&scope.navigator().storage(), &"getDirectory".into())
        .map(|f| f.is_function())
        .unwrap_or(false);
    let sync = js_sys::Reflect::get(&global, &"FileSystemFileHandle".into())
        .and_then(|c| js_sys::Reflect::get(&c, &"prototype".into()))
        .and_then(|p| js_sys::Reflect::has(&p, &"createSyncAccessHandle".into()))
        .unwrap_or(false);
    has_dir && sync
}

/// Every stored model, from both stores.
pub async fn list() -> Result<Vec<StoredModel>, String> {
    let mut all = if opfs_available() {
        opfs_list().await?
    } else {
        Vec::new()
    };
    // IndexedDB holds models only where OPFS was missing; a failure to
    // open it is not worth hiding the OPFS models for.
    all.extend(super::store_idb::list().await.unwrap_or_default());
    all.sort_by(|a, b| a.added.total_cmp(&b.added));
    Ok(all)
}

/// Stores a picked file in OPFS, or in IndexedDB where OPFS is missing.
pub async fn import(
    blob: Blob,
    file_name: &str,
    now: f64,
    progress: &dyn Fn(&str, u64, u64),
) -> Result<StoredModel, String> {
    if opfs_available() {
        opfs_import(blob, file_name, now, progress).await
    } else {
        super::store_idb::import(blob, file_name, now, progress).await
    }
}

pub async fn delete(sha256: &str) -> Result<(), String> {
    if super::store_idb::delete(sha256).await.unwrap_or(false) {
        return Ok(());
    }
    opfs_delete(sha256).await
}

/// A reader over a stored model, and its size.
pub async fn open(sha256: &str) -> Result<(Box<dyn ReadSeek>, u64), String> {
    if opfs_available() {
        match opfs_open(sha256).await {
            Ok((r, size)) => return Ok((Box::new(r), size)),
            Err(e) if e != GONE => {
                return Err(format!(
                    "{e}. If Roundtable is open in another tab with this model, close that tab and try again."
                ))
            }
            Err(_) => {}
        }
    }
    match super::store_idb::open_model(sha256).await? {
        Some((r, size)) => Ok((Box::new(r), size)),
        None => Err(GONE.into()),
    }
}

const GONE: &str =
    "This model is no longer stored in this browser: add its file again in Settings.";

/// Checks a picked file's header.
fn check(blob: &Blob, progress: &dyn Fn(&str, u64, u64)) -> Result<ModelInfo, String> {
    let size = blob.size() as u64;
    progress("checking", 0, size);
    let mut reader = BufReader::with_capacity(
        1 << 20,
        BlobReader::new(blob.clone()).map_err(|e| e.to_string())?,
    );
    inspect(&mut reader, size, MEMORY_BUDGET).map(|(_, info)| info)
}

/// Where a file's chunks go as it is read: (offset, bytes).
type ChunkSink<'a> = dyn FnMut(u64, &[u8]) -> Result<(), String> + 'a;

/// Reads a picked file in chunks, hashing it and handing each chunk and
/// its offset to `each`; its SHA-256, hex.
fn hash_through(
    blob: &Blob,
    stage: &str,
    progress: &dyn Fn(&str, u64, u64),
    each: &mut ChunkSink,
) -> Result<String, String> {
    let size = blob.size() as u64;
    let mut r = BlobReader::new(blob.clone()).map_err(|e| e.to_string())?;
    let mut buf = vec![0u8; COPY_CHUNK as usize];
    let mut hash = Sha256::new();
    let mut at = 0u64;
    while at < size {
        let n = r
            .read(&mut buf)
            .map_err(|e| format!("cannot read the picked file: {e}"))?;
        if n == 0 {
            return Err("The picked file ended early: it changed while being read.".into());
        }
        hash.update(&buf[..n]);
        each(at, &buf[..n])?;
        at += n as u64;
        progress(stage, at, size);
    }
    Ok(hex(&hash.finalize()))
}

/// Checks a picked file's header and hashes it (for a store that copies
/// the file in one piece).
pub fn check_and_hash(
    blob: &Blob,
    progress: &dyn Fn(&str, u64, u64),
) -> Result<(ModelInfo, String), String> {
    let info = check(blob, progress)?;
    let sha = hash_through(blob, "hashing", progress, &mut |_, _| Ok(()))?;
    Ok((info, sha))
}

/// The record of a stored model.
pub(super) fn record(
    info: ModelInfo,
    sha256: String,
    file_name: &str,
    now: f64,
    storage: &str,
    file_id: &str,
) -> StoredModel {
    let mut model = StoredModel {
        info,
        file_name: file_name.to_string(),
        added: now,
        storage: storage.into(),
        file_id: file_id.into(),
    };
    model.info.sha256 = sha256;
    model
}

/// Every model in OPFS; leftovers of unfinished copies are removed, and
/// unreadable records are skipped.
async fn opfs_list() -> Result<Vec<StoredModel>, String> {
    let dir = dir().await?;
    let all = names(&dir).await?;
    let mut out = Vec::new();
    for n in &all {
        if let Some(id) = n.strip_suffix(".gguf") {
            if !all.contains(&format!("{id}.json")) {
                let age = snapshot(&dir, n)
                    .await
                    .map(|f| js_sys::Date::now() - f.last_modified())
                    .unwrap_or(0.0);
                if age > ABANDONED_MS {
                    remove(&dir, n).await;
                }
            }
        }
    }
    for n in &all {
        if let Some(id) = n.strip_suffix(".json") {
            // A record that cannot be read now (another tab) is skipped;
            // only one that is not a record is removed, with its file.
            let Ok(text) = read_text(&dir, n).await else {
                continue;
            };
            match serde_json::from_str::<StoredModel>(&text) {
                Ok(m) if m.file_id == id && all.contains(&format!("{id}.gguf")) => out.push(m),
                Ok(_) => {}
                Err(_) => {
                    remove(&dir, n).await;
                    remove(&dir, &format!("{id}.gguf")).await;
                }
            }
        }
    }
    out.sort_by(|a, b| a.added.total_cmp(&b.added));
    Ok(out)
}

/// The readable records, changing nothing (an import in progress has a
/// file without a record yet).
async fn records(dir: &FileSystemDirectoryHandle) -> Result<Vec<StoredModel>, String> {
    let mut out = Vec::new();
    for n in names(dir).await? {
        if n.ends_with(".json") {
            if let Some(m) = read_text(dir, &n)
                .await
                .ok()
                .and_then(|t| serde_json::from_str::<StoredModel>(&t).ok())
            {
                out.push(m);
            }
        }
    }
    Ok(out)
}

async fn find(sha256: &str) -> Result<StoredModel, String> {
    opfs_list()
        .await?
        .into_iter()
        .find(|m| m.info.sha256 == sha256)
        .ok_or_else(|| GONE.to_string())
}

async fn opfs_delete(sha256: &str) -> Result<(), String> {
    let m = find(sha256).await?;
    let dir = dir().await?;
    remove(&dir, &format!("{}.json", m.file_id)).await;
    remove(&dir, &format!("{}.gguf", m.file_id)).await;
    Ok(())
}

async fn opfs_open(sha256: &str) -> Result<(BufReader<SyncReader>, u64), String> {
    let m = find(sha256).await?;
    let dir = dir().await?;
    let h = file(&dir, &format!("{}.gguf", m.file_id), false).await?;
    let r = SyncReader::new(sync_handle(&h).await?).map_err(|e| e.to_string())?;
    let size = r.size;
    Ok((BufReader::with_capacity(1 << 20, r), size))
}

/// Checks a picked file, then copies it into OPFS while hashing it.
/// `progress(stage, done, total)` is called per chunk. The same file added
/// twice is stored once.
async fn opfs_import(
    blob: Blob,
    file_name: &str,
    now: f64,
    progress: &dyn Fn(&str, u64, u64),
) -> Result<StoredModel, String> {
    let info = check(&blob, progress)?;
    let dir = dir().await?;
    let file_id = format!("m{:012x}", (js_sys::Math::random() * 2f64.powi(48)) as u64);
    let gguf = format!("{file_id}.gguf");
    let sha = match copy(&dir, &gguf, &blob, progress).await {
        Ok(sha) => sha,
        Err(e) => {
            remove(&dir, &gguf).await;
            return Err(e);
        }
    };
    if let Some(m) = records(&dir)
        .await?
        .into_iter()
        .find(|m| m.info.sha256 == sha)
    {
        remove(&dir, &gguf).await;
        return Ok(m);
    }
    let model = record(info, sha, file_name, now, "opfs", &file_id);
    // The record is written last: without it the copy does not count.
    let json = serde_json::to_vec(&model).map_err(|e| e.to_string())?;
    if let Err(e) = write_bytes(&dir, &format!("{file_id}.json"), &json).await {
        remove(&dir, &format!("{file_id}.json")).await;
        remove(&dir, &gguf).await;
        return Err(storage_full(e));
    }
    Ok(model)
}

pub(super) fn storage_full(detail: String) -> String {
    format!("The browser refused to store the model ({detail}): its storage for this site is probably full. Free space, or delete a model you no longer use.")
}

async fn copy(
    dir: &FileSystemDirectoryHandle,
    name: &str,
    blob: &Blob,
    progress: &dyn Fn(&str, u64, u64),
) -> Result<String, String> {
    let h = sync_handle(&file(dir, name, true).await?).await?;
    let result = hash_through(blob, "copying", progress, &mut |at, chunk| {
        let opts = FileSystemReadWriteOptions::new();
        opts.set_at(at as f64);
        let w = h
            .write_with_u8_array_and_options(chunk, &opts)
            .map_err(|e| storage_full(text(e)))? as usize;
        if w != chunk.len() {
            return Err(storage_full("short write".into()));
        }
        Ok(())
    })
    .and_then(|sha| h.flush().map(|_| sha).map_err(text));
    h.close();
    result
}
