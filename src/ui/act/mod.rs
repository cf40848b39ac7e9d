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

use super::coordinator_row::{launch_from, lazy_launch, CoordinatorUi, ExtraTab, Page, Part};
use super::lazy::lazy_views;
use crate::engine::coordinators::act::contract::{ID, STORE_KNOWLEDGE};
use leptos::prelude::*;

lazy_launch!(act);

lazy_views! { act:
    /// The task / variant / bank panel (left column).
    setup_panel => setup::ActSetupPanel,
    /// The ACT page: batch, knowledge banks, task sets.
    act_page => page::ActPage,
}

lazy_views! { run_view:
    meetings_panel => tabs::MeetingsPanel,
    memory_panel => tabs::MemoryPanel,
    tasks_panel => tabs::TasksPanel,
    output_panel => tabs::OutputPanel,
    room_panel => room_panel::RoomPanel,
    memory_section => tabs::MemorySection,
}

/// "Run a variant of this": every variant but ACT+, which needs its
/// knowledge bank as it was.
fn variants() -> Vec<(&'static str, &'static str)> {
    use crate::engine::coordinators::act::contract::Variant;
    Variant::ALL
        .iter()
        .filter(|v| **v != Variant::ActPlus)
        .map(|v| (v.id(), v.label()))
        .collect()
}

/// ACT's row of the coordinators' table.
pub const UI: CoordinatorUi = CoordinatorUi {
    id: ID,
    what: "ACT",
    task_title: "Task",
    setup: Some(Part::new("the ACT setup", || Box::pin(setup_panel()))),
    launch: launch_from!(start, fork),
    tabs: &[
        ExtraTab::new("meetings", "Meetings", "the meetings", || {
            Box::pin(meetings_panel())
        }),
        ExtraTab::new("memory", "Memory", "the agents' memory", || {
            Box::pin(memory_panel())
        })
        .counting(STORE_KNOWLEDGE),
        ExtraTab::new("tasks", "Tasks", "the task evolution", || {
            Box::pin(tasks_panel())
        }),
        ExtraTab::new(
            "output",
            "Output",
            "the output",
            || Box::pin(output_panel()),
        ),
    ],
    side_panels: &[Part::new("the meeting room", || Box::pin(room_panel()))],
    exports: None,
    inspector: Some(Part::new("the memory", || Box::pin(memory_section()))),
    pages: &[Page::new(
        "act",
        "ACT",
        Part::new("the ACT page", || Box::pin(act_page())),
    )],
    variants,
};
