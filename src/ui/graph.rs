//! The agent graph as SVG: nodes coloured by agent with a ring for their
//! live status, edges with message counts; the active edge animates.
//! Messages are solid edges, control hand-offs dashed.

use super::state::use_app;
use crate::engine::views::graph::{AgentGraph, AgentStatus, EdgeKind};
use leptos::prelude::*;

const W: f64 = 320.0;
const H: f64 = 230.0;
const R: f64 = 22.0;

/// A stable colour per agent id.
pub fn agent_color(id: &str) -> String {
    let h = id
        .bytes()
        .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    format!("hsl({}, 55%, 48%)", h % 360)
}

/// Node centres: one node in the middle, more on a circle.
pub fn layout(n: usize) -> Vec<(f64, f64)> {
    let (cx, cy) = (W / 2.0, H / 2.0 - 6.0);
    if n <= 1 {
        return vec![(cx, cy); n];
    }
    let r = (H / 2.0 - R - 22.0).min(W / 2.0 - R - 30.0);
    (0..n)
        .map(|i| {
            let a = -std::f64::consts::FRAC_PI_2 + i as f64 * std::f64::consts::TAU / n as f64;
            (cx + r * a.cos(), cy + r * a.sin())
        })
        .collect()
}

fn render(g: &AgentGraph) -> impl IntoView {
    let pos = layout(g.nodes.len());
    let at = |id: &str| g.nodes.iter().position(|n| n.id == id).map(|i| pos[i]);
    let edges = g
        .edges()
        .filter_map(|e| {
            let (a, b) = (at(&e.from)?, at(&e.to)?);
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let len = (dx * dx + dy * dy).sqrt().max(1.0);
            let (ux, uy) = (dx / len, dy / len);
            // Offset both directions of a pair so they do not overlap.
            let (ox, oy) = (-uy * 5.0, ux * 5.0);
            let (x1, y1) = (a.0 + ux * (R + 3.0) + ox, a.1 + uy * (R + 3.0) + oy);
            let (x2, y2) = (b.0 - ux * (R + 8.0) + ox, b.1 - uy * (R + 8.0) + oy);
            let active = g.active.as_ref() == Some(&(e.from.clone(), e.to.clone(), e.kind));
            let class = format!(
                "edge edge-{}{}",
                if e.kind == EdgeKind::Handoff { "handoff" } else { "message" },
                if active { " edge-active" } else { "" }
            );
            let count = e.count;
            Some(view! {
                <g class=class>
                    <line x1=x1 y1=y1 x2=x2 y2=y2 marker-end="url(#arrow)"/>
                    <text x=(x1 + x2) / 2.0 + ox y=(y1 + y2) / 2.0 + oy class="edge-count">{count}</text>
                </g>
            })
        })
        .collect_view();
    let nodes = g
        .nodes
        .iter()
        .zip(pos.iter())
        .map(|(n, (x, y))| {
            let status = n.status;
            let initial: String = n.name.chars().next().unwrap_or('?').to_uppercase().collect();
            let title = format!(
                "{} ({}) — {}, {} calls, {} messages, model {}",
                n.name, n.role, status.label(), n.calls, n.messages, n.model
            );
            view! {
                <g class=format!("node status-{}", status.label()) transform=format!("translate({x},{y})")
                   data-agent=n.id.clone() data-status=status.label()>
                    <title>{title}</title>
                    <circle r=R + 5.0 class="node-ring"/>
                    <circle r=R style=format!("fill:{}", agent_color(&n.id))/>
                    <text class="node-initial" dy="0.35em">{initial}</text>
                    <text class="node-label" y=R + 16.0>{n.name.clone()}</text>
                    {(status != AgentStatus::Idle).then(|| view! { <text class="node-status" y=R + 28.0>{status.label()}</text> })}
                </g>
            }
        })
        .collect_view();
    view! {
        <svg class="graph" viewBox=format!("0 0 {W} {H}") role="img" aria-label="Agent graph">
            <defs>
                <marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
                    <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head"/>
                </marker>
            </defs>
            {edges}
            {nodes}
        </svg>
    }
}

#[component]
pub fn AgentGraphPanel() -> impl IntoView {
    let app = use_app();
    let empty = move || app.view.with(|v| v.graph.nodes.is_empty());
    view! {
        <div class="panel graph-panel">
            <h2 class="panel-title">"Agents"</h2>
            <Show
                when=move || !empty()
                fallback=|| view! { <p class="muted small empty-note">"Agents appear here when a run starts."</p> }
            >
                {move || app.view.with(|v| render(&v.graph))}
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
