//! Model files in the Origin Private File System, in the directory
//! `roundtable-models`: `<id>.gguf` and, written last, `<id>.json` (a
//! `StoredModel`). A copy holds a Web Lock on its id until its record is
//! written (`locks`). Nothing here removes a file but the user's Delete and
//! a copy's own failure: a file without a readable record is listed as a
//! [`Leftover`], which the user can delete or restore. Where OPFS sync
//! access handles are missing, models go to IndexedDB instead
//! (`store_idb`); the functions here list, open and delete from both.

use super::intake::{check, hash_through, record, storage_full, text};
use super::reader::SyncReader;
use crate::protocol::{Leftover, StoredModel};
use std::io::{BufReader, Read, Seek};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, DedicatedWorkerGlobalScope, FileSystemDirectoryHandle, FileSystemFileHandle,
    FileSystemGetDirectoryOptions, FileSystemGetFileOptions, FileSystemReadWriteOptions,
    FileSystemSyncAccessHandle,
};

const DIR: &str = "roundtable-models";

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

/// Where the browser has no Web Locks: a file without its record younger
/// than this may be a copy in progress (it is not listed as a leftover).
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

/// What the store holds: the usable models, and files that are not.
#[derive(Default)]
pub struct Listing {
    pub models: Vec<StoredModel>,
    pub leftovers: Vec<Leftover>,
}

/// Every stored model, from both stores, and the OPFS store's leftovers.
/// Listing changes nothing.
pub async fn list() -> Result<Listing, String> {
    let mut all = if opfs_available() {
        opfs_list().await?
    } else {
        Listing::default()
    };
    // IndexedDB holds models only where OPFS was missing; a failure to
    // open it is not worth hiding the OPFS models for.
    all.models
        .extend(super::store_idb::list().await.unwrap_or_default());
    all.models.sort_by(|a, b| a.added.total_cmp(&b.added));
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

/// The user's Delete of a stored model.
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

pub const GONE: &str =
    "This model is no longer stored in this browser: add its file again in Settings.";

/// Where a record's model file is, by the record's name.
fn gguf_of(json: &str) -> Option<String> {
    json.strip_suffix(".json").map(|id| format!("{id}.gguf"))
}

/// A copy in progress in some tab or worker (its lock is held), judged
/// by its age where the browser has no Web Locks.
async fn copying(dir: &FileSystemDirectoryHandle, id: &str, held: &Option<Vec<String>>) -> bool {
    match held {
        Some(names) => names.contains(&super::locks::copy_lock(id)),
        None => {
            let age = snapshot(dir, &format!("{id}.gguf"))
                .await
                .map(|f| js_sys::Date::now() - f.last_modified())
                .unwrap_or(0.0);
            age < ABANDONED_MS
        }
    }
}

/// Every model in OPFS, and the files that are not usable models. Nothing
/// is removed here, whatever is found: a record that cannot be read now,
/// or a file whose record is not written yet, may be another tab's copy in
/// progress, and a model file is the user's until their Delete.
async fn opfs_list() -> Result<Listing, String> {
    let dir = dir().await?;
    let all = names(&dir).await?;
    let held = super::locks::held().await;
    let mut out = Listing::default();
    let size = |f: Result<web_sys::File, String>| f.map(|f| f.size() as u64).unwrap_or(0);
    for n in &all {
        let Some(id) = n.strip_suffix(".gguf") else {
            continue;
        };
        if all.contains(&format!("{id}.json")) || copying(&dir, id, &held).await {
            continue;
        }
        out.leftovers.push(Leftover {
            file_id: id.into(),
            kind: "unfinished".into(),
            bytes: size(snapshot(&dir, n).await),
            file_name: String::new(),
            detail: "A model file without its record: a copy that was cut off, or a record that was lost.".into(),
        });
    }
    for n in &all {
        let (Some(id), Some(gguf)) = (n.strip_suffix(".json"), gguf_of(n)) else {
            continue;
        };
        let has_file = all.contains(&gguf);
        let record = match read_text(&dir, n).await {
            Ok(text) => serde_json::from_str::<StoredModel>(&text).map_err(|e| e.to_string()),
            Err(e) => Err(e),
        };
        match record {
            Ok(m) if m.file_id == id && has_file => out.models.push(m),
            Ok(m) if m.file_id == id => out.leftovers.push(Leftover {
                file_id: id.into(),
                kind: "no_file".into(),
                bytes: 0,
                file_name: m.file_name,
                detail: "The record of a model whose file is gone.".into(),
            }),
            // Being written, or read while being written: not judged now.
            _ if copying(&dir, id, &held).await => {}
            Ok(_) | Err(_) => out.leftovers.push(Leftover {
                file_id: id.into(),
                kind: if has_file { "damaged" } else { "no_file" }.into(),
                bytes: if has_file {
                    size(snapshot(&dir, &gguf).await)
                } else {
                    0
                },
                file_name: String::new(),
                detail: match &record {
                    Err(e) => format!("Its record cannot be read ({e})."),
                    Ok(_) => "Its record names another file.".into(),
                },
            }),
        }
    }
    out.models.sort_by(|a, b| a.added.total_cmp(&b.added));
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
        .models
        .into_iter()
        .find(|m| m.info.sha256 == sha256)
        .ok_or_else(|| GONE.to_string())
}

/// Removes a file; an entry that is not there is removed already.
async fn remove_or_say(dir: &FileSystemDirectoryHandle, name: &str) -> Result<(), String> {
    match JsFuture::from(dir.remove_entry(name)).await {
        Ok(_) => Ok(()),
        Err(e) if js_name(&e) == "NotFoundError" => Ok(()),
        Err(e) => Err(format!(
            "The browser would not remove {name} ({}): if Roundtable is open in another tab with this model, close that tab and try again.",
            text(e)
        )),
    }
}

fn js_name(e: &JsValue) -> String {
    js_sys::Reflect::get(e, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default()
}

/// The model file goes first: if another tab holds it open, nothing is
/// removed and the user is told why.
async fn remove_pair(dir: &FileSystemDirectoryHandle, file_id: &str) -> Result<(), String> {
    remove_or_say(dir, &format!("{file_id}.gguf")).await?;
    remove_or_say(dir, &format!("{file_id}.json")).await
}

async fn opfs_delete(sha256: &str) -> Result<(), String> {
    let m = find(sha256).await?;
    let dir = dir().await?;
    remove_pair(&dir, &m.file_id).await
}

/// The user's Delete of a leftover. A usable model is not a leftover.
pub async fn delete_leftover(file_id: &str) -> Result<(), String> {
    let listing = opfs_list().await?;
    if !listing.leftovers.iter().any(|l| l.file_id == file_id) {
        return Err(format!("{file_id} is not a leftover of the model store (a stored model is deleted by its own Delete)."));
    }
    remove_pair(&dir().await?, file_id).await
}

/// Checks a leftover's model file again and, when it is a whole GGUF,
/// writes its record, under the file name its record gave, else the one
/// `known_names` gives its hash, else the model's name.
pub async fn restore_leftover(
    file_id: &str,
    known_names: &std::collections::BTreeMap<String, String>,
    now: f64,
    progress: &dyn Fn(&str, u64, u64),
) -> Result<StoredModel, String> {
    let listing = opfs_list().await?;
    let Some(left) = listing.leftovers.iter().find(|l| l.file_id == file_id) else {
        return Err(format!("{file_id} is not a leftover of the model store."));
    };
    if left.kind == "no_file" {
        return Err("Its model file is gone: delete the record and add the file again.".into());
    }
    let dir = dir().await?;
    let _lock = super::locks::hold(&super::locks::copy_lock(file_id)).await?;
    let blob: Blob = snapshot(&dir, &format!("{file_id}.gguf")).await?.into();
    let info = check(&blob, progress)
        .map_err(|e| format!("{e} Delete this file, then add the model again."))?;
    let sha = hash_through(&blob, "hashing", progress, &mut |_, _| Ok(()))?;
    if let Some(m) = listing.models.into_iter().find(|m| m.info.sha256 == sha) {
        return Err(format!(
            "This file is a second copy of {} ({}), which is stored already: delete this copy.",
            m.info.name, m.file_name
        ));
    }
    let name = match (left.file_name.as_str(), known_names.get(&sha)) {
        ("", Some(known)) => known.clone(),
        ("", None) => format!("{}.gguf", info.name),
        (named, _) => named.to_string(),
    };
    let model = record(info, sha, &name, now, "opfs", file_id);
    let json = serde_json::to_vec(&model).map_err(|e| e.to_string())?;
    write_bytes(&dir, &format!("{file_id}.json"), &json)
        .await
        .map_err(storage_full)?;
    Ok(model)
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
    // Held until the record is written: listers in other tabs leave the
    // file alone meanwhile, and see it as cut off once this worker is gone.
    let _lock = super::locks::hold(&super::locks::copy_lock(&file_id)).await?;
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
