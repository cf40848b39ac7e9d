//! What the run remembered and what it learned: each retrieval (the
//! experience a step was shown and the runners-up, with the score's parts:
//! similarity, reward, score), per agent for the inspector or all for the
//! Experience tab, and the experiences the backward pass stored.

use super::reward_badge;
use crate::engine::coordinators::mael::contract::*;
use crate::engine::coordinators::mael::view::{MaelView, RetrievalItem};
use crate::engine::views::html::esc;
use std::fmt::Write;

fn excerpt(s: &str, n: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= n {
        return s.to_string();
    }
    format!("{}…", s.chars().take(n).collect::<String>())
}

/// One retrieval: the step, then its hits best first.
pub fn retrieval_html(view: &MaelView, r: &RetrievalItem) -> String {
    let rec = &r.record;
    let mut h = format!(
        "<article class=\"ml-retrieval\" data-seq=\"{}\"><header class=\"small\"><span class=\"tp-author\" style=\"--agent:{}\">{}</span> · <strong>{}</strong> on <code>{}</code> · {} · {} candidate{}{}</header>",
        r.seq,
        view.marks.color(&r.agent),
        esc(view.name_of(&r.agent)),
        rec.step.id(),
        esc(&rec.task),
        rec.mode.id(),
        rec.candidates,
        if rec.candidates == 1 { "" } else { "s" },
        rec.trace
            .as_deref()
            .map(|t| format!(" · trace <code>{}</code>", esc(t)))
            .unwrap_or_default()
    );
    h.push_str("<table class=\"tp-table ml-hits\"><thead><tr><th scope=\"col\"></th><th scope=\"col\">experience</th><th scope=\"col\">similarity</th><th scope=\"col\">reward</th><th scope=\"col\">score</th></tr></thead><tbody>");
    for hit in &rec.hits {
        let _ = write!(
            h,
            "<tr class=\"{}\"><td>{}</td><td><details><summary><code>{}</code></summary><p class=\"small\"><strong>Input</strong></p><pre>{}</pre><p class=\"small\"><strong>Output</strong></p><pre>{}</pre></details></td><td>{:.3}</td><td>{}</td><td><strong>{:.3}</strong></td></tr>",
            if hit.used { "ml-used" } else { "" },
            if hit.used { "✓ used" } else { "" },
            esc(&hit.id),
            esc(&excerpt(&hit.input, 1200)),
            esc(&excerpt(&hit.output, 800)),
            hit.similarity,
            reward_badge(hit.reward),
            hit.score
        );
    }
    h.push_str("</tbody></table></article>");
    h
}

/// The retrievals of `agent` (its inspector section).
pub fn agent_retrievals_html(view: &MaelView, agent: &str) -> String {
    if view
        .team
        .as_ref()
        .is_none_or(|t| !t.team.agents.iter().any(|a| a.id == agent))
    {
        return String::new();
    }
    let items: Vec<&RetrievalItem> = view.retrievals_of(agent).collect();
    let learned = view
        .experiences
        .iter()
        .filter(|(_, e)| e.agent == agent)
        .count();
    let mut h = format!(
        "<section class=\"tp-section\"><h4 class=\"tp-h\">Retrieved experience <span class=\"muted small\">({})</span></h4>",
        items.len()
    );
    if items.is_empty() {
        let why = match view.mode {
            Some(Mode::None) => "This run uses no experience (MAEL-ØExp).",
            _ => "No step of this agent retrieved anything (an empty pool, or none of its kind).",
        };
        let _ = write!(h, "<p class=\"tp-empty muted small\">{why}</p>");
    }
    for r in items {
        h.push_str(&retrieval_html(view, r));
    }
    let _ = write!(
        h,
        "<p class=\"muted small\">{learned} experience{} of this agent stored by the backward pass.</p></section>",
        if learned == 1 { "" } else { "s" }
    );
    h
}

/// The Experience tab: every retrieval, then what the backward pass stored.
pub fn experience_tab_html(view: &MaelView) -> String {
    experience_tab_ended_html(view, None, true)
}

/// The same, for a run that `ended` early ("was stopped", "failed"): its
/// empty list of stored experiences says the backward pass never came (a
/// run that does not learn, `learns` false, has none to come).
pub fn experience_tab_ended_html(view: &MaelView, ended: Option<&str>, learns: bool) -> String {
    let mut h =
        String::from("<section class=\"ml-section\"><h3 class=\"plan-title\">Retrievals</h3>");
    if view.retrievals.is_empty() {
        let why = match view.mode {
            Some(Mode::None) => "No experience is used in this mode (MAEL-ØExp): the steps see only their task.",
            _ => "Nothing retrieved yet: steps retrieve from the pool as they run (an empty pool has nothing to give).",
        };
        let _ = write!(h, "<p class=\"muted empty-note\">{why}</p>");
    }
    for r in &view.retrievals {
        h.push_str(&retrieval_html(view, r));
    }
    h.push_str(
        "</section><section class=\"ml-section\"><h3 class=\"plan-title\">Experiences stored</h3>",
    );
    if view.experiences.is_empty() && !learns {
        h.push_str("<p class=\"muted empty-note\">Nothing is stored: this run does not learn (learning was off).</p>");
    } else if let (true, Some(how)) = (view.experiences.is_empty(), ended) {
        let _ = write!(h, "<p class=\"muted empty-note\" data-testid=\"ended-early\">Nothing was stored: the run {how} before its backward pass.</p>");
    } else if view.experiences.is_empty() {
        h.push_str("<p class=\"muted empty-note\">The backward pass stores every decision step with its reward when the run ends (runs that learn).</p>");
    } else {
        h.push_str("<table class=\"tp-table ml-experiences\"><thead><tr><th scope=\"col\">agent</th><th scope=\"col\">step</th><th scope=\"col\">reward</th><th scope=\"col\">input</th><th scope=\"col\">output</th></tr></thead><tbody>");
        for (seq, e) in &view.experiences {
            let _ = write!(
                h,
                "<tr data-seq=\"{seq}\"><td><span class=\"tp-author\" style=\"--agent:{}\">{}</span></td><td>{}</td><td>{}</td><td class=\"small\">{}</td><td class=\"small\">{}</td></tr>",
                view.marks.color(&e.agent),
                esc(view.name_of(&e.agent)),
                e.step.id(),
                reward_badge(e.reward),
                esc(&excerpt(&e.input, 140)),
                esc(&excerpt(&e.output, 100))
            );
        }
        h.push_str("</tbody></table>");
    }
    h.push_str("</section>");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_run_says_why_nothing_was_stored_by_whether_it_learns() {
        let view = MaelView::default();
        let stopped = experience_tab_ended_html(&view, Some("was stopped"), true);
        assert!(
            stopped.contains("Nothing was stored: the run was stopped before its backward pass."),
            "{stopped}"
        );
        let not_learning = experience_tab_ended_html(&view, Some("was stopped"), false);
        assert!(
            !not_learning.contains("backward pass") && not_learning.contains("does not learn"),
            "{not_learning}"
        );
        let finished = experience_tab_html(&view);
        assert!(!finished.contains("ended-early"), "{finished}");
    }
}
