//! The classroom: runs side by side (Compare), lessons (play, present,
//! write), the Lessons page, and "Run a variant of this". All of it loads
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
mod player;
mod variant;

use super::lazy::{lazy_part, ViewFn};
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
}
