//! Replay: play / pause at 0.5×–8×, step one event, jump between LLM calls,
//! and a timeline (phase bands, one lane per agent) to scrub. Every panel
//! shows the run as it was at the cursor. Keys: Space play/pause, ←/→ one
//! event, Shift+←/→ previous/next LLM call.

use super::lazy::{lazy_view, lazy_views};
use super::state::{use_app, Activity, AppState};
use crate::engine::views::html::timeline_svg;
use crate::engine::views::timeline::{cursor_at, Timeline};
use gloo_timers::future::TimeoutFuture;
use leptos::ev::KeyboardEvent;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;

const TICK_MS: u32 = 40;
/// Quiet stretches longer than this play as this long.
const MAX_GAP_MS: u64 = 1_200;
/// The timeline drawing's width in user units (the page stretches it).
const W: f64 = 1000.0;

fn play(app: AppState) {
    if app.playing.get_untracked() {
        return;
    }
    let len = app.events.with_untracked(Vec::len);
    if app.position() >= len {
        app.set_cursor(0);
    }
    app.playing.set(true);
    spawn_local(async move {
        let mut t = app.events.with_untracked(|e| {
            let k = app.cursor.get_untracked().unwrap_or(0);
            e.get(k.saturating_sub(1)).map(|x| x.t_ms).unwrap_or(0)
        });
        loop {
            TimeoutFuture::new(TICK_MS).await;
            if !app.playing.get_untracked() {
                break;
            }
            let k = app.cursor.get_untracked().unwrap_or(usize::MAX);
            let (next_t, len) = app
                .events
                .with_untracked(|e| (e.get(k).map(|x| x.t_ms), e.len()));
            let Some(next_t) = next_t else {
                app.playing.set(false);
                break;
            };
            t += (TICK_MS as f64 * app.speed.get_untracked()) as u64;
            if next_t > t + MAX_GAP_MS {
                t = next_t - MAX_GAP_MS;
            }
            let target = app
                .events
                .with_untracked(|e| cursor_at(e, t))
                .max(k + 1)
                .min(len);
            if target > k {
                app.set_cursor(target);
            }
        }
    });
}

fn step(app: AppState, delta: isize) {
    app.playing.set(false);
    let k = app.position() as isize + delta;
    app.set_cursor(k.max(0) as usize);
}

fn jump_call(app: AppState, forward: bool) {
    app.playing.set(false);
    let k = app.position();
    let t = app.events.with_untracked(|e| Timeline::of(e));
    let target = if forward {
        t.next_call(k)
    } else {
        t.prev_call(k)
    };
    app.set_cursor(target.unwrap_or(if forward { usize::MAX } else { 0 }));
}

fn install_keys(app: AppState) {
    let handle = window_event_listener(leptos::ev::keydown, move |ev: KeyboardEvent| {
        // A lesson being played or presented owns the keys.
        let lesson = app.lesson.with_untracked(|l| {
            l.as_ref()
                .is_some_and(|l| l.mode != super::state::LessonMode::Edit)
        });
        if app.activity.get_untracked() != Activity::Idle
            || app.events.with_untracked(Vec::is_empty)
            || lesson
        {
            return;
        }
        let tag = crate::ui::controls::target_tag(&ev);
        if matches!(
            tag.as_str(),
            "input" | "textarea" | "select" | "button" | "summary"
        ) || app.settings_open.get_untracked()
            || app.fork_at.get_untracked().is_some()
        {
            return;
        }
        match (ev.key().as_str(), ev.shift_key()) {
            (" ", _) => {
                if app.playing.get_untracked() {
                    app.playing.set(false);
                } else {
                    play(app);
                }
            }
            ("ArrowRight", false) => step(app, 1),
            ("ArrowLeft", false) => step(app, -1),
            ("ArrowRight", true) => jump_call(app, true),
            ("ArrowLeft", true) => jump_call(app, false),
            _ => return,
        }
        ev.prevent_default();
    });
    on_cleanup(move || handle.remove());
}

fn icon(d: &'static str) -> impl IntoView {
    view! { <svg class="btn-icon" viewBox="0 0 24 24" aria-hidden="true"><path d=d/></svg> }
}

lazy_views! { run_view: bar_view => Bar }

/// The replay bar of a finished run (its code loads with the run views).
#[component]
pub fn ReplayBar() -> impl IntoView {
    lazy_view("the replay controls", bar_view)
}

#[component]
fn Bar() -> impl IntoView {
    let app = use_app();
    install_keys(app);
    let timeline = Memo::new(move |_| app.events.with(|e| Timeline::of(e)));
    let svg_ref = NodeRef::<html::Div>::new();
    let dragging = RwSignal::new(false);
    let len = move || app.events.with(Vec::len);
    let pos = move || app.position();
    let scale = move || {
        let d = timeline.with(|t| t.duration_ms).max(1) as f64;
        move |ms: u64| ms as f64 / d * W
    };
    let cursor_x = move || {
        let k = pos();
        let t = at_ms(app, k);
        scale()(t)
    };
    let seek = move |client_x: i32| {
        let Some(el) = svg_ref.get_untracked() else {
            return;
        };
        let rect = el.get_bounding_client_rect();
        let frac = ((client_x as f64 - rect.left()) / rect.width().max(1.0)).clamp(0.0, 1.0);
        let d = timeline.with_untracked(|t| t.duration_ms);
        let t = (frac * d as f64).round() as u64;
        app.playing.set(false);
        let k = app.events.with_untracked(|e| cursor_at(e, t));
        app.set_cursor(k);
    };
    // The drawing is HTML text (one parse), rebuilt only when the run's
    // events change; the cursor is its own element and moves alone.
    let svg = Memo::new(move |_| timeline.with(|t| timeline_svg(t, W)));
    let names =
        move || timeline.with(|t| t.lanes.iter().map(|l| l.name.clone()).collect::<Vec<_>>());
    let time_label = move || {
        let k = pos();
        let t = at_ms(app, k);
        format!(
            "event {k} / {} · {:.1} s / {:.1} s",
            len(),
            t as f64 / 1000.0,
            timeline.with(|t| t.duration_ms) as f64 / 1000.0
        )
    };
    view! {
        <div class="replay" aria-label="Replay">
            <div class="replay-controls" role="group" aria-label="Replay controls">
                <button class="icon-btn" aria-label="Previous LLM call" title="Previous LLM call (Shift+←)" on:click=move |_| jump_call(app, false)>{icon("M6 5h2v14H6zM19 5v14L9 12z")}</button>
                <button class="icon-btn" aria-label="Step back" title="One event back (←)" on:click=move |_| step(app, -1)>{icon("M18 5v14L8 12z")}</button>
                <button class="icon-btn play" aria-label=move || if app.playing.get() { "Pause replay" } else { "Play replay" } title="Play / pause (Space)"
                    on:click=move |_| if app.playing.get_untracked() { app.playing.set(false) } else { play(app) }>
                    {move || if app.playing.get() { icon("M6 5h4v14H6zM14 5h4v14h-4z").into_any() } else { icon("M8 5v14l11-7z").into_any() }}
                </button>
                <button class="icon-btn" aria-label="Step forward" title="One event forward (→)" on:click=move |_| step(app, 1)>{icon("M6 5v14l10-7z")}</button>
                <button class="icon-btn" aria-label="Next LLM call" title="Next LLM call (Shift+→)" on:click=move |_| jump_call(app, true)>{icon("M5 5v14l10-7zM16 5h2v14h-2z")}</button>
                <label class="speed">
                    <span class="muted small">"Speed"</span>
                    <select aria-label="Replay speed" prop:value=move || app.speed.get().to_string()
                        on:change=move |ev| app.speed.set(event_target_value(&ev).parse().unwrap_or(1.0))>
                        {[0.5, 1.0, 2.0, 4.0, 8.0].into_iter().map(|s| view! { <option value=s.to_string()>{format!("{s}×")}</option> }).collect_view()}
                    </select>
                </label>
                <span class="muted small position" data-testid="replay-position">{time_label}</span>
            </div>
            <div class="timeline">
                <ul class="lane-names" aria-hidden="true">
                    <li class="band-name">"Phases"</li>
                    {move || names().into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                </ul>
                <div class="timeline-body">
                <div class="band-labels" aria-hidden="true">
                    {move || timeline.with(|t| {
                        let s = scale();
                        t.bands.iter().map(|b| {
                            let left = s(b.start_ms) / W * 100.0;
                            let width = ((s(b.end_ms) - s(b.start_ms)) / W * 100.0).max(1.0);
                            view! { <span style=format!("left:{left:.2}%;width:{width:.2}%") title=b.label.clone()>{b.label.clone()}</span> }
                        }).collect_view()
                    })}
                </div>
                <div class="timeline-svg" node_ref=svg_ref
                    role="slider" tabindex="0" aria-label="Timeline" aria-valuemin="0"
                    aria-valuemax=move || len().to_string() aria-valuenow=move || pos().to_string()
                    on:pointerdown=move |ev| { dragging.set(true); seek(ev.client_x()); }
                    on:pointermove=move |ev| if dragging.get_untracked() { seek(ev.client_x()) }
                    on:pointerup=move |_| dragging.set(false)
                    on:pointerleave=move |_| dragging.set(false)>
                    <div class="timeline-drawing" inner_html=svg></div>
                    <div class="timeline-cursor" style=move || format!("left:{:.3}%", cursor_x() / W * 100.0)></div>
                </div>
                </div>
            </div>
        </div>
    }
}

/// The time of the event before cursor `k` (0 at the start), tracked.
fn at_ms(app: AppState, k: usize) -> u64 {
    app.events.with(|e| match k {
        0 => 0,
        k => e.get(k - 1).map_or(0, |x| x.t_ms),
    })
}
