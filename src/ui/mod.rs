//! The Leptos UI. Every panel reads views folded from the run's event log.

mod act;
mod agent_section;
mod batch;
pub(crate) mod classroom;
mod controls;
mod coordinator_row;
mod coordinators;
mod embeddings;
mod events_tab;
mod exports;
mod files_run;
mod files_tab;
mod fit_note;
mod fold;
mod fork;
mod graph;
mod header;
mod history;
mod inspector;
mod launch;
pub(crate) mod lazy;
mod link;
mod local_models;
mod mael;
mod part_state;
mod prompts;
mod provider;
mod replay;
mod run_page;
mod run_tabs;
mod sampling_note;
mod settings_dialog;
mod settings_fields;
mod share;
mod shown_setup;
mod single;
pub mod state;
mod theme;
mod toolbar;
mod transcript;
mod travel;
mod usage;
mod widgets;

use crate::platform::{files, perf};
use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;
use state::{use_app, AppState, Notice};

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
                Ok(text) => {
                    if let Err(e) = history::import_dropped(app, text).await {
                        app.warn(e.message("the importer"), false);
                    }
                }
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

/// The pages other than Run, and the dialogs: loaded on first use.
mod parts {
    use super::lazy::{lazy_part, ViewFn};
    use leptos::prelude::*;

    lazy_part! { extras:
        pub fn history() -> ViewFn {
            || view! { <super::history::HistoryPage/> }.into_any()
        }
        pub fn settings() -> ViewFn {
            || view! { <super::settings_dialog::SettingsDialog/> }.into_any()
        }
        pub fn share() -> ViewFn {
            || view! { <super::share::ShareDialog/> }.into_any()
        }
        pub fn fork() -> ViewFn {
            || view! { <super::fork::ForkDialog/> }.into_any()
        }
    }
}

/// A tab that was in a live class (reloaded) goes back into it: as the
/// same student, with the class's log from the start, or as its teacher.
fn rejoin_class(app: AppState) {
    let session = web_sys::window().and_then(|w| w.session_storage().ok().flatten());
    let in_class = [classroom::SEAT_KEY, classroom::TEACH_KEY].iter().any(|k| {
        session
            .as_ref()
            .and_then(|s| s.get_item(k).ok().flatten())
            .is_some()
    });
    if in_class {
        leptos::task::spawn_local(async move {
            if let Err(e) = classroom::rejoin_live_class(app).await {
                app.warn(e.message("the live class"), false);
            }
        });
    }
}

/// Goes to the path the app state asks for (state code has no router).
#[component]
fn Navigator() -> impl IntoView {
    let app = use_app();
    let navigate = leptos_router::hooks::use_navigate();
    Effect::new(move |_| {
        if let Some(path) = app.goto.get() {
            app.goto.set(None);
            let here = web_sys::window()
                .and_then(|w| w.location().pathname().ok())
                .unwrap_or_default();
            if here != path {
                navigate(&path, Default::default());
            }
        }
    });
}

/// A coordinator's own page (`/batch` for the travel planner's), from the
/// coordinators' table; an unknown path shows the Run page.
#[component]
fn CoordinatorPage() -> impl IntoView {
    let params = leptos_router::hooks::use_params_map();
    move || {
        let path = params.with(|p| p.get("page").unwrap_or_default());
        match coordinators::page_at(&path) {
            Some(page) => lazy::lazy_view(page.part.what, page.part.view).into_any(),
            None => view! { <run_page::RunPage/> }.into_any(),
        }
    }
}

/// Settings saved in another tab of this site are this tab's too: a tab
/// opened earlier never writes its older copy over them (the theme button
/// saves what is stored, with its one change).
fn follow_other_tabs(app: AppState) {
    let storage = window_event_listener(leptos::ev::storage, move |ev: web_sys::StorageEvent| {
        if ev.key().as_deref() == Some(crate::platform::settings::KEY) {
            let s = crate::platform::settings::Settings::load();
            theme::apply(&s.theme);
            app.settings.set(s);
        }
    });
    on_cleanup(move || storage.remove());
}

/// The app; `link` is the run of the share link the page was opened with
/// (decoded before mounting), shown on the first render.
#[component]
pub fn App(link: Option<Result<link::Opened, String>>) -> impl IntoView {
    let app = AppState::new();
    provide_context(app);
    part_state::set_root();
    theme::apply(app.settings.get_untracked().theme.as_str());
    if let Some(decoded) = link {
        link::show(app, decoded);
    }
    let hashchange = window_event_listener(leptos::ev::hashchange, move |_| link::open(app));
    on_cleanup(move || hashchange.remove());
    follow_other_tabs(app);
    install_drop(app);
    rejoin_class(app);
    view! {
        <Router>
            <Navigator/>
            <header::Header/>
            <Routes fallback=|| view! { <run_page::RunPage/> }>
                <Route path=path!("/") view=run_page::RunPage/>
                <Route path=path!("/history") view=|| lazy::lazy_view("the History page", parts::history)/>
                <Route path=path!("/compare") view=|| lazy::lazy_view("the comparison", classroom::compare_page)/>
                <Route path=path!("/lessons") view=|| lazy::lazy_view("the lessons", classroom::lessons_page)/>
                <Route path=path!("/join") view=|| lazy::lazy_view("the join page", classroom::join_page)/>
                <Route path=path!("/join/:code") view=|| lazy::lazy_view("the join page", classroom::join_page)/>
                <Route path=path!("/:page") view=CoordinatorPage/>
            </Routes>
            {lazy::lazy_dialog("Settings", move || app.settings_open.get(), parts::settings)}
            {lazy::lazy_dialog("the share dialog", move || app.share_open.get(), parts::share)}
            {lazy::lazy_dialog("the fork dialog", move || app.fork_at.with(Option::is_some), parts::fork)}
            {lazy::lazy_dialog("the variant dialog", move || app.variant_open.get(), classroom::variant_dialog)}
            {lazy::lazy_dialog("the prompt editor", move || app.prompts_open.with(Option::is_some), prompts::editor_dialog)}
        </Router>
    }
}

/// Mounts the app (after decoding the share link in the address, if any)
/// and marks the document ready (tests and benchmarks wait for it).
pub fn start() {
    console_error_panic_hook::set_once();
    perf::mark("rt:wasm-started");
    match link::in_url() {
        Some(hash) => {
            wasm_bindgen_futures::spawn_local(async move { mount(Some(link::decode(hash).await)) })
        }
        None => mount(None),
    }
}

fn mount(link: Option<Result<link::Opened, String>>) {
    if let Some(boot) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("boot"))
    {
        boot.remove();
    }
    leptos::mount::mount_to_body(move || view! { <App link=link/> });
    perf::mark("rt:mounted");
    // The moment the app is interactive, relative to navigation start.
    perf::stamp_body("data-ready-ms");
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = body.set_attribute("data-ready", "1");
    }
}
