//! Writing a lesson: notes and predict-next questions added at the replay
//! cursor (the questions offered are generated from the run's events at
//! that point), reordered, edited and deleted; previewed as a student;
//! saved to IndexedDB, shared as a link, exported as a file.

use super::bundle_io;
use crate::engine::lesson::{questions, Panel, Question, Step};
use crate::engine::views::compare_report::letter;
use crate::platform::lessons;
use crate::ui::state::{use_app, AppState, LessonMode};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Questions offered at the cursor.
const OFFERED: usize = 5;

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

fn edit_steps(app: AppState, f: impl FnOnce(&mut Vec<Step>)) {
    app.lesson.update(|l| {
        if let Some(lesson) = l.as_mut().and_then(|l| l.bundle.lesson.as_mut()) {
            f(&mut lesson.steps);
        }
    });
}

#[component]
pub fn LessonEditor() -> impl IntoView {
    let app = use_app();
    let multi = move || {
        app.lesson
            .with(|l| l.as_ref().is_some_and(|l| l.bundle.runs.len() > 1))
    };
    let runs = move || {
        app.lesson
            .with(|l| l.as_ref().map_or(0, |l| l.bundle.runs.len()))
    };
    let run = RwSignal::new(0usize);
    let note = RwSignal::new(String::new());
    let panel = RwSignal::new(String::new());
    let status = RwSignal::new(None::<Result<String, String>>);
    let link = RwSignal::new(None::<String>);
    let pos = move || cursor(app, run.get(), multi());
    let total = move || {
        app.lesson.with(|l| {
            l.as_ref()
                .and_then(|l| l.bundle.runs.get(run.get()))
                .map_or(0, |r| r.events.len())
        })
    };
    let offered = Memo::new(move |_| {
        let at = pos();
        let r = run.get();
        app.lesson.with(|l| {
            l.as_ref()
                .and_then(|l| l.bundle.runs.get(r))
                .map(|doc| questions::from(&doc.events, r, at, OFFERED))
                .unwrap_or_default()
        })
    });
    let title = move || {
        app.lesson.with(|l| {
            l.as_ref()
                .and_then(|l| l.bundle.lesson.as_ref())
                .map(|x| x.title.clone())
                .unwrap_or_default()
        })
    };
    let summary = move || {
        app.lesson.with(|l| {
            l.as_ref()
                .and_then(|l| l.bundle.lesson.as_ref())
                .map(|x| x.summary.clone())
                .unwrap_or_default()
        })
    };
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
                at: cursor(app, run.get_untracked(), multi()),
                text: text.trim().to_string(),
                highlight: Panel::parse(&panel.get_untracked()),
            },
        );
        note.set(String::new());
        status.set(Some(Ok("Note added.".into())));
    };
    let add_question = move |q: Question| {
        insert(app, Step::Question(q));
        status.set(Some(Ok("Question added.".into())));
    };
    let preview = move |_| {
        app.lesson.update(|l| {
            if let Some(l) = l {
                l.mode = LessonMode::Preview;
                l.step = 0;
                l.answered = None;
                l.finished = false;
                l.progress = Default::default();
            }
        })
    };
    let save = move |_| {
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
    };
    let share = move |_| {
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
    };
    let export = move |_| {
        if let Some(b) = app
            .lesson
            .with_untracked(|l| l.as_ref().map(|l| l.bundle.clone()))
        {
            if let Err(e) = b.validate().and_then(|()| bundle_io::download(&b)) {
                status.set(Some(Err(e)));
            }
        }
    };
    let steps = move || {
        app.lesson.with(|l| {
            l.as_ref()
                .and_then(|l| l.bundle.lesson.as_ref())
                .map(|x| x.steps.clone())
                .unwrap_or_default()
        })
    };
    let go = move |r: usize, at: usize| {
        if multi() {
            super::compare::pin(app, r, at);
        } else {
            app.set_cursor(at);
        }
    };
    view! {
        <section class="lesson-panel lesson-editor panel" aria-label="Lesson editor">
            <header class="lesson-head">
                <div class="lesson-title"><span class="badge">"Writing a lesson"</span></div>
                <div class="lesson-tools">
                    <button class="button small primary" on:click=preview>"Preview as student"</button>
                    <button class="button small" on:click=save>"Save"</button>
                    <button class="button small" on:click=share>"Share link"</button>
                    <button class="button small" on:click=export>"Export file"</button>
                    <button class="button small" on:click=move |_| app.lesson.set(None)>"Close"</button>
                </div>
            </header>
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
            {move || status.get().map(|s| match s {
                Ok(m) => view! { <p class="ok small" role="status">{m}</p> }.into_any(),
                Err(m) => view! { <p class="bad small" role="alert">{m}</p> }.into_any(),
            })}
            {move || link.get().map(|url| {
                let u = url.clone();
                view! {
                    <div class="input-with-button">
                        <input class="share-url" aria-label="Lesson link" readonly prop:value=url.clone()/>
                        <button class="button primary" on:click=move |_| { let u = u.clone(); spawn_local(async move { let _ = status.try_set(Some(bundle_io::copy(&u).await)); }); }>"Copy link"</button>
                    </div>
                }
            })}
            <div class="editor-grid">
                <div class="editor-add">
                    <p class="small">
                        {move || if multi() {
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
                </div>
                <div class="editor-steps">
                    <h3 class="small">{move || format!("Steps ({})", steps().len())}</h3>
                    {move || {
                        let list = steps();
                        if list.is_empty() {
                            return view! { <p class="muted small">"No steps yet. Add a note or a question at the replay cursor."</p> }.into_any();
                        }
                        let n = list.len();
                        view! {
                            <ol class="step-list">
                                {list.into_iter().enumerate().map(|(i, s)| {
                                    let (r, at) = s.anchor();
                                    let kind = if s.question().is_some() { "Question" } else { "Note" };
                                    let text = match &s { Step::Note { text, .. } => text.clone(), Step::Question(q) => q.prompt.clone() };
                                    view! {
                                        <li class="step-row">
                                            <div class="step-meta small muted">{format!("{kind} · run {} · event {at}", letter(r))}</div>
                                            <textarea class="step-text" rows="2" aria-label=format!("Text of step {}", i + 1) prop:value=text
                                                on:change=move |ev| {
                                                    let v = event_target_value(&ev);
                                                    edit_steps(app, |steps| match steps.get_mut(i) {
                                                        Some(Step::Note { text, .. }) => *text = v,
                                                        Some(Step::Question(q)) => q.prompt = v,
                                                        None => {}
                                                    });
                                                }></textarea>
                                            <div class="step-actions">
                                                <button class="button small" on:click=move |_| go(r, at)>"Go"</button>
                                                <button class="button small" aria-label=format!("Move step {} up", i + 1) disabled=i == 0
                                                    on:click=move |_| edit_steps(app, |s| s.swap(i - 1, i))>"↑"</button>
                                                <button class="button small" aria-label=format!("Move step {} down", i + 1) disabled=i + 1 == n
                                                    on:click=move |_| edit_steps(app, |s| s.swap(i, i + 1))>"↓"</button>
                                                <button class="button small danger" aria-label=format!("Delete step {}", i + 1)
                                                    on:click=move |_| edit_steps(app, |s| { s.remove(i); })>"Delete"</button>
                                            </div>
                                        </li>
                                    }
                                }).collect_view()}
                            </ol>
                        }.into_any()
                    }}
                </div>
            </div>
        </section>
    }
}
