//! What the Run page says about the chosen model before and during a run,
//! at the foot of each team coordinator's setup panel (so it loads with
//! their parts, not with the start page; the single agent's prompts depend
//! on its task, and its reply is never read as JSON):
//! before, whether an in-page model suits the coordinator (context, size,
//! the wait its reading speed implies: `engine::model::fit`); during,
//! once most replies could not be read, that the model is not following
//! the steps, with a way to the flagged replies.

use super::run_tabs::{use_tabs, RunTabs, Tab};
use super::state::{use_app, Activity};
use crate::engine::coordinators;
use crate::engine::model::fit::fit_notes;
use crate::platform::model_facts;
use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::JsCast;

/// Before a run on an in-page model: what it can and cannot do here.
#[component]
pub fn FitNote() -> impl IntoView {
    let app = use_app();
    let notes = move || {
        if app.activity.get() != Activity::Idle {
            return Vec::new();
        }
        let (local, sha) = app
            .settings
            .with(|s| (s.model_spec().is_local(), s.local_model.clone()));
        let coordinator = app.coordinator.get();
        match (local, coordinators::info(&coordinator)) {
            (true, Some(c)) => fit_notes(c.called, c.peak_prompt_tokens, &model_facts::facts(&sha)),
            _ => Vec::new(),
        }
    };
    view! {
        <Show when=move || !notes().is_empty()>
            <div class="notice fit-note" role="note" data-testid="fit-note">
                <ul>{move || notes().into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            </div>
        </Show>
    }
}

/// Opens the Transcript tab and, once its entries are drawn, the first
/// reply that could not be read (else the first repaired one): opened,
/// scrolled to and focused.
fn show_first_flag(tabs: Option<RunTabs>) {
    if let Some(t) = tabs {
        t.tab.set(Tab::Transcript);
    }
    // The tab draws its entries over a few frames: look again for a while.
    fn find(tries: u32) {
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let mark = doc
            .query_selector(".repair-mark[data-unreadable]")
            .ok()
            .flatten()
            .or_else(|| doc.query_selector(".repair-mark").ok().flatten());
        let complete = doc
            .query_selector(".entries[data-complete=\"true\"]")
            .ok()
            .flatten()
            .is_some();
        match mark {
            Some(mark) if complete || mark.has_attribute("data-unreadable") => {
                mark.scroll_into_view();
                let _ = mark.set_attribute("open", "");
                if let Ok(Some(summary)) = mark.query_selector("summary") {
                    if let Ok(s) = summary.dyn_into::<web_sys::HtmlElement>() {
                        let _ = s.focus();
                    }
                }
            }
            _ if tries > 0 => set_timeout(move || find(tries - 1), Duration::from_millis(100)),
            _ => {}
        }
    }
    find(50);
}

/// During or after a run: most replies could not be read.
#[component]
pub fn UnreadableNotice() -> impl IntoView {
    let app = use_app();
    let tabs = use_tabs();
    move || {
        app.view.with(|v| v.status.mostly_unreadable().map(|nm| (nm, v.status.unreadable_at_limit()))).map(|((n, m), at_limit)| {
            let text = match at_limit {
                Some((k, tokens)) => format!("{n} of {m} replies could not be read, {k} of them because they were cut off at {tokens} tokens before the model finished them (Longest answer in Settings, or the step's own limit). Raise Longest answer (256 or more suits these steps) and run again; each such reply is flagged."),
                None => format!("{n} of {m} replies could not be read: this model is not following the steps' formats, so they used stated defaults or asked again (each such reply is flagged). A larger model, or temperature 0, may do better."),
            };
            view! {
                <div class="notice warning" role="status" data-testid="mostly-unreadable">
                    <p>{text}</p>
                    <button class="button small" on:click=move |_| show_first_flag(tabs)>"Show the flagged replies"</button>
                </div>
            }
        })
    }
}
