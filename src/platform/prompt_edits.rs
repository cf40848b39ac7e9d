//! The prompt templates the user edited, per coordinator: kept in
//! localStorage as JSON so an edit survives a reload, removed only by the
//! user (a template's Reset, or Reset all, in the Prompts dialog). A record
//! that cannot be read (damaged, or from a later version) is left as it is
//! and read as no edits, until the user edits again.

use super::storage;
use std::collections::BTreeMap;

/// The localStorage key.
pub const KEY: &str = "roundtable.prompts.v1";

/// Coordinator id → template name → edited text.
pub type Edits = BTreeMap<String, BTreeMap<String, String>>;

/// The stored edits; none when there are none or the record cannot be read.
pub fn load() -> Edits {
    storage::get(KEY)
        .and_then(|text| serde_json::from_str::<Edits>(&text).ok())
        .unwrap_or_default()
}

/// Stores `edits` (none left: the record is removed, as the user's last
/// Reset asked).
pub fn save(edits: &Edits) -> Result<(), String> {
    let kept: Edits = edits
        .iter()
        .filter(|(_, e)| !e.is_empty())
        .map(|(c, e)| (c.clone(), e.clone()))
        .collect();
    if kept.is_empty() {
        storage::remove(KEY);
        return Ok(());
    }
    let text = serde_json::to_string(&kept).map_err(|e| e.to_string())?;
    storage::set(KEY, &text)
}
