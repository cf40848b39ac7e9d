//! The run page: task and controls on the left; the shown run's toolbar,
//! transcript / the coordinator's tabs / events and replay timeline in the
//! middle; the agent graph, the inspector, the coordinator's panels and
//! usage on the right. What a coordinator adds comes from its row in
//! `coordinators::UIS`, each piece loaded on first use.

use super::controls::TaskPanel;
use super::coordinator_row::{CoordinatorUi, ExtraTab};
use super::coordinators::{shown_ui, ui_of};
use super::graph::AgentGraphPanel;
use super::lazy::lazy_view;
use super::replay::ReplayBar;
use super::run_tabs::{RunTabs, Tab};
use super::state::{use_app, Activity, AppState, ClassRole};
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
        pub fn files() -> ViewFn {
            || view! { <crate::ui::files_tab::FilesTab/> }.into_any()
        }
        pub fn inspector() -> ViewFn {
            || view! { <crate::ui::inspector::InspectorPanel/> }.into_any()
        }
    }
}

/// The shown run's coordinator's row (the views change only with `shown`).
fn ui(shown: Memo<&'static str>) -> &'static CoordinatorUi {
    ui_of(shown.get())
}

/// The number a tab shows beside its label, if any.
fn tab_count(app: AppState, shown: Memo<&'static str>, t: Tab) -> Option<usize> {
    match t {
        Tab::Events => Some(app.view.with(|v| v.status.events)),
        // The count of files is the tab's own (its toolbar): the core does
        // not fold the workspace.
        Tab::Files => None,
        Tab::Extra(id) => {
            let store = ui(shown).tabs.iter().find(|x| x.id == id)?.count_store?;
            Some(
                app.view
                    .with(|v| v.status.notes.get(store).copied().unwrap_or(0)),
            )
        }
        Tab::Transcript => None,
    }
}

/// Whether the shown run has written a file (as of the replay cursor).
fn has_files(app: AppState) -> bool {
    app.view.with(|v| v.status.files_written > 0)
}

/// A lesson on one run takes the setup's place (a comparison's is on the
/// Compare page).
fn in_lesson(app: AppState) -> bool {
    app.lesson
        .with(|l| l.as_ref().is_some_and(|l| l.bundle.runs.len() == 1))
}

/// A live class's panel heads the left column.
fn in_class(app: AppState) -> bool {
    app.class.with(Option::is_some)
}

#[component]
pub fn RunPage() -> impl IntoView {
    let app = use_app();
    let tabs = RunTabs::provide();
    let tab = tabs.tab;
    // The shown run's coordinator; the views below change only with it.
    let shown = Memo::new(move |_| shown_ui(app).id);
    // Leaving a run for one of another coordinator hides its tabs, and one
    // without files the Files tab: fall back.
    Effect::new(move |_| {
        let extras = ui(shown).tabs;
        if let Tab::Extra(id) = tab.get_untracked() {
            if !extras.iter().any(|t| t.id == id) {
                tab.set(Tab::Transcript);
            }
        }
    });
    Effect::new(move |_| {
        if !has_files(app) && tab.get_untracked() == Tab::Files {
            tab.set(Tab::Transcript);
        }
    });
    let replayable =
        move || app.activity.get() == Activity::Idle && app.events.with(|e| !e.is_empty());
    view! {
        <main class="run-page" class:with-lesson=move || in_lesson(app) || in_class(app)>
            <LeftColumn/>
            <section class="column center">
                <RunToolbar/>
                <TabBar tab=tab shown=shown/>
                <TabBody tab=tab shown=shown/>
                <Show when=replayable>
                    <ReplayBar/>
                </Show>
            </section>
            <RightColumn shown=shown/>
        </main>
    }
}

/// The setup (or the lesson) and the live class's panel; a student's
/// class takes it all.
#[component]
fn LeftColumn() -> impl IntoView {
    let app = use_app();
    let student = move || app.class.get() == Some(ClassRole::Student);
    view! {
        <section class="column left" aria-label=move || if in_lesson(app) || in_class(app) { "Teaching" } else { "Run setup" }>
            <Show when=move || in_class(app)>
                {lazy_view("the live class", crate::ui::classroom::live_panel)}
            </Show>
            <Show when=move || !student()>
                <Show when=move || in_lesson(app) fallback=|| view! { <TaskPanel/> }>
                    {lazy_view("the lesson", crate::ui::classroom::lesson_panel)}
                </Show>
            </Show>
        </section>
    }
}

/// The run's views: the transcript, the coordinator's tabs, the events.
#[component]
fn TabBar(tab: RwSignal<Tab>, shown: Memo<&'static str>) -> impl IntoView {
    view! {
        <div class="tabs" role="tablist" aria-label="Run views">
            <TabButton tab=tab shown=shown t=Tab::Transcript label="Transcript" id="tab-transcript".into()/>
            {move || {
                ui(shown).tabs
                    .iter()
                    .map(|t| view! { <TabButton tab=tab shown=shown t=Tab::Extra(t.id) label=t.label id=format!("tab-{}", t.id)/> })
                    .collect_view()
            }}
            <Show when=move || has_files(use_app())>
                <TabButton tab=tab shown=shown t=Tab::Files label="Files" id="tab-files".into()/>
            </Show>
            <TabButton tab=tab shown=shown t=Tab::Events label="Events" id="tab-events".into()/>
        </div>
    }
}

#[component]
fn TabButton(
    tab: RwSignal<Tab>,
    shown: Memo<&'static str>,
    t: Tab,
    label: &'static str,
    id: String,
) -> impl IntoView {
    let app = use_app();
    view! {
        <button
            role="tab"
            id=id
            class="tab"
            aria-selected=move || if tab.get() == t { "true" } else { "false" }
            on:click=move |_| tab.set(t)
        >
            {label}
            {move || tab_count(app, shown, t).map(|n| view! { <span class="tab-count">{n}</span> })}
        </button>
    }
}

/// The picked tab's view.
#[component]
fn TabBody(tab: RwSignal<Tab>, shown: Memo<&'static str>) -> impl IntoView {
    let extra_tab = move |id: &'static str| -> Option<&'static ExtraTab> {
        ui(shown).tabs.iter().find(|t| t.id == id)
    };
    view! {
        <div class="tab-body" role="tabpanel">
            {move || match tab.get() {
                Tab::Transcript => view! { <TranscriptPanel/> }.into_any(),
                Tab::Events => lazy_view("the events", parts::events).into_any(),
                Tab::Files => lazy_view("the files", parts::files).into_any(),
                Tab::Extra(id) => match extra_tab(id) {
                    Some(t) => lazy_view(t.what, t.view).into_any(),
                    None => view! { <TranscriptPanel/> }.into_any(),
                },
            }}
        </div>
    }
}

/// The agent graph, the inspector, the coordinator's panels and usage.
#[component]
fn RightColumn(shown: Memo<&'static str>) -> impl IntoView {
    let app = use_app();
    view! {
        <section class="column right" aria-label="Agents and usage">
            <AgentGraphPanel/>
            <Show when=move || app.inspect.with(Option::is_some)>
                {lazy_view("the inspector", parts::inspector)}
            </Show>
            {move || {
                ui(shown).side_panels
                    .iter()
                    .map(|p| lazy_view(p.what, p.view))
                    .collect_view()
            }}
            <UsagePanel/>
        </section>
    }
}
