//! The single agent's part: starting and forking its runs on the task
//! box's text, in the `live` chunk with the run engine (the runner, the
//! demo model, the provider clients' loader, History's recorder), which the
//! start page does not load. Runs of a coordinator this build does not
//! know start here too, and end with a message naming the known ones.

use super::coordinator_row::Launch;
use super::lazy::lazy_part;
use super::state::AppState;
use crate::engine::coordinators::{single, unknown};
use crate::engine::model::demo;
use crate::engine::run::fork::ForkEdit;
use crate::engine::run::RunDoc;

lazy_part! { live:
    fn start(app: AppState, paused: bool) {
        app.start_task(paused, single::entry, single::demo_script)
    }
    fn fork(app: AppState, parent: RunDoc, k: u32, edit: ForkEdit) {
        app.fork_task(parent, k, edit, single::entry, single::demo_script)
    }
    fn start_unknown(app: AppState, paused: bool) {
        app.start_task(paused, unknown, demo::no_script)
    }
    fn fork_unknown(app: AppState, parent: RunDoc, k: u32, edit: ForkEdit) {
        app.fork_task(parent, k, edit, unknown, demo::no_script)
    }
}

/// How the single agent's runs start.
pub const LAUNCH: Launch = Launch {
    start: |app, paused| Box::pin(start(app, paused)),
    fork: |app, parent, k, edit| Box::pin(fork(app, parent, k, edit)),
};

/// How runs of an unknown coordinator "start" (to fail with the message).
pub const LAUNCH_UNKNOWN: Launch = Launch {
    start: |app, paused| Box::pin(start_unknown(app, paused)),
    fork: |app, parent, k, edit| Box::pin(fork_unknown(app, parent, k, edit)),
};
