//! One row per coordinator: everything the app shows of it, each piece a
//! lazily loaded part of its own (so that picking, running or showing one
//! coordinator never loads another's code). The run page, the controls, the
//! toolbar, the inspector and the header read this table; a new
//! coordinator adds one row (and its `ui/<name>/` folder).

use super::coordinator_row::{CoordinatorUi, Page};
use super::state::AppState;
use crate::engine::coordinators::single;
use leptos::prelude::*;

/// A coordinator with one way of working.
fn no_variants() -> Vec<(&'static str, &'static str)> {
    Vec::new()
}

pub const SINGLE: CoordinatorUi = CoordinatorUi {
    id: single::ID,
    what: "the single agent",
    task_title: "Task",
    setup: None,
    launch: super::single::LAUNCH,
    tabs: &[],
    side_panels: &[],
    exports: None,
    inspector: None,
    pages: &[],
    variants: no_variants,
};

/// The table: the single agent, then every coordinator in a part.
pub const UIS: &[CoordinatorUi] = &[SINGLE, super::travel::UI, super::act::UI, super::mael::UI];

/// A coordinator this build does not know (an old or newer run file): its
/// runs show with the generic views, and starting one fails with a
/// message listing the known ones.
const UNKNOWN: CoordinatorUi = CoordinatorUi {
    id: "",
    what: "the coordinator",
    launch: super::single::LAUNCH_UNKNOWN,
    ..SINGLE
};

/// The row of coordinator `id`.
pub fn ui_of(id: &str) -> &'static CoordinatorUi {
    UIS.iter().find(|u| u.id == id).unwrap_or(&UNKNOWN)
}

/// Whether the app can start runs of `id` (the picker lists only these; a
/// coordinator the engine has without screens yet runs from the CLI, and
/// its run files open with the generic views).
pub fn in_app(id: &str) -> bool {
    UIS.iter().any(|u| u.id == id)
}

/// The row of the shown run's coordinator (tracked).
pub fn shown_ui(app: AppState) -> &'static CoordinatorUi {
    app.shown.with(|s| match s {
        Some(s) => ui_of(&s.config.coordinator),
        None => &UNKNOWN,
    })
}

/// The page at `path`, and the coordinator that has it.
pub fn page_at(path: &str) -> Option<&'static Page> {
    UIS.iter().flat_map(|u| u.pages).find(|p| p.path == path)
}
