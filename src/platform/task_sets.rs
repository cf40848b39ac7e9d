//! Task sets the user imported (JSONL of a known dataset's shape, or SRDD's CSV), kept in
//! IndexedDB by name so they survive reloads. Checked before they are
//! stored: a file that does not parse is refused and nothing is kept.

use super::idb::{self, StoreDecl, StoreError};
use crate::engine::domains::tasks::{parse_file, Dataset, Task};
use serde::{Deserialize, Serialize};

const TASK_SETS: &str = "task_sets";
/// The stores (see `idb`): added in version 3.
pub const STORES: &[StoreDecl] = &[StoreDecl::new(TASK_SETS, 3)];
const RECORD_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Record {
    v: u32,
    name: String,
    dataset: Dataset,
    jsonl: String,
}

/// Checks `jsonl` as a set of `dataset` and keeps it as `name`.
pub async fn save(name: &str, dataset: Dataset, jsonl: &str) -> Result<usize, String> {
    let tasks = parse_file(dataset, jsonl, name)?;
    let record = Record {
        v: RECORD_VERSION,
        name: name.into(),
        dataset,
        jsonl: jsonl.into(),
    };
    idb::put_json(TASK_SETS, name, &record)
        .await
        .map_err(|e: StoreError| e.user_message())?;
    Ok(tasks.len())
}

/// The imported sets: (name, dataset).
pub async fn list() -> Vec<(String, Dataset)> {
    let mut out = Vec::new();
    for name in idb::keys(TASK_SETS).await.unwrap_or_default() {
        if let Ok(Some(text)) = idb::get_text(TASK_SETS, &name).await {
            if let Ok(r) = serde_json::from_str::<Record>(&text) {
                out.push((r.name, r.dataset));
            }
        }
    }
    out
}

/// The tasks of the imported set `name`.
pub async fn load(name: &str) -> Result<Vec<Task>, String> {
    let r: Record = idb::get_json(TASK_SETS, name, "task set").await?;
    if r.v > RECORD_VERSION {
        return Err(format!(
            "The task set \"{name}\" was stored by a newer version of Roundtable."
        ));
    }
    parse_file(r.dataset, &r.jsonl, name)
}

pub async fn delete(name: &str) -> Result<(), StoreError> {
    idb::delete(TASK_SETS, name).await
}
