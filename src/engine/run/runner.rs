//! Runs a coordinator inside a `RunCtx`, bracketing it with the run's first
//! and last events.

use super::ctx::RunCtx;
use super::event::{FailReason, RunEvent};
use super::log::RunStatus;
use crate::engine::model::ModelError;
use futures::future::LocalBoxFuture;

/// A coordinator's entry point: its algorithm over a run's context. Each
/// coordinator has one (`travel::entry`, ...); the app starts a run with the
/// entry its lazily loaded part brings, the CLI and the tests look it up in
/// `coordinators::run`.
pub type CoordinatorFn = for<'a> fn(&'a RunCtx) -> LocalBoxFuture<'a, Result<Outcome, RunError>>;

/// What a coordinator returns when it completes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub output: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    Cancelled,
    Model(ModelError),
    Failed(FailReason),
}

impl RunError {
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        RunError::Failed(FailReason {
            kind: kind.into(),
            message: message.into(),
            model_error: None,
        })
    }
}

/// A prompt template the run cannot use (an edit refused, or one that
/// failed to render): the run fails with what to fix, before or at the step.
impl From<crate::engine::prompts::PromptError> for RunError {
    fn from(e: crate::engine::prompts::PromptError) -> Self {
        RunError::new("config", e.to_string())
    }
}

impl From<ModelError> for RunError {
    fn from(e: ModelError) -> Self {
        match e {
            ModelError::Cancelled => RunError::Cancelled,
            ModelError::SpendCap { detail } => RunError::Failed(FailReason {
                kind: "spend_cap".into(),
                message: detail,
                model_error: None,
            }),
            other => RunError::Model(other),
        }
    }
}

/// Emits `run_started`, runs `coordinator`, and emits exactly one terminal
/// event. Returns the final status. The coordinator is given, never looked
/// up: this layer knows no coordinator, so code that starts one coordinator
/// does not pull in the others.
pub async fn execute(ctx: &RunCtx, coordinator: CoordinatorFn) -> RunStatus {
    ctx.emit(RunEvent::RunStarted {
        config: ctx.config().sanitized(),
    });
    let result = if ctx.is_cancelled() {
        Err(RunError::Cancelled)
    } else {
        coordinator(ctx).await
    };
    let result = match result {
        Ok(_) if ctx.is_cancelled() => Err(RunError::Cancelled),
        other => other,
    };
    match result {
        Ok(outcome) => {
            ctx.emit(RunEvent::RunFinished {
                output: outcome.output,
            });
            RunStatus::Finished
        }
        Err(RunError::Cancelled) => {
            ctx.emit(RunEvent::RunCancelled {
                interrupted: ctx.interrupted(),
            });
            RunStatus::Cancelled
        }
        Err(RunError::Model(e)) => {
            ctx.emit(RunEvent::RunFailed {
                reason: FailReason {
                    kind: "model".into(),
                    message: e.user_message(),
                    model_error: Some(e),
                },
            });
            RunStatus::Failed
        }
        Err(RunError::Failed(reason)) => {
            ctx.emit(RunEvent::RunFailed { reason });
            RunStatus::Failed
        }
    }
}
