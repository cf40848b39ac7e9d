//! The orchestrator's reflections, a section of its inspector: for each of
//! its steps, what is done, missing and conflicting, whom it chose and why,
//! and any fallback taken on an unusable answer.

use super::view;
use crate::engine::coordinators::travel::html::reflections_html;
use crate::ui::state::use_app;
use leptos::prelude::*;

#[component]
pub fn ReflectionsSection() -> impl IntoView {
    let app = use_app();
    let html = Memo::new(move |_| {
        let agent = app.inspect.get().unwrap_or_default();
        view::read(app, |t| reflections_html(t, &agent))
    });
    view! { <div class="tp-reflections" inner_html=html></div> }
}
