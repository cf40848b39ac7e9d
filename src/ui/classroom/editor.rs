//! Writing a lesson: notes and predict-next questions added at the replay
//! cursor (the questions offered are generated from the run's events at
//! that point), reordered, edited and deleted; previewed as a student;
//! saved to IndexedDB, shared as a link, exported as a file.
//!
//! The editor panel is made of a header with the lesson's actions, its
//! title and summary, a form adding notes and questions at the cursor, and
//! the list of steps (in `editor_steps`).

use super::bundle_io;
use super::editor_steps::{read_lesson, StepList};
use super::positions::is_multi;
use crate::engine::coordinators::question_roles;
use crate::engine::lesson::{questions, Panel, Question, Step};
use crate::engine::views::compare_report::letter;
use crate::platform::lessons;
use crate::ui::state::{use_app, AppState, LessonMode};
use crate::ui::widgets::{ResultLine, ResultMessage};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Questions offered at the cursor.
const OFFERED: usize = 5;

/// The last action's outcome, shown under the title (a message or an error).
type Status = ResultMessage;

/// The run the editor adds to and its cursor (on the Compare page, the
/// chosen column's synchronized position).
fn cursor(app: AppState, run: usize, multi: bool) -> usize {
    if multi {
        app.compare_pos.with(|p| p.get(run).copied().unwrap_or(0))
    } else {
        app.position()
    }
}

/// Inserts `step` after the last step anchored at or before it.
fn insert(app: AppState, step: Step) {
    app.lesson.update(|l| {
        let Some(lesson) = l.as_mut().and_then(|l| l.bundle.lesson.as_mut()) else {
            return;
        };
        let key = step.anchor();
        let at = lesson
            .steps
            .iter()
            .rposition(|s| s.anchor() <= key)
            .map_or(0, |i| i + 1);
        lesson.steps.insert(at, step);
    });
}

/// Switches to previewing the lesson as a student, from its first step.
fn preview(app: AppState) {
    app.lesson.update(|l| {
        if let Some(l) = l {
            l.mode = LessonMode::Preview;
            l.step = 0;
            l.answered = None;
            l.finished = false;
            l.progress = Default::default();
        }
    })
}

/// Saves the lesson in this browser (under its key, or a new one).
fn save(app: AppState, status: Status) {
    let Some((bundle, key)) = app.lesson.with_untracked(|l| {
        l.as_ref().map(|l| {
            (
                l.bundle.clone(),
                l.saved_as.clone().unwrap_or_else(lessons::new_key),
            )
        })
    }) else {
        return;
    };
    spawn_local(async move {
        match lessons::save(&key, &bundle).await {
            Ok(()) => {
                app.lesson.update(|l| {
                    if let Some(l) = l {
                        l.saved_as = Some(key.clone());
                    }
                });
                let _ = status.try_set(Some(Ok(
                    "Saved in this browser: find it on the Lessons page.".into(),
                )));
            }
            Err(e) => {
                let _ = status.try_set(Some(Err(e)));
            }
        }
    });
}

/// Makes a link to the lesson and shows it in `link`.
fn share(app: AppState, status: Status, link: RwSignal<Option<String>>) {
    let Some(b) = app
        .lesson
        .with_untracked(|l| l.as_ref().map(|l| l.bundle.clone()))
    else {
        return;
    };
    spawn_local(async move {
        let made = match b.validate() {
            Ok(()) => bundle_io::link(&b).await,
            Err(e) => Err(e),
        };
        match made {
            Ok(url) => {
                let _ = link.try_set(Some(url));
                let _ = status.try_set(None);
            }
            Err(e) => {
                let _ = status.try_set(Some(Err(e)));
            }
        }
    });
}

/// Downloads the lesson as a file.
fn export(app: AppState, status: Status) {
    if let Some(b) = app
        .lesson
        .with_untracked(|l| l.as_ref().map(|l| l.bundle.clone()))
    {
        if let Err(e) = b.validate().and_then(|()| bundle_io::download(&b)) {
            status.set(Some(Err(e)));
        }
    }
}

/// The lesson editor panel.
#[component]
pub fn LessonEditor() -> impl IntoView {
    let run = RwSignal::new(0usize);
    let status: Status = RwSignal::new(None);
    let link = RwSignal::new(None::<String>);
    view! {
        <section class="lesson-panel lesson-editor panel" aria-label="Lesson editor">
            <EditorHeader status link/>
            <TitleFields/>
            <ResultLine message=status/>
            <ShareLink link status/>
            <div class="editor-grid">
                <div class="editor-add">
                    <CursorLine run/>
                    <NoteForm run status/>
                    <QuestionPicker run status/>
                </div>
                <StepList/>
            </div>
        </section>
    }
}

/// The editor's header: its badge and the preview, save, share, export and close buttons.
#[component]
fn EditorHeader(status: Status, link: RwSignal<Option<String>>) -> impl IntoView {
    let app = use_app();
    view! {
        <header class="lesson-head">
            <div class="lesson-title"><span class="badge">"Writing a lesson"</span></div>
            <div class="lesson-tools">
                <button class="button small primary" on:click=move |_| preview(app)>"Preview as student"</button>
                <button class="button small" on:click=move |_| save(app, status)>"Save"</button>
                <button class="button small" on:click=move |_| share(app, status, link)>"Share link"</button>
                <button class="button small" on:click=move |_| export(app, status)>"Export file"</button>
                <button class="button small" on:click=move |_| app.lesson.set(None)>"Close"</button>
            </div>
        </header>
    }
}

/// The lesson's title and summary fields.
#[component]
fn TitleFields() -> impl IntoView {
    let app = use_app();
    let title = move || read_lesson(app, |x| x.title.clone());
    let summary = move || read_lesson(app, |x| x.summary.clone());
    let set_title = move |t: String| {
        app.lesson.update(|l| {
            if let Some(l) = l.as_mut() {
                l.bundle.title = t.clone();
                if let Some(x) = l.bundle.lesson.as_mut() {
                    x.title = t;
                }
            }
        })
    };
    let set_summary = move |t: String| {
        app.lesson.update(|l| {
            if let Some(x) = l.as_mut().and_then(|l| l.bundle.lesson.as_mut()) {
                x.summary = t;
            }
        })
    };
    view! {
        <div class="field-row">
            <div class="field grow">
                <label for="lesson-title">"Title"</label>
                <input id="lesson-title" type="text" prop:value=title on:input=move |ev| set_title(event_target_value(&ev))/>
            </div>
        </div>
        <div class="field">
            <label for="lesson-summary">"Summary (shown on the Lessons page)"</label>
            <input id="lesson-summary" type="text" prop:value=summary on:input=move |ev| set_summary(event_target_value(&ev))/>
        </div>
    }
}

/// The lesson's link once made, with a button copying it.
#[component]
fn ShareLink(link: RwSignal<Option<String>>, status: Status) -> impl IntoView {
    move || {
        link.get().map(|url| {
            let u = url.clone();
            view! {
                <div class="input-with-button">
                    <input class="share-url" aria-label="Lesson link" readonly prop:value=url.clone()/>
                    <button class="button primary" on:click=move |_| { let u = u.clone(); spawn_local(async move { let _ = status.try_set(Some(bundle_io::copy(&u).await)); }); }>"Copy link"</button>
                </div>
            }
        })
    }
}

/// Where steps are added: the run picker (with several runs) and the cursor's event.
#[component]
fn CursorLine(run: RwSignal<usize>) -> impl IntoView {
    let app = use_app();
    let runs = move || {
        app.lesson
            .with(|l| l.as_ref().map_or(0, |l| l.bundle.runs.len()))
    };
    let pos = move || cursor(app, run.get(), is_multi(app));
    let total = move || {
        app.lesson.with(|l| {
            l.as_ref()
                .and_then(|l| l.bundle.runs.get(run.get()))
                .map_or(0, |r| r.events.len())
        })
    };
    view! {
        <p class="small">
            {move || if is_multi(app) {
                view! {
                    <label>"Run "
                        <select aria-label="Run to pin to" prop:value=move || run.get().to_string()
                            on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<usize>() { run.set(v) } }>
                            {(0..runs()).map(|i| view! { <option value=i.to_string()>{letter(i).to_string()}</option> }).collect_view()}
                        </select>
                    </label>
                }.into_any()
            } else { ().into_any() }}
            <strong>{move || format!(" At event {} of {}", pos(), total())}</strong>
            " — move the replay to where a step belongs."
        </p>
    }
}

/// The note's text and highlighted panel, and the button adding it at the cursor.
#[component]
fn NoteForm(run: RwSignal<usize>, status: Status) -> impl IntoView {
    let app = use_app();
    let note = RwSignal::new(String::new());
    let panel = RwSignal::new(String::new());
    let add_note = move |_| {
        let text = note.get_untracked();
        if text.trim().is_empty() {
            status.set(Some(Err("Write the note first.".into())));
            return;
        }
        insert(
            app,
            Step::Note {
                run: run.get_untracked(),
                at: cursor(app, run.get_untracked(), is_multi(app)),
                text: text.trim().to_string(),
                highlight: Panel::parse(&panel.get_untracked()),
            },
        );
        note.set(String::new());
        status.set(Some(Ok("Note added.".into())));
    };
    view! {
        <div class="field">
            <label for="note-text">"Note at this point"</label>
            <textarea id="note-text" rows="3" placeholder="e.g. Here the orchestrator cannot see the notebook: it only reads the public conversation."
                prop:value=move || note.get() on:input=move |ev| note.set(event_target_value(&ev))></textarea>
        </div>
        <div class="note-row">
            <label class="small" for="note-panel">"Highlight"</label>
            <select id="note-panel" prop:value=move || panel.get() on:change=move |ev| panel.set(event_target_value(&ev))>
                <option value="">"no panel"</option>
                {Panel::ALL.iter().map(|p| view! { <option value=p.id()>{p.label()}</option> }).collect_view()}
            </select>
            <button class="button small primary" on:click=add_note>"Add note here"</button>
        </div>
    }
}

/// The questions generated from the run's events at the cursor, each with a button adding it.
#[component]
fn QuestionPicker(run: RwSignal<usize>, status: Status) -> impl IntoView {
    let app = use_app();
    let pos = move || cursor(app, run.get(), is_multi(app));
    let offered = Memo::new(move |_| {
        let at = pos();
        let r = run.get();
        app.lesson.with(|l| {
            l.as_ref()
                .and_then(|l| l.bundle.runs.get(r))
                .map(|doc| {
                    let roles = question_roles(&doc.config.coordinator);
                    questions::from(&doc.events, &roles, r, at, OFFERED)
                })
                .unwrap_or_default()
        })
    });
    let add_question = move |q: Question| {
        insert(app, Step::Question(q));
        status.set(Some(Ok("Question added.".into())));
    };
    view! {
        <h3 class="small">"Questions you can ask here"</h3>
        {move || {
            let list = offered.get();
            if list.is_empty() {
                view! { <p class="muted small">"No question fits from here on. Move the replay back, just before a model call, a hand-off, a critic's review or a retrieval."</p> }.into_any()
            } else {
                view! {
                    <ul class="offered">
                        {list.into_iter().map(|q| {
                            let label = format!("Event {}: {} ({} choices; answer: {})", q.at, q.prompt, q.choices.len(), q.choices[q.answer]);
                            view! { <li><span class="small">{label}</span>" "<button class="button small" on:click=move |_| add_question(q.clone())>"Add"</button></li> }
                        }).collect_view()}
                    </ul>
                }.into_any()
            }
        }}
    }
}
