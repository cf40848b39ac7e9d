//! What a travel run starts from, read from its config: the options, the
//! variant, the query and the sandbox; and the plumbing the CLI, the app
//! and the benchmarks use to fill a config (query sets, options).

use super::contract::{ToolMode, TravelOptions, Variant};
use crate::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use crate::engine::domains::travel::{Query, TravelDb};
use crate::engine::run::{RunConfig, RunCtx, RunError};
use std::rc::Rc;

thread_local! {
    static BUILTIN: Rc<TravelDb> = Rc::new(TravelDb::builtin());
}

/// A run's starting point.
pub struct Setup {
    pub options: TravelOptions,
    pub variant: Variant,
    pub query: Query,
    pub db: Rc<TravelDb>,
}

/// Reads the run's options, variant and query, and finds its sandbox; each
/// problem is a config error that says what to do.
pub fn prepare(ctx: &RunCtx) -> Result<Setup, RunError> {
    let options = options_of(ctx)?;
    let query = Query::from_json(&options.query, 0)
        .map_err(|e| RunError::new("config", format!("The query is not valid: {e}.")))?;
    let variant = variant_of(ctx)?;
    let db = sandbox(ctx, &options)?;
    Ok(Setup {
        options,
        variant,
        query,
        db,
    })
}

pub fn options_of(ctx: &RunCtx) -> Result<TravelOptions, RunError> {
    serde_json::from_value(ctx.config().options.clone()).map_err(|e| {
        RunError::new("config", format!("The travel run's options are not valid ({e}). Pick a query in the travel panel and run again."))
    })
}

/// The run's variant; the full system when none is set.
fn variant_of(ctx: &RunCtx) -> Result<Variant, RunError> {
    ctx.config().variant_or(
        Variant::Orchestrator,
        Variant::parse,
        "travel variant",
        Variant::ids,
    )
}

/// The sandbox this run uses: one the platform provided, or the built-in world.
fn sandbox(ctx: &RunCtx, options: &TravelOptions) -> Result<Rc<TravelDb>, RunError> {
    if let Some(db) = ctx.resource::<TravelDb>() {
        return Ok(db);
    }
    if options.db == "builtin" {
        return Ok(BUILTIN.with(Rc::clone));
    }
    Err(RunError::new(
        "config",
        format!("This run uses the database \"{}\", which is not loaded here. Import it (Travel → Import database) or choose the built-in world.", options.db),
    ))
}

/// The queries of a JSONL text (train_queries.jsonl format) as values ready
/// for `TravelOptions::query`, validated, without their reference plans
/// (agents never see them, and runs stay small). Errors name the line.
pub fn query_values(jsonl: &str, file: &str) -> Result<Vec<(Query, serde_json::Value)>, String> {
    let mut out = Vec::new();
    for (i, line) in jsonl.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("{file} line {}: not valid JSON ({e})", i + 1))?;
        let q =
            Query::from_json(&v, i as u32).map_err(|e| format!("{file} line {}: {e}", i + 1))?;
        if let Some(o) = v.as_object_mut() {
            o.remove("annotated_plan");
            // A query without "idx" is numbered by its line; keep that number
            // with the stored query so every view of a run reads the same one.
            o.entry("idx").or_insert_with(|| q.idx.into());
        }
        out.push((q, v));
    }
    if out.is_empty() {
        return Err(format!("{file} has no queries"));
    }
    Ok(out)
}

/// The options of a run on `query` (from `query_values`).
pub fn options_for(query: serde_json::Value, db: &str, tool_mode: ToolMode) -> TravelOptions {
    TravelOptions {
        query,
        db: db.to_string(),
        tool_mode,
        max_steps: 16,
        critic_rounds: 2,
        max_tool_rounds: 8,
    }
}

/// Points `config` at the built-in query at position `n` (0-based), run by
/// the full orchestrator variant with native tools: the sample runs of the
/// link dictionary and the benchmarks. False when there is no such query.
pub fn use_builtin_query(config: &mut RunConfig, n: usize) -> bool {
    let queries = query_values(BUILTIN_QUERIES_JSONL, "builtin").unwrap_or_default();
    let Some((q, value)) = queries.into_iter().nth(n) else {
        return false;
    };
    config.task = q.query.clone();
    config.variant = Some(Variant::Orchestrator.id().into());
    config.options =
        serde_json::to_value(options_for(value, "builtin", ToolMode::Native)).unwrap_or_default();
    true
}
