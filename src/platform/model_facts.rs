//! What this browser knows of its stored GGUF models without waking the
//! model worker: each one's context and size (noted whenever the worker
//! lists or adds them) and the prompt reading speed last measured on it.
//! Kept in localStorage so the Run page can say, before a run, whether a
//! model suits a coordinator (`engine::model::fit`). Unreadable entries
//! (older versions, hand edits) read as unknown.

use super::storage;
use crate::engine::model::fit::ModelFacts;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const KEY: &str = "roundtable.model_facts";
/// Entries kept (models are large: a browser holds a few).
const MAX: usize = 32;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct Known {
    context: Option<u32>,
    params: Option<u64>,
    read_tokens_per_s: Option<f64>,
}

fn load() -> BTreeMap<String, Known> {
    storage::get(KEY)
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn save(mut all: BTreeMap<String, Known>) {
    while all.len() > MAX {
        let Some(first) = all.keys().next().cloned() else {
            break;
        };
        all.remove(&first);
    }
    if let Ok(t) = serde_json::to_string(&all) {
        // Only a hint for the Run page: a refusal loses nothing else.
        let _ = storage::set(KEY, &t);
    }
}

/// Notes model `sha256`'s context and parameter count.
pub fn note_model(sha256: &str, context: u32, params: u64) {
    let mut all = load();
    let k = all.entry(sha256.to_string()).or_default();
    (k.context, k.params) = (Some(context), Some(params));
    save(all);
}

/// Notes the speed at which model `sha256` just read a prompt.
pub fn note_read_rate(sha256: &str, tokens_per_s: f64) {
    if !tokens_per_s.is_finite() || tokens_per_s <= 0.0 {
        return;
    }
    let mut all = load();
    all.entry(sha256.to_string()).or_default().read_tokens_per_s = Some(tokens_per_s);
    save(all);
}

/// What is known of model `sha256`.
pub fn facts(sha256: &str) -> ModelFacts {
    load()
        .remove(sha256)
        .map(|k| ModelFacts {
            context: k.context,
            params: k.params,
            read_tokens_per_s: k.read_tokens_per_s,
        })
        .unwrap_or_default()
}
