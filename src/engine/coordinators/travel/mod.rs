//! The travel planner with notebook and orchestrator (Ou, Vaduguru, Fried),
//! on TravelPlanner, and the baselines it is compared with:
//!
//! - `single`: one ReAct agent with every tool;
//! - `fixed`: transportation → hotel → restaurant → attraction → summarizer
//!   → compiler, the compiler seeing only the conversation;
//! - `fixed-notebook`: the same order, the compiler also reading the notebook;
//! - `orchestrator`: the orchestrator chooses who acts next after reflecting,
//!   revisiting experts as needed; notebook; compiler and critic rounds.
//!
//! Every run ends by scoring its plan with the TravelPlanner evaluator.

pub mod batch;
pub mod contract;
mod evaluate;
mod expert;
pub mod orchestrator;
mod planning;
mod prompts;
mod solo;
mod tools;
pub mod world;

use crate::engine::domains::travel::{Plan, Query, TravelDb};
use crate::engine::run::{Outcome, RunCtx, RunError};
use contract::*;
use std::rc::Rc;
use world::{display_name, World};

pub use contract::ID;

pub const EXAMPLE_TASK: &str =
    "Built-in query: a 3-day trip for one person (pick a query in the travel panel).";

thread_local! {
    static BUILTIN: Rc<TravelDb> = Rc::new(TravelDb::builtin());
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

pub fn options_of(ctx: &RunCtx) -> Result<TravelOptions, RunError> {
    serde_json::from_value(ctx.config().options.clone()).map_err(|e| {
        RunError::new("config", format!("The travel run's options are not valid ({e}). Pick a query in the travel panel and run again."))
    })
}

/// The travel planner as a [`super::CoordinatorFn`].
pub fn entry(ctx: &RunCtx) -> futures::future::LocalBoxFuture<'_, Result<Outcome, RunError>> {
    Box::pin(run(ctx))
}

pub async fn run(ctx: &RunCtx) -> Result<Outcome, RunError> {
    let options = options_of(ctx)?;
    let query = Query::from_json(&options.query, 0)
        .map_err(|e| RunError::new("config", format!("The query is not valid: {e}.")))?;
    let variant = ctx.config().variant.as_deref().map(|v| Variant::parse(v).ok_or_else(|| RunError::new("config", format!("Unknown travel variant \"{v}\": use single, fixed, fixed-notebook or orchestrator.")))).transpose()?.unwrap_or(Variant::Orchestrator);
    let db = sandbox(ctx, &options)?;
    let mut world = World::new(query, options.max_steps);
    let outcome = match variant {
        Variant::Single => {
            ctx.add_agent(SOLO, SOLO, display_name(SOLO));
            ctx.phase_started("solo", "Plan alone (ReAct)");
            let r = solo::run(ctx, &mut world, &db, &options).await?;
            ctx.phase_ended("solo");
            r
        }
        Variant::Fixed | Variant::FixedNotebook => {
            fixed_workflow(ctx, &mut world, &db, &options, variant.uses_notebook()).await?
        }
        Variant::Orchestrator => orchestrated(ctx, &mut world, &db, &options).await?,
    };
    ctx.phase_started("evaluate", "Evaluation");
    let eval = evaluate::record(ctx, &world, &db, variant, &outcome);
    ctx.phase_ended("evaluate");
    Ok(Outcome {
        output: Some(summary(&eval)),
    })
}

fn summary(e: &RunEvaluation) -> String {
    if !e.delivered {
        return format!(
            "No plan delivered: {}",
            e.not_delivered.as_deref().unwrap_or("unknown reason")
        );
    }
    let passed = |v: &[VerdictRecord]| v.iter().filter(|x| x.pass == Some(true)).count();
    let counted = |v: &[VerdictRecord]| v.iter().filter(|x| x.pass.is_some()).count();
    format!(
        "Plan delivered: commonsense {}/{}, hard {}/{}, final pass: {}",
        passed(&e.commonsense),
        counted(&e.commonsense),
        passed(&e.hard),
        counted(&e.hard),
        if e.final_pass { "yes" } else { "no" }
    )
}

fn add_team(ctx: &RunCtx, with_orchestrator: bool, with_critic: bool) {
    if with_orchestrator {
        ctx.add_agent(ORCHESTRATOR, ORCHESTRATOR, display_name(ORCHESTRATOR));
    }
    for e in EXPERTS {
        ctx.add_agent(e, e, display_name(e));
    }
    ctx.add_agent(SUMMARIZER, SUMMARIZER, display_name(SUMMARIZER));
    ctx.add_agent(COMPILER, COMPILER, display_name(COMPILER));
    if with_critic {
        ctx.add_agent(CRITIC, CRITIC, display_name(CRITIC));
    }
}

/// The fixed order: each expert once, then summarizer and compiler.
async fn fixed_workflow(
    ctx: &RunCtx,
    world: &mut World,
    db: &TravelDb,
    options: &TravelOptions,
    notebook: bool,
) -> Result<Result<Plan, String>, RunError> {
    add_team(ctx, false, false);
    ctx.phase_started("experts", "Experts in a fixed order");
    for e in EXPERTS {
        if !world.take_step() {
            return Ok(Err(step_limit(world)));
        }
        expert::expert_turn(ctx, world, db, e, options, notebook, None).await?;
    }
    ctx.phase_ended("experts");
    ctx.phase_started("compile", "Plan");
    let brief = planning::summarize(ctx, world, notebook);
    let plan = planning::compile(ctx, world, &brief, 0).await?;
    ctx.phase_ended("compile");
    Ok(plan)
}

fn step_limit(world: &World) -> String {
    format!(
        "the step limit ({}) was reached before a plan was written",
        world.max_steps
    )
}

/// Orchestrator-led conversation with self-reflection, then compiler and
/// critic rounds; the latest readable plan is delivered.
async fn orchestrated(
    ctx: &RunCtx,
    world: &mut World,
    db: &TravelDb,
    options: &TravelOptions,
) -> Result<Result<Plan, String>, RunError> {
    add_team(ctx, true, true);
    ctx.phase_started("conversation", "Orchestrated conversation");
    loop {
        if !world.take_step() {
            return Ok(Err(step_limit(world)));
        }
        let (next, instruction) = orchestrator::choose_next_speaker(ctx, world).await?;
        if next == PLAN {
            break;
        }
        if !world.take_step() {
            return Ok(Err(step_limit(world)));
        }
        expert::expert_turn(ctx, world, db, next, options, true, Some(&instruction)).await?;
    }
    ctx.phase_ended("conversation");
    ctx.phase_started("compile", "Plan and critique");
    let brief = planning::summarize(ctx, world, true);
    if !world.take_step() {
        return Ok(Err(step_limit(world)));
    }
    let mut latest = planning::compile(ctx, world, &brief, 0).await?;
    for round in 1..=options.critic_rounds {
        if !world.take_step() || planning::critique(ctx, world).await? {
            break;
        }
        if !world.take_step() {
            break;
        }
        let revised = planning::compile(ctx, world, &brief, round).await?;
        // A revision that cannot be read does not replace a readable plan.
        if revised.is_ok() || latest.is_err() {
            latest = revised;
        }
    }
    ctx.phase_ended("compile");
    Ok(latest)
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
pub fn use_builtin_query(config: &mut crate::engine::run::RunConfig, n: usize) -> bool {
    let queries = query_values(
        crate::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL,
        "builtin",
    )
    .unwrap_or_default();
    let Some((q, value)) = queries.into_iter().nth(n) else {
        return false;
    };
    config.task = q.query.clone();
    config.variant = Some(Variant::Orchestrator.id().into());
    config.options =
        serde_json::to_value(options_for(value, "builtin", ToolMode::Native)).unwrap_or_default();
    true
}
