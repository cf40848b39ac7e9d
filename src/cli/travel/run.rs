//! `roundtable run --coordinator travel`: picks the query, loads the
//! database, and fills the run's options.

use super::super::common::Common;
use super::super::flags::Flags;
use super::super::paper::Prepared;
use roundtable::engine::coordinators::travel::contract::Variant;
use roundtable::engine::coordinators::travel::options_for;
use roundtable::engine::domains::travel::TravelDb;
use roundtable::engine::run::{RunConfig, RunCtx};
use std::rc::Rc;

/// The database a run reads (the built-in world when none).
struct Database(Option<Rc<TravelDb>>);

impl Prepared for Database {
    fn attach(&self, ctx: &RunCtx) {
        if let Some(db) = &self.0 {
            ctx.insert_resource(db.clone());
        }
    }
}

/// Fills `config` (task, variant, options) and returns the database to use.
pub fn prepare(
    f: &Flags,
    common: &Common,
    config: &mut RunConfig,
) -> Result<Box<dyn Prepared>, String> {
    let variant = config
        .variant
        .clone()
        .unwrap_or_else(|| "orchestrator".into());
    if Variant::parse(&variant).is_none() {
        return Err(format!(
            "unknown travel variant \"{variant}\": use {}",
            Variant::ids()
        ));
    }
    config.variant = Some(variant);
    let (queries, file) = super::queries(f)?;
    let (query, value) = match f.number::<u32>("query-idx")? {
        None => queries.into_iter().next().ok_or("no queries")?,
        Some(idx) => queries
            .into_iter()
            .find(|(q, _)| q.idx == idx)
            .ok_or_else(|| format!("{file} has no query with idx {idx}"))?,
    };
    let tool_mode = super::tool_mode(f, &common.spec)?;
    let (db, db_name) = super::database(f)?;
    let mut options = options_for(value, &db_name, tool_mode);
    if let Some(n) = f.number::<u32>("max-steps")? {
        options.max_steps = n.max(1);
    }
    if let Some(n) = f.number("critic-rounds")? {
        options.critic_rounds = n;
    }
    config.options = serde_json::to_value(&options).map_err(|e| e.to_string())?;
    if config.task.trim().is_empty() {
        config.task = query.query.clone();
    }
    Ok(Box::new(Database(db)))
}
