//! The classroom: runs side by side (Compare), lessons (play, present,
//! write), the Lessons page, "Run a variant of this", and live classes. All of it loads
//! on first use with the run views (the `run_view` chunk: a lesson or a
//! comparison shows runs, and as a chunk of its own it shared so much with
//! them that the split made twice the files and a shared run opened ~10%
//! slower, measured); the start page does not grow.

mod bundle_io;
mod compare;
mod compare_diff;
mod editor;
mod editor_steps;
mod lessons_page;
pub(crate) mod live;
mod player;
mod variant;

use super::lazy::{lazy_part, ViewFn};

/// Where a tab in a live class keeps its seat (session storage).
pub const SEAT_KEY: &str = "roundtable.live.seat";
/// Where a teaching tab keeps its class's code and teacher token (session
/// storage: this tab only, so a reload takes the class back).
pub const TEACH_KEY: &str = "roundtable.live.teach";
use leptos::prelude::*;

lazy_part! { run_view:
    pub fn compare_page() -> ViewFn {
        || view! { <compare::ComparePage/> }.into_any()
    }
    pub fn lessons_page() -> ViewFn {
        || view! { <lessons_page::LessonsPage/> }.into_any()
    }
    pub fn lesson_panel() -> ViewFn {
        || view! { <player::LessonPanel/> }.into_any()
    }
    pub fn variant_dialog() -> ViewFn {
        || view! { <variant::VariantDialog/> }.into_any()
    }
    pub fn live_panel() -> ViewFn {
        || view! { <live::ClassPanel page=live::state::Page::Run/> }.into_any()
    }
    pub fn join_page() -> ViewFn {
        || view! { <live::JoinPage/> }.into_any()
    }
    pub fn start_live_class(app: crate::ui::state::AppState) {
        live::start(app)
    }
    pub fn rejoin_live_class(app: crate::ui::state::AppState) {
        live::rejoin(app);
        live::resume(app);
    }
}
