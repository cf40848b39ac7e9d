//! Run history in IndexedDB (the app's database, `idb`). Two stores, both
//! with JSON-text values and out-of-line keys:
//! - `runs`: run id → `RunRecord` (summary + config, no secrets);
//! - `chunks`: [run id, chunk number] → `ChunkRecord` (a batch of events).
//!
//! Records carry a version and are read through `engine::views::record`, which
//! migrates older ones and reports newer or damaged ones.

pub use super::idb::StoreError;
use super::idb::{self, chunk_key, chunk_range, db, StoreDecl};
use crate::engine::run::{LoggedEvent, RunConfig, RunDoc};
use crate::engine::views::record::{
    read_chunk_record, read_run_record, write_chunk_record, write_run_record, RecordError, RunMeta,
    RunRecord,
};
use rexie::TransactionMode;
use wasm_bindgen::JsValue;

const RUNS: &str = "runs";
const CHUNKS: &str = "chunks";
/// History's stores (see `idb`): since the first version.
pub const STORES: &[StoreDecl] = &[StoreDecl::new(RUNS, 1), StoreDecl::new(CHUNKS, 1)];
/// Events per stored chunk when a whole run is saved at once.
const CHUNK: usize = 400;

/// Refreshes a live run's summary, keeping what the user set meanwhile
/// (title, star) from the stored one.
pub async fn refresh_run(meta: RunMeta, config: &RunConfig) -> Result<(), StoreError> {
    let meta = match get_record(&meta.run_id).await {
        Ok(Some(old)) => meta.keep_user_fields(&old.meta),
        _ => meta,
    };
    put_run(&meta, config).await
}

/// Writes (or replaces) a run's summary.
pub async fn put_run(meta: &RunMeta, config: &RunConfig) -> Result<(), StoreError> {
    idb::put_text(RUNS, &meta.run_id, &write_run_record(meta, config)).await
}

/// Appends chunk `n` of a run's events.
pub async fn put_chunk(run_id: &str, n: u32, events: &[LoggedEvent]) -> Result<(), StoreError> {
    idb::put_at(CHUNKS, &chunk_key(run_id, n), &write_chunk_record(events)).await
}

/// Saves a whole run (imports, shared links, forks' parents).
pub async fn save_doc(doc: &RunDoc, meta: &RunMeta) -> Result<(), StoreError> {
    delete_run(&meta.run_id).await?;
    for (i, chunk) in doc.events.chunks(CHUNK).enumerate() {
        put_chunk(&meta.run_id, i as u32, chunk).await?;
    }
    put_run(meta, &doc.config).await
}

/// One row of the History list: a readable record, or one that is not.
pub enum Listed {
    Ok(Box<RunRecord>),
    Unreadable { run_id: String, error: RecordError },
}

pub async fn list_runs() -> Result<Vec<Listed>, StoreError> {
    let (_tx, store) = idb::open_store(RUNS, TransactionMode::ReadOnly).await?;
    let rows = store
        .scan(None, None, None, None)
        .await
        .map_err(StoreError::from_rexie)?;
    Ok(rows
        .into_iter()
        .map(|(k, v)| {
            let run_id = k.as_string().unwrap_or_default();
            match v.as_string() {
                Some(text) => match read_run_record(&text) {
                    Ok(r) => Listed::Ok(Box::new(r)),
                    Err(error) => Listed::Unreadable { run_id, error },
                },
                None => Listed::Unreadable {
                    run_id,
                    error: RecordError::Damaged("not a text record".into()),
                },
            }
        })
        .collect())
}

async fn get_record(run_id: &str) -> Result<Option<RunRecord>, String> {
    match idb::read_text(RUNS, run_id).await? {
        None => Ok(None),
        Some(text) => read_run_record(&text)
            .map(Some)
            .map_err(|e| e.user_message()),
    }
}

/// Loads a run with all its stored events.
pub async fn load_run(run_id: &str) -> Result<(RunRecord, RunDoc), String> {
    let record = get_record(run_id)
        .await?
        .ok_or("This run is no longer in History.")?;
    let (_tx, store) = idb::read_store(CHUNKS).await?;
    let range = chunk_range(run_id, 0).map_err(|e| e.detail)?;
    let chunks = store
        .get_all(Some(range), None)
        .await
        .map_err(|e| e.to_string())?;
    let mut events: Vec<LoggedEvent> = Vec::new();
    for (i, c) in chunks.into_iter().enumerate() {
        let text = c
            .as_string()
            .ok_or_else(|| format!("Part {i} of this saved run is damaged."))?;
        let chunk = read_chunk_record(&text).map_err(|e| e.user_message())?;
        for e in chunk.events {
            // Skip anything already seen (a retried write can repeat events).
            if events.last().is_none_or(|last| e.seq > last.seq) {
                events.push(e);
            }
        }
    }
    let doc = RunDoc::new(record.config.clone(), events);
    Ok((record, doc))
}

/// Changes a run's summary (rename, star) in place.
pub async fn update_meta(run_id: &str, f: impl FnOnce(&mut RunMeta)) -> Result<(), String> {
    let mut record = get_record(run_id)
        .await?
        .ok_or("This run is no longer in History.")?;
    f(&mut record.meta);
    put_run(&record.meta, &record.config)
        .await
        .map_err(|e| e.user_message())
}

pub async fn delete_run(run_id: &str) -> Result<(), StoreError> {
    let db = db().await?;
    let tx = db
        .transaction(&[RUNS, CHUNKS], TransactionMode::ReadWrite)
        .map_err(StoreError::from_rexie)?;
    let runs = tx.store(RUNS).map_err(StoreError::from_rexie)?;
    runs.delete(JsValue::from_str(run_id))
        .await
        .map_err(StoreError::from_rexie)?;
    let chunks = tx.store(CHUNKS).map_err(StoreError::from_rexie)?;
    let keys = chunks
        .get_all_keys(Some(chunk_range(run_id, 0)?), None)
        .await
        .map_err(StoreError::from_rexie)?;
    for k in keys {
        chunks.delete(k).await.map_err(StoreError::from_rexie)?;
    }
    tx.done().await.map_err(StoreError::from_rexie)?;
    Ok(())
}

pub async fn delete_all() -> Result<(), StoreError> {
    let db = db().await?;
    let tx = db
        .transaction(&[RUNS, CHUNKS], TransactionMode::ReadWrite)
        .map_err(StoreError::from_rexie)?;
    tx.store(RUNS)
        .map_err(StoreError::from_rexie)?
        .clear()
        .await
        .map_err(StoreError::from_rexie)?;
    tx.store(CHUNKS)
        .map_err(StoreError::from_rexie)?
        .clear()
        .await
        .map_err(StoreError::from_rexie)?;
    tx.done().await.map_err(StoreError::from_rexie)?;
    Ok(())
}
