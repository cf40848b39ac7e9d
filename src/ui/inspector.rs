//! The inspector: one agent's private activity (its tool calls and
//! results, the orchestrator's reflections, every LLM call with its answer),
//! as of the replay cursor. Opened by clicking a node of the agent graph;
//! HTML from `views::html::travel` (all text escaped).

use super::state::use_app;
use crate::engine::views::html::inspector_html;
use leptos::prelude::*;

#[component]
pub fn InspectorPanel() -> impl IntoView {
    let app = use_app();
    // A memo: the DOM changes only when this agent's activity does.
    let body = Memo::new(move |_| {
        let agent = app.inspect.get().unwrap_or_default();
        app.view.with(|v| {
            if v.graph.node(&agent).is_none() {
                format!(
                    "<p class=\"muted small\">{} is not in this run (yet).</p>",
                    crate::engine::views::html::esc(&agent)
                )
            } else {
                inspector_html(&v.travel, &agent)
            }
        })
    });
    view! {
            <section class="panel inspector-panel" role="region" aria-label="Inspector">
                <div class="panel-head">
                    <h2 class="panel-title">"Inspector"</h2>
                    <button type="button" class="icon-button small" title="Close the inspector"
                        aria-label="Close the inspector" on:click=move |_| app.inspect.set(None)>"×"</button>
                </div>
                <div class="inspector-body" inner_html=body></div>
            </section>
    }
}
