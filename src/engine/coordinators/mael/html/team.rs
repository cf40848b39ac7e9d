//! The team as MAEL sees it: its graph (every edge, even unused ones), the
//! root crowned, each agent's closeness centrality, and what moves now: a
//! subtask or a solution along an edge in the forward pass, a reward
//! arriving at an agent in the backward pass. SVG; names escaped.

use crate::engine::coordinators::mael::contract::TeamRecord;
use crate::engine::coordinators::mael::topology::AgentNode;
use crate::engine::coordinators::mael::view::{MaelView, Motion};
use crate::engine::views::html::agents::AgentMarks;
use crate::engine::views::html::esc;
use std::fmt::Write;

const W: f64 = 320.0;
/// Tall enough for the lowest node's name and closeness under it (the
/// circle's centre at most 208, its closeness line 43 below).
const H: f64 = 258.0;

fn position(i: usize, n: usize, root: usize) -> (f64, f64) {
    let (cx, cy) = (W / 2.0, 126.0);
    if n == 1 {
        return (cx, cy);
    }
    // The root at the top; the others around the circle in order.
    let k = (i + n - root) % n;
    let a = -std::f64::consts::FRAC_PI_2 + k as f64 * std::f64::consts::TAU / n as f64;
    (cx + 105.0 * a.cos(), cy + 82.0 * a.sin())
}

/// The team panel's SVG with the view's last motion, or a note before the
/// run has a team.
pub fn team_svg(view: &MaelView) -> String {
    team_svg_with(view, view.motion.as_ref().map(|(_, m)| m))
}

/// The team panel's SVG highlighting `motion` (the panel plays a burst of
/// rewards one by one).
pub fn team_svg_with(view: &MaelView, motion: Option<&Motion>) -> String {
    let Some(t) = &view.team else {
        return "<p class=\"muted small empty-note\">The team appears when a MAEL run starts.</p>"
            .into();
    };
    let n = t.team.len();
    let pos: Vec<(f64, f64)> = (0..n).map(|i| position(i, n, t.root)).collect();
    let index = |id: &str| t.team.agents.iter().position(|a| a.id == id);
    // The run's marks (the graph's too); a record without its agents'
    // arrivals marks the team alone.
    let own;
    let marks = if view.marks.is_empty() {
        own = AgentMarks::of(
            t.team
                .agents
                .iter()
                .map(|a| (a.id.as_str(), a.name.as_str())),
        );
        &own
    } else {
        &view.marks
    };
    let mut s = format!(
        "<svg class=\"ml-team\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"The team graph: {} agents, the root is {}\">",
        n,
        esc(t.team.agents.get(t.root).map_or("", |a| a.name.as_str()))
    );
    let active = match motion {
        Some(Motion::Handoff { from, to, .. }) => index(from).zip(index(to)),
        _ => None,
    };
    edges_svg(&mut s, t, &pos, active);
    let rewarded = match motion {
        Some(Motion::Reward { agent, value, step }) => {
            index(agent).map(|i| (i, *value, step.as_str()))
        }
        _ => None,
    };
    for (i, a) in t.team.agents.iter().enumerate() {
        let reward = rewarded
            .filter(|(j, _, _)| *j == i)
            .map(|(_, value, step)| (value, step));
        node_svg(&mut s, t, marks, i, a, pos[i], reward);
    }
    s.push_str("</svg>");
    s
}

/// Every edge of the team, the `active` one (a hand-off along it) marked,
/// with a dot travelling it in its direction.
fn edges_svg(s: &mut String, t: &TeamRecord, pos: &[(f64, f64)], active: Option<(usize, usize)>) {
    let n = t.team.len();
    for &(a, b) in &t.team.edges {
        if a >= n || b >= n {
            continue;
        }
        let on = active.is_some_and(|(x, y)| (x, y) == (a, b) || (x, y) == (b, a));
        let _ = write!(
            s,
            "<line class=\"ml-edge{}\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>",
            if on { " active" } else { "" },
            pos[a].0,
            pos[a].1,
            pos[b].0,
            pos[b].1
        );
    }
    if let Some((from, to)) = active {
        // A dot travelling the active edge, in its direction.
        let _ = write!(
            s,
            "<circle class=\"ml-packet\" r=\"4\"><animateMotion dur=\"0.9s\" repeatCount=\"indefinite\" path=\"M{:.1},{:.1} L{:.1},{:.1}\"/></circle>",
            pos[from].0, pos[from].1, pos[to].0, pos[to].1
        );
    }
}

/// Agent `i`'s node at `(x, y)`: its disc, initial, name and closeness, the
/// crown of the root, and the `reward` (value, step) arriving at it.
fn node_svg(
    s: &mut String,
    t: &TeamRecord,
    marks: &AgentMarks,
    i: usize,
    a: &AgentNode,
    (x, y): (f64, f64),
    reward: Option<(f64, &str)>,
) {
    let initial = marks.initial(&a.id, &a.name);
    let _ = write!(
        s,
        "<g class=\"ml-node{}\" data-agent=\"{}\" tabindex=\"0\"><title>{} — closeness {:.2}{}</title><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"18\" style=\"--agent:{}\"/><text class=\"ml-initial\" x=\"{x:.1}\" y=\"{:.1}\">{}</text><text class=\"ml-label\" x=\"{x:.1}\" y=\"{:.1}\">{}</text><text class=\"ml-closeness\" x=\"{x:.1}\" y=\"{:.1}\">c {:.2}</text>",
        if i == t.root { " root" } else { "" },
        esc(&a.id),
        esc(&a.name),
        t.closeness.get(i).copied().unwrap_or(0.0),
        if i == t.root { " (the root: the highest closeness)" } else { "" },
        marks.color(&a.id),
        y + 4.0,
        esc(&initial),
        y + 31.0,
        esc(&a.name),
        y + 43.0,
        t.closeness.get(i).copied().unwrap_or(0.0)
    );
    if i == t.root {
        let _ = write!(
            s,
            "<path class=\"ml-crown\" d=\"M{:.1},{:.1} l4,-9 l5,6 l5,-9 l5,9 l5,-6 l4,9 z\"/>",
            x - 14.0,
            y - 20.0
        );
    }
    if let Some((value, step)) = reward {
        let _ = write!(
            s,
            "<circle class=\"ml-reward-pulse\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"22\"/><text class=\"ml-reward-text\" x=\"{:.1}\" y=\"{:.1}\">{} {value:.2}</text>",
            x + 24.0,
            y - 14.0,
            esc(step)
        );
    }
    s.push_str("</g>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::coordinators::mael::contract::TeamRecord;
    use crate::engine::coordinators::mael::topology::{AgentNode, Team};

    fn node_marks(names: &[&str]) -> Vec<String> {
        let agents = names
            .iter()
            .enumerate()
            .map(|(i, n)| AgentNode {
                id: format!("a{i}"),
                name: n.to_string(),
                model: None,
            })
            .collect();
        let view = MaelView {
            team: Some(TeamRecord {
                team: Team {
                    agents,
                    edges: vec![],
                },
                root: 0,
                closeness: vec![],
            }),
            ..MaelView::default()
        };
        team_svg(&view)
            .split("<text class=\"ml-initial\"")
            .skip(1)
            .map(|s| s[s.find('>').unwrap() + 1..s.find('<').unwrap()].to_string())
            .collect()
    }

    #[test]
    fn a_node_shows_what_tells_its_name_apart() {
        assert_eq!(
            node_marks(&["Agent 1", "Agent 12", "Agent 3"]),
            ["1", "12", "3"]
        );
        assert_eq!(node_marks(&["Scout", "Solver"]), ["Sc", "So"]);
        assert_eq!(node_marks(&["émile"]), ["É"]);
        assert_eq!(node_marks(&[""]), ["?"]);
    }
}
