//! The agent graph drawn as SVG markup: one implementation for the page
//! (styled by the app's CSS classes) and for export (standalone, with its
//! own styles). Every name is escaped: agent names can come from a model.

use super::graph::{AgentGraph, AgentStatus, EdgeKind};
use std::fmt::Write;

/// The canvas of the panel (a square-ish box the SVG scales into).
pub const W: f64 = 320.0;
pub const H: f64 = 230.0;

/// Geometry for `n` nodes: canvas size, node radius and centres. Small
/// teams sit on a circle in the default canvas; larger ones get a bigger
/// canvas (the SVG scales down) so that nodes and labels never overlap.
pub struct Layout {
    pub w: f64,
    pub h: f64,
    pub r: f64,
    pub centres: Vec<(f64, f64)>,
}

pub fn layout(n: usize) -> Layout {
    let r = if n <= 5 { 22.0 } else { 18.0 };
    // Room per node along the circle: the node and a label on each side.
    let spacing = 2.0 * r + 52.0;
    let ring = if n <= 1 {
        0.0
    } else {
        (n as f64 * spacing / std::f64::consts::TAU).max(H / 2.0 - r - 22.0)
    };
    let w = (2.0 * (ring + r + 48.0)).max(W);
    let h = (2.0 * (ring + r) + 60.0).max(H);
    let (cx, cy) = (w / 2.0, h / 2.0 - 6.0);
    let centres = (0..n)
        .map(|i| {
            if n == 1 {
                return (cx, cy);
            }
            let a = -std::f64::consts::FRAC_PI_2 + i as f64 * std::f64::consts::TAU / n as f64;
            (cx + ring * a.cos(), cy + ring * a.sin())
        })
        .collect();
    Layout { w, h, r, centres }
}

/// A stable colour per agent id.
pub fn agent_color(id: &str) -> String {
    let h = id
        .bytes()
        .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    format!("hsl({}, 55%, 48%)", h % 360)
}

/// A short label for a node: the first word of long names.
fn short(name: &str) -> &str {
    if name.chars().count() <= 12 {
        name
    } else {
        name.split_whitespace().next().unwrap_or(name)
    }
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
    let lay = layout(g.nodes.len());
    let (w, h, r) = (lay.w, lay.h, lay.r);
    let pos = lay.centres;
    let at = |id: &str| g.nodes.iter().position(|n| n.id == id).map(|i| pos[i]);
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"graph\" viewBox=\"0 0 {w:.0} {h:.0}\" role=\"img\" aria-label=\"Agent graph\"{}>",
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
            "<style>{STANDALONE_STYLE}</style><rect width=\"{w:.0}\" height=\"{h:.0}\" fill=\"#fff\"/>"
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
        let (x1, y1) = (a.0 + ux * (r + 3.0) + ox, a.1 + uy * (r + 3.0) + oy);
        let (x2, y2) = (b.0 - ux * (r + 8.0) + ox, b.1 - uy * (r + 8.0) + oy);
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
            "<g class=\"node status-{status}\" transform=\"translate({x:.1},{y:.1})\" data-agent=\"{}\" data-status=\"{status}\"><title>{}</title><circle r=\"{}\" class=\"node-ring\"/><circle r=\"{r}\" style=\"fill:{}\"/><text class=\"node-initial\" dy=\"0.35em\">{}</text><text class=\"node-label\" y=\"{}\">{}</text>",
            escape(&n.id),
            escape(&format!("{} ({}) — {}, {} calls, {} messages, model {}", n.name, n.role, status, n.calls, n.messages, n.model)),
            r + 5.0,
            agent_color(&n.id),
            escape(&initial),
            r + 16.0,
            escape(short(&n.name))
        );
        if n.status != AgentStatus::Idle {
            let _ = write!(
                s,
                "<text class=\"node-status\" y=\"{}\">{status}</text>",
                r + 28.0
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
    fn layout_places_nodes_inside_the_box_without_overlap() {
        for n in 0..14 {
            let l = layout(n);
            assert_eq!(l.centres.len(), n);
            assert!(
                l.centres.iter().all(|(x, y)| *x > l.r + 30.0
                    && *x < l.w - l.r - 30.0
                    && *y > l.r
                    && *y < l.h - l.r - 20.0),
                "n={n}"
            );
            for (i, a) in l.centres.iter().enumerate() {
                for b in &l.centres[i + 1..] {
                    let d = ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
                    assert!(d > 2.0 * l.r + 40.0, "n={n}: nodes {d:.0} apart");
                }
            }
        }
    }
}
