//! The notebook tab: every entry the experts' tool calls wrote, with its
//! author, the call it came from (a link to that event) and the result as a
//! table; above it, who handed control to whom and why.

use super::run_tabs::use_tabs;
use super::state::use_app;
use super::transcript::clicked_action;
use crate::engine::views::html::{handoffs_html, notebook_html};
use leptos::prelude::*;

#[component]
pub fn NotebookPanel() -> impl IntoView {
    let app = use_app();
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some((action, el)) = clicked_action(&ev) else {
            return;
        };
        if action == "show-event" {
            let seq = el.get_attribute("data-seq").and_then(|s| s.parse().ok());
            if let (Some(seq), Some(tabs)) = (seq, use_tabs()) {
                tabs.show_event(seq);
            }
        }
    };
    let handoffs = move || app.view.with(|v| v.travel.handoffs.len());
    // Memos: the HTML (and so the DOM, and any <details> the user opened)
    // changes only when the notebook does, not on every streamed token.
    let handoffs_html = Memo::new(move |_| app.view.with(|v| handoffs_html(&v.travel)));
    let notebook_html = Memo::new(move |_| app.view.with(|v| notebook_html(&v.travel)));
    view! {
        <div class="notebook-tab" on:click=on_click>
            <details class="handoffs">
                <summary>{move || format!("Hand-offs ({})", handoffs())}</summary>
                <div inner_html=handoffs_html></div>
            </details>
            <div class="notebook" role="region" aria-label="Notebook"
                inner_html=notebook_html></div>
        </div>
    }
}
