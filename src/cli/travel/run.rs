//! `roundtable run --coordinator travel`: picks the query, loads the
//! database, and fills the run's options.

use crate::cli::args::RunArgs;
use roundtable::engine::coordinators::travel::contract::{ToolMode, Variant};
use roundtable::engine::coordinators::travel::{options_for, query_values};
use roundtable::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use roundtable::engine::domains::travel::TravelDb;
use roundtable::engine::run::RunConfig;
use std::rc::Rc;

/// Fills `config` (task, variant, options) and returns the database to use.
pub fn prepare(a: &RunArgs, config: &mut RunConfig) -> Result<Option<Rc<TravelDb>>, String> {
    let variant = a.variant.as_deref().unwrap_or("orchestrator");
    if Variant::parse(variant).is_none() {
        return Err(format!(
            "unknown travel variant \"{variant}\": use {}",
            Variant::ids()
        ));
    }
    config.variant = Some(variant.to_string());
    let (text, file) = match a.queries.as_deref() {
        None | Some("builtin") => (
            BUILTIN_QUERIES_JSONL.to_string(),
            "builtin_queries.jsonl".to_string(),
        ),
        Some(path) => (
            std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?,
            path.to_string(),
        ),
    };
    let queries = query_values(&text, &file)?;
    let (query, value) = match a.query_idx {
        None => queries.into_iter().next().ok_or("no queries")?,
        Some(idx) => queries
            .into_iter()
            .find(|(q, _)| q.idx == idx)
            .ok_or_else(|| format!("{file} has no query with idx {idx}"))?,
    };
    let tool_mode = match a.tool_mode.as_deref() {
        None | Some("native") => ToolMode::Native,
        Some("text") => ToolMode::Text,
        Some(other) => {
            return Err(format!(
                "unknown --tool-mode \"{other}\": use native or text"
            ))
        }
    };
    let (db, db_name) = match a.db.as_deref() {
        None | Some("builtin") => (None, "builtin".to_string()),
        Some(dir) => {
            let db = TravelDb::from_dir(std::path::Path::new(dir)).map_err(|e| e.to_string())?;
            (Some(Rc::new(db)), dir.to_string())
        }
    };
    let mut options = options_for(value, &db_name, tool_mode);
    if let Some(n) = a.max_steps {
        options.max_steps = n.max(1);
    }
    if let Some(n) = a.critic_rounds {
        options.critic_rounds = n;
    }
    config.options = serde_json::to_value(&options).map_err(|e| e.to_string())?;
    if config.task.trim().is_empty() {
        config.task = query.query.clone();
    }
    Ok(db)
}
