//! The teacher's panel: how to join (code, link, QR code), who is there,
//! the open question's answers as they come in, Reveal, and End class.

use super::state::{class_state, ClassState, Link, Tally};
use super::{teacher, teacher_questions};
use crate::engine::live::protocol::{Question, Revealed};
use crate::engine::live::show::Shown;
use crate::platform::socket::qr_url;
use crate::ui::state::{use_app, Activity};
use leptos::prelude::*;

#[component]
pub fn TeacherPanel() -> impl IntoView {
    let app = use_app();
    let s = class_state();
    let copied = RwSignal::new(false);
    // The join code large (with its QR code) until the first student is
    // in; then a line, to leave the room for the class's answers.
    let big = RwSignal::new(true);
    let shrunk = StoredValue::new(false);
    Effect::new(move |_| {
        if !shrunk.get_value() && s.roster.with(|r| !r.is_empty()) {
            shrunk.set_value(true);
            big.set(false);
        }
    });
    let code = move || s.code.get();
    let link = move || teacher::join_link(&s.code.get());
    let copy = move |_| {
        if let Some(w) = web_sys::window() {
            let _ = w.navigator().clipboard().write_text(&link());
            copied.set(true);
        }
    };
    view! {
        <section class="live-panel teacher panel" aria-label="Live class">
            <header class="live-head">
                <span class="badge live-badge">"Live class"</span>
                <LinkState s=s/>
                <button class="button small danger" on:click=move |_| teacher::end(app)
                    title="Ends the class on every student's page">"End class"</button>
            </header>
            {move || match s.link.get() {
                Link::Over(why) => view! {
                    <div class="notice error" role="alert"><p>{why}</p>
                        {teacher::refused().then(|| view! {
                            <button class="button small primary" on:click=move |_| teacher::try_again()>"Try again"</button>" "
                        })}
                        <button class="button small" on:click=move |_| teacher::end(app)>"Close"</button></div>
                }.into_any(),
                _ if code().is_empty() => view! { <p class="muted">"Opening a class on the relay…"</p> }.into_any(),
                _ if !big.get() => view! {
                    <p class="live-joinline small">
                        "Code "<strong class="live-code-small" aria-label="Class code">{code}</strong>" · "
                        <a href=link target="_blank" rel="noopener">{link}</a>" "
                        <button class="button small" on:click=copy>{move || if copied.get() { "Copied ✓" } else { "Copy link" }}</button>" "
                        <button class="button small" on:click=move |_| big.set(true)>"Show the QR code"</button>
                    </p>
                }.into_any(),
                _ => view! {
                    <div class="live-join">
                        <img class="live-qr" src=move || qr_url(&link()) width="132" height="132"
                            alt="QR code of the join link"/>
                        <div class="live-join-text">
                            <p class="small muted">"Students open the link or scan the code:"</p>
                            <p class="live-code" aria-label="Class code">{code}</p>
                            <p class="live-link"><a href=link target="_blank" rel="noopener">{link}</a></p>
                            <p class="live-join-actions">
                                <button class="button small" on:click=copy>
                                    {move || if copied.get() { "Copied ✓" } else { "Copy link" }}
                                </button>
                                <button class="button small" on:click=move |_| big.set(false)>"Make this smaller"</button>
                            </p>
                        </div>
                    </div>
                    {on_loopback().then(|| view! {
                        <p class="small muted live-lan">"This address works on this computer only. For students' own devices, serve with "
                            <code>"roundtable serve --host 0.0.0.0"</code>" and open Roundtable at this computer's network address: the link and QR code follow it."</p>
                    })}
                }.into_any(),
            }}
            <Roster s=s/>
            <Shows s=s/>
            {move || s.question.get().map(|q| view! { <Answers s=s q=q/> })}
            <RunQuestions s=s/>
            {move || s.notice.get().map(|n| view! {
                <div class="notice warning" role="status"><p>{n}</p>
                    <button class="button small" on:click=move |_| s.notice.set(None)>"Dismiss"</button></div>
            })}
        </section>
    }
}

/// The page is on this computer's own address (students elsewhere cannot
/// reach it).
fn on_loopback() -> bool {
    let host = web_sys::window()
        .and_then(|w| w.location().hostname().ok())
        .unwrap_or_default();
    host == "localhost" || host.starts_with("127.") || host == "[::1]"
}

#[component]
pub fn LinkState(s: ClassState) -> impl IntoView {
    move || {
        let (class, text) = match s.link.get() {
            Link::Connecting => ("connecting", "Connecting…".to_string()),
            Link::Open => ("open", "Connected".to_string()),
            Link::Retrying(n, why) => ("retrying", format!("Reconnecting (try {n}): {why}")),
            Link::Over(_) => ("over", "Not connected".to_string()),
        };
        view! { <span class=format!("live-state {class}") role="status">{text}</span> }
    }
}

#[component]
fn Roster(s: ClassState) -> impl IntoView {
    let connected = move || s.roster.with(|r| r.iter().filter(|x| x.connected).count());
    view! {
        <div class="live-roster">
            <h3 class="live-h">{move || match connected() {
                0 => "No students yet".to_string(),
                1 => "1 student connected".to_string(),
                n => format!("{n} students connected"),
            }}</h3>
            <ul class="live-names" aria-label="Students">
                {move || s.roster.get().into_iter().scan(0, |anon, st| {
                    let name = st.name.clone().unwrap_or_else(|| {
                        *anon += 1;
                        format!("Anonymous {anon}")
                    });
                    Some((st, name))
                }).map(|(st, name)| {
                    let id = st.id.clone();
                    let label = format!("Remove {name} from the class");
                    view! {
                        <li class="chip live-student" class:away=!st.connected
                            title=if st.connected { "connected" } else { "disconnected (the seat is kept 2 minutes)" }>
                            <span class="live-name">{name}</span>
                            <button class="chip-remove" aria-label=label.clone() title=label
                                on:click=move |_| teacher::remove(id.clone())>"×"</button>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </div>
    }
}

/// What the class sees now.
#[component]
fn Shows(s: ClassState) -> impl IntoView {
    let app = use_app();
    move || {
        let text = match s.shown.get() {
            None if s.resumed.get() => "Class taken back after the reload. It still sees what you showed before: open a run, a lesson or a comparison to show it something new.".to_string(),
            None => "The class sees nothing yet: open a run, a lesson or a comparison.".to_string(),
            Some(Shown::Run(_)) => {
                let total = app.events.with(Vec::len);
                let live = app.activity.get() != Activity::Idle;
                format!(
                    "The class follows this run{}: {} of {total} events sent.",
                    if live { " as it runs" } else { "" },
                    s.sent.get()
                )
            }
            Some(Shown::Lesson(b)) => {
                format!("The class follows the lesson “{}” with you.", b.title)
            }
            Some(Shown::Compare(b)) => {
                format!("The class sees these {} runs side by side.", b.runs.len())
            }
        };
        view! { <p class="small live-shows">{text}</p> }
    }
}

/// The open question's answers as bars, and Reveal.
#[component]
fn Answers(s: ClassState, q: Question) -> impl IntoView {
    let app = use_app();
    let id = q.id.clone();
    let tally = Memo::new(move |_| {
        s.tally.get().filter(|t| t.id == id).unwrap_or(Tally {
            id: String::new(),
            counts: Vec::new(),
            answered: 0,
        })
    });
    let qid = q.id.clone();
    let revealed = Memo::new(move |_| s.revealed.get().filter(|r: &Revealed| r.id == qid));
    let connected = move || s.roster.with(|r| r.iter().filter(|x| x.connected).count());
    let choices = q.choices.clone();
    view! {
        <div class="live-question">
            <p class="question-kind small muted">"The class is asked"</p>
            <h3 class="question-prompt">{q.prompt.clone()}</h3>
            <p class="small live-count" role="status">{move || format!("{} of {} answered", tally.get().answered, connected().max(tally.get().answered as usize))}</p>
            <ol class="live-bars" aria-label="Answers per choice">
                {move || {
                    let t = tally.get();
                    let rev = revealed.get();
                    let total = t.answered.max(1) as f64;
                    choices.iter().enumerate().map(|(i, c)| {
                        let n = rev.as_ref().and_then(|r| r.counts.get(i)).or(t.counts.get(i)).copied().unwrap_or(0);
                        let right = rev.as_ref().is_some_and(|r| r.answer == i);
                        let pct = (n as f64 / total * 100.0).round();
                        view! {
                            <li class="live-bar" class:right=right>
                                <span class="live-bar-label">{format!("{}. {c}", i + 1)}{right.then_some(" ✓")}</span>
                                <span class="live-bar-track"><span class="live-bar-fill" style=format!("width:{pct}%")></span></span>
                                <span class="live-bar-n">{n}</span>
                            </li>
                        }
                    }).collect_view()
                }}
            </ol>
            {move || match revealed.get() {
                Some(r) => view! { <p class="lesson-feedback ok small">{format!("Revealed. {}", r.explain.unwrap_or_default())}</p> }.into_any(),
                None => view! { <button class="button primary" on:click=move |_| teacher_questions::reveal(app)>"Reveal the answer"</button> }.into_any(),
            }}
        </div>
    }
}

/// On a run (not a lesson): the questions the class can be asked where the
/// replay stands.
#[component]
fn RunQuestions(s: ClassState) -> impl IntoView {
    let app = use_app();
    let offered = move || {
        let on_run = matches!(s.shown.get(), Some(Shown::Run(_)));
        let open = s.question.with(|q| q.is_some()) && s.revealed.with(|r| r.is_none());
        if !on_run || open || app.activity.get() != Activity::Idle {
            return Vec::new();
        }
        teacher_questions::run_questions(app)
    };
    move || {
        let qs = offered();
        (!qs.is_empty()).then(|| {
            let items = qs
                .into_iter()
                .take(3)
                .map(|q| {
                    let prompt = q.prompt.clone();
                    view! {
                        <li><button class="button small" on:click=move |_| teacher_questions::ask_run_question(q.clone())>
                            {format!("Ask: {prompt}")}</button></li>
                    }
                })
                .collect_view();
            view! {
                <div class="live-ask">
                    <h3 class="live-h">"Ask the class what happens next"</h3>
                    <ul class="live-ask-list">{items}</ul>
                </div>
            }
        })
    }
}
