//! Which models this browser's model store held, as the page last saw it:
//! a model goes in when it is added (or first listed), and leaves only by
//! the user's Delete. A model in the ledger that the store no longer lists
//! was removed by the browser itself (site data cleared, or evicted when
//! the disk ran low), and Settings says so instead of forgetting it in
//! silence. Kept in localStorage; an unreadable ledger reads as empty.

use super::storage;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const KEY: &str = "roundtable.stored_models";

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Entry {
    /// The header's short name ("SmolLM2-135M-Instruct · Q4_1 · 98 MB").
    pub label: String,
    pub file_name: String,
    /// When it was added (Unix ms).
    pub added: f64,
}

fn load() -> BTreeMap<String, Entry> {
    storage::get(KEY)
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn save(all: &BTreeMap<String, Entry>) {
    if let Ok(t) = serde_json::to_string(all) {
        // A refusal loses only the explanation of a later loss.
        let _ = storage::set(KEY, &t);
    }
}

/// Notes that the store holds model `sha256`.
pub fn note_stored(sha256: &str, entry: Entry) {
    let mut all = load();
    if all.get(sha256) != Some(&entry) {
        all.insert(sha256.to_string(), entry);
        save(&all);
    }
}

/// The user deleted model `sha256`.
pub fn forget(sha256: &str) {
    let mut all = load();
    if all.remove(sha256).is_some() {
        save(&all);
    }
}

/// The models the ledger holds that `listed` (the store's hashes) lacks.
pub fn missing(listed: &[String]) -> Vec<(String, Entry)> {
    load()
        .into_iter()
        .filter(|(sha, _)| !listed.contains(sha))
        .collect()
}

/// The file names of the models the ledger holds, by hash.
pub fn file_names() -> std::collections::BTreeMap<String, String> {
    load()
        .into_iter()
        .map(|(sha, e)| (sha, e.file_name))
        .collect()
}
