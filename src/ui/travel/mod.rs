//! The travel planner's part of the app: its setup panel and database
//! import, starting and forking its runs (the coordinator, the demo model's
//! travel roles, the sandbox and the evaluator), and its tabs. None of it is
//! in the core module: the `travel` chunk loads when the travel planner is
//! first picked or run, its tabs come with the `run_view` chunk (with the transcript).

mod import;
mod launch;
mod metrics;
mod notebook;
mod plan_tab;
mod setup;
pub mod state;

use super::lazy::{lazy_part, ViewFn};
use super::state::AppState;
use crate::engine::model::fork::ForkEdit;
use crate::engine::run::RunDoc;
use leptos::prelude::*;

pub use setup::{ensure_queries as load_builtin_queries, refresh_imported};
pub use setup::{DatabaseSelect, QuerySetSelect};

lazy_part! { travel:
    /// Starts a travel run on the selected query, variant and database.
    pub fn start(app: AppState, paused: bool) {
        launch::start(app, paused)
    }
    /// Forks a travel run at LLM call `k`, on the database it ran on.
    pub fn fork(app: AppState, parent: RunDoc, k: u32, edit: ForkEdit) {
        launch::fork(app, parent, k, edit)
    }
    /// The query / variant / database panel (left column).
    pub fn setup_panel() -> ViewFn {
        || view! { <setup::TravelSetupPanel/> }.into_any()
    }
}

lazy_part! { run_view:
    pub fn notebook_panel() -> ViewFn {
        || view! { <notebook::NotebookPanel/> }.into_any()
    }
    pub fn plan_panel() -> ViewFn {
        || view! { <plan_tab::PlanPanel/> }.into_any()
    }
    pub fn metrics_panel() -> ViewFn {
        || view! { <metrics::MetricsPanel/> }.into_any()
    }
}
