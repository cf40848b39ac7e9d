//! A coordinator's own section of the inspector, under the agent's name
//! (the travel orchestrator's reflections, ACT's memory, MAEL's
//! retrievals): in a file of its own, below the inspector, since the
//! coordinators' parts that use it are below the registry the inspector
//! reads.

use super::state::{use_app, AppState};
use leptos::prelude::*;

/// A coordinator's section of the inspector: `html` of the inspected
/// agent (from the paper's own view), in a `div` of `class`; rebuilt only
/// when it changes.
#[component]
pub fn AgentSection(class: &'static str, html: fn(AppState, &str) -> String) -> impl IntoView {
    let app = use_app();
    let html = Memo::new(move |_| {
        let agent = app.inspect.get().unwrap_or_default();
        html(app, &agent)
    });
    view! { <div class=class inner_html=html></div> }
}
