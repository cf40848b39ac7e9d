//! The inspector: one agent's private activity (its tool calls and results,
//! the hand-offs it gave or received, every LLM call with its answer), as
//! of the replay cursor, for every coordinator; under the agent's name, the
//! shown run's coordinator may add its own section (the travel
//! orchestrator's reflections). Opened by clicking a node of the agent
//! graph. The view is folded here, in the `extras` chunk; HTML from
//! `views::html::inspector` (all text escaped).

use super::coordinators::{shown_ui, ui_of};
use super::fold::{self, Folded};
use super::lazy::lazy_view;
use super::state::use_app;
use crate::engine::views::html::esc;
use crate::engine::views::html::inspector::{activity_html, agent_head_html};
use crate::engine::views::inspector::InspectorView;
use leptos::prelude::*;
use std::cell::RefCell;

thread_local! {
    static VIEW: RefCell<Folded<InspectorView>> = RefCell::new(Folded::default());
}

#[component]
pub fn InspectorPanel() -> impl IntoView {
    let app = use_app();
    let agent = move || app.inspect.get().unwrap_or_default();
    let present = Memo::new(move |_| {
        let agent = agent();
        app.view.with(|v| v.graph.node(&agent).is_some())
    });
    // Memos: the DOM changes only when this agent's activity does.
    let head = Memo::new(move |_| {
        let agent = agent();
        fold::read(&VIEW, app, |v| agent_head_html(v, &agent))
    });
    let activity = Memo::new(move |_| {
        let agent = agent();
        if !present.get() {
            return format!(
                "<p class=\"muted small\">{} is not in this run (yet).</p>",
                esc(&agent)
            );
        }
        fold::read(&VIEW, app, |v| activity_html(v, &agent))
    });
    let shown = Memo::new(move |_| shown_ui(app).id);
    let section = move || {
        ui_of(shown.get())
            .inspector
            .as_ref()
            .map(|p| lazy_view(p.what, p.view))
    };
    view! {
            <section class="panel inspector-panel" role="region" aria-label="Inspector">
                <div class="panel-head">
                    <h2 class="panel-title">"Inspector"</h2>
                    <button type="button" class="icon-button small" title="Close the inspector"
                        aria-label="Close the inspector" on:click=move |_| app.inspect.set(None)>"×"</button>
                </div>
                <div class="inspector-body">
                    <div class="tp-inspector" data-agent=agent>
                        <Show when=move || present.get()>
                            <div inner_html=head></div>
                        </Show>
                        {section}
                        <div inner_html=activity></div>
                    </div>
                </div>
            </section>
    }
}
