//! A shown run's setup: when a run from History, a link, a file or a batch
//! is on screen, its coordinator's setup panel shows that run's config
//! (each part adopts it with [`on_shown`]) and is read-only until the user
//! chooses to edit it for a new run ([`ShownSetupBanner`]). A live run's
//! panel is the setup it was started from, so it needs neither.

use crate::engine::run::RunConfig;
use crate::ui::state::{use_app, Activity, AppState, Source};
use leptos::prelude::*;

/// The panel shows a stored run's setup and is not being edited.
pub fn locked(app: AppState) -> bool {
    !app.setup_unlocked.get()
        && app
            .shown
            .with(|s| s.as_ref().is_some_and(|s| s.source != Source::Live))
}

/// The setup fields are disabled: a run is going, or the panel shows a
/// stored run's setup.
pub fn disabled(app: AppState) -> Signal<bool> {
    Signal::derive(move || app.activity.get() != Activity::Idle || locked(app))
}

/// Calls `adopt` with the config of every stored run of `coordinator`
/// shown from now on (and of the one on screen), so the panel reflects it.
pub fn on_shown(app: AppState, coordinator: &'static str, adopt: impl Fn(&RunConfig) + 'static) {
    Effect::new(move |_| {
        app.shown.with(|s| {
            if let Some(s) = s
                .as_ref()
                .filter(|s| s.source != Source::Live && s.config.coordinator == coordinator)
            {
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
