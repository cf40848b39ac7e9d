//! What the travel coordinator will run on: the query set and query, the
//! variant, how tools are offered, and the sandbox database.

use crate::engine::coordinators::travel::contract::{ToolMode, Variant};
use crate::engine::coordinators::travel::query_values;
use crate::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use crate::ui::part_state::part_state;
use leptos::prelude::*;
use serde_json::Value;

pub const BUILTIN: &str = "builtin";

#[derive(Clone, Debug, PartialEq)]
pub struct QueryItem {
    pub idx: u32,
    pub level: String,
    pub text: String,
    pub days: u32,
    /// The query as stored in a run's options.
    pub value: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TravelSetup {
    /// `builtin` or the name of an imported query set.
    pub query_set: String,
    pub queries: Vec<QueryItem>,
    pub selected: Option<u32>,
    pub variant: Variant,
    pub tool_mode: ToolMode,
    /// `builtin` or the name of an imported database.
    pub db: String,
    /// Imported databases and query sets in this browser.
    pub imported_dbs: Vec<String>,
    pub imported_query_sets: Vec<String>,
}

/// Query items from JSONL text (errors name the line).
pub fn items(jsonl: &str, file: &str) -> Result<Vec<QueryItem>, String> {
    Ok(query_values(jsonl, file)?
        .into_iter()
        .map(|(q, value)| QueryItem {
            idx: q.idx,
            level: q.level.as_str().into(),
            text: q.query.clone(),
            days: q.days,
            value,
        })
        .collect())
}

/// The built-in queries.
pub fn builtin_items() -> Vec<QueryItem> {
    items(BUILTIN_QUERIES_JSONL, "builtin_queries.jsonl").unwrap_or_default()
}

/// No queries until the setup panel or the Batch page loads them
/// (`setup::ensure_queries`).
impl Default for TravelSetup {
    fn default() -> Self {
        TravelSetup {
            query_set: BUILTIN.into(),
            selected: None,
            queries: Vec::new(),
            variant: Variant::Orchestrator,
            tool_mode: ToolMode::Native,
            db: BUILTIN.into(),
            imported_dbs: Vec::new(),
            imported_query_sets: Vec::new(),
        }
    }
}

impl TravelSetup {
    pub fn query(&self) -> Option<&QueryItem> {
        self.selected
            .and_then(|i| self.queries.iter().find(|q| q.idx == i))
    }
}

/// What the travel coordinator will run on, kept while the page lives
/// (the Run page and the Batch page share it).
pub fn travel_setup() -> RwSignal<TravelSetup> {
    part_state(|| RwSignal::new(TravelSetup::default()))
}
