//! The task evolution of each member: initial → after the team meeting →
//! after break time, each stage as a readable diff of the one before
//! (words added marked, words dropped struck through); the details, which
//! never change, once.

use crate::engine::coordinators::act::view::ActView;
use crate::engine::views::html::esc;
use std::fmt::Write;

/// A word diff (longest common subsequence) of `old` → `new`, as HTML:
/// words added in `<ins>`, dropped in `<del>`.
pub fn diff_html(old: &str, new: &str) -> String {
    use crate::engine::views::diff::{words, Change};
    words(old, new)
        .into_iter()
        .map(|c| match c {
            Change::Same(w) => esc(w),
            Change::Added(w) => format!("<ins>{}</ins>", esc(w)),
            Change::Removed(w) => format!("<del>{}</del>", esc(w)),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn stage_name(stage: &str) -> &str {
    match stage {
        "initial" => "Initial",
        "after_team_meeting" => "After the team meeting",
        "after_break_time" => "After break time",
        other => other,
    }
}

pub fn tasks_html(view: &ActView) -> String {
    let members: Vec<_> = view.members().filter(|m| !m.tasks.is_empty()).collect();
    if members.is_empty() {
        return "<p class=\"muted empty-note\">Each agent's task appears here, then how the meetings reshape it.</p>".into();
    }
    let mut h = String::from("<div class=\"act-tasks\">");
    for m in members {
        let _ = write!(
            h,
            "<section class=\"act-task\" data-agent=\"{}\"><h4><span class=\"tp-author\" style=\"--agent:{}\">{}</span></h4><ol class=\"act-stages\">",
            esc(&m.id),
            view.marks.color(&m.id),
            esc(&m.name)
        );
        if let Some(a) = view.assignments.iter().find(|a| a.agent == m.id) {
            let _ = write!(
                h,
                "<p class=\"small muted act-assigned\">ACT+: took this task over with its knowledge (keyword similarity {:.2}{})</p>",
                a.similarity,
                if a.embedder.is_empty() { String::new() } else { format!(", {}", esc(&a.embedder)) }
            );
        }
        let mut prev: Option<&str> = None;
        for t in &m.tasks {
            let body = match prev {
                Some(p) if p == t.subject => format!(
                    "{} <span class=\"muted small\">(unchanged)</span>",
                    esc(&t.subject)
                ),
                Some(p) => diff_html(p, &t.subject),
                None => esc(&t.subject),
            };
            let _ = write!(
                h,
                "<li><p class=\"small muted\">{}</p><p>{body}</p></li>",
                stage_name(&t.stage)
            );
            prev = Some(&t.subject);
        }
        h.push_str("</ol>");
        if let Some(first) = m.tasks.first().filter(|t| !t.details.is_empty()) {
            let details: Vec<String> = first.details.iter().map(|d| esc(d)).collect();
            let _ = write!(
                h,
                "<p class=\"small\"><strong>Details</strong> (never change): {}</p>",
                details.join(" · ")
            );
        }
        h.push_str("</section>");
    }
    h.push_str("</div>");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_marks_added_and_dropped_words_escaped() {
        assert_eq!(
            diff_html("Pick the teas", "Pick the <b>teas</b>"),
            "Pick the <del>teas</del> <ins>&lt;b&gt;teas&lt;/b&gt;</ins>"
        );
        assert_eq!(diff_html("a b", "a c b"), "a <ins>c</ins> b");
        assert_eq!(diff_html("a b c", "a c"), "a <del>b</del> c");
        assert_eq!(diff_html("", "x"), "<ins>x</ins>");
    }
}
