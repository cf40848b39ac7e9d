//! The retrieval inspector, a section of an agent's inspector in MAEL
//! runs: for each of its steps, the experience it was shown and the
//! runners-up with the score's parts.

use super::view;
use crate::engine::coordinators::mael::html::memory::agent_retrievals_html;
use crate::ui::agent_section::AgentSection;
use leptos::prelude::*;

#[component]
pub fn RetrievalsSection() -> impl IntoView {
    let html = |app, agent: &str| view::read(app, |v| agent_retrievals_html(v, agent));
    view! { <AgentSection class="ml-retrievals" html=html/> }
}
