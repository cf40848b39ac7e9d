//! The retrieval inspector, a section of an agent's inspector in MAEL
//! runs: for each of its steps, the experience it was shown and the
//! runners-up with the score's parts.

use super::view;
use crate::engine::coordinators::mael::html::memory::agent_retrievals_html;
use crate::ui::state::use_app;
use leptos::prelude::*;

#[component]
pub fn RetrievalsSection() -> impl IntoView {
    let app = use_app();
    let html = Memo::new(move |_| {
        let agent = app.inspect.get().unwrap_or_default();
        view::read(app, |v| agent_retrievals_html(v, &agent))
    });
    view! { <div class="ml-retrievals" inner_html=html></div> }
}
