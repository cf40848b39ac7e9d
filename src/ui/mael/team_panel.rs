//! The team panel (right column of a MAEL run): the graph with the root
//! crowned and every agent's closeness, the hand-off under way travelling
//! its edge in the forward pass, and the backward pass played back one
//! reward after another (the rewards arrive in a burst when a task ends;
//! each is shown for a moment on its agent). A click on an agent opens
//! its inspector, with what it retrieved.

use super::view;
use crate::engine::coordinators::mael::html::team::team_svg_with;
use crate::ui::graph::inspect_at;
use crate::ui::state::use_app;
use leptos::prelude::*;
use std::time::Duration;

/// How long each reward of the backward pass is shown.
const REWARD_MS: u64 = 450;

#[component]
pub fn TeamPanel() -> impl IntoView {
    let app = use_app();
    let rewards = Memo::new(move |_| (app.run_serial(), view::read(app, |v| v.rewards.len())));
    // Rewards shown so far; behind the view's count while playing back.
    let played = RwSignal::new(0usize);
    let timer = StoredValue::new_local(None::<IntervalHandle>);
    let stop_timer = move || {
        if let Some(t) = timer.get_value() {
            t.clear();
        }
        timer.set_value(None);
    };
    Effect::new(move |prev: Option<(u64, usize)>| {
        let (serial, n) = rewards.get();
        let opened = prev.is_none_or(|(s, _)| s != serial);
        let shown = played.get_untracked();
        if opened || n < shown {
            // A run opened (or the cursor went back): show where it is.
            stop_timer();
            played.set(n);
        } else if n > shown && timer.get_value().is_none() {
            played.set(shown + 1);
            let handle = set_interval_with_handle(
                move || {
                    let n = rewards.get_untracked().1;
                    let p = played.get_untracked();
                    if p >= n {
                        stop_timer();
                    } else {
                        played.set(p + 1);
                    }
                },
                Duration::from_millis(REWARD_MS),
            );
            timer.set_value(handle.ok());
        }
        (serial, n)
    });
    on_cleanup(stop_timer);
    let moved = Memo::new(move |_| {
        view::read(app, |v| {
            (v.team.is_some(), v.motion.as_ref().map(|(s, _)| *s))
        })
    });
    let svg = Memo::new(move |_| {
        moved.track();
        let p = played.get();
        untrack(|| {
            view::read(app, |v| {
                let motion = if p < v.rewards.len() {
                    v.rewards.get(p.saturating_sub(1)).map(|(_, m)| m)
                } else {
                    v.motion.as_ref().map(|(_, m)| m)
                };
                team_svg_with(v, motion)
            })
        })
    });
    let caption = move || {
        let p = played.get();
        view::read(app, |v| {
            let n = v.rewards.len();
            match v.phase.as_deref() {
                Some("forward") => {
                    "Forward pass: subtasks go out along the edges, solutions come back."
                        .to_string()
                }
                _ if p < n => format!("Backward pass: reward {} of {n}.", p.max(1)),
                Some("backward") => {
                    "Backward pass: each step is rated and stored with its reward.".to_string()
                }
                _ => match &v.result {
                    Some(r) => format!(
                        "Score {:.2}; {} experience{} learned.",
                        r.score,
                        r.learned,
                        if r.learned == 1 { "" } else { "s" }
                    ),
                    None => String::new(),
                },
            }
        })
    };
    view! {
        <section class="panel ml-team-panel" role="region" aria-label="Team">
            <h2 class="panel-title">"Team"</h2>
            <div class="ml-team-box"
                on:click=move |ev| inspect_at(app, &ev)
                on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Enter" { inspect_at(app, &ev) }
                inner_html=svg></div>
            <p class="small ml-caption" aria-live="polite">{caption}</p>
            <p class="muted small ml-legend">"♛ the root (highest closeness) · c closeness centrality · a dot travels the edge of the hand-off under way · a ring marks a reward. Click an agent to inspect what it retrieved."</p>
        </section>
    }
}
