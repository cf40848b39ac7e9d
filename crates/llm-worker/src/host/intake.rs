//! Taking a picked file in: its header checked, its bytes read in chunks
//! and hashed (each chunk handed to the store that copies it), and the
//! record a store writes beside it. Both stores (`store`, OPFS, and
//! `store_idb`, IndexedDB) use these.

use super::reader::BlobReader;
use crate::gguf::digest::hex;
use crate::gguf::inspect::{inspect, MEMORY_BUDGET};
use crate::protocol::{ModelInfo, StoredModel};
use sha2::{Digest, Sha256};
use std::io::{BufReader, Read};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Blob;

/// Bytes read (and copied) at a time.
const COPY_CHUNK: u64 = 4 << 20;

/// A browser error's message.
pub fn text(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Checks a picked file's header.
pub fn check(blob: &Blob, progress: &dyn Fn(&str, u64, u64)) -> Result<ModelInfo, String> {
    let size = blob.size() as u64;
    progress("checking", 0, size);
    let mut reader = BufReader::with_capacity(
        1 << 20,
        BlobReader::new(blob.clone()).map_err(|e| e.to_string())?,
    );
    inspect(&mut reader, size, MEMORY_BUDGET).map(|(_, info)| info)
}

/// Where a file's chunks go as it is read: (offset, bytes).
pub type ChunkSink<'a> = dyn FnMut(u64, &[u8]) -> Result<(), String> + 'a;

/// Reads a picked file in chunks, hashing it and handing each chunk and
/// its offset to `each`; its SHA-256, hex.
pub fn hash_through(
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
pub fn record(
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

pub fn storage_full(detail: String) -> String {
    format!("The browser refused to store the model ({detail}): its storage for this site is probably full. Free space, or delete a model you no longer use.")
}
