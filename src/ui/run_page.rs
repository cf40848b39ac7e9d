//! The run page: task and controls on the left; the shown run's toolbar,
//! transcript / notebook / plan / events and replay timeline in the middle;
//! the agent graph, the inspector, metrics and usage on the right.

use super::controls::TaskPanel;
use super::graph::AgentGraphPanel;
use super::lazy::lazy_view;
use super::replay::ReplayBar;
use super::run_tabs::{RunTabs, Tab};
use super::state::{is_travel, use_app, Activity};
use super::toolbar::RunToolbar;
use super::transcript::TranscriptPanel;
use super::travel;
use super::usage::UsagePanel;
use leptos::prelude::*;

/// Panels of the run page that load on first use.
mod parts {
    use crate::ui::lazy::{lazy_part, ViewFn};
    use leptos::prelude::*;

    lazy_part! { extras:
        pub fn events() -> ViewFn {
            || view! { <crate::ui::events_tab::EventsTab/> }.into_any()
        }
        pub fn inspector() -> ViewFn {
            || view! { <crate::ui::inspector::InspectorPanel/> }.into_any()
        }
    }
}

#[component]
pub fn RunPage() -> impl IntoView {
    let app = use_app();
    let tabs = RunTabs::provide();
    let tab = tabs.tab;
    let travel = move || is_travel(app);
    // Leaving a travel run for another kind hides its tabs: fall back.
    Effect::new(move |_| {
        if !travel() && matches!(tab.get_untracked(), Tab::Notebook | Tab::Plan) {
            tab.set(Tab::Transcript);
        }
    });
    let count = move |t: Tab| match t {
        Tab::Events => Some(app.view.with(|v| v.status.events)),
        Tab::Notebook => Some(app.view.with(|v| v.travel.notebook.len())),
        _ => None,
    };
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
                {move || count(t).map(|n| view! { <span class="tab-count">{n}</span> })}
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
                    <Show when=travel>
                        {tab_button(Tab::Notebook, "Notebook", "tab-notebook")}
                        {tab_button(Tab::Plan, "Plan", "tab-plan")}
                    </Show>
                    {tab_button(Tab::Events, "Events", "tab-events")}
                </div>
                <div class="tab-body" role="tabpanel">
                    {move || match tab.get() {
                        Tab::Transcript => view! { <TranscriptPanel/> }.into_any(),
                        Tab::Notebook => lazy_view("the notebook", travel::notebook_panel).into_any(),
                        Tab::Plan => lazy_view("the plan", travel::plan_panel).into_any(),
                        Tab::Events => lazy_view("the events", parts::events).into_any(),
                    }}
                </div>
                <Show when=replayable>
                    <ReplayBar/>
                </Show>
            </section>
            <section class="column right" aria-label="Agents and usage">
                <AgentGraphPanel/>
                <Show when=move || app.inspect.with(Option::is_some)>
                    {lazy_view("the inspector", parts::inspector)}
                </Show>
                <Show when=travel>
                    {lazy_view("the metrics", travel::metrics_panel)}
                </Show>
                <UsagePanel/>
            </section>
        </main>
    }
}
