//! The streamed transcript. Entries are HTML from `views::html` (names
//! escaped, model output as safe Markdown: raw HTML shown as text, never
//! executed); only entries from the first one that changed are re-rendered.
//! "Fork here" buttons are handled by one click listener on the log. The
//! entries (and the Markdown renderer) are in the `run_view` chunk, loaded
//! with the first run shown; the empty state is in the core module.

use super::lazy::{lazy_view, lazy_views};
use super::state::{use_app, Activity, Source};
use crate::engine::views::html::agents::AgentMarks;
use crate::engine::views::html::{entry_html_with, graph as graph_svg};
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

lazy_views! { run_view: entries_view => Entries }

/// Entries rendered with the run; a longer transcript (a shared run, one
/// from History) gets the rest after that frame is painted, [`MORE`] per
/// frame, so the page shows the run without first laying out the whole log.
const FIRST: usize = 24;
const MORE: usize = 48;

/// One element per entry. The DOM follows the entries by their (id,
/// version) keys within a run: from the first key that differs, the old
/// elements go and the new ones come in with one HTML insert (one parse,
/// however many). A streamed token changes only the last entry; another run
/// (a link opened, a file dropped) starts the list over.
#[component]
fn Entries() -> impl IntoView {
    let app = use_app();
    let list = NodeRef::<html::Div>::new();
    let run = StoredValue::new(None::<String>);
    let shown = StoredValue::new(Vec::<(u64, u32)>::new());
    // The avatars' colours and initials, the graph's: an agent that joins
    // can change the others' initials, and then every entry is redrawn.
    let marked = StoredValue::new(AgentMarks::default());
    let limit = RwSignal::new(FIRST);
    Effect::new(move |_| {
        let Some(el) = list.get() else { return };
        let run_id = app
            .shown
            .with(|s| s.as_ref().map(|s| s.config.run_id.clone()));
        if run.with_value(|r| *r != run_id) {
            run.set_value(run_id);
            shown.update_value(Vec::clear);
            limit.update_untracked(|l| *l = FIRST);
        }
        let max = limit.get();
        let more = app.view.with(|v| {
            let marks = graph_svg::marks(&v.graph);
            if marked.with_value(|m| *m != marks) {
                marked.set_value(marks);
                shown.update_value(Vec::clear);
            }
            let all = &v.transcript.entries;
            let entries = &all[..all.len().min(max)];
            shown.update_value(|keys| {
                let same = keys
                    .iter()
                    .zip(entries)
                    .take_while(|(k, e)| **k == (e.id, e.version))
                    .count();
                while el.child_element_count() as usize > same {
                    match el.last_element_child() {
                        Some(last) => last.remove(),
                        None => break,
                    }
                }
                keys.truncate(same);
                let mut html = String::new();
                for e in &entries[same..] {
                    html.push_str("<div class=\"entry\">");
                    html.push_str(&marked.with_value(|m| entry_html_with(e, &v.transcript, m)));
                    html.push_str("</div>");
                    keys.push((e.id, e.version));
                }
                if !html.is_empty() {
                    let _ = el.insert_adjacent_html("beforeend", &html);
                }
            });
            all.len() > max
        });
        let _ = el.set_attribute("data-complete", if more { "false" } else { "true" });
        if more {
            // After this frame is painted (the timeout set in its animation
            // frame runs after the paint), not in it.
            request_animation_frame(move || {
                set_timeout(
                    move || limit.update(|l| *l = l.saturating_add(MORE)),
                    std::time::Duration::ZERO,
                )
            });
        } else if max != usize::MAX {
            // All shown: from now on the list follows the run as it grows.
            limit.set(usize::MAX);
        }
    });
    view! { <div class="entries" node_ref=list></div> }
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
    // Follow the end of the log while it grows (a live run, or a replay
    // playing), in the next frame: reading the height here would force a
    // layout on every update. A run opened from History or a link starts at
    // the top, and costs no extra layout.
    let pending = StoredValue::new(false);
    Effect::new(move |_| {
        app.view.track();
        let growing = app.playing.get()
            || app
                .shown
                .with(|s| s.as_ref().is_some_and(|s| s.source == Source::Live));
        if growing && stick.get_value() && !pending.get_value() {
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
        // Focusable: a keyboard scrolls it even when no entry has a control.
        <div class="transcript" class:busy=move || app.activity.get() != Activity::Idle tabindex="0"
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
