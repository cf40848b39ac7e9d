//! MAEL's part of the app, its row in the coordinators' table ([`UI`]), in
//! chunks that load on first use:
//!
//! - `mael`: starting and forking its runs (the coordinator, the demo
//!   model's team, pools opened from IndexedDB with their embedder), the
//!   setup panel with the team editor, and the MAEL page (`/mael`: pools
//!   and their inspector, the learning phase, the evaluation);
//! - `run_view` (with the transcript, as the travel planner's): what a
//!   MAEL run shows (the call tree and experience tabs, the team panel,
//!   the retrievals in the inspector), folded here from the run's events
//!   (`view.rs`), so a shared MAEL run opens without the coordinator.
//!
//! Nothing of it is in the core module.

mod experience_tab;
mod launch;
mod learn;
mod memory;
mod retrievals;
mod setup;
mod state;
mod team_editor;
mod team_panel;
mod tree_tab;
mod view;

use super::coordinator_row::{launch_from, lazy_launch, CoordinatorUi, ExtraTab, Page, Part};
use super::lazy::lazy_views;
use crate::engine::coordinators::mael::contract::{ID, STORE_TASK};
use leptos::prelude::*;

lazy_launch!(mael);

lazy_views! { mael:
    /// The task / mode / team / pool panel (left column).
    setup_panel => setup::MaelSetupPanel,
    /// The MAEL page: pools, learning phase, evaluation.
    learn_page => learn::LearnPage,
}

lazy_views! { run_view:
    tree_panel => tree_tab::CallTreePanel,
    experience_panel => experience_tab::ExperiencePanel,
    team_panel => team_panel::TeamPanel,
    retrievals_section => retrievals::RetrievalsSection,
}

/// "Run a variant of this": every retrieval mode.
fn variants() -> Vec<(&'static str, &'static str)> {
    crate::engine::coordinators::mael::contract::Mode::ALL
        .iter()
        .map(|m| (m.id(), m.label()))
        .collect()
}

/// MAEL's row of the coordinators' table.
pub const UI: CoordinatorUi = CoordinatorUi {
    id: ID,
    what: "MAEL",
    task_title: "Task",
    setup: Some(Part::new("the MAEL setup", || Box::pin(setup_panel()))),
    launch: launch_from!(start, fork),
    tabs: &[
        ExtraTab::new("tree", "Call tree", "the call tree", || {
            Box::pin(tree_panel())
        })
        .counting(STORE_TASK),
        ExtraTab::new("experience", "Experience", "the experience", || {
            Box::pin(experience_panel())
        }),
    ],
    side_panels: &[Part::new("the team", || Box::pin(team_panel()))],
    exports: None,
    inspector: Some(Part::new("the retrievals", || {
        Box::pin(retrievals_section())
    })),
    pages: &[Page::new(
        "mael",
        "MAEL",
        Part::new("the MAEL page", || Box::pin(learn_page())),
    )],
    variants,
};
