//! The task box, Run / Pause / Step / Stop, and the run's status line.

use super::coordinators::ui_of;
use super::lazy::lazy_view_later;
use super::state::{use_app, Activity, AppState};
use super::widgets::target_as;
use crate::engine::coordinators;
use crate::engine::run::RunStatus;
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

/// The tag of the element a key went to (`input`, `button`…), lower case:
/// keyboard shortcuts leave typing alone.
pub(crate) fn target_tag(ev: &KeyboardEvent) -> String {
    target_as::<web_sys::Element>(ev)
        .map(|e| e.tag_name().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Space steps when paused, unless the user is typing or on a button.
fn install_space_to_step() {
    let app = use_app();
    let handle = window_event_listener(leptos::ev::keydown, move |ev: KeyboardEvent| {
        if ev.key() != " " || app.activity.get_untracked() != Activity::Paused {
            return;
        }
        let tag = target_tag(&ev);
        if matches!(tag.as_str(), "input" | "textarea" | "select" | "button") {
            return;
        }
        ev.prevent_default();
        super::launch::step(app);
    });
    on_cleanup(move || handle.remove());
}

#[component]
pub fn TaskPanel() -> impl IntoView {
    let app = use_app();
    install_space_to_step();
    let idle = move || app.activity.get() == Activity::Idle;
    let paused = move || app.activity.get() == Activity::Paused;
    let running = move || app.activity.get() == Activity::Running;
    // The picked coordinator's row; the panel changes only with it.
    let picked = Memo::new(move |_| ui_of(&app.coordinator.get()).id);
    let ui = move || ui_of(picked.get());
    let description = move || {
        coordinators::info(&app.coordinator.get())
            .map(|c| c.description)
            .unwrap_or("")
    };
    view! {
        <div class="panel task-panel">
            <h2 class="panel-title">{move || ui().task_title}</h2>
            <p class="muted small">{description}</p>
            {move || match &ui().setup {
                Some(setup) => lazy_view_later(setup.what, setup.view).into_any(),
                None => view! { <TaskEditor/> }.into_any(),
            }}
            <super::prompts::PromptsLine/>
            <div class="controls" role="group" aria-label="Run controls">
                <button
                    class="button primary"
                    disabled=running
                    title=move || if paused() { "Continue the paused run" } else { "Start a new run" }
                    on:click=move |_| super::launch::run_or_resume(app)
                >
                    <svg class="btn-icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M8 5v14l11-7z"/></svg>
                    "Run"
                </button>
                <button class="button" disabled=move || !running() title="Hold the run before its next LLM call" on:click=move |_| app.pause()>
                    <svg class="btn-icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M6 5h4v14H6zM14 5h4v14h-4z"/></svg>
                    "Pause"
                </button>
                <button class="button" disabled=running title="Send exactly one LLM call (Space when paused); from idle, start paused at the first call" on:click=move |_| super::launch::step(app)>
                    <svg class="btn-icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M5 5v14l10-7zM16 5h3v14h-3z"/></svg>
                    "Step"
                </button>
                <button class="button danger" disabled=idle title="Stop the run and abort the request in flight" on:click=move |_| app.stop()>
                    <svg class="btn-icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M6 6h12v12H6z"/></svg>
                    "Stop"
                </button>
            </div>
            <Notice/>
            <StatusLine/>
        </div>
    }
}

/// The free-text task box (coordinators without a setup of their own).
#[component]
fn TaskEditor() -> impl IntoView {
    let app = use_app();
    let idle = move || app.activity.get() == Activity::Idle;
    let example = move || {
        coordinators::info(&app.coordinator.get())
            .map(|c| c.example_task)
            .unwrap_or("")
    };
    view! {
            <textarea
                id="task"
                aria-label="Task"
                rows="7"
                placeholder=move || format!("e.g. {}", example())
                prop:value=move || app.task.get()
                on:input=move |ev| app.task.set(event_target_value(&ev))
                on:keydown=move |ev: KeyboardEvent| {
                    if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                        ev.prevent_default();
                        super::launch::run_or_resume(app);
                    }
                }
            ></textarea>
            <div class="task-actions">
                <button
                    class="link-button small"
                    disabled=move || !idle()
                    on:click=move |_| app.task.set(example().to_string())
                >
                    "Use the example task"
                </button>
                <span class="muted small">"Ctrl+Enter runs"</span>
            </div>
    }
}

#[component]
fn Notice() -> impl IntoView {
    let app = use_app();
    move || {
        app.notice.get().map(|n| {
            view! {
                <div class="notice warning" role="alert">
                    <p>{n.text.clone()}</p>
                    {n.settings.then(|| view! {
                        <button class="button small" on:click=move |_| app.settings_open.set(true)>"Open Settings"</button>
                    })}
                </div>
            }
        })
    }
}

/// The time now, ticking every half second while a run is live: a long
/// prompt read by a local model sends no event for a minute, and the time
/// shown must not stand still.
fn live_clock(app: AppState) -> RwSignal<f64> {
    let now = RwSignal::new(js_sys::Date::now());
    let ticker = StoredValue::new(None::<leptos::leptos_dom::helpers::IntervalHandle>);
    Effect::new(move |_| {
        let live = app.activity.get() != Activity::Idle;
        if let Some(h) = ticker.try_update_value(Option::take).flatten() {
            h.clear();
        }
        if live {
            let h = set_interval_with_handle(
                move || now.set(js_sys::Date::now()),
                std::time::Duration::from_millis(500),
            );
            ticker.set_value(h.ok());
        }
    });
    on_cleanup(move || {
        if let Some(h) = ticker.try_update_value(Option::take).flatten() {
            h.clear();
        }
    });
    now
}

/// A paused run's line: whose LLM call is next.
fn paused_text(app: AppState) -> String {
    let w = app.waiting.get();
    if let Some(next) = w.first() {
        let name = app.view.with(|v| v.transcript.name_of(next).to_string());
        let more = if w.len() > 1 {
            format!(" (+{} more)", w.len() - 1)
        } else {
            String::new()
        };
        format!("Paused — next: {name}'s LLM call{more}. Step (Space) sends it; Run continues.")
    } else {
        "Paused — the run will hold before its next LLM call.".to_string()
    }
}

/// The status line's text: what the run does, its calls and its time.
fn status_text(app: AppState, now: RwSignal<f64>) -> String {
    let live = app.activity.get() != Activity::Idle;
    let (started, status, mut calls, ms, count, recorded) = app.view.with(|v| {
        (
            v.status.started,
            v.status.status,
            v.status.calls_line(live),
            v.status.elapsed_ms,
            v.status.repair_count(),
            v.status.repairs_recorded,
        )
    });
    let since_start = live
        .then(|| {
            let start = app
                .shown
                .with(|s| s.as_ref().map(|s| s.config.created_ms))?;
            (start > 0.0).then(|| (now.get() - start).max(0.0) as u64)
        })
        .flatten();
    let ms = since_start.map_or(ms, |t| t.max(ms));
    let secs = ms as f64 / 1000.0;
    if count.replies > 0 && recorded {
        calls.push_str(&format!(" · {}", count.summary()));
    } else if count.replies > 0 {
        calls.push_str(" · replies repaired: not recorded (older run)");
    }
    match (app.activity.get(), status) {
        (Activity::Paused, _) => paused_text(app),
        (Activity::Running, _) => format!("Running · {calls} · {secs:.1} s"),
        (Activity::Idle, _) if !started => "Ready. Write a task and press Run.".into(),
        (Activity::Idle, RunStatus::Finished) => format!("Finished · {calls} · {secs:.1} s"),
        (Activity::Idle, RunStatus::Cancelled) => format!("Stopped · {calls} · {secs:.1} s"),
        (Activity::Idle, RunStatus::Failed)
            if app
                .view
                .with(|v| v.status.error_kind.as_deref() == Some("spend_cap")) =>
        {
            format!("Stopped at the spend cap · {calls} · {secs:.1} s")
        }
        (Activity::Idle, RunStatus::Failed) => "Failed".into(),
        (Activity::Idle, RunStatus::Running) => "Ended".into(),
    }
}

/// The status line's class: `status-line status-<what the run does>`.
fn status_class(app: AppState) -> String {
    let status = app.view.with(|v| v.status.status);
    let kind = match (app.activity.get(), status) {
        (Activity::Running, _) => "running",
        (Activity::Paused, _) => "paused",
        (_, RunStatus::Failed) => "failed",
        (_, RunStatus::Finished) => "finished",
        _ => "idle",
    };
    format!("status-line status-{kind}")
}

#[component]
fn StatusLine() -> impl IntoView {
    let app = use_app();
    let failure = move || {
        app.view.with(|v| {
            (v.status.status == RunStatus::Failed)
                .then(|| v.status.error.clone().unwrap_or_default())
        })
    };
    let now = live_clock(app);
    view! {
        <div class=move || status_class(app) role="status" aria-live="polite" data-testid="run-status">
            <span class="status-dot" aria-hidden="true"></span>
            <span>{move || status_text(app, now)}</span>
        </div>
        {move || super::state::local_status().get().map(|s| view! {
            <p class="local-status" data-testid="local-status">{s}</p>
        })}
        {move || failure().map(|msg| view! {
            <div class="notice error" role="alert">
                <p>{msg}</p>
                <button class="button small" on:click=move |_| app.settings_open.set(true)>"Check Settings"</button>
            </div>
        })}
    }
}
