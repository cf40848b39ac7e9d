//! The classroom: runs side by side (Compare), lessons (play, present,
//! write), the Lessons page, and "Run a variant of this". All of it is the
//! `classroom` chunk, loaded on first use: the start page does not grow.

mod bundle_io;
mod compare;
mod editor;
mod lessons_page;
mod player;
mod variant;

use super::lazy::{lazy_part, ViewFn};
use leptos::prelude::*;

lazy_part! { classroom:
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
