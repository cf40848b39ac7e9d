//! What a MAEL run starts from, read from its config: the options, the
//! mode (its variant), a valid team, and the memory it reads and writes
//! (the platform's, or an empty lexical pool); and the plumbing the CLI
//! and the app use to fill a config.
//!
//! The paper samples at temperature 0.2 (`contract::TEMPERATURE`). A new run's
//! options say so ([`MaelOptions::for_task`], which the CLI, the app and
//! the learning phase all start from), so it is in the run file; [`prepare`]
//! gives it to the run context as the coordinator's default, which every
//! request MAEL makes gets when neither it nor the run's model spec sets one
//! (`RunCtx::chat` decides: request, then spec, then this default).
//! An older run's options have none: its requests stay as they were, so
//! it replays and forks call for call.

use super::contract::{MaelOptions, Mode, ID};
use super::memory::Memory;
use crate::engine::domains::tasks::Task;
use crate::engine::run::{RunConfig, RunCtx, RunError};
use std::rc::Rc;

pub struct Setup {
    pub options: MaelOptions,
    pub mode: Mode,
    pub memory: Rc<Memory>,
}

pub fn prepare(ctx: &RunCtx) -> Result<Setup, RunError> {
    let options = options_of(ctx)?;
    ctx.set_default_temperature(options.temperature);
    let mode = ctx
        .config()
        .variant_or(Mode::Step, Mode::parse, "MAEL mode", Mode::ids)?;
    options
        .team
        .validate()
        .map_err(|e| RunError::new("config", e.user_message()))?;
    let memory = match ctx.resource::<Memory>() {
        Some(m) => m,
        None => Rc::new(Memory::lexical(options.pool.as_deref().unwrap_or("run"))),
    };
    Ok(Setup {
        options,
        mode,
        memory,
    })
}

pub fn options_of(ctx: &RunCtx) -> Result<MaelOptions, RunError> {
    serde_json::from_value(ctx.config().options.clone()).map_err(|e| {
        RunError::new(
            "config",
            format!("The MAEL run's options are not valid ({e}). Pick a task in the MAEL panel and run again."),
        )
    })
}

/// Points `config` at `task` in `mode` with the paper's settings.
pub fn configure(config: &mut RunConfig, task: Task, mode: Mode) {
    config.coordinator = ID.into();
    config.task = task.prompt.clone();
    config.variant = Some(mode.id().into());
    config.options = serde_json::to_value(MaelOptions::for_task(task)).unwrap_or_default();
}
