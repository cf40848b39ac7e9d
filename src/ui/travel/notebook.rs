//! The notebook tab: every entry the experts' tool calls wrote, with its
//! author, the call it came from (a link to that event) and the result as a
//! table; above it, who handed control to whom and why.

use super::view;
use crate::engine::coordinators::travel::html::notebook_html;
use crate::engine::views::html::handoffs_html;
use crate::ui::run_tabs::use_tabs;
use crate::ui::state::use_app;
use crate::ui::transcript::clicked_action;
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
    // Both lists only grow within a run, so the run and the seq of their
    // last item say when they changed: the HTML is built (and the DOM, with
    // any <details> the user opened, replaced) only then, not on every
    // streamed token.
    let handoffs = Memo::new(move |_| view::read_handoffs(app, |h| h.items.len()));
    let handoffs_key = Memo::new(move |_| {
        let last = view::read_handoffs(app, |h| h.items.last().map(|x| x.seq));
        (app.run_serial(), last)
    });
    let notebook_key = Memo::new(move |_| {
        let last = view::read(app, |v| v.notebook.last().map(|c| c.seq));
        (app.run_serial(), last)
    });
    let handoffs_html = Memo::new(move |_| {
        handoffs_key.track();
        untrack(|| view::read_handoffs(app, handoffs_html))
    });
    let notebook_html = Memo::new(move |_| {
        notebook_key.track();
        untrack(|| view::read(app, notebook_html))
    });
    view! {
        <div class="notebook-tab" on:click=on_click>
            <details class="handoffs">
                <summary>{move || format!("Hand-offs ({})", handoffs.get())}</summary>
                <div inner_html=handoffs_html></div>
            </details>
            <div class="notebook" role="region" aria-label="Notebook"
                inner_html=notebook_html></div>
        </div>
    }
}
