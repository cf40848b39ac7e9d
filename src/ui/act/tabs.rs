//! ACT's tabs of the run page, each the HTML of an engine view rebuilt
//! only when what it shows changes: Meetings (the team meeting, break
//! time's side rooms, the production rounds), Memory (every agent's
//! expertise, episodes and knowledge cards, and what each prompt was
//! given), Tasks (each agent's task evolution as a diff), Output (the
//! drafts and checks, the deliverable with the references' words
//! highlighted, and its scores).

use super::view;
use crate::engine::coordinators::act::html::{meetings, memory, output, tasks};
use crate::ui::state::use_app;
use leptos::prelude::*;

fn revision_key(app: crate::ui::state::AppState) -> Memo<(u64, usize)> {
    Memo::new(move |_| (app.run_serial(), view::read(app, view::revision)))
}

#[component]
pub fn MeetingsPanel() -> impl IntoView {
    let app = use_app();
    let key = revision_key(app);
    let html = Memo::new(move |_| {
        key.track();
        untrack(|| view::read(app, meetings::meetings_html))
    });
    view! { <div class="act-tab act-meetings" role="region" tabindex="0" aria-label="Meetings" inner_html=html></div> }
}

#[component]
pub fn MemoryPanel() -> impl IntoView {
    let app = use_app();
    let key = revision_key(app);
    let html = Memo::new(move |_| {
        key.track();
        untrack(|| view::read(app, memory::memories_html))
    });
    view! { <div class="act-tab act-memory-tab" role="region" tabindex="0" aria-label="Memory" inner_html=html></div> }
}

#[component]
pub fn TasksPanel() -> impl IntoView {
    let app = use_app();
    let key = revision_key(app);
    let html = Memo::new(move |_| {
        key.track();
        untrack(|| view::read(app, tasks::tasks_html))
    });
    view! { <div class="act-tab act-tasks-tab" role="region" tabindex="0" aria-label="Task evolution" inner_html=html></div> }
}

#[component]
pub fn OutputPanel() -> impl IntoView {
    let app = use_app();
    let key = revision_key(app);
    let html = Memo::new(move |_| {
        key.track();
        let refs = untrack(|| view::references(app));
        untrack(|| view::read(app, |v| output::output_html(v, &refs)))
    });
    view! { <div class="act-tab act-output" role="region" tabindex="0" aria-label="Output" inner_html=html></div> }
}

/// The memory inspector, a section of an agent's inspector in ACT runs.
#[component]
pub fn MemorySection() -> impl IntoView {
    let app = use_app();
    let html = Memo::new(move |_| {
        let agent = app.inspect.get().unwrap_or_default();
        view::read(app, |v| match v.agent(&agent) {
            Some(a) => memory::memory_html(v, a),
            None => String::new(),
        })
    });
    view! { <div class="act-inspector" inner_html=html></div> }
}
