//! The setup panels' sampling line for the model chosen in Settings (the
//! sentence is `engine::views::sampling`'s).

use crate::engine::views::sampling::{sampling_line, structured_line, TemperatureSource};
use crate::ui::state::use_app;
use leptos::prelude::*;

/// The setup panel's sampling line for the model chosen in Settings (for
/// the run on screen when the panel shows a stored run's setup).
#[component]
pub fn SamplingNote(sampling: TemperatureSource, testid: &'static str) -> impl IntoView {
    let app = use_app();
    // The model the setup is for.
    let line = move || {
        let shown = super::shown_setup::locked(app)
            .then(|| {
                app.shown
                    .with(|s| s.as_ref().and_then(|s| s.config.model_for("*").cloned()))
            })
            .flatten();
        shown.unwrap_or_else(|| app.settings.with(|s| s.model_spec()))
    };
    let sampled = move || sampling_line(sampling, &line());
    let structured = move || structured_line(&line());
    view! {
        <p class="small muted" data-testid=testid>{sampled}</p>
        <p class="small muted" data-testid="structured-note">{structured}</p>
    }
}
