//! The agent graph panel: the SVG from `views::html::graph` (names escaped
//! there), styled by the app's CSS; the active edges animate (hand-offs and
//! posts in different styles), an agent's private tool calls are its own
//! loop. Clicking a node (or Enter on it) opens that agent's inspector.

use super::lazy::{lazy_view_or_note, lazy_views};
use super::state::{use_app, AppState};
use crate::engine::views::html::graph as graph_svg;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The agent a click or key press on a panel's SVG was on (`data-agent`): the
/// agent graph, MAEL's team and ACT's meeting room use it.
pub fn agent_at(target: Option<web_sys::EventTarget>) -> Option<String> {
    let el = target?.dyn_into::<web_sys::Element>().ok()?;
    el.closest("[data-agent]")
        .ok()??
        .get_attribute("data-agent")
}

/// Opens the inspector of the agent an event on a panel's SVG was on
/// (MAEL's team, ACT's meeting room).
pub fn inspect_at(app: AppState, ev: &web_sys::Event) {
    if let Some(agent) = agent_at(ev.target()) {
        app.inspect.set(Some(agent));
    }
}

fn toggle(app: AppState, agent: String) {
    let same = app
        .inspect
        .with_untracked(|a| a.as_deref() == Some(agent.as_str()));
    app.inspect.set(if same { None } else { Some(agent) });
}

lazy_views! { run_view: graph_view => GraphBox }

/// The panel: its title, legend and empty state (the drawing's code loads
/// with the run views).
#[component]
pub fn AgentGraphPanel() -> impl IntoView {
    let app = use_app();
    let empty = move || app.view.with(|v| v.graph.nodes.is_empty());
    view! {
        <div class="panel graph-panel">
            <h2 class="panel-title">"Agents"</h2>
            {lazy_view_or_note(move || !empty(), "Agents appear here when a run starts.", "the agent graph", graph_view)}
            <ul class="legend" aria-label="Graph legend">
                <li><span class="swatch status-idle"></span>"idle"</li>
                <li><span class="swatch status-thinking"></span>"thinking"</li>
                <li><span class="swatch status-speaking"></span>"speaking"</li>
                <li><span class="swatch status-waiting"></span>"tool call"</li>
                <li><span class="swatch status-queued"></span>"waiting for a slot"</li>
                <li><span class="line-swatch handoff"></span>"hand-off"</li>
                <li><span class="line-swatch message"></span>"post (c = public conversation)"</li>
            </ul>
        </div>
    }
}

/// The drawing, and clicks and keys on its agents.
#[component]
fn GraphBox() -> impl IntoView {
    let app = use_app();
    let view = app.view;
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if let Some(agent) = agent_at(ev.target()) {
            toggle(app, agent);
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter" || ev.key() == " " {
            if let Some(agent) = agent_at(ev.target()) {
                ev.prevent_default();
                toggle(app, agent);
            }
        }
    };
    // A memo: the SVG is replaced only when the graph changes (a node keeps
    // keyboard focus while tokens stream).
    let svg = Memo::new(move |_| {
        let selected = app.inspect.get();
        view.with(|v| graph_svg::render_with(&v.graph, false, selected.as_deref()))
    });
    view! {
        <div class="graph-box" inner_html=svg on:click=on_click on:keydown=on_key></div>
        <p class="muted small graph-hint">"Click an agent to inspect its private calls."</p>
    }
}
