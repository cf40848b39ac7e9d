//! The Leptos UI. Every panel reads views folded from the run's event log.

mod controls;
mod events_tab;
mod graph;
mod header;
mod run_page;
mod settings_dialog;
pub mod state;
mod theme;
mod transcript;
mod usage;

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

#[component]
pub fn App() -> impl IntoView {
    let state = state::AppState::new();
    provide_context(state);
    theme::apply(state.settings.get_untracked().theme.as_str());
    view! {
        <Router>
            <header::Header/>
            <Routes fallback=|| view! { <run_page::RunPage/> }>
                <Route path=path!("/") view=run_page::RunPage/>
            </Routes>
            <settings_dialog::SettingsDialog/>
        </Router>
    }
}

/// Mounts the app and marks the document ready (tests and benchmarks wait for it).
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
    // The moment the app is interactive, relative to navigation start.
    let window = web_sys::window();
    let now = window
        .as_ref()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0);
    if let Some(body) = window.and_then(|w| w.document()).and_then(|d| d.body()) {
        let _ = body.set_attribute("data-ready", "1");
        let _ = body.set_attribute("data-ready-ms", &format!("{now:.1}"));
    }
}
