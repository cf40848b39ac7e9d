//! The meeting room (right column of an ACT run): the members around the
//! table, the leader crowned, whoever is asking the model glowing, the
//! phase on the table, and in break time each member's expert in a side
//! room. A click on an agent opens its inspector with its memory.

use super::view;
use crate::engine::coordinators::act::contract::*;
use crate::engine::coordinators::act::html::room::room_svg;
use crate::ui::graph::inspect_at;
use crate::ui::state::use_app;
use leptos::prelude::*;

#[component]
pub fn RoomPanel() -> impl IntoView {
    let app = use_app();
    let svg = Memo::new(move |_| view::read(app, room_svg));
    let caption = move || {
        view::read(app, |v| {
            match v.phase.as_deref() {
            Some(PHASE_DECOMPOSE) => "The task is split into one task per agent.".to_string(),
            Some(PHASE_GENERATION) => "Agents are generated with their expertise keywords.".into(),
            Some(PHASE_TEAM) => "Team meeting: opinions, then advice; the leader fuses the tasks into G. Afterwards each agent rewrites its task and stores what it learned.".into(),
            Some(PHASE_BREAK) => format!("Break time: each agent asks the expert it created ({} so far).", v.experts().count()),
            Some(PHASE_PRODUCTION) => format!("Production meeting: round {}.", v.rounds.len().max(1)),
            Some(PHASE_EVALUATION) => "Evaluation against the reference solutions.".into(),
            _ => match &v.result {
                Some(r) => match (&r.scores.rouge, r.scores.trivia_recall) {
                    (Some(x), _) => format!("ROUGE-L recall {:.1} · ROUGE-1 {:.1} · {} words.", 100.0 * x.rouge_l.recall, 100.0 * x.rouge1.recall, r.words),
                    (None, Some(t)) => format!("Trivia recall {:.0}% · {} words.", 100.0 * t, r.words),
                    _ => format!("{} words (a typed task is not scored).", r.words),
                },
                None => String::new(),
            },
        }
        })
    };
    view! {
        <section class="panel act-room-panel" role="region" aria-label="Meeting room">
            <h2 class="panel-title">"Meeting room"</h2>
            <div class="act-room-box"
                on:click=move |ev| inspect_at(app, &ev)
                on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Enter" || ev.key() == " " {
                    ev.prevent_default();
                    inspect_at(app, &ev)
                }
                inner_html=svg></div>
            <p class="small act-caption" aria-live="polite">{caption}</p>
            <p class="muted small act-legend">"♛ the leader · a glow: asking the model now · a square beside an agent: its expert in break time. Click an agent (or Tab to it and press Enter) to inspect its memory."</p>
        </section>
    }
}
