//! ACT's tabs of the run page, each the HTML of an engine view rebuilt
//! only when what it shows changes: Meetings (the team meeting, break
//! time's side rooms, the production rounds), Memory (every agent's
//! expertise, episodes and knowledge cards, and what each prompt was
//! given), Tasks (each agent's task evolution as a diff), Output (the
//! drafts and checks, the deliverable with the references' words
//! highlighted, and its scores).

use super::view;
use crate::engine::coordinators::act::html::{meetings, memory, output, tasks};
use crate::ui::agent_section::AgentSection;
use crate::ui::state::{use_app, AppState};
use leptos::prelude::*;

/// A tab: the HTML `render` makes of the run, rebuilt only when the
/// run or what ACT's views show changes, in a region named `label`.
#[component]
fn Tab(class: &'static str, label: &'static str, render: fn(AppState) -> String) -> impl IntoView {
    let app = use_app();
    let key = Memo::new(move |_| (app.run_serial(), view::read(app, view::revision)));
    let html = Memo::new(move |_| {
        key.track();
        untrack(|| render(app))
    });
    view! { <div class=format!("act-tab {class}") role="region" tabindex="0" aria-label=label inner_html=html></div> }
}

#[component]
pub fn MeetingsPanel() -> impl IntoView {
    let render = |app| view::read(app, meetings::meetings_html);
    view! { <Tab class="act-meetings" label="Meetings" render=render/> }
}

#[component]
pub fn MemoryPanel() -> impl IntoView {
    let render = |app| view::read(app, memory::memories_html);
    view! { <Tab class="act-memory-tab" label="Memory" render=render/> }
}

#[component]
pub fn TasksPanel() -> impl IntoView {
    let render = |app| view::read(app, tasks::tasks_html);
    view! { <Tab class="act-tasks-tab" label="Task evolution" render=render/> }
}

#[component]
pub fn OutputPanel() -> impl IntoView {
    let render = |app| {
        let refs = view::references(app);
        let ended = app.view.with(|v| v.status.ended_early());
        view::read(app, |v| {
            match ended {
            Some(how) if v.rounds.is_empty() && v.result.is_none() => format!(
                "<p class=\"muted empty-note\" data-testid=\"ended-early\">No deliverable: the run {how} before the production meeting.</p>"
            ),
            _ => output::output_html(v, &refs),
        }
        })
    };
    view! { <Tab class="act-output" label="Output" render=render/> }
}

/// The memory inspector, a section of an agent's inspector in ACT runs.
#[component]
pub fn MemorySection() -> impl IntoView {
    let html = |app, agent: &str| {
        view::read(app, |v| match v.agent(agent) {
            Some(a) => memory::memory_html(v, a),
            None => String::new(),
        })
    };
    view! { <AgentSection class="act-inspector" html=html/> }
}
