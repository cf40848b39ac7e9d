//! Coordinators: plain async functions over a [`RunCtx`]. Register new ones
//! in [`COORDINATORS`] and [`run`]; the UI and the CLI read this list.

pub mod single;
pub mod travel;

use crate::engine::run::{Outcome, RunCtx, RunError};
use futures::future::LocalBoxFuture;

pub struct CoordinatorInfo {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    /// A task to start from, shown in the empty task box.
    pub example_task: &'static str,
}

pub const COORDINATORS: &[CoordinatorInfo] = &[
    CoordinatorInfo {
        id: single::ID,
        name: "Single agent",
        description: "One agent answers the task in a single streamed reply.",
        example_task: single::EXAMPLE_TASK,
    },
    CoordinatorInfo {
        id: travel::ID,
        name: "Travel planner (notebook + orchestrator)",
        description: "Experts search the TravelPlanner sandbox privately and share findings in a notebook; an orchestrator picks who acts next; a compiler and a critic write the plan, scored by the TravelPlanner evaluator.",
        example_task: travel::EXAMPLE_TASK,
    },
];

pub fn info(id: &str) -> Option<&'static CoordinatorInfo> {
    COORDINATORS.iter().find(|c| c.id == id)
}

/// A coordinator's entry point.
pub type CoordinatorFn = for<'a> fn(&'a RunCtx) -> LocalBoxFuture<'a, Result<Outcome, RunError>>;

/// Runs the coordinator named in the context's config.
pub fn run(ctx: &RunCtx) -> LocalBoxFuture<'_, Result<Outcome, RunError>> {
    match ctx.config().coordinator.as_str() {
        single::ID => single::entry(ctx),
        travel::ID => travel::entry(ctx),
        _ => unknown(ctx),
    }
}

/// The entry for a coordinator this build does not know: the run fails
/// with a message that lists the known ones.
pub fn unknown(ctx: &RunCtx) -> LocalBoxFuture<'_, Result<Outcome, RunError>> {
    let known: Vec<&str> = COORDINATORS.iter().map(|c| c.id).collect();
    let msg = format!(
        "Unknown coordinator \"{}\". Known coordinators: {}.",
        ctx.config().coordinator,
        known.join(", ")
    );
    Box::pin(async move { Err(RunError::new("config", msg)) })
}
