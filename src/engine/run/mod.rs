//! A run: its config, its event log, the context coordinators run in, and
//! the controls (gate, cancellation, clock) shared with the UI.

pub mod batch;
pub mod budget;
pub mod config;
pub mod ctx;
pub mod event;
pub mod files;
pub mod fork;
pub mod gate;
pub mod json;
pub mod log;
pub mod random;
pub mod replay;
pub mod runner;

pub use crate::engine::base::cancel::CancelToken;
pub use crate::engine::model::spec::ModelSpec;
pub use config::RunConfig;
pub use ctx::{ModelRouter, RunCtx};
pub use event::{Audience, LoggedEvent, RunEvent};
pub use log::{RunDoc, RunStatus};
pub use runner::{execute, CoordinatorFn, Outcome, RunError};
