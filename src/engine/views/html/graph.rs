//! The agent graph drawn as SVG markup: one implementation for the page
//! (styled by the app's CSS classes) and for export (standalone, with its
//! own styles). Every name is escaped: agent names can come from a model.

use crate::engine::views::graph::{AgentGraph, AgentStatus, EdgeKind, Node, PUBLIC};
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
    /// The middle of the circle (the public conversation's hub).
    pub hub: (f64, f64),
}

/// Radius of the public conversation's hub.
const HUB_R: f64 = 13.0;

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
    let h = (2.0 * (ring + r) + 80.0).max(H);
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
    Layout {
        w,
        h,
        r,
        centres,
        hub: (cx, cy),
    }
}

pub use super::agents::agent_color;
use super::agents::AgentMarks;

/// The graph's agents in the order they joined, with their colours and
/// initials: what the transcript's avatars use too, so that both agree.
pub fn marks(g: &AgentGraph) -> AgentMarks {
    AgentMarks::of(g.nodes.iter().map(|n| (n.id.as_str(), n.name.as_str())))
}

/// A node's label: the agent's whole name (the name every other view
/// uses), on two lines when it is long: the words that fit in
/// `LABEL_LINE` characters, then the rest.
fn label_lines(name: &str) -> (String, Option<String>) {
    const LABEL_LINE: usize = 14;
    if name.chars().count() <= LABEL_LINE {
        return (name.to_string(), None);
    }
    let mut first = String::new();
    let mut words = name.split_whitespace().peekable();
    while let Some(w) = words.next_if(|w| {
        first.is_empty() || first.chars().count() + 1 + w.chars().count() <= LABEL_LINE
    }) {
        if !first.is_empty() {
            first.push(' ');
        }
        first.push_str(w);
    }
    let rest = words.collect::<Vec<_>>().join(" ");
    (first, Some(rest).filter(|r| !r.is_empty()))
}

pub use super::esc as escape;

const STANDALONE_STYLE: &str = "text{font-family:system-ui,sans-serif}\
.node-ring{fill:none;stroke:#b9bbc6;stroke-width:3}.status-thinking .node-ring{stroke:#f5a524}\
.status-speaking .node-ring{stroke:#30a46c}.status-waiting .node-ring{stroke:#8e4ec6}\
.status-queued .node-ring{stroke:#f5a524;stroke-dasharray:4 3}\
.node-initial{fill:#fff;font-weight:700;text-anchor:middle;font-size:16px}\
.node-label{fill:#1c2024;text-anchor:middle;font-size:12px;font-weight:600}\
.node-status{fill:#60646c;text-anchor:middle;font-size:10px}\
.edge line{stroke:#b9bbc6;stroke-width:2}.edge-handoff line{stroke-dasharray:5 4}\
.edge-active line{stroke:#5b5bd6;stroke-width:2.5}.edge-count{fill:#60646c;font-size:10px;text-anchor:middle}\
.arrow-head{fill:#b9bbc6}.tool-loop path{fill:none;stroke:#8e4ec6;stroke-width:1.5}\
.hub circle{fill:#ededfc;stroke:#5b5bd6;stroke-width:1.5}.hub text{fill:#5b5bd6;font-size:12px;font-weight:700;text-anchor:middle;font-style:italic}.node-badge rect{fill:#f5a524}.node-badge text{fill:#1c2024;font-size:10px;font-weight:700;text-anchor:middle}";

/// An agent's own loop (its private tool calls), up and to the right of
/// its node, and the number of calls beside it (drawn with the node's other
/// marks); `busy` while one is in flight.
fn tool_loop(r: f64, calls: u32, busy: bool) -> (String, String) {
    let at = |deg: f64, dist: f64| {
        let a = deg.to_radians();
        (dist * a.cos(), dist * a.sin())
    };
    let (p1, p2) = (at(-78.0, r), at(-12.0, r));
    let (c1, c2) = (at(-92.0, r + 30.0), at(2.0, r + 30.0));
    let t = at(-45.0, r + 22.0);
    let path = format!(
        "<g class=\"tool-loop{}\"><title>{calls} private tool call{}</title><path d=\"M {:.1} {:.1} C {:.1} {:.1} {:.1} {:.1} {:.1} {:.1}\" marker-end=\"url(#arrow)\"/></g>",
        if busy { " tool-loop-active" } else { "" },
        if calls == 1 { "" } else { "s" },
        p1.0, p1.1, c1.0, c1.1, c2.0, c2.1, p2.0, p2.1,
    );
    let count = format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" class=\"edge-count\">{calls}</text>",
        t.0 + 6.0,
        t.1 - 2.0
    );
    (path, count)
}

/// The graph as SVG. `standalone` adds the XML namespace, a white
/// background and embedded styles, for files.
pub fn render(g: &AgentGraph, standalone: bool) -> String {
    render_with(g, standalone, None)
}

/// The graph for the page: nodes are buttons (focusable, `data-agent`)
/// and `selected` is outlined.
pub fn render_with(g: &AgentGraph, standalone: bool, selected: Option<&str>) -> String {
    let lay = layout(g.nodes.len());
    let hub = (g.nodes.len() > 1 && g.has_public()).then_some(lay.hub);
    let marks = marks(g);
    let mut s = String::new();
    open_svg(&mut s, &lay, standalone);
    write_edges(&mut s, g, &lay, hub);
    if let Some((x, y)) = hub {
        let _ = write!(
            s,
            "<g class=\"hub\" transform=\"translate({x:.1},{y:.1})\"><title>The public conversation: every agent's public posts</title><circle r=\"{HUB_R}\"/><text dy=\"0.35em\">c</text></g>"
        );
    }
    let look = NodeLook {
        r: lay.r,
        marks: &marks,
        standalone,
        selected,
    };
    for (n, &at) in g.nodes.iter().zip(lay.centres.iter()) {
        look.write_node(&mut s, n, at);
    }
    s.push_str("</svg>");
    s
}

/// The `<svg>` element's opening, with (standalone) the namespace, the
/// embedded styles and a white background, then the arrow marker.
fn open_svg(s: &mut String, lay: &Layout, standalone: bool) {
    let (w, h) = (lay.w, lay.h);
    let _ = write!(
        s,
        "<svg class=\"graph\" viewBox=\"0 0 {w:.0} {h:.0}\" role=\"{}\" aria-label=\"Agent graph\"{}>",
        if standalone { "img" } else { "group" },
        super::standalone_svg_attrs(standalone, W * 2.0, H * 2.0)
    );
    if standalone {
        let _ = write!(
            s,
            "<style>{STANDALONE_STYLE}</style><rect width=\"{w:.0}\" height=\"{h:.0}\" fill=\"#fff\"/>"
        );
    }
    s.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"8\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" class=\"arrow-head\"/></marker></defs>");
}

/// Every edge as an arrow between its ends' circles (the hub for the
/// public conversation) with its count; the latest event's edges active.
fn write_edges(s: &mut String, g: &AgentGraph, lay: &Layout, hub: Option<(f64, f64)>) {
    let at = |id: &str| {
        if id == PUBLIC {
            return hub.map(|p| (p, HUB_R));
        }
        g.nodes
            .iter()
            .position(|n| n.id == id)
            .map(|i| (lay.centres[i], lay.r))
    };
    let active_seq = g
        .active
        .as_ref()
        .and_then(|k| {
            g.edges()
                .find(|e| (&e.from, &e.to, &e.kind) == (&k.0, &k.1, &k.2))
        })
        .map(|e| e.last_seq);
    for e in g.edges() {
        let (Some((a, ra)), Some((b, rb))) = (at(&e.from), at(&e.to)) else {
            continue;
        };
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ux, uy) = (dx / len, dy / len);
        // Offset each direction of a pair so the two do not overlap.
        let (ox, oy) = (-uy * 5.0, ux * 5.0);
        let (x1, y1) = (a.0 + ux * (ra + 3.0) + ox, a.1 + uy * (ra + 3.0) + oy);
        let (x2, y2) = (b.0 - ux * (rb + 8.0) + ox, b.1 - uy * (rb + 8.0) + oy);
        // Every edge the latest event used (a public post reaches everyone).
        let active = active_seq == Some(e.last_seq);
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
}

/// How nodes are drawn: their radius, colours and initials, as buttons
/// (the page) or not (standalone), and which one is selected.
struct NodeLook<'a> {
    r: f64,
    marks: &'a AgentMarks,
    standalone: bool,
    selected: Option<&'a str>,
}

impl NodeLook<'_> {
    /// A node: the button (ring, disc, label, tool loop), then its other
    /// marks over it.
    fn write_node(&self, s: &mut String, n: &Node, (x, y): (f64, f64)) {
        let r = self.r;
        let status = n.status.label();
        // Two lines keep the name's space (its accessible name is the
        // text: "Plan summarizer", not "Plansummarizer").
        let label = match label_lines(&n.name) {
            (one, None) => escape(&one),
            (first, Some(rest)) => format!(
                "<tspan x=\"0\">{} </tspan><tspan x=\"0\" dy=\"1.1em\">{}</tspan>",
                escape(&first),
                escape(&rest)
            ),
        };
        let _ = write!(
            s,
            "<g class=\"node status-{status}{}\" transform=\"translate({x:.1},{y:.1})\" data-agent=\"{}\" data-status=\"{status}\"{}><title>{}</title><circle r=\"{}\" class=\"node-ring\"/><circle r=\"{r}\" style=\"fill:{}\"/><text class=\"node-label\" y=\"{}\">{}</text>",
            if self.selected == Some(n.id.as_str()) {
                " selected"
            } else {
                ""
            },
            escape(&n.id),
            if self.standalone {
                String::new()
            } else {
                format!(
                    " tabindex=\"0\" role=\"button\" aria-label=\"Inspect {}\"",
                    escape(&n.name)
                )
            },
            escape(&format!("{} ({}) — {}, {} calls, {} messages, model {}", n.name, n.role, status, n.calls, n.messages, n.model)),
            r + 5.0,
            self.marks.color(&n.id),
            r + 16.0,
            label
        );
        let (tool_path, tool_count) = if n.tool_calls > 0 {
            tool_loop(r, n.tool_calls, n.tool_busy)
        } else {
            Default::default()
        };
        s.push_str(&tool_path);
        s.push_str("</g>");
        self.write_marks(s, n, (x, y), &tool_count);
    }

    /// The node's other text (its initial, the number of tool calls, the
    /// revisit badge, the status) is drawn over it but outside the button,
    /// whose visible label is the name alone (WCAG 2.5.3); a click on it
    /// still reaches the agent (`data-agent`).
    fn write_marks(&self, s: &mut String, n: &Node, (x, y): (f64, f64), tool_count: &str) {
        let r = self.r;
        let initial = self.marks.initial(&n.id, &n.name);
        let _ = write!(
            s,
            "<g class=\"node-marks\" transform=\"translate({x:.1},{y:.1})\" data-agent=\"{}\" aria-hidden=\"true\"><text class=\"node-initial\" dy=\"0.35em\" pointer-events=\"none\">{}</text>{tool_count}",
            escape(&n.id),
            escape(&initial)
        );
        if n.revisits > 0 {
            let _ = write!(
                s,
                "<g class=\"node-badge\" transform=\"translate({:.1},{:.1})\"><title>revisited: handed the turn again {} time{} after its first ({} turns)</title><rect x=\"-13\" y=\"-8\" width=\"26\" height=\"16\" rx=\"8\"/><text dy=\"0.35em\">↻{}</text></g>",
                -r * 0.8,
                -r * 0.8,
                n.revisits,
                if n.revisits == 1 { "" } else { "s" },
                n.turns,
                n.revisits
            );
        }
        if n.status != AgentStatus::Idle {
            let status = n.status.label();
            let below = if label_lines(&n.name).1.is_some() {
                42.0
            } else {
                28.0
            };
            let _ = write!(
                s,
                "<text class=\"node-status\" y=\"{}\">{status}</text>",
                r + below
            );
        }
        s.push_str("</g>");
    }
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
    fn nodes_show_what_tells_their_names_apart_in_colours_of_their_own() {
        let events: Vec<LoggedEvent> = (1..=4)
            .map(|i| LoggedEvent {
                seq: i,
                t_ms: 0,
                event: RunEvent::AgentAdded {
                    agent: format!("a{i}"),
                    role: "r".into(),
                    name: format!("Agent {i}"),
                    model: "m".into(),
                },
            })
            .collect();
        let svg = render(&AgentGraph::of(&events), false);
        let initials: Vec<&str> = svg
            .split("class=\"node-initial\" dy=\"0.35em\" pointer-events=\"none\">")
            .skip(1)
            .map(|s| &s[..s.find('<').unwrap()])
            .collect();
        assert_eq!(initials, ["1", "2", "3", "4"]);
        let fills: Vec<&str> = svg
            .split("style=\"fill:")
            .skip(1)
            .map(|s| &s[..s.find('"').unwrap()])
            .collect();
        assert_eq!(fills, super::super::agents::PALETTE[..4]);
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

    #[test]
    fn a_node_shows_the_agents_whole_name_on_up_to_two_lines() {
        assert_eq!(label_lines("Hotel expert"), ("Hotel expert".into(), None));
        assert_eq!(
            label_lines("Transportation expert"),
            ("Transportation".into(), Some("expert".into()))
        );
        assert_eq!(
            label_lines("Plan summarizer"),
            ("Plan".into(), Some("summarizer".into()))
        );
        assert_eq!(
            label_lines("The very long name of one agent"),
            ("The very long".into(), Some("name of one agent".into()))
        );
        let events = vec![LoggedEvent {
            seq: 0,
            t_ms: 0,
            event: RunEvent::AgentAdded {
                agent: "summarizer".into(),
                role: "r".into(),
                name: "Plan summarizer".into(),
                model: "m".into(),
            },
        }];
        let svg = render(&AgentGraph::of(&events), false);
        assert!(
            svg.contains(
                "<tspan x=\"0\">Plan </tspan><tspan x=\"0\" dy=\"1.1em\">summarizer</tspan>"
            ),
            "{svg}"
        );
    }
}
