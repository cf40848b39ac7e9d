//! The team as MAEL sees it: its graph (every edge, even unused ones), the
//! root crowned, each agent's closeness centrality, and what moves now: a
//! subtask or a solution along an edge in the forward pass, a reward
//! arriving at an agent in the backward pass. SVG; names escaped.

use crate::engine::coordinators::mael::view::{MaelView, Motion};
use crate::engine::views::html::esc;
use crate::engine::views::html::graph::agent_color;
use std::fmt::Write;

const W: f64 = 320.0;
const H: f64 = 240.0;

fn position(i: usize, n: usize, root: usize) -> (f64, f64) {
    let (cx, cy) = (W / 2.0, H / 2.0 + 6.0);
    if n == 1 {
        return (cx, cy);
    }
    // The root at the top; the others around the circle in order.
    let k = (i + n - root) % n;
    let a = -std::f64::consts::FRAC_PI_2 + k as f64 * std::f64::consts::TAU / n as f64;
    (cx + 105.0 * a.cos(), cy + 82.0 * a.sin())
}

/// What a node shows: the number a name ends with ("Agent 12" → 12), else
/// its first letter.
fn initial(name: &str) -> String {
    let digits: String = name
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    if digits.is_empty() {
        name.chars()
            .next()
            .map(|c| c.to_uppercase().collect())
            .unwrap_or_default()
    } else {
        digits
    }
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
    let mut s = format!(
        "<svg class=\"ml-team\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"The team graph: {} agents, the root is {}\">",
        n,
        esc(t.team.agents.get(t.root).map_or("", |a| a.name.as_str()))
    );
    let active = match motion {
        Some(Motion::Handoff { from, to, .. }) => index(from).zip(index(to)),
        _ => None,
    };
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
    let rewarded = match motion {
        Some(Motion::Reward { agent, value, step }) => {
            index(agent).map(|i| (i, *value, step.as_str()))
        }
        _ => None,
    };
    for (i, a) in t.team.agents.iter().enumerate() {
        let (x, y) = pos[i];
        let initial = initial(&a.name);
        let _ = write!(
            s,
            "<g class=\"ml-node{}\" data-agent=\"{}\" tabindex=\"0\"><title>{} — closeness {:.2}{}</title><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"18\" style=\"--agent:{}\"/><text class=\"ml-initial\" x=\"{x:.1}\" y=\"{:.1}\">{}</text><text class=\"ml-label\" x=\"{x:.1}\" y=\"{:.1}\">{}</text><text class=\"ml-closeness\" x=\"{x:.1}\" y=\"{:.1}\">c {:.2}</text>",
            if i == t.root { " root" } else { "" },
            esc(&a.id),
            esc(&a.name),
            t.closeness.get(i).copied().unwrap_or(0.0),
            if i == t.root { " (the root: the highest closeness)" } else { "" },
            agent_color(&a.id),
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
        if let Some((_, value, step)) = rewarded.filter(|(j, _, _)| *j == i) {
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
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_node_shows_the_number_its_name_ends_with_or_its_initial() {
        assert_eq!(super::initial("Agent 12"), "12");
        assert_eq!(super::initial("Scout"), "S");
        assert_eq!(super::initial("émile"), "É");
        assert_eq!(super::initial(""), "");
    }
}
