//! The travel planner with notebook and orchestrator (Ou, Vaduguru, Fried),
//! on TravelPlanner, and the baselines it is compared with:
//!
//! - `single` ([`Variant::Solo`]): one ReAct agent with every tool;
//! - `fixed`: transportation → hotel → restaurant → attraction → summarizer
//!   → compiler, the compiler seeing only the conversation;
//! - `fixed-notebook`: the same order, the compiler also reading the notebook;
//! - `orchestrator`: the orchestrator chooses who acts next after reflecting,
//!   revisiting experts as needed; notebook; compiler and critic rounds.
//!
//! Every run ends by scoring its plan with the TravelPlanner evaluator.
//!
//! The paper's roles, one module each: experts E_k (`expert`, with their
//! private tools in `tools`), the orchestrator D (`orchestrator`), the plan
//! summarizer P_S, compiler P_C and critic P_R (`planning`); G, c and N live
//! in `world`. Everything that crosses this folder's boundary (ids, step
//! tags, options, reply and payload shapes) is in `contract`; the demo
//! model's travel team (`demo`), the views (`view`, `html`) and the batch
//! reports (`report`) build on it.

pub mod batch;
pub mod contract;
pub mod demo;
mod evaluate;
mod expert;
pub mod html;
pub mod orchestrator;
pub mod planning;
pub mod prompts;
pub mod replies;
pub mod report;
mod setup;
mod solo;
mod tools;
pub mod view;
pub mod world;

use crate::engine::domains::travel::TravelDb;
use crate::engine::run::{Outcome, RunCtx, RunError};
use contract::*;
use expert::Turn;
use orchestrator::Next;
use world::{display_name, Delivery, Halt, World};

pub use contract::ID;
pub use setup::{options_for, options_of, query_values, use_builtin_query};

pub const EXAMPLE_TASK: &str =
    "Built-in query: a 3-day trip for one person (pick a query in the travel panel).";

/// The travel planner as a [`crate::engine::run::CoordinatorFn`].
pub fn entry(ctx: &RunCtx) -> futures::future::LocalBoxFuture<'_, Result<Outcome, RunError>> {
    Box::pin(run(ctx))
}

/// A run: the variant's team plans the trip in G, then the evaluator
/// scores the plan (or records why there is none).
pub async fn run(ctx: &RunCtx) -> Result<Outcome, RunError> {
    let setup::Setup {
        options,
        variant,
        query,
        db,
    } = setup::prepare(ctx)?;
    let prompts = std::rc::Rc::new(prompts::of_run(&ctx.config().prompts)?);
    let mut world = World::new(query, options.max_steps, variant, prompts);
    add_team(ctx, variant);
    let plan = match variant {
        Variant::Solo => solo::react(ctx, &mut world, &db, &options).await,
        Variant::Fixed | Variant::FixedNotebook => {
            fixed_workflow(ctx, &mut world, &db, &options).await
        }
        Variant::Orchestrator => orchestrated(ctx, &mut world, &db, &options).await,
    }
    .or_else(Halt::into_delivery)?;
    let evaluation = ctx.phase_now("evaluate", "Evaluation", || {
        evaluate::record(ctx, &world, &db, variant, &plan)
    });
    Ok(Outcome {
        output: Some(summary(&evaluation)),
    })
}

/// The fixed order: each expert once, then the summarizer and the compiler.
async fn fixed_workflow(
    ctx: &RunCtx,
    world: &mut World,
    db: &TravelDb,
    options: &TravelOptions,
) -> Result<Delivery, Halt> {
    let experts = async {
        for expert in EXPERTS {
            world.take_step()?;
            expert::expert_turn(ctx, world, db, options, Turn::in_order(expert)).await?;
        }
        Ok::<_, Halt>(())
    };
    ctx.phase("experts", "Experts in a fixed order", experts)
        .await?;
    let plan = async {
        let brief = planning::summarize(ctx, world);
        Ok::<_, Halt>(planning::compile(ctx, world, &brief, 0, false).await?)
    };
    ctx.phase("compile", "Plan", plan).await
}

/// The full system: the orchestrator reflects and chooses who acts next
/// until it decides to plan; then the summarizer's brief, the compiler's
/// plan and the critic's rounds. The latest readable plan is delivered.
async fn orchestrated(
    ctx: &RunCtx,
    world: &mut World,
    db: &TravelDb,
    options: &TravelOptions,
) -> Result<Delivery, Halt> {
    let conversation = async {
        loop {
            world.take_step()?;
            match orchestrator::choose_next_speaker(ctx, world).await? {
                Next::Plan => return Ok::<_, Halt>(()),
                Next::Expert(turn) => {
                    world.take_step()?;
                    expert::expert_turn(ctx, world, db, options, turn).await?;
                }
            }
        }
    };
    ctx.phase("conversation", "Orchestrated conversation", conversation)
        .await?;
    let plan = async {
        let brief = planning::summarize(ctx, world);
        world.take_step()?;
        let mut plan = planning::compile(ctx, world, &brief, 0, false).await?;
        planning::critic_rounds(ctx, world, &brief, options.critic_rounds, &mut plan)
            .await
            .or_else(Halt::ignore_step_limit)?;
        Ok(plan)
    };
    ctx.phase("compile", "Plan and critique", plan).await
}

/// The variant's agents: the orchestrator and the critic only in the full
/// system, the four experts and the planning pair in every team variant.
fn add_team(ctx: &RunCtx, variant: Variant) {
    let add = |id: &str| ctx.add_agent(id, id, display_name(id));
    if variant == Variant::Solo {
        return add(SOLO);
    }
    if variant.has_orchestrator() {
        add(ORCHESTRATOR);
    }
    EXPERTS.into_iter().for_each(add);
    add(SUMMARIZER);
    add(COMPILER);
    if variant.has_critic() {
        add(CRITIC);
    }
}

/// The run's one-line outcome.
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
