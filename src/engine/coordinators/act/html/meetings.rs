//! The meetings as they were held: the team meeting (opinions, advice, the
//! leader's fusion), break time as one side room per member and its
//! expert, and the production meeting's rounds. Each line names its
//! speaker and what it was (opinion, advice, question, answer, draft…).
//! Model text is rendered as safe Markdown.

use crate::engine::coordinators::act::contract::*;
use crate::engine::coordinators::act::view::{ActView, Line};
use crate::engine::views::html::esc;
use crate::engine::views::html::markdown::to_safe_html;
use std::fmt::Write;

fn what(step: Option<&str>) -> &'static str {
    match step {
        Some(STEP_TEAM_OPINION) | Some(STEP_PROD_OPINION) => "opinion",
        Some(STEP_TEAM_ADVICE) => "advice",
        Some(STEP_FUSE) => "fuses G",
        Some(STEP_ANSWER) => "answer",
        Some(STEP_DRAFT) => "draft",
        Some(STEP_CHECK) => "check",
        Some(STEP_REASSERT) => "reasserts",
        Some(STEP_STANDARD | STEP_COT | STEP_SPP | STEP_SELF_REFINE) => "writes",
        Some(STEP_SELF_FEEDBACK) => "feedback",
        None => "question",
        Some(_) => "",
    }
}

fn line_html(view: &ActView, l: &Line) -> String {
    format!(
        "<li class=\"act-line\" data-seq=\"{}\"><p class=\"small\"><span class=\"tp-author\" style=\"--agent:{}\">{}</span> <span class=\"muted\">{}</span></p><div class=\"md\">{}</div></li>",
        l.seq,
        view.marks.color(&l.from),
        esc(&view.name_of(&l.from)),
        what(l.step.as_deref()),
        to_safe_html(&l.text)
    )
}

pub fn meetings_html(view: &ActView) -> String {
    if view.meetings.is_empty() {
        return "<p class=\"muted empty-note\">The team meeting, break time and the production meeting appear here as they happen.</p>".into();
    }
    let mut h = String::new();
    for m in &view.meetings {
        let title = match m.phase.as_str() {
            PHASE_TEAM => "Team meeting",
            PHASE_BREAK => "Break time",
            _ => "Production meeting",
        };
        let _ = write!(
            h,
            "<section class=\"act-meeting\" data-phase=\"{}\"><h4>{title}</h4>",
            esc(&m.phase)
        );
        if m.phase == PHASE_BREAK {
            // One side room per member and its expert.
            let mut rooms: Vec<Vec<String>> = Vec::new();
            for l in &m.lines {
                match rooms.iter_mut().find(|r| *r == &l.to) {
                    Some(_) => {}
                    None => rooms.push(l.to.clone()),
                }
            }
            for pair in rooms {
                let names: Vec<String> = pair.iter().map(|a| esc(&view.name_of(a))).collect();
                let _ = write!(h, "<details class=\"act-side-room\" open><summary>{}</summary><ol class=\"act-lines\">", names.join(" ↔ "));
                for l in m.lines.iter().filter(|l| l.to == pair) {
                    h.push_str(&line_html(view, l));
                }
                h.push_str("</ol></details>");
            }
        } else {
            h.push_str("<ol class=\"act-lines\">");
            for l in &m.lines {
                h.push_str(&line_html(view, l));
            }
            h.push_str("</ol>");
        }
        h.push_str("</section>");
    }
    h
}
