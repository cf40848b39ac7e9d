//! A shown run's setup: when a run from History, a link, a file or a batch
//! is on screen, its coordinator's setup panel shows that run's config
//! (each part adopts it with [`on_shown`]) and is read-only until the user
//! chooses to edit it for a new run ([`ShownSetupBanner`]). A live run's
//! panel is editable once the run ends; a live run the panel did not start
//! (a fork, a variant) is adopted too, so the panel shows what it ran.

use crate::engine::run::RunConfig;
use crate::ui::state::{use_app, Activity, AppState, Source};
use leptos::prelude::*;
use std::cell::RefCell;
use std::collections::BTreeMap;

thread_local! {
    /// The showing of a run (`AppState::run_serial`) each coordinator's panel
    /// last adopted: a run is adopted once each time it is put on screen, so
    /// saving it to History or coming back to the Run page does not undo
    /// what the user edited since; opening it again does.
    static ADOPTED: RefCell<BTreeMap<&'static str, u64>> = const { RefCell::new(BTreeMap::new()) };
}

/// The panel of the coordinator picked shows a stored run's setup (of that
/// coordinator) and is not being edited.
pub fn locked(app: AppState) -> bool {
    !app.setup_unlocked.get()
        && app.shown.with(|s| {
            s.as_ref().is_some_and(|s| {
                s.source != Source::Live && app.coordinator.with(|c| *c == s.config.coordinator)
            })
        })
}

/// The setup fields are disabled: a run is going, or the panel shows a
/// stored run's setup.
pub fn disabled(app: AppState) -> Signal<bool> {
    Signal::derive(move || app.activity.get() != Activity::Idle || locked(app))
}

/// Calls `adopt` with the config of every stored run, fork and variant of
/// `coordinator` shown from now on (and of the one on screen), once each
/// time one is put on screen, so the panel reflects it.
pub fn on_shown(app: AppState, coordinator: &'static str, adopt: impl Fn(&RunConfig) + 'static) {
    Effect::new(move |_| {
        app.shown.with(|s| {
            // A live run the panel started is its setup already; a fork or
            // a variant (a live run with a parent) is not.
            let Some(s) = s.as_ref().filter(|s| {
                s.config.coordinator == coordinator
                    && (s.source != Source::Live || s.config.parent.is_some())
            }) else {
                return;
            };
            let serial = app.run_serial();
            let first =
                ADOPTED.with(|a| a.borrow_mut().insert(coordinator, serial) != Some(serial));
            if first {
                adopt(&s.config);
            }
        })
    });
}

/// Above a locked panel: what it shows, and the way to a new run.
#[component]
pub fn ShownSetupBanner() -> impl IntoView {
    let app = use_app();
    view! {
        <Show when=move || locked(app)>
            <div class="shown-setup small" role="note" data-testid="shown-setup">
                <span>"This is the setup of the run on screen."</span>
                <button type="button" class="button small" on:click=move |_| app.setup_unlocked.set(true)>
                    "Edit for a new run"
                </button>
            </div>
        </Show>
    }
}
