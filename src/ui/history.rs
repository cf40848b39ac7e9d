//! The History page: every run kept in this browser, newest first, with
//! search, star, rename, delete (with confirmation), delete all, import, and
//! open / continue. Forks show where they came from.

use super::lazy::lazy_part;
use super::state::{use_app, AppState, Source};
use crate::engine::run::fork::continue_point;
use crate::engine::run::fork::ForkEdit;
use crate::engine::run::{RunDoc, RunStatus};
use crate::engine::views::html::{history_row, HistoryRow};
use crate::engine::views::record::RunMeta;
use crate::platform::files;
use crate::platform::history::{self, Listed};
use crate::ui::widgets::{list_placeholder, ConfirmBar, FileButton};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;

#[derive(Clone)]
enum Row {
    Ok(RunMeta),
    Bad { run_id: String, message: String },
}

fn date(ms: f64) -> String {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms));
    let s: String = d
        .to_locale_string("en-GB", &wasm_bindgen::JsValue::UNDEFINED)
        .into();
    s.rsplit_once(':').map(|(a, _)| a.to_string()).unwrap_or(s)
}

lazy_part! { extras:
    /// Saves the shown run (a shared link's, a batch's) to History.
    pub fn save_shown(app: AppState) {
        save_doc(app)
    }
    /// Imports a run file dropped on the page and opens it on the Run page.
    pub fn import_dropped(app: AppState, text: String) {
        import_text(app, text, || {
            if let Some(w) = web_sys::window() {
                if w.location().pathname().ok().as_deref() != Some("/") {
                    let _ = w.location().set_href("/");
                }
            }
        })
    }
}

fn save_doc(app: AppState) {
    let Some(doc) = app.doc() else { return };
    spawn_local(async move {
        if store(app, &doc).await {
            app.shown.update(|s| {
                if let Some(s) = s {
                    s.saved = true;
                }
            });
        }
    });
}

/// Saves `doc` to History, with its summary at today's prices; a storage
/// error is shown above the run. Whether it was saved.
async fn store(app: AppState, doc: &RunDoc) -> bool {
    let prices = app.settings.get_untracked().prices;
    let meta = RunMeta::of(&doc.config, &doc.events, &prices, js_sys::Date::now());
    let saved = history::save_doc(doc, &meta).await;
    if let Err(e) = &saved {
        app.storage_error.set(Some(e.user_message()));
    }
    saved.is_ok()
}

/// Imports a run file: validates it, saves it to History, opens it.
pub fn import_text(app: AppState, text: String, then: impl FnOnce() + 'static) {
    let doc = match RunDoc::from_json(&text) {
        Ok(d) => d,
        Err(e) => {
            app.notice.set(Some(super::state::Notice {
                text: format!("Could not import the file: {e}"),
                settings: false,
            }));
            then();
            return;
        }
    };
    spawn_local(async move {
        let saved = store(app, &doc).await;
        app.show_doc(doc, Source::File, saved);
        then();
    });
}

/// An action on History's store (star, rename, delete); its error is shown.
type Job = std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>>>>;

/// The listed runs as rows, newest first (unreadable ones at the top).
fn sorted_rows(list: Vec<Listed>) -> Vec<Row> {
    let mut v: Vec<Row> = list
        .into_iter()
        .map(|l| match l {
            Listed::Ok(record) => Row::Ok(record.meta),
            Listed::Unreadable { run_id, error } => Row::Bad {
                run_id,
                message: error.user_message(),
            },
        })
        .collect();
    v.sort_by(|a, b| {
        let key = |r: &Row| match r {
            Row::Ok(m) => m.created_ms,
            Row::Bad { .. } => f64::MAX,
        };
        key(b).total_cmp(&key(a))
    });
    v
}

/// Whether `row` is shown for the search `q` (lowercase) and "Starred only".
fn row_matches(row: &Row, q: &str, only: bool) -> bool {
    match row {
        Row::Ok(m) => {
            (!only || m.starred)
                && (q.is_empty()
                    || [
                        m.display_title(),
                        m.task.clone(),
                        m.model.clone(),
                        m.coordinator.clone(),
                    ]
                    .iter()
                    .any(|s| s.to_lowercase().contains(q)))
        }
        Row::Bad { .. } => !only && q.is_empty(),
    }
}

#[component]
pub fn HistoryPage() -> impl IntoView {
    let rows = RwSignal::new(None::<Result<Vec<Row>, String>>);
    let query = RwSignal::new(String::new());
    let starred_only = RwSignal::new(false);
    let confirm = RwSignal::new(None::<String>); // run id, or "*" for all
    let renaming = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let now = RwSignal::new(js_sys::Date::now());

    // While a run still says "running", look again shortly: it either
    // finishes or, when its tab is gone, turns into "interrupted".
    let alive = StoredValue::new(true);
    let poll = RwSignal::new(0u32);
    on_cleanup(move || alive.set_value(false));
    let reload = move || {
        spawn_local(async move {
            let listed = history::list_runs()
                .await
                .map_err(|e| e.user_message())
                .map(sorted_rows);
            // One clock reading for both the rows shown and the decision to
            // look again: with two, a run could show "running" while already
            // judged interrupted, and nobody would look again.
            let t = js_sys::Date::now();
            let running = listed.as_ref().is_ok_and(|l| {
                l.iter().any(|r| matches!(r, Row::Ok(m) if m.status == RunStatus::Running && !m.is_interrupted(t)))
            });
            now.set(t);
            rows.set(Some(listed));
            if running {
                gloo_timers::future::TimeoutFuture::new(1_500).await;
                if alive.get_value() {
                    poll.set(poll.get_untracked() + 1);
                }
            }
        });
    };
    Effect::new(move |_| {
        poll.track();
        reload();
    });

    let act = move |f: Job| {
        spawn_local(async move {
            if let Err(e) = f.await {
                error.set(Some(e));
            }
            reload();
        });
    };
    view! {
        <main class="history-page">
            <div class="history-head">
                <h1>"History"</h1>
                <p class="muted">"Runs are kept in this browser only. Open one to replay it, share it or fork it."</p>
            </div>
            <HistoryTools query=query starred_only=starred_only confirm=confirm error=error/>
            <ComparePicks/>
            {move || error.get().map(|e| view! { <div class="notice error" role="alert"><p>{e}</p><button class="button small" on:click=move |_| error.set(None)>"Dismiss"</button></div> })}
            <ConfirmDelete confirm=confirm act=act/>
            <RunList rows=rows query=query starred_only=starred_only now=now renaming=renaming confirm=confirm error=error act=act/>
            <RenameDialog renaming=renaming on_done=move |id: String, name: String| {
                act(Box::pin(async move { history::update_meta(&id, |m| m.title = Some(name).filter(|n| !n.trim().is_empty())).await }));
            }/>
        </main>
    }
}

/// Search, "Starred only", Import run file and Delete all.
#[component]
fn HistoryTools(
    query: RwSignal<String>,
    starred_only: RwSignal<bool>,
    confirm: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let app = use_app();
    let navigate = use_navigate();
    let on_file = move |ev: leptos::ev::Event| {
        let Some(file) = files::picked(&ev).into_iter().next() else {
            return;
        };
        let navigate = navigate.clone();
        spawn_local(async move {
            match files::read_text(&file).await {
                Ok(text) => import_text(app, text, move || navigate("/", Default::default())),
                Err(e) => error.set(Some(format!("Could not read the file: {e}"))),
            }
        });
    };
    view! {
        <div class="history-tools">
            <input type="search" class="search" placeholder="Search task, title, model…" aria-label="Search runs"
                prop:value=move || query.get() on:input=move |ev| query.set(event_target_value(&ev))/>
            <label class="check small"><input type="checkbox" prop:checked=move || starred_only.get() on:change=move |ev| starred_only.set(event_target_checked(&ev))/>"Starred only"</label>
            <div class="header-spacer"></div>
            <FileButton text="Import run file" accept=".json,application/json" label="Import run file" on_file=on_file/>
            <button class="button small danger" on:click=move |_| confirm.set(Some("*".into()))>"Delete all"</button>
        </div>
    }
}

/// Asks before deleting one run (`confirm` holds its id) or all ("*").
#[component]
fn ConfirmDelete(
    confirm: RwSignal<Option<String>>,
    act: impl Fn(Job) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let question = |t: &str| match t {
        "*" => "Delete every run in History? This cannot be undone.".to_string(),
        _ => "Delete this run? This cannot be undone.".to_string(),
    };
    let button = |t: &str| if t == "*" { "Delete all" } else { "Delete" };
    let on_confirm = move |t: String| {
        act(Box::pin(async move {
            match t.as_str() {
                "*" => history::delete_all().await,
                id => history::delete_run(id).await,
            }
            .map_err(|e| e.user_message())
        }))
    };
    view! { <ConfirmBar pending=confirm question button on_confirm/> }
}

/// The saved runs; a click on a row's button opens, continues, renames,
/// compares, deletes or stars that run.
#[component]
fn RunList(
    rows: RwSignal<Option<Result<Vec<Row>, String>>>,
    query: RwSignal<String>,
    starred_only: RwSignal<bool>,
    now: RwSignal<f64>,
    renaming: RwSignal<Option<String>>,
    confirm: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
    act: impl Fn(Job) + Copy + 'static,
) -> impl IntoView {
    let app = use_app();
    let nav = use_navigate();
    let open = move |run_id: String, continue_live: bool| {
        let nav = nav.clone();
        spawn_local(async move {
            match history::load_run(&run_id).await {
                Ok((_, doc)) => {
                    if continue_live {
                        let k = continue_point(&doc.events);
                        nav("/", Default::default());
                        app.show_doc(doc.clone(), Source::History, true);
                        super::launch::fork(app, doc, k, ForkEdit::None);
                    } else if app.show_doc(doc, Source::History, true) {
                        nav("/", Default::default());
                    }
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let on_row_click = move |ev: leptos::ev::MouseEvent| {
        let Some((action, el)) = super::transcript::clicked_action(&ev) else {
            return;
        };
        let id = el.get_attribute("data-id").unwrap_or_default();
        match action.as_str() {
            "open" => open(id, false),
            "continue" => open(id, true),
            "rename" => renaming.set(Some(id)),
            "compare" => spawn_local(async move {
                match history::load_run(&id).await {
                    Ok((_, doc)) => app.toggle_compared(doc),
                    Err(e) => error.set(Some(e)),
                }
            }),
            "delete" => confirm.set(Some(id)),
            "star" => act(Box::pin(async move {
                history::update_meta(&id, |m| m.starred = !m.starred).await
            })),
            _ => {}
        }
    };
    view! {
        <div class="run-list-box" on:click=on_row_click>
            <RunRows rows=rows query=query starred_only=starred_only now=now/>
        </div>
    }
}

/// The runs that match the search, as HTML rows; or loading, the error, or
/// an empty History.
#[component]
fn RunRows(
    rows: RwSignal<Option<Result<Vec<Row>, String>>>,
    query: RwSignal<String>,
    starred_only: RwSignal<bool>,
    now: RwSignal<f64>,
) -> impl IntoView {
    let filtered = move || {
        let q = query.get().to_lowercase();
        let only = starred_only.get();
        rows.get().map(|r| {
            r.map(|list| {
                list.into_iter()
                    .filter(|row| row_matches(row, &q, only))
                    .collect::<Vec<_>>()
            })
        })
    };
    let titles = move || -> std::collections::HashMap<String, String> {
        rows.with(|r| match r {
            Some(Ok(list)) => list
                .iter()
                .filter_map(|row| match row {
                    Row::Ok(m) => Some((m.run_id.clone(), m.display_title())),
                    _ => None,
                })
                .collect(),
            _ => Default::default(),
        })
    };
    view! {
        {move || match filtered() {
            Some(Ok(list)) if !list.is_empty() => {
                let titles = titles();
                let now = now.get_untracked();
                let html: String = list.iter().map(|row| match row {
                    Row::Bad { run_id, message } => history_row(&HistoryRow::Unreadable { run_id, message }),
                    Row::Ok(m) => history_row(&HistoryRow::Run {
                        meta: m,
                        parent_title: m.parent.as_ref().and_then(|p| titles.get(&p.run_id).cloned()),
                        date: date(m.created_ms),
                        now_ms: now,
                    }),
                }).collect();
                view! { <ul class="run-list" aria-label="Saved runs" inner_html=html></ul> }.into_any()
            }
            other => list_placeholder(
                other,
                "No runs here yet",
                "Every run you start is saved here as it happens. You can also import a run file, or open a share link.",
            ),
        }}
    }
}

/// The runs picked for the comparison, with Open and Clear.
#[component]
fn ComparePicks() -> impl IntoView {
    let app = use_app();
    let navigate = use_navigate();
    let names = move || {
        app.compare.with(|c| {
            c.iter()
                .enumerate()
                .map(|(i, r)| {
                    format!(
                        "{} · {}",
                        crate::engine::views::compare_report::letter(i),
                        crate::engine::views::compare_report::run_label(&r.config)
                    )
                })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <div class="compare-picks" role="status" aria-live="polite">
            {move || {
                let n = names();
                if n.is_empty() {
                    view! { <p class="muted small">"Pick two to four runs with Compare to see them side by side."</p> }.into_any()
                } else {
                    let navigate = navigate.clone();
                    view! {
                        <p class="small">{format!("Picked for comparison ({} of 4): ", n.len())}{n.join(" — ")}</p>
                        <button class="button small primary" disabled=n.len() < 2 on:click=move |_| navigate("/compare", Default::default())>"Open comparison"</button>
                        <button class="button small" on:click=move |_| { app.compare.set(Vec::new()); app.compare_pos.set(Vec::new()); }>"Clear"</button>
                    }.into_any()
                }
            }}
        </div>
    }
}

/// Renames a run: a small dialog with the current name.
#[component]
fn RenameDialog(
    renaming: RwSignal<Option<String>>,
    on_done: impl Fn(String, String) + Copy + 'static,
) -> impl IntoView {
    let dialog = NodeRef::<leptos::html::Dialog>::new();
    let name = RwSignal::new(String::new());
    Effect::new(move |_| {
        let Some(d) = dialog.get() else { return };
        match renaming.get() {
            Some(id) => {
                let current = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|doc| {
                        doc.query_selector(&format!(
                            "li[data-run-id=\"{}\"] .title-text",
                            id.replace('"', "")
                        ))
                        .ok()
                        .flatten()
                    })
                    .and_then(|e| e.text_content())
                    .unwrap_or_default();
                name.set(current);
                if !d.open() {
                    let _ = d.show_modal();
                }
            }
            None if d.open() => d.close(),
            None => {}
        }
    });
    let save = move || {
        if let Some(id) = renaming.get_untracked() {
            on_done(id, name.get_untracked());
        }
        renaming.set(None);
    };
    view! {
        <dialog class="rename-dialog" node_ref=dialog aria-labelledby="rename-title" on:close=move |_: leptos::ev::Event| renaming.set(None)>
            <h2 id="rename-title">"Rename run"</h2>
            <input class="rename" aria-label="New name" prop:value=move || name.get()
                on:input=move |ev| name.set(event_target_value(&ev))
                on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Enter" { ev.prevent_default(); save() }/>
            <footer class="dialog-foot">
                <button class="button" on:click=move |_| renaming.set(None)>"Cancel"</button>
                <button class="button primary" on:click=move |_| save()>"Save"</button>
            </footer>
        </dialog>
    }
}
