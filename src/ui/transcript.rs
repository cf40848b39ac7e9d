//! The streamed transcript. Entries are HTML from `views::html` (names
//! escaped, model output as safe Markdown: raw HTML shown as text, never
//! executed); only the entry that changed is re-rendered. "Fork here"
//! buttons are handled by one click listener on the log. The entries (and
//! the Markdown renderer) are the `transcript` chunk, loaded with the first
//! run shown; the empty state is in the core module.

use super::lazy::{lazy_part, lazy_view, ViewFn};
use super::state::{use_app, Activity};
use crate::engine::views::html::entry_html;
use crate::engine::views::transcript::Entry;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

lazy_part! { run_view:
    fn entries_view() -> ViewFn {
        || view! { <Entries/> }.into_any()
    }
}

/// One element per entry, keyed by its id and version.
#[component]
fn Entries() -> impl IntoView {
    let app = use_app();
    let entries = move || app.view.with(|v| v.transcript.entries.clone());
    view! {
        <For
            each=entries
            key=|e: &Entry| (e.id, e.version)
            children=move |e: Entry| {
                let html = app.view.with_untracked(|v| entry_html(&e, &v.transcript));
                view! { <div class="entry" inner_html=html></div> }
            }
        />
    }
}

/// The `data-action` button a click landed on, with its element.
pub fn clicked_action(ev: &leptos::ev::MouseEvent) -> Option<(String, web_sys::Element)> {
    let target = ev.target()?.dyn_into::<web_sys::Element>().ok()?;
    let button = target.closest("[data-action]").ok()??;
    Some((button.get_attribute("data-action")?, button))
}

#[component]
pub fn TranscriptPanel() -> impl IntoView {
    let app = use_app();
    let log_ref = NodeRef::<html::Div>::new();
    let stick = StoredValue::new(true);
    let on_scroll = move |_| {
        if let Some(el) = log_ref.get_untracked() {
            stick.set_value(el.scroll_top() + el.client_height() >= el.scroll_height() - 48);
        }
    };
    // Follow the end of the log, in the next frame: reading the height here
    // would force a layout on every update (the first one costs ~100 ms).
    let pending = StoredValue::new(false);
    Effect::new(move |_| {
        app.view.track();
        if stick.get_value() && !pending.get_value() {
            pending.set_value(true);
            request_animation_frame(move || {
                pending.set_value(false);
                // The panel may be gone by the next frame (another tab).
                if let Some(el) = log_ref.try_get_untracked().flatten() {
                    el.set_scroll_top(el.scroll_height());
                }
            });
        }
    });
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if let Some((action, el)) = clicked_action(&ev) {
            if action == "fork" && app.activity.get_untracked() == Activity::Idle {
                app.fork_at
                    .set(el.get_attribute("data-call").and_then(|c| c.parse().ok()));
            }
        }
    };
    view! {
        <div class="transcript" class:busy=move || app.activity.get() != Activity::Idle
            role="log" aria-label="Transcript" aria-live="polite" node_ref=log_ref on:scroll=on_scroll on:click=on_click>
            <Show when=move || app.events.with(|e| !e.is_empty()) fallback=|| view! { <EmptyTranscript/> }>
                {lazy_view("the transcript", entries_view)}
            </Show>
        </div>
    }
}

#[component]
fn EmptyTranscript() -> impl IntoView {
    let app = use_app();
    view! {
        <div class="empty">
            <svg viewBox="0 0 120 80" class="empty-art" aria-hidden="true">
                <ellipse cx="60" cy="44" rx="34" ry="18" class="table"/>
                <circle cx="60" cy="16" r="7" class="seat"/>
                <circle cx="22" cy="40" r="7" class="seat"/>
                <circle cx="98" cy="40" r="7" class="seat"/>
                <circle cx="40" cy="70" r="7" class="seat"/>
                <circle cx="80" cy="70" r="7" class="seat"/>
            </svg>
            <h3>"No run yet"</h3>
            <p class="muted">"Write a task and press Run. The conversation streams here as the agents work."</p>
            {move || app.settings.with(|s| s.is_demo()).then(|| view! {
                <p class="muted small">"You are on the offline demo model: scripted answers, no key needed. Open Settings to use a real provider."</p>
            })}
        </div>
    }
}
