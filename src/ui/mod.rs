//! The Leptos UI. Every panel reads views folded from the run's event log.

mod batch;
mod controls;
mod events_tab;
mod exports;
mod fork;
mod graph;
mod header;
mod history;
mod inspector;
pub(crate) mod lazy;
mod provider;
mod replay;
mod run_page;
mod run_tabs;
mod settings_dialog;
mod share;
pub mod state;
mod theme;
mod toolbar;
mod transcript;
mod travel;
mod usage;

use crate::engine::share as links;
use crate::platform::{files, location, perf};
use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;
use state::{AppState, Notice, Source};

/// Opens the run in the URL fragment (`#run=…`), if there is one. The
/// decoder (and its dictionaries) is the `link` chunk.
fn open_link(app: AppState) {
    let hash = location::hash();
    if !hash.starts_with(&format!("#{}", links::FRAGMENT_KEY)) {
        return;
    }
    leptos::task::spawn_local(async move {
        if let Err(e) = parts::open_link(app, hash).await {
            app.notice.set(Some(Notice {
                text: e.message("the shared run"),
                settings: false,
            }));
        }
        // Once the next frame has been laid out and painted, the run is on
        // screen: mark when (benchmarks read it). The timeout runs after
        // the frame that the animation-frame callback precedes.
        request_animation_frame(|| set_timeout(mark_link_ready, std::time::Duration::ZERO));
    });
}

/// Decodes a share link and shows its run (or says what is wrong with it).
fn show_link(app: AppState, hash: &str) {
    match links::decode(hash) {
        Ok(doc) => {
            perf::mark("rt:link-decoded");
            app.show_doc(doc, Source::Link, false);
            perf::mark("rt:link-shown");
        }
        Err(e) => app.notice.set(Some(Notice {
            text: e.user_message(),
            settings: false,
        })),
    }
}

fn mark_link_ready() {
    let now = web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0);
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = body.set_attribute("data-link-ready-ms", &format!("{now:.1}"));
    }
}

/// A run file dropped anywhere on the page is imported and opened.
fn install_drop(app: AppState) {
    let over = window_event_listener(leptos::ev::dragover, |ev: web_sys::DragEvent| {
        ev.prevent_default()
    });
    let drop = window_event_listener(leptos::ev::drop, move |ev: web_sys::DragEvent| {
        let Some(file) = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|f| f.get(0))
        else {
            return;
        };
        ev.prevent_default();
        leptos::task::spawn_local(async move {
            match files::read_text(&file).await {
                Ok(text) => history::import_text(app, text, || {
                    if let Some(w) = web_sys::window() {
                        if w.location().pathname().ok().as_deref() != Some("/") {
                            let _ = w.location().set_href("/");
                        }
                    }
                }),
                Err(e) => app.notice.set(Some(Notice {
                    text: format!("Could not read the dropped file: {e}"),
                    settings: false,
                })),
            }
        });
    });
    on_cleanup(move || {
        over.remove();
        drop.remove();
    });
}

/// The pages other than Run and the dialogs, each in its own chunk.
mod parts {
    use super::lazy::{lazy_part, ViewFn};
    use leptos::prelude::*;

    lazy_part! { extras:
        pub fn history() -> ViewFn {
            || view! { <super::history::HistoryPage/> }.into_any()
        }
    }
    lazy_part! { travel:
        pub fn batch() -> ViewFn {
            || view! { <super::batch::BatchPage/> }.into_any()
        }
    }
    lazy_part! { extras:
        pub fn settings() -> ViewFn {
            || view! { <super::settings_dialog::SettingsDialog/> }.into_any()
        }
    }
    lazy_part! { extras:
        pub fn share() -> ViewFn {
            || view! { <super::share::ShareDialog/> }.into_any()
        }
    }
    lazy_part! { run_view:
        pub fn open_link(app: super::AppState, hash: String) {
            super::show_link(app, &hash)
        }
    }
    lazy_part! { extras:
        pub fn fork() -> ViewFn {
            || view! { <super::fork::ForkDialog/> }.into_any()
        }
    }
}

#[component]
pub fn App() -> impl IntoView {
    let app = AppState::new();
    provide_context(app);
    batch::state::BatchState::provide();
    theme::apply(app.settings.get_untracked().theme.as_str());
    open_link(app);
    let hashchange = window_event_listener(leptos::ev::hashchange, move |_| open_link(app));
    on_cleanup(move || hashchange.remove());
    install_drop(app);
    view! {
        <Router>
            <header::Header/>
            <Routes fallback=|| view! { <run_page::RunPage/> }>
                <Route path=path!("/") view=run_page::RunPage/>
                <Route path=path!("/history") view=|| lazy::lazy_view("the History page", parts::history)/>
                <Route path=path!("/batch") view=|| lazy::lazy_view("the Batch page", parts::batch)/>
            </Routes>
            {lazy::lazy_dialog("Settings", move || app.settings_open.get(), parts::settings)}
            {lazy::lazy_dialog("the share dialog", move || app.share_open.get(), parts::share)}
            {lazy::lazy_dialog("the fork dialog", move || app.fork_at.with(Option::is_some), parts::fork)}
        </Router>
    }
}

/// Mounts the app and marks the document ready (tests and benchmarks wait for it).
pub fn start() {
    console_error_panic_hook::set_once();
    perf::mark("rt:wasm-started");
    leptos::mount::mount_to_body(App);
    perf::mark("rt:mounted");
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
