//! Starting, stepping and forking runs from the buttons: the row of the
//! run's coordinator in the registry names the part that starts it. This
//! sits above the app state (which the coordinators' parts use), so the
//! state never looks the registry up.

use super::coordinators::ui_of;
use super::state::{Activity, AppState};
use crate::engine::run::fork::ForkEdit;
use crate::engine::run::RunDoc;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Starts a run of the chosen coordinator on the task (or on its own
/// setup), from the coordinator's part. With `paused`, the run waits at
/// the gate before its first LLM call.
pub fn start(app: AppState, paused: bool) {
    if app.activity.get_untracked() != Activity::Idle {
        return;
    }
    let ui = ui_of(&app.coordinator.get_untracked());
    let start = ui.launch.start;
    spawn_local(async move {
        if let Err(e) = start(app, paused).await {
            app.warn(e.message(ui.what), false);
        }
    });
}

/// Forks `parent` at LLM call `k` with the user's edit, continuing live
/// (from the coordinator's part).
pub fn fork(app: AppState, parent: RunDoc, k: u32, edit: ForkEdit) {
    if app.activity.get_untracked() != Activity::Idle {
        app.warn("Stop the current run before forking.", false);
        return;
    }
    let ui = ui_of(&parent.config.coordinator);
    let fork = ui.launch.fork;
    spawn_local(async move {
        if let Err(e) = fork(app, parent, k, edit).await {
            app.warn(e.message(ui.what), false);
        }
    });
}

/// Run: start a new run when idle, or continue a paused one.
pub fn run_or_resume(app: AppState) {
    match app.activity.get_untracked() {
        Activity::Idle => start(app, false),
        Activity::Paused => app.resume(),
        Activity::Running => {}
    }
}

/// Step: when idle, start the run paused at its first LLM call; when
/// paused, let exactly one call through; when running, pause.
pub fn step(app: AppState) {
    match app.activity.get_untracked() {
        Activity::Idle => start(app, true),
        Activity::Paused => app.step_one(),
        Activity::Running => app.pause(),
    }
}

/// Starts `parent`'s task again as `variant` (same options, the model in
/// Settings); when it ends, the two runs open side by side.
pub fn run_variant(app: AppState, parent: RunDoc, variant: Option<String>) {
    if app.activity.get_untracked() != Activity::Idle {
        app.warn("Stop the current run before starting a variant.", false);
        return;
    }
    let mut start = RunDoc::new(parent.config.clone(), Vec::new());
    start.config.variant = variant.clone();
    start.config.parent = None;
    app.then_compare.set_value(Some((parent, variant)));
    fork(app, start, 0, ForkEdit::None);
}
