//! ACT's part of the app, its row in the coordinators' table ([`UI`]), in
//! chunks that load on first use:
//!
//! - `act`: starting and forking its runs (the coordinator, the demo
//!   model's team, ACT+'s knowledge bank opened from IndexedDB), the setup
//!   panel, and the ACT page (`/act`: the batch with the paper's tables,
//!   knowledge banks, imported task sets);
//! - `run_view` (with the transcript, as the other coordinators'): what an
//!   ACT run shows (the meeting room, the Meetings / Memory / Tasks /
//!   Output tabs, the memory inspector), folded here from the run's events
//!   (`view.rs`), so a shared ACT run opens without the coordinator.
//!
//! Nothing of it is in the core module.

mod launch;
mod page;
mod room_panel;
mod setup;
mod state;
mod tabs;
mod view;

use super::coordinators::{CoordinatorUi, ExtraTab, Launch, Page, Part};
use super::lazy::{lazy_part, ViewFn};
use super::state::AppState;
use crate::engine::coordinators::act::contract::{ID, STORE_KNOWLEDGE};
use crate::engine::model::fork::ForkEdit;
use crate::engine::run::RunDoc;
use leptos::prelude::*;

lazy_part! { act:
    /// Starts an ACT run on the selected task and variant.
    fn start(app: AppState, paused: bool) {
        launch::start(app, paused)
    }
    /// Forks an ACT run at LLM call `k`.
    fn fork(app: AppState, parent: RunDoc, k: u32, edit: ForkEdit) {
        launch::fork(app, parent, k, edit)
    }
    /// The task / variant / bank panel (left column).
    fn setup_panel() -> ViewFn {
        || view! { <setup::ActSetupPanel/> }.into_any()
    }
    /// The ACT page: batch, knowledge banks, task sets.
    fn act_page() -> ViewFn {
        || view! { <page::ActPage/> }.into_any()
    }
}

lazy_part! { run_view:
    fn meetings_panel() -> ViewFn {
        || view! { <tabs::MeetingsPanel/> }.into_any()
    }
    fn memory_panel() -> ViewFn {
        || view! { <tabs::MemoryPanel/> }.into_any()
    }
    fn tasks_panel() -> ViewFn {
        || view! { <tabs::TasksPanel/> }.into_any()
    }
    fn output_panel() -> ViewFn {
        || view! { <tabs::OutputPanel/> }.into_any()
    }
    fn room_panel() -> ViewFn {
        || view! { <room_panel::RoomPanel/> }.into_any()
    }
    fn memory_section() -> ViewFn {
        || view! { <tabs::MemorySection/> }.into_any()
    }
}

/// ACT's row of the coordinators' table.
pub const UI: CoordinatorUi = CoordinatorUi {
    id: ID,
    what: "ACT",
    task_title: "Task",
    setup: Some(Part {
        what: "the ACT setup",
        view: || Box::pin(setup_panel()),
    }),
    launch: Launch {
        start: |app, paused| Box::pin(start(app, paused)),
        fork: |app, parent, k, edit| Box::pin(fork(app, parent, k, edit)),
    },
    tabs: &[
        ExtraTab {
            id: "meetings",
            label: "Meetings",
            count_store: None,
            what: "the meetings",
            view: || Box::pin(meetings_panel()),
        },
        ExtraTab {
            id: "memory",
            label: "Memory",
            count_store: Some(STORE_KNOWLEDGE),
            what: "the agents' memory",
            view: || Box::pin(memory_panel()),
        },
        ExtraTab {
            id: "tasks",
            label: "Tasks",
            count_store: None,
            what: "the task evolution",
            view: || Box::pin(tasks_panel()),
        },
        ExtraTab {
            id: "output",
            label: "Output",
            count_store: None,
            what: "the output",
            view: || Box::pin(output_panel()),
        },
    ],
    side_panels: &[Part {
        what: "the meeting room",
        view: || Box::pin(room_panel()),
    }],
    exports: None,
    inspector: Some(Part {
        what: "the memory",
        view: || Box::pin(memory_section()),
    }),
    pages: &[Page {
        path: "act",
        label: "ACT",
        part: Part {
            what: "the ACT page",
            view: || Box::pin(act_page()),
        },
    }],
};
