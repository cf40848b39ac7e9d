//! The raw event log: one row per event (HTML from `views::html`),
//! expandable to its JSON.

use super::run_tabs::use_tabs;
use super::state::use_app;
use crate::engine::run::LoggedEvent;
use crate::engine::views::html::event_row;
use leptos::prelude::*;

#[component]
pub fn EventsTab() -> impl IntoView {
    let app = use_app();
    let hide_deltas = RwSignal::new(false);
    let rows = move || {
        let hide = hide_deltas.get();
        let shown = app.position();
        app.events.with(|evs| {
            evs[..shown.min(evs.len())]
                .iter()
                .filter(|e| !(hide && e.event.kind() == "llm_delta"))
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    // Sent here from another view: open that event and bring it into view.
    if let Some(tabs) = use_tabs() {
        Effect::new(move |_| {
            let Some(seq) = tabs.focus_seq.get() else {
                return;
            };
            request_animation_frame(move || {
                // One highlighted event at a time.
                if let Some(old) = document().query_selector(".event.focused").ok().flatten() {
                    let _ = old.class_list().remove_1("focused");
                }
                let Some(el) = document().get_element_by_id(&format!("ev-{seq}")) else {
                    return;
                };
                if let Ok(Some(d)) = el.query_selector("details") {
                    let _ = d.set_attribute("open", "");
                }
                let _ = el.class_list().add_1("focused");
                el.scroll_into_view();
            });
            tabs.focus_seq.set(None);
        });
    }
    view! {
        <div class="events">
            <div class="events-toolbar">
                <span class="muted small">{move || format!("{} events", app.position())}</span>
                <label class="check small">
                    <input type="checkbox" prop:checked=move || hide_deltas.get() on:change=move |ev| hide_deltas.set(event_target_checked(&ev))/>
                    "Hide stream deltas"
                </label>
            </div>
            <Show when=move || app.events.with(|e| !e.is_empty()) fallback=|| view! { <p class="muted empty-note">"The run's events appear here, one per line, as they happen."</p> }>
                <ol class="event-list" aria-label="Events">
                    <For
                        each=rows
                        key=|e: &LoggedEvent| e.seq
                        children=move |e: LoggedEvent| {
                            let kind = e.event.kind();
                            view! { <li class=format!("event ev-{kind}") id=format!("ev-{}", e.seq) data-kind=kind inner_html=event_row(&e)></li> }
                        }
                    />
                </ol>
            </Show>
        </div>
    }
}
