//! The agent graph panel: the SVG from `views::graph_svg` (names escaped
//! there), styled by the app's CSS; the active edge animates.

use super::state::use_app;
use crate::engine::views::graph_svg;
use leptos::prelude::*;

pub use crate::engine::views::graph_svg::agent_color;

#[component]
pub fn AgentGraphPanel() -> impl IntoView {
    let app = use_app();
    let view = app.view;
    let empty = move || view.with(|v| v.graph.nodes.is_empty());
    view! {
        <div class="panel graph-panel">
            <h2 class="panel-title">"Agents"</h2>
            <Show
                when=move || !empty()
                fallback=|| view! { <p class="muted small empty-note">"Agents appear here when a run starts."</p> }
            >
                <div class="graph-box" inner_html=move || view.with(|v| graph_svg::render(&v.graph, false))></div>
            </Show>
            <ul class="legend" aria-label="Status legend">
                <li><span class="swatch status-idle"></span>"idle"</li>
                <li><span class="swatch status-thinking"></span>"thinking"</li>
                <li><span class="swatch status-speaking"></span>"speaking"</li>
                <li><span class="swatch status-waiting"></span>"waiting"</li>
            </ul>
        </div>
    }
}
