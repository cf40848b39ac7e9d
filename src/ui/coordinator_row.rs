//! What a coordinator's row in the app's table holds (`coordinators.rs`
//! lists the rows): its setup, how its runs start and fork, its tabs,
//! panels, exports, inspector section and pages, each a lazily loaded part
//! of its own. A coordinator's `ui/<name>/` builds its row from these
//! types; the table names the coordinators, these name none.

use super::lazy::{ChunkError, ViewFn};
use super::state::AppState;
use crate::engine::run::fork::ForkEdit;
use crate::engine::run::RunDoc;
use futures::future::{BoxFuture, LocalBoxFuture};

/// Loads a view's code (its chunk) and returns its constructor.
pub type LoadView = fn() -> BoxFuture<'static, Result<ViewFn, ChunkError>>;
/// Starts a run (paused at its first call or not) from the coordinator's part.
pub type StartFn = fn(AppState, bool) -> LocalBoxFuture<'static, Result<(), ChunkError>>;
/// Forks a run at an LLM call, with the user's edit, from the coordinator's part.
pub type ForkFn =
    fn(AppState, RunDoc, u32, ForkEdit) -> LocalBoxFuture<'static, Result<(), ChunkError>>;

/// How runs of a coordinator are started: from its part, which brings the
/// entry, the demo script and its own setup (none of it, nor the run
/// engine, is in the core module).
#[derive(Clone, Copy)]
pub struct Launch {
    pub start: StartFn,
    pub fork: ForkFn,
}

/// A tab of the run page besides Transcript and Events.
pub struct ExtraTab {
    /// The tab's key and element id (`tab-<id>`).
    pub id: &'static str,
    pub label: &'static str,
    /// The store whose notes the tab counts, if it shows a count.
    pub count_store: Option<&'static str>,
    /// "the notebook": named in the loading line and in errors.
    pub what: &'static str,
    pub view: LoadView,
}

/// A view loaded by name: a side panel, a page, an inspector section.
pub struct Part {
    pub what: &'static str,
    pub view: LoadView,
}

/// A page of the coordinator's own (in the header's navigation).
pub struct Page {
    /// The path without its slash (`batch` for `/batch`).
    pub path: &'static str,
    pub label: &'static str,
    pub part: Part,
}

impl Part {
    pub const fn new(what: &'static str, view: LoadView) -> Part {
        Part { what, view }
    }
}

impl ExtraTab {
    /// A tab `id` labelled `label`, showing `view` (`what` names it in
    /// messages), with no count.
    pub const fn new(
        id: &'static str,
        label: &'static str,
        what: &'static str,
        view: LoadView,
    ) -> ExtraTab {
        ExtraTab {
            id,
            label,
            count_store: None,
            what,
            view,
        }
    }

    /// The tab counts the notes of `store`.
    pub const fn counting(mut self, store: &'static str) -> ExtraTab {
        self.count_store = Some(store);
        self
    }
}

impl Page {
    pub const fn new(path: &'static str, label: &'static str, part: Part) -> Page {
        Page { path, label, part }
    }
}

/// Declares a coordinator part's `start` and `fork` in the chunk `$chunk`,
/// loaded on first use: its `launch::start` and `launch::fork`.
macro_rules! lazy_launch {
    ($chunk:ident) => {
        $crate::ui::lazy::lazy_part! { $chunk:
            /// Starts a run from the setup (paused at its first call or not).
            fn start(app: $crate::ui::state::AppState, paused: bool) {
                launch::start(app, paused)
            }
            /// Forks a run at LLM call `k`, with the user's edit.
            fn fork(
                app: $crate::ui::state::AppState,
                parent: $crate::engine::run::RunDoc,
                k: u32,
                edit: $crate::engine::run::fork::ForkEdit
            ) {
                launch::fork(app, parent, k, edit)
            }
        }
    };
}
pub(crate) use lazy_launch;

/// A row's `Launch` from its part's `start` and `fork` functions.
macro_rules! launch_from {
    ($start:ident, $fork:ident) => {
        $crate::ui::coordinator_row::Launch {
            start: |app, paused| Box::pin($start(app, paused)),
            fork: |app, parent, k, edit| Box::pin($fork(app, parent, k, edit)),
        }
    };
}
pub(crate) use launch_from;

pub struct CoordinatorUi {
    pub id: &'static str,
    /// Named in messages ("Could not load the travel planner…").
    pub what: &'static str,
    /// The left panel's title.
    pub task_title: &'static str,
    /// Replaces the task box with the coordinator's own inputs.
    pub setup: Option<Part>,
    pub launch: Launch,
    /// Tabs shown for its runs.
    pub tabs: &'static [ExtraTab],
    /// Panels in the right column for its runs (under the graph).
    pub side_panels: &'static [Part],
    /// Items of the toolbar's Export menu for its runs.
    pub exports: Option<Part>,
    /// A section of the inspector above the generic one (for its runs).
    pub inspector: Option<Part>,
    pub pages: &'static [Page],
    /// The variants (or modes) "Run a variant of this" offers: (id, label).
    pub variants: fn() -> Vec<(&'static str, &'static str)>,
}
