//! The lesson editor's list of steps: each step's kind, anchor and text,
//! with buttons to move the replay to it, reorder it and delete it; its
//! text is edited in place.

use super::positions::is_multi;
use crate::engine::lesson::{Lesson, Step};
use crate::engine::views::compare_report::letter;
use crate::ui::state::{use_app, AppState};
use leptos::prelude::*;

/// Applies `f` to the lesson's steps (nothing without a lesson).
fn edit_steps(app: AppState, f: impl FnOnce(&mut Vec<Step>)) {
    app.lesson.update(|l| {
        if let Some(lesson) = l.as_mut().and_then(|l| l.bundle.lesson.as_mut()) {
            f(&mut lesson.steps);
        }
    });
}

/// What `f` reads of the lesson being written (tracked; the default without one).
pub(super) fn read_lesson<T: Default>(app: AppState, f: impl FnOnce(&Lesson) -> T) -> T {
    app.lesson.with(|l| {
        l.as_ref()
            .and_then(|l| l.bundle.lesson.as_ref())
            .map(f)
            .unwrap_or_default()
    })
}

/// Moves the replay to event `at` of run `r` (on the Compare page, pins
/// that run's column there).
fn go(app: AppState, r: usize, at: usize) {
    if is_multi(app) {
        super::positions::pin(app, r, at);
    } else {
        app.set_cursor(at);
    }
}

/// The lesson's steps in order, each editable, movable and deletable.
#[component]
pub(super) fn StepList() -> impl IntoView {
    let app = use_app();
    let steps = move || read_lesson(app, |x| x.steps.clone());
    view! {
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
                        {list.into_iter().enumerate().map(|(i, s)| view! { <StepRow index=i count=n step=s/> }).collect_view()}
                    </ol>
                }.into_any()
            }}
        </div>
    }
}

/// Step `index` (of `count`): its kind and anchor, its text, and its Go, move and delete buttons.
#[component]
fn StepRow(index: usize, count: usize, step: Step) -> impl IntoView {
    let app = use_app();
    let (i, n, s) = (index, count, step);
    let (r, at) = s.anchor();
    let kind = if s.question().is_some() {
        "Question"
    } else {
        "Note"
    };
    let text = match &s {
        Step::Note { text, .. } => text.clone(),
        Step::Question(q) => q.prompt.clone(),
    };
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
                <button class="button small" on:click=move |_| go(app, r, at)>"Go"</button>
                <button class="button small" aria-label=format!("Move step {} up", i + 1) disabled=i == 0
                    on:click=move |_| edit_steps(app, |s| s.swap(i - 1, i))>"↑"</button>
                <button class="button small" aria-label=format!("Move step {} down", i + 1) disabled=i + 1 == n
                    on:click=move |_| edit_steps(app, |s| s.swap(i, i + 1))>"↓"</button>
                <button class="button small danger" aria-label=format!("Delete step {}", i + 1)
                    on:click=move |_| edit_steps(app, |s| { s.remove(i); })>"Delete"</button>
            </div>
        </li>
    }
}
