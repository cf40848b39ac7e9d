//! MAEL's experience pools in IndexedDB, named, surviving reloads. A
//! pool is a summary record (`mael_pools`: name → its embedder, size and
//! chunk count, JSON) and chunks of 512 experiences (`mael_pool_chunks`:
//! [name, n] → `{entries: JSON text, vectors: Float32Array}`): vectors are
//! stored packed, not as JSON numbers. Saving writes only the chunks from
//! the first one that changed, so saving after every task of a learning
//! phase stays cheap. Everything read back is checked (`Pool::push`); a
//! damaged pool is an error that names it, and nothing is changed.
//!
//! A pool is one team's experiences, named by the user (`default` unless
//! changed). In IndexedDB: a summary record in `mael_pools` (`{v, name,
//! embedder: {id, dims}, count, chunks, updated_ms, tasks}`) and chunks of 512
//! experiences in `mael_pool_chunks`, keyed `[name, n]`, each `{entries: JSON
//! text, vectors: Float32Array}` (packed f32, entry-major). A learning phase
//! saves after every task and writes only the chunks from the first one that
//! changed, so a reload or a crash loses at most the task in flight; a save
//! is one transaction that also drops chunks past the pool's end, so
//! re-embedding (or any pool saved over another) replaces the old pool only
//! when the new one commits. Loading checks the chunk count and the entry
//! count against the summary, and every entry (`Pool::push`: dims, finite
//! numbers); a damaged pool is an error naming it, never a silent partial
//! pool. Two tabs never learn into one pool: a learning phase or a learning
//! run holds the pool's Web Lock (`platform::locks`, `roundtable.pool.<name>`)
//! until it has saved, and a second tab asking for it is refused with a
//! message (not queued). The CLI writes pool files whole (a temporary file,
//! then a rename).

use super::idb::{self, chunk_key, chunk_range, db, StoreDecl, StoreError};
use super::stored::Keep;
use crate::engine::coordinators::mael::experience::{Experience, Learned, Pool};
use crate::engine::coordinators::mael::memory::Memory;
use crate::engine::model::embed::EmbedderId;
use futures::future::LocalBoxFuture;
use js_sys::{Float32Array, Object, Reflect};
use rexie::TransactionMode;
use serde::{Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};

const POOLS: &str = "mael_pools";
const CHUNKS: &str = "mael_pool_chunks";
/// MAEL's stores (see `idb`): added in version 3.
pub const STORES: &[StoreDecl] = &[StoreDecl::new(POOLS, 3), StoreDecl::new(CHUNKS, 3)];
const RECORD_VERSION: u32 = 1;
/// Experiences per stored chunk.
pub const CHUNK: usize = 512;

/// A pool as the pool list shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoolMeta {
    pub v: u32,
    pub name: String,
    pub embedder: EmbedderId,
    pub count: usize,
    pub chunks: u32,
    pub updated_ms: f64,
    /// The tasks it learned from (none in records of before it).
    #[serde(default)]
    pub tasks: Vec<Learned>,
}

fn err(e: rexie::Error) -> StoreError {
    StoreError::from_rexie(e)
}

/// Every pool's summary, newest first.
pub async fn list() -> Result<Vec<PoolMeta>, StoreError> {
    let (_tx, store) = idb::open_store(POOLS, TransactionMode::ReadOnly).await?;
    let rows = store.get_all(None, None).await.map_err(err)?;
    let mut out: Vec<PoolMeta> = rows
        .into_iter()
        .filter_map(|v| v.as_string())
        .filter_map(|t| serde_json::from_str(&t).ok())
        .collect();
    out.sort_by(|a, b| b.updated_ms.total_cmp(&a.updated_ms));
    Ok(out)
}

async fn meta(name: &str) -> Result<Option<PoolMeta>, String> {
    match idb::read_text(POOLS, name).await? {
        None => Ok(None),
        Some(t) => serde_json::from_str::<PoolMeta>(&t).map(Some).map_err(|e| {
            format!(
                "The stored pool \"{name}\" is damaged ({e}): export what you can, then clear it."
            )
        }),
    }
}

/// The pool `name`; an empty pool of `embedder` when there is none yet.
pub async fn load(name: &str, embedder: &EmbedderId) -> Result<Pool, String> {
    let Some(m) = meta(name).await? else {
        return Ok(Pool::new(embedder.clone()));
    };
    if m.v > RECORD_VERSION {
        return Err(format!(
            "The pool \"{name}\" was stored by a newer version of Roundtable: update it first."
        ));
    }
    let (_tx, store) = idb::read_store(CHUNKS).await?;
    let chunks = store
        .get_all(Some(chunk_range(name, 0).map_err(|e| e.detail)?), None)
        .await
        .map_err(|e| e.to_string())?;
    let damaged = |why: &str| {
        format!(
            "The stored pool \"{name}\" is damaged ({why}): export what you can, then clear it."
        )
    };
    // A chunk lost (or one too many) is a damaged pool, not a smaller one.
    if chunks.len() != m.chunks as usize {
        return Err(damaged(&format!(
            "{} of its {} chunks are there",
            chunks.len(),
            m.chunks
        )));
    }
    let mut pool = Pool::new(m.embedder.clone());
    pool.learned = m.tasks.clone();
    let dims = m.embedder.dims;
    for c in chunks {
        let entries = Reflect::get(&c, &"entries".into())
            .ok()
            .and_then(|v| v.as_string())
            .ok_or_else(|| damaged("a chunk has no entries"))?;
        let vectors = Reflect::get(&c, &"vectors".into())
            .ok()
            .filter(|v| v.is_instance_of::<Float32Array>())
            .map(|v| Float32Array::from(v).to_vec())
            .ok_or_else(|| damaged("a chunk has no vectors"))?;
        let entries: Vec<Experience> =
            serde_json::from_str(&entries).map_err(|e| damaged(&e.to_string()))?;
        if vectors.len() != entries.len() * dims {
            return Err(damaged("vectors and entries do not match"));
        }
        for (e, v) in entries.into_iter().zip(vectors.chunks(dims.max(1))) {
            pool.push(e, v.to_vec())
                .map_err(|e| damaged(&e.user_message()))?;
        }
    }
    if pool.len() != m.count {
        return Err(damaged(&format!(
            "it holds {} experiences, its summary says {}",
            pool.len(),
            m.count
        )));
    }
    Ok(pool)
}

/// The stored pool `name` with its own embedder; an error when there is none.
pub async fn load_stored(name: &str) -> Result<Pool, String> {
    let m = meta(name)
        .await?
        .ok_or_else(|| format!("There is no pool \"{name}\" in this browser."))?;
    load(name, &m.embedder).await
}

/// What a save of a pool writes: its chunks from the first one that may
/// have changed, and its summary; built while the pool is borrowed, then
/// written without it ([`commit`]).
pub struct PoolWrite {
    name: String,
    /// (key, `{entries, vectors}`), the chunks to put.
    chunks: Vec<(JsValue, Object)>,
    n_chunks: u32,
    meta: PoolMeta,
}

/// The write of `pool` as `name` when `saved` of its entries were stored
/// before.
pub fn pool_write(name: &str, pool: &Pool, saved: usize) -> PoolWrite {
    let dims = pool.dims();
    let n_chunks = pool.len().div_ceil(CHUNK) as u32;
    let first = (saved / CHUNK) as u32;
    let chunks = (first..n_chunks)
        .map(|n| {
            let a = n as usize * CHUNK;
            let b = (a + CHUNK).min(pool.len());
            let obj = Object::new();
            let entries = serde_json::to_string(&pool.entries[a..b]).unwrap_or_default();
            let _ = Reflect::set(&obj, &"entries".into(), &JsValue::from_str(&entries));
            let vectors = Float32Array::from(&pool.packed()[a * dims..b * dims]);
            let _ = Reflect::set(&obj, &"vectors".into(), &vectors);
            (chunk_key(name, n), obj)
        })
        .collect();
    PoolWrite {
        name: name.into(),
        chunks,
        n_chunks,
        meta: PoolMeta {
            v: RECORD_VERSION,
            name: name.into(),
            embedder: pool.embedder.clone(),
            count: pool.len(),
            chunks: n_chunks,
            updated_ms: js_sys::Date::now(),
            tasks: pool.learned.clone(),
        },
    }
}

/// Writes `pool` as `name`: the chunks from the first one that may have
/// changed since the stored copy (`saved` entries were stored before), and
/// drops chunks past its end (a smaller pool saved over a larger one).
/// One transaction: the stored pool is the old one until it commits
/// (re-embedding replaces a pool this way, never deleting it first).
pub async fn save(name: &str, pool: &Pool, saved: usize) -> Result<(), StoreError> {
    commit(pool_write(name, pool, saved)).await
}

/// Writes what [`pool_write`] built, in one transaction.
pub async fn commit(w: PoolWrite) -> Result<(), StoreError> {
    let d = db().await?;
    let tx = d
        .transaction(&[POOLS, CHUNKS], TransactionMode::ReadWrite)
        .map_err(err)?;
    let chunks = tx.store(CHUNKS).map_err(err)?;
    for (key, obj) in &w.chunks {
        chunks.put(obj, Some(key)).await.map_err(err)?;
    }
    let past_end = chunk_range(&w.name, w.n_chunks)?;
    for k in chunks
        .get_all_keys(Some(past_end), None)
        .await
        .map_err(err)?
    {
        chunks.delete(k).await.map_err(err)?;
    }
    tx.store(POOLS)
        .map_err(err)?
        .put(
            &JsValue::from_str(&serde_json::to_string(&w.meta).unwrap_or_default()),
            Some(&JsValue::from_str(&w.name)),
        )
        .await
        .map_err(err)?;
    tx.done().await.map_err(err)?;
    Ok(())
}

/// Pools as stored run resources (`stored::Stored<Pools>`): runs read and
/// learn into the memory; a save writes the chunks from the first one that
/// changed since the last.
pub struct Pools;

impl Keep for Pools {
    type Live = Memory;
    type Mark = usize;

    fn mark(memory: &Memory) -> usize {
        memory.pool.borrow().len()
    }

    fn write(
        name: &str,
        memory: &Memory,
        saved: usize,
    ) -> LocalBoxFuture<'static, Result<(), StoreError>> {
        let write = pool_write(name, &memory.pool.borrow(), saved);
        Box::pin(commit(write))
    }
}

/// Removes the pool `name` and its chunks.
pub async fn delete(name: &str) -> Result<(), StoreError> {
    let d = db().await?;
    let tx = d
        .transaction(&[POOLS, CHUNKS], TransactionMode::ReadWrite)
        .map_err(err)?;
    tx.store(POOLS)
        .map_err(err)?
        .delete(JsValue::from_str(name))
        .await
        .map_err(err)?;
    let chunks = tx.store(CHUNKS).map_err(err)?;
    let keys = chunks
        .get_all_keys(Some(chunk_range(name, 0)?), None)
        .await
        .map_err(err)?;
    for k in keys {
        chunks.delete(k).await.map_err(err)?;
    }
    tx.done().await.map_err(err)?;
    Ok(())
}
