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

use super::coordinators::{CoordinatorUi, ExtraTab, Launch, Page, Part};
use super::lazy::{lazy_part, ViewFn};
use super::state::AppState;
use crate::engine::coordinators::mael::contract::{ID, STORE_TASK};
use crate::engine::model::fork::ForkEdit;
use crate::engine::run::RunDoc;
use leptos::prelude::*;

lazy_part! { mael:
    /// Starts a MAEL run on the selected task, mode, team and pool.
    fn start(app: AppState, paused: bool) {
        launch::start(app, paused)
    }
    /// Forks a MAEL run at LLM call `k`, on the pool the setup names.
    fn fork(app: AppState, parent: RunDoc, k: u32, edit: ForkEdit) {
        launch::fork(app, parent, k, edit)
    }
    /// The task / mode / team / pool panel (left column).
    fn setup_panel() -> ViewFn {
        || view! { <setup::MaelSetupPanel/> }.into_any()
    }
    /// The MAEL page: pools, learning phase, evaluation.
    fn learn_page() -> ViewFn {
        || view! { <learn::LearnPage/> }.into_any()
    }
}

lazy_part! { run_view:
    fn tree_panel() -> ViewFn {
        || view! { <tree_tab::CallTreePanel/> }.into_any()
    }
    fn experience_panel() -> ViewFn {
        || view! { <experience_tab::ExperiencePanel/> }.into_any()
    }
    fn team_panel() -> ViewFn {
        || view! { <team_panel::TeamPanel/> }.into_any()
    }
    fn retrievals_section() -> ViewFn {
        || view! { <retrievals::RetrievalsSection/> }.into_any()
    }
}

/// MAEL's row of the coordinators' table.
pub const UI: CoordinatorUi = CoordinatorUi {
    id: ID,
    what: "MAEL",
    task_title: "Task",
    setup: Some(Part {
        what: "the MAEL setup",
        view: || Box::pin(setup_panel()),
    }),
    launch: Launch {
        start: |app, paused| Box::pin(start(app, paused)),
        fork: |app, parent, k, edit| Box::pin(fork(app, parent, k, edit)),
    },
    tabs: &[
        ExtraTab {
            id: "tree",
            label: "Call tree",
            count_store: Some(STORE_TASK),
            what: "the call tree",
            view: || Box::pin(tree_panel()),
        },
        ExtraTab {
            id: "experience",
            label: "Experience",
            count_store: None,
            what: "the experience",
            view: || Box::pin(experience_panel()),
        },
    ],
    side_panels: &[Part {
        what: "the team",
        view: || Box::pin(team_panel()),
    }],
    exports: None,
    inspector: Some(Part {
        what: "the retrievals",
        view: || Box::pin(retrievals_section()),
    }),
    pages: &[Page {
        path: "mael",
        label: "MAEL",
        part: Part {
            what: "the MAEL page",
            view: || Box::pin(learn_page()),
        },
    }],
};
