//! The run page: task and controls on the left; the shown run's toolbar,
//! transcript / events and replay timeline in the middle; the agent graph
//! and usage on the right.

use super::controls::TaskPanel;
use super::events_tab::EventsTab;
use super::graph::AgentGraphPanel;
use super::replay::ReplayBar;
use super::state::{use_app, Activity};
use super::toolbar::RunToolbar;
use super::transcript::TranscriptPanel;
use super::usage::UsagePanel;
use leptos::prelude::*;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tab {
    Transcript,
    Events,
}

#[component]
pub fn RunPage() -> impl IntoView {
    let app = use_app();
    let tab = RwSignal::new(Tab::Transcript);
    let event_count = move || app.view.with(|v| v.status.events);
    let replayable =
        move || app.activity.get() == Activity::Idle && app.events.with(|e| !e.is_empty());
    let tab_button = move |t: Tab, label: &'static str, id: &'static str| {
        view! {
            <button
                role="tab"
                id=id
                class="tab"
                aria-selected=move || if tab.get() == t { "true" } else { "false" }
                on:click=move |_| tab.set(t)
            >
                {label}
                {move || (t == Tab::Events).then(|| view! { <span class="tab-count">{event_count()}</span> })}
            </button>
        }
    };
    view! {
        <main class="run-page">
            <section class="column left" aria-label="Run setup">
                <TaskPanel/>
            </section>
            <section class="column center">
                <RunToolbar/>
                <div class="tabs" role="tablist" aria-label="Run views">
                    {tab_button(Tab::Transcript, "Transcript", "tab-transcript")}
                    {tab_button(Tab::Events, "Events", "tab-events")}
                </div>
                <div class="tab-body" role="tabpanel">
                    {move || match tab.get() {
                        Tab::Transcript => view! { <TranscriptPanel/> }.into_any(),
                        Tab::Events => view! { <EventsTab/> }.into_any(),
                    }}
                </div>
                <Show when=replayable>
                    <ReplayBar/>
                </Show>
            </section>
            <section class="column right" aria-label="Agents and usage">
                <AgentGraphPanel/>
                <UsagePanel/>
            </section>
        </main>
    }
}
