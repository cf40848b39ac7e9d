//! The travel planner's part of the app, its row in the coordinators'
//! table ([`UI`]), in chunks that load on first use:
//!
//! - `travel`: starting and forking its runs (the coordinator, the demo
//!   model's travel team, the sandbox and the evaluator), the setup panel
//!   with the database import, and the Batch page;
//! - `run_view` (with the transcript): what a travel run shows (the
//!   notebook and plan tabs, the metrics panel, the plan / metrics
//!   exports, the orchestrator's reflections in the inspector), folded
//!   here from the run's events (`view.rs`), so a shared travel run opens
//!   without the coordinator. (A chunk of their own measured 1.2–1.3×
//!   slower to open a shared travel run: one more module to fetch and
//!   instantiate after the page mounts. See ARCHITECTURE.md, Loading.)
//!
//! Nothing of it is in the core module.

mod batch;
mod exports;
mod import;
mod launch;
mod metrics;
mod notebook;
mod plan_tab;
mod reflections;
mod setup;
mod state;
mod view;

use super::coordinators::{CoordinatorUi, ExtraTab, Launch, Page, Part};
use super::lazy::{lazy_part, ViewFn};
use super::state::AppState;
use crate::engine::coordinators::travel::contract::{ID, STORE_NOTEBOOK};
use crate::engine::model::fork::ForkEdit;
use crate::engine::run::RunDoc;
use leptos::prelude::*;

lazy_part! { travel:
    /// Starts a travel run on the selected query, variant and database.
    fn start(app: AppState, paused: bool) {
        launch::start(app, paused)
    }
    /// Forks a travel run at LLM call `k`, on the database it ran on.
    fn fork(app: AppState, parent: RunDoc, k: u32, edit: ForkEdit) {
        launch::fork(app, parent, k, edit)
    }
    /// The query / variant / database panel (left column).
    fn setup_panel() -> ViewFn {
        || view! { <setup::TravelSetupPanel/> }.into_any()
    }
    /// The Batch page: variants × queries in the paper's tables.
    fn batch_page() -> ViewFn {
        || view! { <batch::BatchPage/> }.into_any()
    }
}

lazy_part! { run_view:
    fn notebook_panel() -> ViewFn {
        || view! { <notebook::NotebookPanel/> }.into_any()
    }
    fn plan_panel() -> ViewFn {
        || view! { <plan_tab::PlanPanel/> }.into_any()
    }
    fn metrics_panel() -> ViewFn {
        || view! { <metrics::MetricsPanel/> }.into_any()
    }
    fn export_items() -> ViewFn {
        || view! { <exports::ExportItems/> }.into_any()
    }
    fn reflections_section() -> ViewFn {
        || view! { <reflections::ReflectionsSection/> }.into_any()
    }
}

/// The travel planner's row of the coordinators' table.
pub const UI: CoordinatorUi = CoordinatorUi {
    id: ID,
    what: "the travel planner",
    task_title: "Trip",
    setup: Some(Part {
        what: "the travel planner",
        view: || Box::pin(setup_panel()),
    }),
    launch: Launch {
        start: |app, paused| Box::pin(start(app, paused)),
        fork: |app, parent, k, edit| Box::pin(fork(app, parent, k, edit)),
    },
    tabs: &[
        ExtraTab {
            id: "notebook",
            label: "Notebook",
            count_store: Some(STORE_NOTEBOOK),
            what: "the notebook",
            view: || Box::pin(notebook_panel()),
        },
        ExtraTab {
            id: "plan",
            label: "Plan",
            count_store: None,
            what: "the plan",
            view: || Box::pin(plan_panel()),
        },
    ],
    side_panels: &[Part {
        what: "the metrics",
        view: || Box::pin(metrics_panel()),
    }],
    exports: Some(Part {
        what: "the plan exports",
        view: || Box::pin(export_items()),
    }),
    inspector: Some(Part {
        what: "the reflections",
        view: || Box::pin(reflections_section()),
    }),
    pages: &[Page {
        path: "batch",
        label: "Batch",
        part: Part {
            what: "the Batch page",
            view: || Box::pin(batch_page()),
        },
    }],
};
