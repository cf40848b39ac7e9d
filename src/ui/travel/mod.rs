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
//!   instantiate after the page mounts. See `ui::lazy`.)
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

use super::coordinator_row::{launch_from, lazy_launch, CoordinatorUi, ExtraTab, Page, Part};
use super::lazy::lazy_views;
use crate::engine::coordinators::travel::contract::{ID, STORE_NOTEBOOK};
use leptos::prelude::*;

lazy_launch!(travel);

lazy_views! { travel:
    /// The query / variant / database panel (left column).
    setup_panel => setup::TravelSetupPanel,
    /// The Batch page: variants × queries in the paper's tables.
    batch_page => batch::BatchPage,
}

lazy_views! { run_view:
    notebook_panel => notebook::NotebookPanel,
    plan_panel => plan_tab::PlanPanel,
    metrics_panel => metrics::MetricsPanel,
    export_items => exports::ExportItems,
    reflections_section => reflections::ReflectionsSection,
}

/// "Run a variant of this": every variant.
fn variants() -> Vec<(&'static str, &'static str)> {
    crate::engine::coordinators::travel::contract::Variant::ALL
        .iter()
        .map(|v| (v.id(), v.label()))
        .collect()
}

/// The travel planner's row of the coordinators' table.
pub const UI: CoordinatorUi = CoordinatorUi {
    id: ID,
    what: "the travel planner",
    task_title: "Trip",
    setup: Some(Part::new("the travel planner", || Box::pin(setup_panel()))),
    launch: launch_from!(start, fork),
    tabs: &[
        ExtraTab::new("notebook", "Notebook", "the notebook", || {
            Box::pin(notebook_panel())
        })
        .counting(STORE_NOTEBOOK),
        ExtraTab::new("plan", "Plan", "the plan", || Box::pin(plan_panel())),
    ],
    side_panels: &[Part::new("the metrics", || Box::pin(metrics_panel()))],
    exports: Some(Part::new("the plan exports", || Box::pin(export_items()))),
    inspector: Some(Part::new("the reflections", || {
        Box::pin(reflections_section())
    })),
    pages: &[Page::new(
        "batch",
        "Batch",
        Part::new("the Batch page", || Box::pin(batch_page())),
    )],
    variants,
};
