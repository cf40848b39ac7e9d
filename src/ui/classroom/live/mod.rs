//! Live classes in the page: the teacher's side (`teacher`, its panel),
//! the students' (`student`, its panel, the join page), and what both
//! keep (`state`). The relay is `roundtable serve`; the frames and what
//! they carry are `engine::live`. All of it is in the classroom's chunk.

mod join_page;
mod pump;
pub mod state;
mod student;
mod student_panel;
mod teacher;
mod teacher_panel;
mod teacher_questions;
mod teacher_shown;

pub use join_page::JoinPage;
pub use student::rejoin;
pub use teacher::{resume, start};

use crate::ui::state::{use_app, ClassRole};
use leptos::prelude::*;
use state::{class_state, Page};

/// The class's panel for this tab's part in it, on `page`.
#[component]
pub fn ClassPanel(page: Page) -> impl IntoView {
    let app = use_app();
    class_state().page.set(page);
    move || match app.class.get() {
        Some(ClassRole::Teacher) => Some(view! { <teacher_panel::TeacherPanel/> }.into_any()),
        Some(ClassRole::Student) => Some(view! { <student_panel::StudentPanel/> }.into_any()),
        None => None,
    }
}
