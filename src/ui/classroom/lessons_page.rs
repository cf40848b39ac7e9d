//! The Lessons page: the built-in lessons (recorded with the demo model,
//! shipped with the app as files and fetched when opened), the teacher's
//! own lessons kept in this browser (open, present, edit, share, export,
//! delete), and importing a lesson file.
//!
//! The page shows any error or message, then the built-in lessons' cards,
//! then the teacher's lessons: an import button, the delete confirmation,
//! and the list.

use super::bundle_io;
use crate::engine::lesson::Bundle;
use crate::platform::{files, lessons};
use crate::ui::state::{use_app, AppState};
use crate::ui::widgets::{list_placeholder, ConfirmBar, FileButton};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// A lesson shipped with the app (its file is `/public/lessons/<id>.lesson.json`).
pub struct BuiltIn {
    pub id: &'static str,
    pub coordinator: &'static str,
    pub title: &'static str,
    pub summary: &'static str,
}

pub const BUILT_IN: &[BuiltIn] = &[
    BuiltIn {
        id: "travel-orchestrator",
        coordinator: "Travel planner",
        title: "Who acts next? The orchestrator and its experts",
        summary: "The orchestrator sees only the goal and the public conversation, yet it must pick which expert acts next. Predict its picks and the critic's verdict.",
    },
    BuiltIn {
        id: "travel-notebook",
        coordinator: "Travel planner",
        title: "Orchestrator or fixed workflow?",
        summary: "The same trip planned twice: by a fixed order of experts and by the orchestrator with a notebook and a critic. Where do the runs part ways, and what does it cost?",
    },
    BuiltIn {
        id: "act-break-time",
        coordinator: "ACT",
        title: "What break time adds to an agent's knowledge",
        summary: "In the team meeting a leader fuses the members' tasks; in break time each member meets a generated expert. Follow who talks to whom and what they learn.",
    },
    BuiltIn {
        id: "mael-experience",
        coordinator: "MAEL",
        title: "How a retrieved experience steers a step",
        summary: "Agents on a graph decompose, solve, critique and aggregate; before each step they retrieve a past experience by similarity and reward. Predict which one.",
    },
];

fn file_url(id: &str) -> String {
    format!("/public/lessons/{id}.lesson.json")
}

async fn fetch_builtin(id: &str) -> Result<Bundle, String> {
    let url = file_url(id);
    let text = crate::platform::fetch::get_text(&url).await.map_err(|e| {
        format!("Could not load the lesson ({e}). Check your connection and try again.")
    })?;
    Bundle::from_json(&text)
}

fn open_builtin(app: AppState, id: &'static str, present: bool, error: RwSignal<Option<String>>) {
    spawn_local(async move {
        match fetch_builtin(id).await {
            Ok(b) => {
                app.open_bundle(b, None);
                app.presenter.set(present);
            }
            Err(e) => {
                let _ = error.try_set(Some(e));
            }
        }
    });
}

/// The teacher's saved lessons: `None` while loading.
type SavedList = RwSignal<Option<Result<Vec<lessons::Saved>, String>>>;

/// Lists the saved lessons again into `saved`.
fn reload(saved: SavedList) {
    spawn_local(async move {
        let _ = saved.try_set(Some(lessons::list().await));
    })
}

/// Opens saved lesson `key`, to play it or (with `edit`) to edit it.
fn open_saved(app: AppState, key: String, edit: bool, error: RwSignal<Option<String>>) {
    spawn_local(async move {
        match lessons::load(&key).await {
            Ok(b) => app.open_bundle(b, edit.then_some(key)),
            Err(e) => {
                let _ = error.try_set(Some(e));
            }
        }
    })
}

/// Copies a link to saved lesson `key` (or shows it when copying fails).
fn share_saved(key: String, info: RwSignal<Option<String>>, error: RwSignal<Option<String>>) {
    spawn_local(async move {
        let r = match lessons::load(&key).await {
            Ok(b) => bundle_io::link(&b).await,
            Err(e) => Err(e),
        };
        match r {
            Ok(url) => {
                let _ = info.try_set(Some(match bundle_io::copy(&url).await {
                    Ok(_) => format!("Link copied ({} characters).", url.len()),
                    Err(_) => format!("Copy this link: {url}"),
                }));
            }
            Err(e) => {
                let _ = error.try_set(Some(e));
            }
        }
    })
}

/// Downloads saved lesson `key` as a file.
fn export_saved(key: String, error: RwSignal<Option<String>>) {
    spawn_local(async move {
        match lessons::load(&key)
            .await
            .and_then(|b| bundle_io::download(&b))
        {
            Ok(()) => {}
            Err(e) => {
                let _ = error.try_set(Some(e));
            }
        }
    })
}

/// Imports the picked file: a lesson is saved in this browser, any other
/// bundle is opened.
fn import_file(
    app: AppState,
    ev: leptos::ev::Event,
    saved: SavedList,
    info: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
) {
    let Some(file) = files::picked(&ev).into_iter().next() else {
        return;
    };
    spawn_local(async move {
        let text = match files::read_text(&file).await {
            Ok(t) => t,
            Err(e) => {
                let _ = error.try_set(Some(format!("Could not read the file: {e}")));
                return;
            }
        };
        match Bundle::from_json(&text) {
            Ok(b) if b.is_lesson() => {
                let key = lessons::new_key();
                match lessons::save(&key, &b).await {
                    Ok(()) => {
                        let _ = info.try_set(Some(format!("Imported “{}”.", b.title)));
                        reload(saved);
                    }
                    Err(e) => {
                        let _ = error.try_set(Some(e));
                    }
                }
            }
            Ok(b) => app.open_bundle(b, None),
            Err(e) => error.set(Some(format!("Could not import the file: {e}"))),
        }
    });
}

/// The Lessons page.
#[component]
pub fn LessonsPage() -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let info = RwSignal::new(None::<String>);
    view! {
        <main class="lessons-page">
            <div class="history-head">
                <h1>"Lessons"</h1>
                <p class="muted">"A lesson replays a run step by step with the teacher's notes and asks students to predict what the agents do next. Present one to a class (large type, keyboard only), or share its link: it opens anywhere, with no key."</p>
                <p class="muted">"Teach it live: press "<strong>"Teach live"</strong>" in a lesson (or "<em>"Start a live class"</em>" on any run or comparison), and students follow it on their own devices and answer together. "
                    <a href="/join">"Join a live class"</a>" with a code from your teacher."</p>
            </div>
            <Notices error info/>
            <BuiltInLessons error/>
            <YourLessons error info/>
        </main>
    }
}

/// The error (an alert) and the message (a status), each with a Dismiss button.
#[component]
fn Notices(error: RwSignal<Option<String>>, info: RwSignal<Option<String>>) -> impl IntoView {
    view! {
        {move || error.get().map(|e| view! { <div class="notice error" role="alert"><p>{e}</p><button class="button small" on:click=move |_| error.set(None)>"Dismiss"</button></div> })}
        {move || info.get().map(|e| view! { <div class="notice" role="status"><p>{e}</p><button class="button small" on:click=move |_| info.set(None)>"Dismiss"</button></div> })}
    }
}

/// The built-in lessons' cards, each with Start and Present buttons.
#[component]
fn BuiltInLessons(error: RwSignal<Option<String>>) -> impl IntoView {
    let app = use_app();
    view! {
        <section aria-labelledby="builtin-title">
            <h2 id="builtin-title">"Built-in lessons"</h2>
            <ul class="lesson-cards">
                {BUILT_IN.iter().map(|b| view! {
                    <li class="lesson-card panel">
                        <span class="badge">{b.coordinator}</span>
                        <h3>{b.title}</h3>
                        <p class="small">{b.summary}</p>
                        <div class="row-actions">
                            <button class="button small primary" on:click=move |_| open_builtin(app, b.id, false, error)
                                aria-label=format!("Start “{}”", b.title)>"Start"</button>
                            <button class="button small" on:click=move |_| open_builtin(app, b.id, true, error)
                                aria-label=format!("Present “{}”", b.title)>"Present"</button>
                        </div>
                    </li>
                }).collect_view()}
            </ul>
        </section>
    }
}

/// The teacher's lessons kept in this browser, with the import button.
#[component]
fn YourLessons(error: RwSignal<Option<String>>, info: RwSignal<Option<String>>) -> impl IntoView {
    let app = use_app();
    let saved: SavedList = RwSignal::new(None);
    let confirm = RwSignal::new(None::<String>);
    reload(saved);
    view! {
        <section aria-labelledby="mine-title">
            <div class="history-tools">
                <h2 id="mine-title">"Your lessons"</h2>
                <div class="header-spacer"></div>
                <FileButton text="Import lesson file" accept=".json,application/json" label="Import lesson file" on_file=move |ev| import_file(app, ev, saved, info, error)/>
            </div>
            <ConfirmDelete confirm saved error/>
            {move || match saved.get() {
                Some(Ok(list)) if !list.is_empty() => view! {
                    <ul class="run-list" aria-label="Your lessons">
                        {list.into_iter().map(|s| view! { <SavedRow lesson=s confirm info error/> }).collect_view()}
                    </ul>
                }.into_any(),
                other => list_placeholder(
                    other,
                    "No lessons of your own yet",
                    "Open any run, choose Compare & teach → Write a lesson on this run on its toolbar (or Write a lesson on this on the Compare page), and add notes and questions at the replay cursor. Saved lessons appear here.",
                ),
            }}
        </section>
    }
}

/// Asks before deleting the lesson `confirm` holds, if any.
#[component]
fn ConfirmDelete(
    confirm: RwSignal<Option<String>>,
    saved: SavedList,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let question = |_: &str| {
        "Delete this lesson? This cannot be undone (export it first to keep a copy).".to_string()
    };
    let on_confirm = move |key: String| {
        spawn_local(async move {
            if let Err(e) = lessons::delete(&key).await {
                let _ = error.try_set(Some(e));
            }
            reload(saved);
        })
    };
    view! { <ConfirmBar pending=confirm question on_confirm/> }
}

/// One saved lesson: its title and facts with Start, Edit, Copy link,
/// Export and Delete buttons, or, when unreadable, its key, the problem and
/// a Delete button.
#[component]
fn SavedRow(
    lesson: lessons::Saved,
    confirm: RwSignal<Option<String>>,
    info: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let app = use_app();
    match lesson {
        lessons::Saved::Ok {
            key,
            title,
            runs,
            steps,
            questions,
            ..
        } => {
            let (k1, k2, k3, k4, k5) = (
                key.clone(),
                key.clone(),
                key.clone(),
                key.clone(),
                key.clone(),
            );
            view! {
                <li class="run-row">
                    <div class="run-main">
                        <span class="title-text">{title}</span>
                        <div class="run-facts small muted">
                            <span>{format!("{runs} run{}", if runs == 1 { "" } else { "s" })}</span>
                            <span>{format!("{steps} steps")}</span>
                            <span>{format!("{questions} questions")}</span>
                        </div>
                    </div>
                    <div class="row-actions">
                        <button class="button small primary" on:click=move |_| open_saved(app, k1.clone(), false, error)>"Start"</button>
                        <button class="button small" on:click=move |_| open_saved(app, k2.clone(), true, error)>"Edit"</button>
                        <button class="button small" on:click=move |_| share_saved(k3.clone(), info, error)>"Copy link"</button>
                        <button class="button small" on:click=move |_| export_saved(k4.clone(), error)>"Export"</button>
                        <button class="button small danger" on:click=move |_| confirm.set(Some(k5.clone()))>"Delete"</button>
                    </div>
                </li>
            }.into_any()
        }
        lessons::Saved::Unreadable { key, message } => {
            let k = key.clone();
            view! {
                <li class="run-row bad">
                    <div class="run-main"><span class="title-text">{key}</span><p class="bad small">{message}</p></div>
                    <div class="row-actions"><button class="button small danger" on:click=move |_| confirm.set(Some(k.clone()))>"Delete"</button></div>
                </li>
            }.into_any()
        }
    }
}
