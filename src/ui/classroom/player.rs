//! The lesson player: one step at a time, the replay moved to the step's
//! event (played up to it at the chosen speed), notes with the panel they
//! point at highlighted, predict-next questions that stop the replay before
//! the event and reveal the answer by continuing it, the score at the end.
//! Presenter mode (large type, high contrast, only the lesson's panels,
//! fullscreen) and keyboard-only control: Space / → next, ← back, number
//! keys answer, P presenter, F fullscreen, Esc leaves presenter mode.

use super::editor::LessonEditor;
use crate::engine::lesson::{Answered, Panel, Step};
use crate::ui::state::{use_app, Activity, AppState, LessonMode, LessonSession};
use gloo_timers::future::TimeoutFuture;
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

/// What the player needs of the session, read without cloning the runs.
#[derive(Clone, Debug, PartialEq)]
struct Shown {
    title: String,
    step: usize,
    steps: usize,
    current: Option<Step>,
    answered: Option<(usize, usize)>,
    given: Option<usize>,
    score: (usize, usize),
    finished: bool,
    mode: LessonMode,
    multi: bool,
    /// Per question step: (headline, first choice right?).
    results: Vec<(String, Option<bool>)>,
}

fn shown(l: &LessonSession) -> Shown {
    let lesson = l.bundle.lesson.clone().unwrap_or_default();
    let results = lesson
        .steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let q = s.question()?;
            Some((s.headline(), l.progress.given(i).map(|c| c == q.answer)))
        })
        .collect();
    Shown {
        title: lesson.title.clone(),
        step: l.step,
        steps: lesson.steps.len(),
        current: lesson.steps.get(l.step).cloned(),
        answered: l.answered,
        given: l.progress.given(l.step),
        score: l.progress.score(&lesson),
        finished: l.finished,
        mode: l.mode,
        multi: l.bundle.runs.len() > 1,
        results,
    }
}

/// Moves the shown run (or the comparison) to `at`, playing the events in
/// between at the replay speed when going forward on the Run page.
fn drive(app: AppState, run: usize, at: usize, multi: bool, serial: StoredValue<u64>) {
    if multi {
        super::positions::pin(app, run, at);
        return;
    }
    serial.update_value(|n| *n += 1);
    let me = serial.get_value();
    let from = app.position();
    if at == from {
        return;
    }
    let speed = app.speed.get_untracked();
    if at < from || speed >= 100.0 || at - from > 400 {
        app.set_cursor(at);
        return;
    }
    spawn_local(async move {
        let mut k = from;
        while k < at {
            TimeoutFuture::new(30).await;
            // Another step took over, or the player is gone.
            if serial.try_get_value() != Some(me) {
                return;
            }
            k = (k + (speed.max(0.25) as usize).max(1)).min(at);
            app.set_cursor(k);
        }
    });
}

fn selector(panel: Panel, multi: bool) -> &'static str {
    match (panel, multi) {
        (Panel::Graph, false) => ".graph-panel",
        (Panel::Graph, true) => ".cmp-graph",
        (Panel::Transcript, false) => ".tab-body",
        (Panel::Transcript, true) => ".cmp-transcript",
        (Panel::Tabs, false) => ".tabs",
        (Panel::Tabs, true) => ".cmp-columns",
        (Panel::Usage, false) => ".usage-panel",
        (Panel::Usage, true) => ".cmp-diff",
        (Panel::Replay, false) => ".replay",
        (Panel::Replay, true) => ".cmp-timeline",
        (Panel::Prompts, false) => ".prompts-line",
        (Panel::Prompts, true) => ".cmp-prompts",
    }
}

/// Marks the panel a note points at (and only it); a panel not drawn yet
/// (its part still loading) is marked once the page has settled.
fn highlight(panel: Option<Panel>, multi: bool) {
    if !mark(panel, multi) {
        leptos::task::spawn_local(async move {
            crate::ui::lazy::settled().await;
            mark(panel, multi);
        });
    }
}

/// [`highlight`] now: false when the panel is not on the page.
fn mark(panel: Option<Panel>, multi: bool) -> bool {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return true;
    };
    if let Ok(list) = doc.query_selector_all(".lesson-highlight") {
        for i in 0..list.length() {
            if let Some(el) = list
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                let _ = el.class_list().remove_1("lesson-highlight");
            }
        }
    }
    if let Some(p) = panel {
        if let Ok(Some(el)) = doc.query_selector(selector(p, multi)) {
            let _ = el.class_list().add_1("lesson-highlight");
            // Scrolled to after this frame is painted: scrolling now would
            // lay the page out a second time before its first paint (a
            // lesson link opened ~10 ms later in the profile).
            set_timeout(
                move || el.scroll_into_view_with_bool(false),
                std::time::Duration::ZERO,
            );
            return true;
        }
        return false;
    }
    true
}

fn set_presenter(on: bool) {
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = body.class_list().toggle_with_force("presenter", on);
    }
}

fn fullscreen() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if doc.fullscreen_element().is_some() {
        doc.exit_fullscreen();
    } else if let Some(el) = doc.document_element() {
        let _ = el.request_fullscreen();
    }
}

/// Actions on the session.
fn next(app: AppState) {
    app.lesson.update(|l| {
        let Some(l) = l else { return };
        let n = l.bundle.lesson.as_ref().map_or(0, |x| x.steps.len());
        let unanswered_question = l
            .bundle
            .lesson
            .as_ref()
            .and_then(|x| x.steps.get(l.step))
            .is_some_and(|s| s.question().is_some())
            && l.answered.is_none_or(|(s, _)| s != l.step);
        if unanswered_question {
            // Skipping reveals the answer first (no score for it).
            l.answered = Some((l.step, usize::MAX));
            return;
        }
        if l.step + 1 >= n {
            l.finished = true;
        } else {
            l.step += 1;
            l.answered = None;
        }
    });
}

fn back(app: AppState) {
    app.lesson.update(|l| {
        let Some(l) = l else { return };
        if l.finished {
            l.finished = false;
        } else if l.step > 0 {
            l.step -= 1;
        }
        l.answered = l.progress.given(l.step).map(|c| (l.step, c));
    });
}

fn answer(app: AppState, choice: usize) {
    app.lesson.update(|l| {
        let Some(l) = l else { return };
        let Some(lesson) = &l.bundle.lesson else {
            return;
        };
        if l.progress.answer(lesson, l.step, choice) != Answered::NotAQuestion {
            l.answered = Some((l.step, choice));
        }
    });
}

fn restart(app: AppState) {
    app.lesson.update(|l| {
        if let Some(l) = l {
            l.step = 0;
            l.answered = None;
            l.finished = false;
            l.progress = Default::default();
        }
    });
}

fn install_keys(app: AppState) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev: KeyboardEvent| {
        let playing = app
            .lesson
            .with_untracked(|l| l.as_ref().is_some_and(|l| l.mode != LessonMode::Edit));
        if !playing || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let tag = crate::ui::controls::target_tag(&ev);
        if matches!(tag.as_str(), "input" | "textarea" | "select")
            || app.settings_open.get_untracked()
        {
            return;
        }
        let key = ev.key();
        // A focused button keeps Space and Enter for itself.
        if tag == "button" && (key == " " || key == "Enter") {
            return;
        }
        match key.as_str() {
            " " | "ArrowRight" | "PageDown" => next(app),
            "ArrowLeft" | "PageUp" => back(app),
            "p" | "P" => app.presenter.update(|p| *p = !*p),
            "f" | "F" => fullscreen(),
            "Escape" => app.presenter.set(false),
            d if d.len() == 1 && d.as_bytes()[0].is_ascii_digit() && d != "0" => {
                answer(app, (d.as_bytes()[0] - b'1') as usize)
            }
            _ => return,
        }
        ev.prevent_default();
    });
    on_cleanup(move || handle.remove());
}

#[component]
pub fn LessonPanel() -> impl IntoView {
    let app = use_app();
    // A memo: the editor (and its unsaved inputs) lives while the mode does.
    let editing = Memo::new(move |_| {
        app.lesson
            .with(|l| l.as_ref().is_some_and(|l| l.mode == LessonMode::Edit))
    });
    view! {
        {move || if editing.get() {
            view! { <LessonEditor/> }.into_any()
        } else {
            view! { <Player/> }.into_any()
        }}
    }
}

/// Moves the replay with the step (and to the reveal once answered).
fn follow_steps(app: AppState, serial: StoredValue<u64>) {
    let last = StoredValue::new(None::<(usize, usize)>);
    Effect::new(move |_| {
        let Some((t, multi)) = app.lesson.with(|l| {
            l.as_ref()
                .and_then(|l| Some((l.replay_target()?, l.bundle.runs.len() > 1)))
        }) else {
            return;
        };
        if last.get_value() == Some(t) || app.activity.get_untracked() != Activity::Idle {
            return;
        }
        last.set_value(Some(t));
        app.playing.set(false);
        drive(app, t.0, t.1, multi, serial);
    });
}

/// Highlights the panel the shown note points at, once its step is drawn.
fn follow_highlight(s: Memo<Option<Shown>>) {
    Effect::new(move |_| {
        let (panel, multi) = s.with(|s| match s {
            Some(Shown {
                current: Some(Step::Note { highlight, .. }),
                multi,
                finished: false,
                ..
            }) => (*highlight, *multi),
            Some(s) => (None, s.multi),
            None => (None, false),
        });
        // After the views of this step are drawn.
        request_animation_frame(move || highlight(panel, multi));
    });
}

#[component]
fn Player() -> impl IntoView {
    let app = use_app();
    let s = Memo::new(move |_| app.lesson.with(|l| l.as_ref().map(shown)));
    let serial = StoredValue::new(0u64);
    install_keys(app);
    follow_steps(app, serial);
    follow_highlight(s);
    Effect::new(move |_| set_presenter(app.presenter.get()));
    on_cleanup(move || {
        set_presenter(false);
        highlight(None, false);
    });
    view! {
        {move || s.get().map(|s| {
            let pct = if s.steps == 0 || s.finished { 100 } else { (s.step * 100) / s.steps };
            let preview = s.mode == LessonMode::Preview;
            let unanswered = s.current.as_ref().is_some_and(|c| c.question().is_some()) && s.answered.is_none_or(|(st, _)| st != s.step);
            view! {
                <section class="lesson-panel panel" aria-label="Lesson" class:presenting=move || app.presenter.get()>
                    <LessonHead app=app title=s.title.clone() preview=preview/>
                    <div class="lesson-progress" role="progressbar" aria-label="Progress through the lesson"
                        aria-valuemin="0" aria-valuemax="100" aria-valuenow=pct.to_string()>
                        <div class="lesson-progress-bar" style=format!("width:{pct}%")></div>
                    </div>
                    <p class="lesson-count small">
                        {if s.finished { "Finished".to_string() } else { format!("Step {} of {}", s.step + 1, s.steps.max(1)) }}
                        {format!(" · score {} of {}", s.score.0, s.score.1)}
                    </p>
                    {if s.finished { finished_view(app, &s) } else { step_view(app, &s) }}
                    <LessonNav app=app step=s.step steps=s.steps finished=s.finished unanswered=unanswered/>
                </section>
            }
        })}
    }
}

/// The lesson's title, and its tools: replay speed, presenter mode,
/// fullscreen, teaching it live (or back to the editor), closing it.
#[component]
fn LessonHead(app: AppState, title: String, preview: bool) -> impl IntoView {
    let close = move |_| {
        app.presenter.set(false);
        app.lesson.set(None);
    };
    let to_editor = move |_| {
        app.lesson.update(|l| {
            if let Some(l) = l {
                l.mode = LessonMode::Edit;
                l.finished = false;
            }
        })
    };
    view! {
        <header class="lesson-head">
            <div class="lesson-title">
                <span class="badge">{if preview { "Preview as a student" } else { "Lesson" }}</span>
                <h2>{title}</h2>
            </div>
            <div class="lesson-tools">
                <SpeedSelect label="Replay " aria="Replay speed between steps">
                    <option value="0.5">"slow"</option><option value="1">"1×"</option><option value="4">"4×"</option><option value="1000">"jump"</option>
                </SpeedSelect>
                <button class="button small" aria-pressed=move || app.presenter.get().to_string()
                    title="Large type and high contrast for a projector (key P)"
                    on:click=move |_| app.presenter.update(|p| *p = !*p)>
                    {move || if app.presenter.get() { "Leave presenter mode" } else { "Present" }}
                </button>
                <button class="button small" title="Key F" on:click=move |_| fullscreen()>"Fullscreen"</button>
                {(!preview).then(|| view! {
                    <Show when=move || app.class.get().is_none()>
                        <button class="button small" title="Students follow this lesson on their own devices and answer its questions"
                            on:click=move |_| super::live::start(app)>"Teach live"</button>
                    </Show>
                })}
                {preview.then(|| view! { <button class="button small" on:click=to_editor>"Back to editing"</button> })}
                <button class="button small" on:click=close>"Close lesson"</button>
            </div>
        </header>
    }
}

/// Back, Next (or Skip / Finish), and the keys that do the same.
#[component]
fn LessonNav(
    app: AppState,
    step: usize,
    steps: usize,
    finished: bool,
    /// The step is a question not answered yet.
    unanswered: bool,
) -> impl IntoView {
    view! {
        <footer class="lesson-nav">
            <button class="button" disabled=step == 0 && !finished on:click=move |_| back(app)>"← Back"</button>
            {(!finished).then(|| view! {
                <button class="button primary lesson-next" on:click=move |_| next(app)>
                    {if unanswered { "Skip and show the answer" } else if step + 1 >= steps { "Finish →" } else { "Next →" }}
                </button>
            })}
            <span class="muted small keys-hint">"Keys: Space or → next · ← back · 1–9 answer · P present · F fullscreen"</span>
        </footer>
    }
}

fn step_view(app: AppState, s: &Shown) -> AnyView {
    match &s.current {
        None => view! { <p class="muted">"This lesson has no steps yet."</p> }.into_any(),
        Some(Step::Note {
            text, highlight, ..
        }) => {
            let paras = text
                .split("\n\n")
                .map(|p| view! { <p>{p.to_string()}</p> })
                .collect_view();
            view! {
                <div class="lesson-step lesson-note">
                    {paras}
                    {highlight.map(|h| view! { <p class="muted small">{format!("Look at {}.", h.label())}</p> })}
                </div>
            }
            .into_any()
        }
        Some(Step::Question(q)) => {
            let answered = s.answered.filter(|(st, _)| *st == s.step).map(|(_, c)| c);
            let right = q.answer;
            let feedback = answered.map(|c| {
                if c == usize::MAX {
                    view! { <p class="lesson-feedback" role="status">{format!("The answer: {}. {}", q.choices[right], q.explain)}</p> }.into_any()
                } else if c == right {
                    view! { <p class="lesson-feedback ok" role="status">{format!("Right! {}", q.explain)}</p> }.into_any()
                } else {
                    view! { <p class="lesson-feedback bad" role="status">{format!("Not quite: the answer is {}. {}", quoted(&q.choices[right]), q.explain)}</p> }.into_any()
                }
            });
            let first = s.given;
            let choices = q
                .choices
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let state = match answered {
                        Some(_) if i == right => "right",
                        Some(a) if a == i => "wrong",
                        _ => "",
                    };
                    let was_first = first == Some(i);
                    view! {
                        <li>
                            <button class=format!("choice {state}") aria-keyshortcuts=(i + 1).to_string()
                                aria-pressed=was_first.to_string()
                                on:click=move |_| answer(app, i)>
                                <span class="choice-key" aria-hidden="true">{(i + 1).to_string()}</span>
                                <span>{c.clone()}</span>
                            </button>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <div class="lesson-step lesson-question">
                    <p class="question-kind small muted">"Predict what happens next"</p>
                    <h3 class="question-prompt">{q.prompt.clone()}</h3>
                    <ol class="choices">{choices}</ol>
                    {feedback}
                </div>
            }
            .into_any()
        }
    }
}

fn finished_view(app: AppState, s: &Shown) -> AnyView {
    let (right, total) = s.score;
    let rows = s
        .results
        .iter()
        .map(|(h, ok)| {
            let mark = match ok {
                Some(true) => "✓",
                Some(false) => "✗",
                None => "–",
            };
            let class = match ok {
                Some(true) => "ok",
                Some(false) => "bad",
                None => "muted",
            };
            view! { <li><span class=class aria-hidden="true">{mark}</span>" "{h.clone()}
                <span class="sr-only">{match ok { Some(true) => " (right)", Some(false) => " (wrong)", None => " (skipped)" }}</span></li> }
        })
        .collect_view();
    view! {
        <div class="lesson-step lesson-score" role="status">
            <h3 class="score-line">{format!("You predicted {right} of {total} correctly.")}</h3>
            <ul class="score-list">{rows}</ul>
            <button class="button" on:click=move |_| restart(app)>"Start again"</button>
        </div>
    }
    .into_any()
}

/// `text` in quotation marks, unless it already starts with one (a choice
/// that quotes a reply).
fn quoted(text: &str) -> String {
    if text.starts_with(['“', '"']) {
        text.to_string()
    } else {
        format!("“{text}”")
    }
}

/// The replay speed's picker (`label` before it, `aria` naming it), its
/// options the children.
#[component]
pub(super) fn SpeedSelect(
    label: &'static str,
    aria: &'static str,
    children: Children,
) -> impl IntoView {
    let app = use_app();
    view! {
        <label class="small">{label}
            <select aria-label=aria prop:value=move || app.speed.get().to_string()
                on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f64>() { app.speed.set(v) } }>
                {children()}
            </select>
        </label>
    }
}
