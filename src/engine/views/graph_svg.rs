//! The agent graph drawn as SVG markup: one implementation for the page
//! (styled by the app's CSS classes) and for export (standalone, with its
//! own styles). Every name is escaped: agent names can come from a model.

use super::graph::{AgentGraph, AgentStatus, EdgeKind};
use std::fmt::Write;

pub const W: f64 = 320.0;
pub const H: f64 = 230.0;
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

pub use super::html::esc as escape;

const STANDALONE_STYLE: &str = "text{font-family:system-ui,sans-serif}\
.node-ring{fill:none;stroke:#b9bbc6;stroke-width:3}.status-thinking .node-ring{stroke:#f5a524}\
.status-speaking .node-ring{stroke:#30a46c}.status-waiting .node-ring{stroke:#8e4ec6}\
.node-initial{fill:#fff;font-weight:700;text-anchor:middle;font-size:16px}\
.node-label{fill:#1c2024;text-anchor:middle;font-size:12px;font-weight:600}\
.node-status{fill:#60646c;text-anchor:middle;font-size:10px}\
.edge line{stroke:#b9bbc6;stroke-width:2}.edge-handoff line{stroke-dasharray:5 4}\
.edge-active line{stroke:#5b5bd6;stroke-width:2.5}.edge-count{fill:#60646c;font-size:10px;text-anchor:middle}\
.arrow-head{fill:#b9bbc6}";

/// The graph as SVG. `standalone` adds the XML namespace, a white
/// background and embedded styles, for files.
pub fn render(g: &AgentGraph, standalone: bool) -> String {
    let pos = layout(g.nodes.len());
    let at = |id: &str| g.nodes.iter().position(|n| n.id == id).map(|i| pos[i]);
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"graph\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"Agent graph\"{}>",
        if standalone {
            format!(
                " xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\"",
                W * 2.0,
                H * 2.0
            )
        } else {
            String::new()
        }
    );
    if standalone {
        let _ = write!(
            s,
            "<style>{STANDALONE_STYLE}</style><rect width=\"{W}\" height=\"{H}\" fill=\"#fff\"/>"
        );
    }
    s.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"8\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" class=\"arrow-head\"/></marker></defs>");
    for e in g.edges() {
        let (Some(a), Some(b)) = (at(&e.from), at(&e.to)) else {
            continue;
        };
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ux, uy) = (dx / len, dy / len);
        // Offset each direction of a pair so the two do not overlap.
        let (ox, oy) = (-uy * 5.0, ux * 5.0);
        let (x1, y1) = (a.0 + ux * (R + 3.0) + ox, a.1 + uy * (R + 3.0) + oy);
        let (x2, y2) = (b.0 - ux * (R + 8.0) + ox, b.1 - uy * (R + 8.0) + oy);
        let active = g.active.as_ref() == Some(&(e.from.clone(), e.to.clone(), e.kind));
        let _ = write!(
            s,
            "<g class=\"edge edge-{}{}\" data-from=\"{}\" data-to=\"{}\"><line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" marker-end=\"url(#arrow)\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"edge-count\">{}</text></g>",
            if e.kind == EdgeKind::Handoff { "handoff" } else { "message" },
            if active { " edge-active" } else { "" },
            escape(&e.from),
            escape(&e.to),
            (x1 + x2) / 2.0 + ox,
            (y1 + y2) / 2.0 + oy,
            e.count
        );
    }
    for (n, (x, y)) in g.nodes.iter().zip(pos.iter()) {
        let initial: String = n
            .name
            .chars()
            .next()
            .unwrap_or('?')
            .to_uppercase()
            .collect();
        let status = n.status.label();
        let _ = write!(
            s,
            "<g class=\"node status-{status}\" transform=\"translate({x:.1},{y:.1})\" data-agent=\"{}\" data-status=\"{status}\"><title>{}</title><circle r=\"{}\" class=\"node-ring\"/><circle r=\"{R}\" style=\"fill:{}\"/><text class=\"node-initial\" dy=\"0.35em\">{}</text><text class=\"node-label\" y=\"{}\">{}</text>",
            escape(&n.id),
            escape(&format!("{} ({}) — {}, {} calls, {} messages, model {}", n.name, n.role, status, n.calls, n.messages, n.model)),
            R + 5.0,
            agent_color(&n.id),
            escape(&initial),
            R + 16.0,
            escape(&n.name)
        );
        if n.status != AgentStatus::Idle {
            let _ = write!(
                s,
                "<text class=\"node-status\" y=\"{}\">{status}</text>",
                R + 28.0
            );
        }
        s.push_str("</g>");
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::{LoggedEvent, RunEvent};
    use crate::engine::views::Fold;

    #[test]
    fn names_from_models_are_escaped() {
        let events = vec![LoggedEvent {
            seq: 0,
            t_ms: 0,
            event: RunEvent::AgentAdded {
                agent: "x\"><script>".into(),
                role: "r".into(),
                name: "<img src=x onerror=alert(1)>".into(),
                model: "m".into(),
            },
        }];
        let svg = render(&AgentGraph::of(&events), true);
        assert!(!svg.contains("<script") && !svg.contains("<img"), "{svg}");
        assert!(svg.contains("&lt;img src=x onerror=alert(1)&gt;"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    }

    #[test]
    fn layout_places_nodes_inside_the_box() {
        for n in 0..12 {
            let p = layout(n);
            assert_eq!(p.len(), n);
            assert!(p
                .iter()
                .all(|(x, y)| *x > R && *x < W - R && *y > R && *y < H - R));
        }
    }
}
