//! The bar above a run's views: what is shown (live, from History, a shared
//! link, a file), its lineage, and save / share / export / fork / compare & teach.

use super::coordinator_row::Part;
use super::coordinators::{shown_ui, ui_of};
use super::lazy::{lazy_view, lazy_views};
use super::state::{use_app, Activity, AppState, Source};
use crate::engine::base::words::clip;
use leptos::prelude::*;
use leptos::task::spawn_local;

lazy_views! { run_view: toolbar_view => Toolbar }

/// The toolbar of the shown run (its code loads with the run views), and
/// History's storage errors.
#[component]
pub fn RunToolbar() -> impl IntoView {
    let app = use_app();
    view! {
        <Show when=move || app.shown.with(Option::is_some)>
            {lazy_view("the run's toolbar", toolbar_view)}
        </Show>
        {move || app.storage_error.get().map(|e| view! { <div class="notice error toolbar-notice" role="alert"><p>{e}</p></div> })}
    }
}

/// Whether no run is in progress.
fn is_idle(app: AppState) -> bool {
    app.activity.get() == Activity::Idle
}

/// Whether the shown run has made an LLM call (it can be forked and taught).
fn made_calls(app: AppState) -> bool {
    app.view.with(|v| v.status.llm_calls > 0)
        || app
            .events
            .with(|e| e.iter().any(|x| x.event.kind() == "llm_request"))
}

/// The bar itself: the run's title and its actions.
#[component]
fn Toolbar() -> impl IntoView {
    let app = use_app();
    let idle = move || is_idle(app);
    let has_calls = move || made_calls(app);
    let save = move |_| {
        spawn_local(async move {
            if let Err(e) = super::history::save_shown(app).await {
                app.warn(e.message("History"), false);
            }
        });
    };
    let fork_here = move |_| {
        let k = app
            .view
            .with_untracked(|v| v.status.llm_calls.saturating_sub(1)) as u32;
        app.fork_at.set(Some(k));
    };
    view! {
            <div class="run-toolbar">
                <RunTitle/>
                <div class="toolbar-actions">
                    <Show when=move || app.shown.with(|s| s.as_ref().is_some_and(|s| !s.saved))>
                        <button class="button small primary" on:click=save>"Save to History"</button>
                    </Show>
                    <button class="button small" disabled=move || !idle() on:click=move |_| app.share_open.set(true)>"Copy share link"</button>
                    <ExportMenu/>
                    <button class="button small" disabled=move || !idle() || !has_calls() title="Continue from an LLM call, optionally editing it" on:click=fork_here>"Fork…"</button>
                    <TeachMenu/>
                </div>
            </div>
    }
}

/// Where the shown run comes from, its task (shortened) and its lineage.
#[component]
fn RunTitle() -> impl IntoView {
    let app = use_app();
    let source_label = move || match app.shown.get().map(|s| s.source) {
        Some(Source::Live) => "Live run",
        Some(Source::History) => "From History",
        Some(Source::Link) => "Shared link",
        Some(Source::File) => "Imported file",
        Some(Source::Batch) => "Batch run",
        None => "",
    };
    let title = move || {
        app.shown.with(|s| {
            s.as_ref()
                .map(|s| {
                    let first: String = s
                        .config
                        .task
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ");
                    clip(&first, 71)
                })
                .unwrap_or_default()
        })
    };
    let lineage = move || {
        app.shown.with(|s| {
            s.as_ref().and_then(|s| {
                s.config
                    .parent
                    .as_ref()
                    .map(|p| format!("Forked from {} at call {}", p.run_id, p.fork_call + 1))
            })
        })
    };
    view! {
                <div class="run-title">
                    <span class="badge">{source_label}</span>
                    <span class="title-text" title=title>{title}</span>
                    {move || lineage().map(|l| view! { <span class="muted small lineage">{l}</span> })}
                </div>
    }
}

/// The Export menu: run file, transcript, graph, usage table, and the
/// shown run's coordinator's own items.
#[component]
fn ExportMenu() -> impl IntoView {
    let app = use_app();
    let menu = NodeRef::<leptos::html::Details>::new();
    // The shown run's coordinator's own export items (its part closes the
    // menu when one is chosen).
    let shown = Memo::new(move |_| shown_ui(app).id);
    let shown_exports = move || -> Option<&'static Part> { ui_of(shown.get()).exports.as_ref() };
    let export = move |what: &'static str| {
        if let Some(m) = menu.get_untracked() {
            m.set_open(false);
        }
        spawn_local(async move {
            if let Err(e) = super::exports::export(app, what).await {
                app.notice.set(Some(super::state::Notice {
                    text: e.message("the exports"),
                    settings: false,
                }));
            }
        });
    };
    view! {
                    <details class="menu" node_ref=menu>
                        <summary class="button small">"Export"</summary>
                        <div class="menu-items" role="menu">
                            <button role="menuitem" on:click=move |_| export("json")>"Run file (.json)"</button>
                            <button role="menuitem" on:click=move |_| export("md")>"Transcript (.md)"</button>
                            <button role="menuitem" on:click=move |_| export("svg")>"Agent graph (.svg)"</button>
                            <button role="menuitem" on:click=move |_| export("png")>"Agent graph (.png)"</button>
                            <button role="menuitem" on:click=move |_| export("csv")>"Usage table (.csv)"</button>
                            {move || shown_exports().map(|p| lazy_view(p.what, p.view))}
                        </div>
                    </details>
    }
}

/// The "Compare & teach" menu: add to the comparison, run a variant, write
/// a lesson.
#[component]
fn TeachMenu() -> impl IntoView {
    let app = use_app();
    let idle = move || is_idle(app);
    let has_calls = move || made_calls(app);
    let teach = NodeRef::<leptos::html::Details>::new();
    let close_teach = move || {
        if let Some(m) = teach.get_untracked() {
            m.set_open(false);
        }
    };
    let add_compare = move |_| {
        close_teach();
        if let Some(n) = app.add_to_comparison() {
            app.warn(
                if n < 2 {
                    "Added to the comparison. Add another run (from History or another run's toolbar), then open Compare.".to_string()
                } else {
                    format!("Added: {n} runs to compare. Open Compare in the header to see them side by side.")
                },
                false,
            );
        }
    };
    let variant = move |_| {
        close_teach();
        app.variant_open.set(true);
    };
    let write_lesson = move |_| {
        close_teach();
        start_lesson(app);
    };
    let live_class = move |_| {
        close_teach();
        leptos::task::spawn_local(async move {
            if let Err(e) = crate::ui::classroom::start_live_class(app).await {
                app.warn(e.message("the live class"), false);
            }
        });
    };
    view! {
                    <details class="menu" node_ref=teach>
                        <summary class="button small">"Compare & teach"</summary>
                        <div class="menu-items" role="menu">
                            <button role="menuitem" disabled=move || !idle() on:click=add_compare>"Add to comparison"</button>
                            <button role="menuitem" disabled=move || !idle() on:click=variant>"Run a variant of this…"</button>
                            <button role="menuitem" disabled=move || !idle() || !has_calls() on:click=write_lesson>"Write a lesson on this run"</button>
                            <button role="menuitem" disabled=move || app.class.get().is_some() on:click=live_class>"Start a live class"</button>
                        </div>
                    </details>
    }
}

/// Opens the lesson editor on a new lesson about the shown run, from its
/// first call.
fn start_lesson(app: AppState) {
    let Some(doc) = app.doc() else { return };
    let mut words: Vec<&str> = doc.config.task.split_whitespace().take(8).collect();
    if words.is_empty() {
        words.push("this run");
    }
    let lesson = crate::engine::lesson::Lesson {
        id: String::new(),
        title: format!("Lesson: {}", words.join(" ")),
        summary: String::new(),
        steps: Vec::new(),
    };
    app.set_cursor(0);
    app.lesson.set(Some(super::state::LessonSession::new(
        crate::engine::lesson::Bundle::lesson(vec![doc], lesson),
        super::state::LessonMode::Edit,
        None,
    )));
}
