//! The orchestrator's reflections, a section of its inspector: for each of
//! its steps, what is done, missing and conflicting, whom it chose and why,
//! and any fallback taken on an unusable answer.

use super::view;
use crate::engine::coordinators::travel::html::reflections_html;
use crate::ui::agent_section::AgentSection;
use leptos::prelude::*;

#[component]
pub fn ReflectionsSection() -> impl IntoView {
    let html = |app, agent: &str| view::read(app, |t| reflections_html(t, agent));
    view! { <AgentSection class="tp-reflections" html=html/> }
}
