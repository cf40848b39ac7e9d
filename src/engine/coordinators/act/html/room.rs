//! The meeting room: the members around a table (the leader crowned, who
//! is asking the model now glowing), the phase written on the table, and
//! during break time each member's expert beside it in a side room. SVG;
//! names escaped.

use crate::engine::coordinators::act::contract::*;
use crate::engine::coordinators::act::view::ActView;
use crate::engine::views::html::esc;
use std::fmt::Write;

const W: f64 = 340.0;
const H: f64 = 260.0;

fn seat(i: usize, n: usize) -> (f64, f64) {
    let a = -std::f64::consts::FRAC_PI_2 + i as f64 * std::f64::consts::TAU / n.max(1) as f64;
    (W / 2.0 + 92.0 * a.cos(), H / 2.0 + 74.0 * a.sin())
}

fn phase_label(phase: Option<&str>) -> &'static str {
    match phase {
        Some(PHASE_DECOMPOSE) => "splitting the task",
        Some(PHASE_GENERATION) => "agents arrive",
        Some(PHASE_TEAM) => "team meeting",
        Some(PHASE_BREAK) => "break time",
        Some(PHASE_PRODUCTION) => "production meeting",
        Some(PHASE_EVALUATION) => "evaluation",
        _ => "",
    }
}

pub fn room_svg(view: &ActView) -> String {
    let members: Vec<_> = view.members().collect();
    if members.is_empty() {
        return "<p class=\"muted small empty-note\">The team takes its seats when an ACT run starts.</p>".into();
    }
    let n = members.len();
    let speaking: Vec<&str> = view.speaking.iter().map(|s| s.1.as_str()).collect();
    let mut s = format!(
        "<svg class=\"act-room\" viewBox=\"0 0 {W} {H}\" role=\"group\" aria-label=\"The meeting room: {n} agents around a table\">"
    );
    let _ = write!(
        s,
        "<ellipse cx=\"{}\" cy=\"{}\" rx=\"62\" ry=\"44\" class=\"act-table\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"act-table-label\">{}</text>",
        W / 2.0,
        H / 2.0,
        W / 2.0,
        H / 2.0 + 4.0,
        phase_label(view.phase.as_deref())
    );
    for (i, m) in members.iter().enumerate() {
        let (x, y) = seat(i, n);
        let talking = speaking.contains(&m.id.as_str());
        let leader = view.leader.as_deref() == Some(m.id.as_str());
        let letter = view.marks.initial(&m.id, &m.name);
        let _ = write!(
            s,
            "<g class=\"act-seat{}\" data-agent=\"{}\" tabindex=\"0\" role=\"button\"><title>{}{}</title><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"19\" style=\"fill:{}\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" class=\"act-seat-letter\" aria-hidden=\"true\">{}</text><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" class=\"act-seat-name\">{}</text>{}</g>",
            if talking { " act-talking" } else { "" },
            esc(&m.id),
            esc(&m.name),
            if leader { " (leader)" } else { "" },
            view.marks.color(&m.id),
            y + 5.0,
            esc(&letter),
            y + 34.0,
            esc(&m.name),
            if leader {
                format!("<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" class=\"act-crown\" aria-hidden=\"true\">♛</text>", y - 23.0)
            } else {
                String::new()
            }
        );
        // The member's expert, in a side room beside it, while break time lasts.
        if let Some(e) = view.expert_of(&m.id).filter(|e| !e.gone) {
            let (ex, ey) = (x + if x < W / 2.0 { -48.0 } else { 48.0 }, y);
            let talking = speaking.contains(&e.id.as_str());
            let _ = write!(
                s,
                "<g class=\"act-expert{}\" data-agent=\"{}\" tabindex=\"0\" role=\"button\"><title>{}</title><line x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{ex:.1}\" y2=\"{ey:.1}\" class=\"act-one-to-one\"/><rect x=\"{:.1}\" y=\"{:.1}\" width=\"26\" height=\"26\" rx=\"6\" style=\"fill:{}\"/><text x=\"{ex:.1}\" y=\"{:.1}\" text-anchor=\"middle\" class=\"act-seat-letter\" aria-hidden=\"true\">{}</text></g>",
                if talking { " act-talking" } else { "" },
                esc(&e.id),
                esc(&e.name),
                ex - 13.0,
                ey - 13.0,
                view.marks.color(&e.id),
                ey + 5.0,
                esc(&view.marks.initial(&e.id, &e.name))
            );
        }
    }
    s.push_str("</svg>");
    let g = view
        .team_task
        .as_ref()
        .map(|g| format!("<p class=\"small act-g\"><strong>Team task G</strong> (fused): {}</p>", esc(&g.subject)))
        .or_else(|| {
            view.team_task_draft
                .as_ref()
                .map(|_| "<p class=\"small muted act-g\">G₀: every agent's task side by side, until the leader fuses them.</p>".to_string())
        })
        .unwrap_or_default();
    s + &g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::event::{LoggedEvent, RunEvent};
    use crate::engine::views::Fold;

    fn ev(seq: u64, event: RunEvent) -> LoggedEvent {
        LoggedEvent {
            seq,
            t_ms: 0,
            event,
        }
    }

    #[test]
    fn seats_the_members_crowns_the_leader_and_shows_experts_only_during_break() {
        let mut events = vec![];
        for (i, id) in ["a1", "a2"].iter().enumerate() {
            events.push(ev(
                i as u64,
                RunEvent::AgentAdded {
                    agent: id.to_string(),
                    role: ROLE_MEMBER.into(),
                    name: format!("<Agent {i}>"),
                    model: String::new(),
                },
            ));
        }
        events.push(ev(
            2,
            RunEvent::NoteWritten {
                agent: "a2".into(),
                store: STORE_LEADER.into(),
                key: None,
                payload: serde_json::json!({"leader": "a2", "seed": 0}),
            },
        ));
        events.push(ev(
            3,
            RunEvent::PhaseStarted {
                phase: PHASE_BREAK.into(),
                label: String::new(),
            },
        ));
        events.push(ev(
            4,
            RunEvent::AgentAdded {
                agent: "x1".into(),
                role: ROLE_EXPERT.into(),
                name: "Expert".into(),
                model: String::new(),
            },
        ));
        events.push(ev(
            4,
            RunEvent::Handoff {
                from: "a1".into(),
                to: "x1".into(),
                reason: "break time".into(),
            },
        ));
        let view = ActView::of(&events);
        let svg = room_svg(&view);
        assert!(svg.contains("&lt;Agent 0&gt;") && !svg.contains("<Agent"));
        assert_eq!(svg.matches("act-crown").count(), 1);
        assert!(svg.contains("data-agent=\"x1\"") && svg.contains("break time"));
        // Each seat and the expert are buttons a keyboard reaches, named (by
        // their <title>) for the agent, the leader said so.
        assert_eq!(
            svg.matches("tabindex=\"0\" role=\"button\"><title>")
                .count(),
            3
        );
        assert!(svg.contains("role=\"button\"><title>&lt;Agent 0&gt;</title>"));
        assert!(svg.contains("role=\"button\"><title>&lt;Agent 1&gt; (leader)</title>"));
        assert!(
            svg.contains("data-agent=\"x1\" tabindex=\"0\" role=\"button\"><title>Expert</title>")
        );
        events.push(ev(
            5,
            RunEvent::PhaseEnded {
                phase: PHASE_BREAK.into(),
            },
        ));
        assert!(!room_svg(&ActView::of(&events)).contains("data-agent=\"x1\""));
        assert!(room_svg(&ActView::default()).contains("empty-note"));
    }
}
