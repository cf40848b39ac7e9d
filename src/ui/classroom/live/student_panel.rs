//! A student's panel: the class and the connection, the lesson's step
//! (its note), the open question with its choices (one answer, "answer
//! sent"), and the reveal with how the class answered.

use super::state::{class_state, ClassState, Link};
use super::student;
use super::teacher_panel::LinkState;
use crate::engine::lesson::Step;
use crate::engine::live::protocol::Question;
use crate::engine::live::show::{self, Shown, FOLLOW};
use crate::ui::state::use_app;
use crate::ui::widgets::Clipped;
use leptos::prelude::*;

#[component]
pub fn StudentPanel() -> impl IntoView {
    let app = use_app();
    let s = class_state();
    let who = move || match s.name.get() {
        Some(n) => format!("You are {n}"),
        None => "You are anonymous".to_string(),
    };
    view! {
        <section class="live-panel student panel" aria-label="Live class">
            <header class="live-head">
                <span class="badge live-badge">{move || format!("Live class {}", s.code.get())}</span>
                <LinkState s=s/>
                <button class="button small" on:click=move |_| student::leave(app)>"Leave"</button>
            </header>
            <p class="small muted live-who">{who}</p>
            {move || match s.link.get() {
                Link::Over(why) => Some(view! { <div class="notice error" role="alert"><p>{format!("The class is over for this page: {why}")}</p></div> }),
                _ => None,
            }}
            {move || (!student::on_class_run(app, s) && !matches!(s.link.get(), Link::Over(_))).then(|| view! {
                <div class="notice info" role="status"><p>"You are looking at another run. The class goes on without you seeing it."</p>
                    <button class="button small primary" on:click=move |_| student::back_to_class()>"Back to the class"</button></div>
            })}
            <Where s=s/>
            {move || current_question(s).map(|q| view! { <Ask s=s q=q/> })}
            {move || s.notice.get().map(|n| view! { <div class="notice warning" role="status"><p>{n}</p></div> })}
        </section>
    }
}

/// The open question, if the class is on it (a lesson's only on its step).
fn current_question(s: ClassState) -> Option<Question> {
    let q = s.question.get()?;
    match (s.shown.get(), show::step_of(&q.id)) {
        (Some(Shown::Lesson(_)), Some(step)) if step as u64 != s.step.get() => None,
        _ => Some(q),
    }
}

/// Where the class is: the lesson's step (and its note), the run's event.
#[component]
fn Where(s: ClassState) -> impl IntoView {
    let app = use_app();
    move || match s.shown.get() {
        None => {
            view! { <p class="muted live-wait">"Waiting for the teacher to show something…"</p> }
                .into_any()
        }
        Some(Shown::Run(c)) => {
            let step = s.step.get();
            let total = app.events.with(Vec::len);
            let at = if step == FOLLOW {
                "following it live".to_string()
            } else {
                format!("at event {} of {total}", step.min(total as u64))
            };
            view! {
                <div class="live-where">
                    <h2 class="live-title"><Clipped text=c.task.clone() max=120/></h2>
                    <p class="small muted">{format!("The teacher's run, {at}.")}</p>
                </div>
            }
            .into_any()
        }
        Some(Shown::Lesson(b)) => {
            let lesson = b.lesson.clone().unwrap_or_default();
            let step = s.step.get() as usize;
            let n = lesson.steps.len();
            let count = if step >= n {
                "The end".to_string()
            } else {
                format!("Step {} of {n}", step + 1)
            };
            let note = match lesson.steps.get(step) {
                Some(Step::Note { text, .. }) => Some(
                    text.split("\n\n")
                        .map(|p| view! { <p>{p.to_string()}</p> })
                        .collect_view(),
                ),
                _ => None,
            };
            view! {
                <div class="live-where">
                    <h2 class="live-title">{lesson.title.clone()}</h2>
                    <p class="small muted">{count}</p>
                    {note.map(|n| view! { <div class="lesson-step lesson-note">{n}</div> })}
                </div>
            }
            .into_any()
        }
        Some(Shown::Compare(b)) => view! {
            <div class="live-where">
                <h2 class="live-title">{format!("{} runs side by side", b.runs.len())}</h2>
                <p class="small muted">"The teacher moves the timeline."</p>
            </div>
        }
        .into_any(),
    }
}

/// Keys 1–9 answer the open question (a laptop in class), unless the
/// student is typing.
fn install_keys(s: ClassState) {
    let handle =
        window_event_listener(leptos::ev::keydown, move |ev: leptos::ev::KeyboardEvent| {
            if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
                return;
            }
            let tag = crate::ui::controls::target_tag(&ev);
            if matches!(tag.as_str(), "input" | "textarea" | "select") {
                return;
            }
            let Some(n) = ev
                .key()
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=9).contains(n))
            else {
                return;
            };
            let open = s
                .question
                .with_untracked(|q| q.as_ref().is_some_and(|q| n <= q.choices.len()));
            if open {
                student::answer(n - 1);
                ev.prevent_default();
            }
        });
    on_cleanup(move || handle.remove());
}

#[component]
fn Ask(s: ClassState, q: Question) -> impl IntoView {
    install_keys(s);
    let id = q.id.clone();
    let revealed = Memo::new(move |_| s.revealed.get().filter(|r| r.id == id));
    let choices = q.choices.clone();
    let n = choices.len();
    view! {
        <div class="lesson-step lesson-question live-q">
            <p class="question-kind small muted">"Predict what happens next"</p>
            <h3 class="question-prompt">{q.prompt.clone()}</h3>
            <ol class="choices">
                {move || {
                    let mine = s.mine.get();
                    let rev = revealed.get();
                    choices.iter().enumerate().map(|(i, c)| {
                        let state = match (&rev, mine) {
                            (Some(r), _) if r.answer == i => "right",
                            (Some(_), Some((m, _))) if m == i => "wrong",
                            (None, Some((m, _))) if m == i => "picked",
                            _ => "",
                        };
                        let count = rev.as_ref().and_then(|r| r.counts.get(i).copied());
                        view! {
                            <li>
                                <button class=format!("choice {state}") disabled=mine.is_some() || rev.is_some()
                                    aria-keyshortcuts=(i + 1).to_string()
                                    aria-pressed=(mine.map(|m| m.0) == Some(i)).to_string()
                                    on:click=move |_| student::answer(i)>
                                    <span class="choice-key" aria-hidden="true">{(i + 1).to_string()}</span>
                                    <span class="choice-text">{c.clone()}</span>
                                    {count.map(|k| view! { <span class="live-n">{if k == 1 { "1 answer".to_string() } else { format!("{k} answers") }}</span> })}
                                </button>
                            </li>
                        }
                    }).collect_view()
                }}
            </ol>
            {move || {
                let mine = s.mine.get();
                match (revealed.get(), mine) {
                    (Some(r), m) => {
                        let total: u32 = r.counts.iter().sum();
                        let right = r.counts.get(r.answer).copied().unwrap_or(0);
                        let verdict = match m {
                            Some((c, _)) if c == r.answer => "You got it right! ",
                            Some(_) => "Not quite. ",
                            None => "",
                        };
                        let explain = r.explain.unwrap_or_default();
                        let class = match m { Some((c, _)) if c == r.answer => "lesson-feedback ok", Some(_) => "lesson-feedback bad", None => "lesson-feedback" };
                        view! { <p class=class role="status">{format!("{verdict}{right} of {total} in the class answered this. {explain}")}</p> }.into_any()
                    }
                    (None, Some((_, true))) => view! { <p class="lesson-feedback live-sent" role="status">"Answer sent ✓ Waiting for the teacher to reveal it."</p> }.into_any(),
                    (None, Some((_, false))) => view! { <p class="lesson-feedback" role="status">"Sending your answer…"</p> }.into_any(),
                    (None, None) => view! { <p class="small muted">{format!("Pick one of the {n} answers (or press its number); you answer once.")}</p> }.into_any(),
                }
            }}
        </div>
    }
}
