//! Imported TravelPlanner data in IndexedDB: databases (the official CSV
//! files, kept as text and parsed on use) and query sets (JSONL). Loaded
//! databases are cached for the tab's lifetime.

use super::idb::{self, StoreDecl, StoreError};
use crate::engine::domains::travel::TravelDb;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

const TRAVEL_DBS: &str = "travel_dbs";
const TRAVEL_QUERIES: &str = "travel_queries";
/// The travel planner's stores (see `idb`): added in version 2.
pub const STORES: &[StoreDecl] = &[
    StoreDecl::new(TRAVEL_DBS, 2),
    StoreDecl::new(TRAVEL_QUERIES, 2),
];

const RECORD_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct DbRecord {
    v: u32,
    name: String,
    /// (path relative to the database folder, file text)
    files: Vec<(String, String)>,
}

#[derive(Serialize, Deserialize)]
struct QueriesRecord {
    v: u32,
    name: String,
    jsonl: String,
}

thread_local! {
    static CACHE: RefCell<HashMap<String, Rc<TravelDb>>> = RefCell::new(HashMap::new());
}

/// Keeps a parsed database's files under `name` and caches it.
pub async fn save_db(
    name: &str,
    files: Vec<(String, String)>,
    parsed: Rc<TravelDb>,
) -> Result<(), StoreError> {
    let record = DbRecord {
        v: RECORD_VERSION,
        name: name.into(),
        files,
    };
    idb::put_json(TRAVEL_DBS, name, &record).await?;
    CACHE.with(|c| c.borrow_mut().insert(name.to_string(), parsed));
    Ok(())
}

pub async fn db_names() -> Vec<String> {
    idb::keys(TRAVEL_DBS).await.unwrap_or_default()
}

/// The imported database `name`, parsed (once per tab).
pub async fn load_db(name: &str) -> Result<Rc<TravelDb>, String> {
    if let Some(db) = CACHE.with(|c| c.borrow().get(name).cloned()) {
        return Ok(db);
    }
    let record: DbRecord = idb::get_json(TRAVEL_DBS, name, "database").await?;
    if record.v > RECORD_VERSION {
        return Err(format!("The database \"{name}\" was stored by a newer version of Roundtable: update, or import it again."));
    }
    let parsed = Rc::new(TravelDb::from_files(&record.files).map_err(|e| e.to_string())?);
    CACHE.with(|c| c.borrow_mut().insert(name.to_string(), parsed.clone()));
    Ok(parsed)
}

pub async fn delete_db(name: &str) -> Result<(), StoreError> {
    CACHE.with(|c| c.borrow_mut().remove(name));
    idb::delete(TRAVEL_DBS, name).await
}

pub async fn save_queries(name: &str, jsonl: &str) -> Result<(), StoreError> {
    let record = QueriesRecord {
        v: RECORD_VERSION,
        name: name.into(),
        jsonl: jsonl.into(),
    };
    idb::put_json(TRAVEL_QUERIES, name, &record).await
}

pub async fn query_set_names() -> Vec<String> {
    idb::keys(TRAVEL_QUERIES).await.unwrap_or_default()
}

pub async fn load_queries(name: &str) -> Result<String, String> {
    let record: QueriesRecord = idb::get_json(TRAVEL_QUERIES, name, "query set").await?;
    Ok(record.jsonl)
}
