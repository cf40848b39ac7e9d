//! Prompts in the page. The core holds what a new run takes: the edited
//! templates per coordinator (`AppState::prompt_edits`, kept in
//! localStorage by `platform::prompt_edits`, put in every new run's config
//! by `AppState::new_config`), and the setup's line that says how many are
//! edited, what the run on screen was told, and opens the editor. The
//! editor (every coordinator's defaults, the checks, the preview and the
//! diff) is a dialog in a chunk of its own, loaded when it is first opened.
//! A run on screen never replaces the user's edits by itself: its line
//! offers to.

mod editor;

use crate::ui::lazy::{lazy_part, ViewFn};
use crate::ui::state::{use_app, Activity, AppState, Source};
use leptos::prelude::*;
use std::collections::BTreeMap;

lazy_part! { prompts:
    pub fn editor_dialog() -> ViewFn {
        || view! { <editor::PromptsDialog/> }.into_any()
    }
    /// How two runs of `coordinator` were told differently, as HTML (empty
    /// when they were told the same): each run's label and edits.
    pub fn diff_of(
        coordinator: String,
        a: (String, BTreeMap<String, String>),
        b: (String, BTreeMap<String, String>)
    ) -> String {
        editor::diff_of(&coordinator, (&a.0, &a.1), (&b.0, &b.1))
    }
}

/// Sets the edits new runs of `coordinator` take, and keeps them.
pub fn set_edits(app: AppState, coordinator: &str, edits: BTreeMap<String, String>) {
    app.prompt_edits.update(|m| {
        if edits.is_empty() {
            m.remove(coordinator);
        } else {
            m.insert(coordinator.to_string(), edits);
        }
    });
    let all = app.prompt_edits.get_untracked();
    if let Err(e) = crate::platform::prompt_edits::save(&all) {
        app.storage_error
            .set(Some(format!("The edited prompts could not be kept: {e}")));
    }
}

fn count(n: usize) -> String {
    match n {
        1 => "1 template".to_string(),
        n => format!("{n} templates"),
    }
}

/// Under the setup: the prompts a new run takes (the paper's, or how many
/// templates are edited) and the way to the editor; when a stored run of
/// this coordinator is on screen and was told otherwise, what it was told,
/// and the offer to take its prompts for a new run.
#[component]
pub fn PromptsLine() -> impl IntoView {
    let app = use_app();
    let mine = move || {
        let c = app.coordinator.get();
        app.prompt_edits
            .with(|m| m.get(&c).cloned().unwrap_or_default())
    };
    // The shown run's prompts, when it is another run of this coordinator
    // and they are not the ones a new run takes.
    let shown = move || {
        let c = app.coordinator.get();
        app.shown
            .with(|s| {
                s.as_ref()
                    .filter(|s| {
                        s.config.coordinator == c
                            && (s.source != Source::Live || s.config.parent.is_some())
                    })
                    .map(|s| s.config.prompts.clone())
            })
            .filter(|p| *p != mine())
    };
    let take = move |_| {
        let Some(p) = shown() else { return };
        let n = mine().len();
        // The user's own edits are not replaced without asking.
        let asked = n == 0
            || web_sys::window().is_some_and(|w| {
                w.confirm_with_message(&format!(
                    "Replace your {} edited with the run's prompts? (Export them first from the Prompts dialog to keep a copy.)",
                    count(n)
                ))
                .unwrap_or(false)
            });
        if asked {
            set_edits(app, &app.coordinator.get_untracked(), p);
        }
    };
    view! {
        <div class="prompts-line small" data-testid="prompts-line">
            <p>
                {move || match mine().len() {
                    0 => "Prompts: the paper's, as written for Roundtable.".to_string(),
                    n => format!("Prompts edited: {}.", count(n)),
                }}
                " "
                <button type="button" class="link-button small"
                    disabled=move || app.activity.get() != Activity::Idle
                    on:click=move |_| app.prompts_open.set(Some(app.coordinator.get_untracked()))>
                    {move || if mine().is_empty() { "Read or edit them…" } else { "Edit…" }}
                </button>
            </p>
            {move || shown().map(|p| view! {
                <p class="muted" data-testid="shown-prompts">
                    {match p.len() {
                        0 => "The run on screen was told the paper's prompts.".to_string(),
                        n => format!("The run on screen was told other prompts: {} edited.", count(n)),
                    }}
                    " "
                    <button type="button" class="link-button small"
                        disabled=move || app.activity.get() != Activity::Idle
                        on:click=take>
                        "Use them for a new run"
                    </button>
                </p>
            })}
        </div>
    }
}
