//! What an ACT run starts from, read from its config: the options, the
//! variant, and the complex task (from the options, or the typed task for
//! the team to split); and the plumbing the CLI and the app use to fill a
//! config.

use super::contract::{ActOptions, Variant, ID};
use crate::engine::domains::creative::ComplexTask;
use crate::engine::run::{RunConfig, RunCtx, RunError};

pub fn prepare(ctx: &RunCtx) -> Result<(ActOptions, Variant), RunError> {
    let config = ctx.config();
    let options = if config.options.is_null() {
        if config.task.trim().is_empty() {
            return Err(RunError::new(
                "config",
                "The ACT run has no task: type one, or pick one from a task set in the ACT panel.",
            ));
        }
        ActOptions::for_task(ComplexTask::free(&config.task))
    } else {
        serde_json::from_value(config.options.clone()).map_err(|e| {
            RunError::new(
                "config",
                format!("The ACT run's options are not valid ({e}). Pick a task in the ACT panel and run again."),
            )
        })?
    };
    let variant = config.variant_or(Variant::Act, Variant::parse, "ACT variant", Variant::ids)?;
    if options.task.parts.len() == 1 {
        return Err(RunError::new(
            "config",
            "An ACT task needs at least two parts (one per agent).",
        ));
    }
    Ok((options, variant))
}

/// Points `config` at `task` as `variant` with the paper's settings.
pub fn configure(config: &mut RunConfig, task: ComplexTask, variant: Variant) {
    config.coordinator = ID.into();
    config.task = task.text.clone();
    config.variant = Some(variant.id().into());
    config.options = serde_json::to_value(ActOptions::for_task(task)).unwrap_or_default();
}
