//! The run page: task and controls on the left; the shown run's toolbar,
//! transcript / the coordinator's tabs / events and replay timeline in the
//! middle; the agent graph, the inspector, the coordinator's panels and
//! usage on the right. What a coordinator adds comes from its row in
//! `coordinators::UIS`, each piece loaded on first use.

use super::controls::TaskPanel;
use super::coordinator_row::ExtraTab;
use super::coordinators::{shown_ui, ui_of};
use super::graph::AgentGraphPanel;
use super::lazy::lazy_view;
use super::replay::ReplayBar;
use super::run_tabs::{RunTabs, Tab};
use super::state::{use_app, Activity, ClassRole};
use super::toolbar::RunToolbar;
use super::transcript::TranscriptPanel;
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
    // The shown run's coordinator; the views below change only with it.
    let shown = Memo::new(move |_| shown_ui(app).id);
    let ui = move || ui_of(shown.get());
    // Leaving a run for one of another coordinator hides its tabs: fall back.
    Effect::new(move |_| {
        let extras = ui().tabs;
        if let Tab::Extra(id) = tab.get_untracked() {
            if !extras.iter().any(|t| t.id == id) {
                tab.set(Tab::Transcript);
            }
        }
    });
    let count = move |t: Tab| match t {
        Tab::Events => Some(app.view.with(|v| v.status.events)),
        Tab::Extra(id) => {
            let store = ui().tabs.iter().find(|x| x.id == id)?.count_store?;
            Some(
                app.view
                    .with(|v| v.status.notes.get(store).copied().unwrap_or(0)),
            )
        }
        Tab::Transcript => None,
    };
    // A lesson on one run takes the setup's place (a comparison's is on
    // the Compare page).
    let in_lesson = move || {
        app.lesson
            .with(|l| l.as_ref().is_some_and(|l| l.bundle.runs.len() == 1))
    };
    // A live class's panel heads the column; a student's takes it all.
    let in_class = move || app.class.with(Option::is_some);
    let student = move || app.class.get() == Some(ClassRole::Student);
    let replayable =
        move || app.activity.get() == Activity::Idle && app.events.with(|e| !e.is_empty());
    let tab_button = move |t: Tab, label: &'static str, id: String| {
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
    let extra_tab = move |id: &'static str| -> Option<&'static ExtraTab> {
        ui().tabs.iter().find(|t| t.id == id)
    };
    view! {
        <main class="run-page" class:with-lesson=move || in_lesson() || in_class()>
            <section class="column left" aria-label=move || if in_lesson() || in_class() { "Teaching" } else { "Run setup" }>
                <Show when=in_class>
                    {lazy_view("the live class", crate::ui::classroom::live_panel)}
                </Show>
                <Show when=move || !student()>
                    <Show when=in_lesson fallback=|| view! { <TaskPanel/> }>
                        {lazy_view("the lesson", crate::ui::classroom::lesson_panel)}
                    </Show>
                </Show>
            </section>
            <section class="column center">
                <RunToolbar/>
                <div class="tabs" role="tablist" aria-label="Run views">
                    {tab_button(Tab::Transcript, "Transcript", "tab-transcript".into())}
                    {move || {
                        ui().tabs
                            .iter()
                            .map(|t| tab_button(Tab::Extra(t.id), t.label, format!("tab-{}", t.id)))
                            .collect_view()
                    }}
                    {tab_button(Tab::Events, "Events", "tab-events".into())}
                </div>
                <div class="tab-body" role="tabpanel">
                    {move || match tab.get() {
                        Tab::Transcript => view! { <TranscriptPanel/> }.into_any(),
                        Tab::Events => lazy_view("the events", parts::events).into_any(),
                        Tab::Extra(id) => match extra_tab(id) {
                            Some(t) => lazy_view(t.what, t.view).into_any(),
                            None => view! { <TranscriptPanel/> }.into_any(),
                        },
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
                {move || {
                    ui().side_panels
                        .iter()
                        .map(|p| lazy_view(p.what, p.view))
                        .collect_view()
                }}
                <UsagePanel/>
            </section>
        </main>
    }
}
