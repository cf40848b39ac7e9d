//! The production meeting's outcome: each round's draft with the leader's
//! check (issues, the word count against the limit), and the deliverable
//! with its scores; words it shares with the reference solutions are
//! highlighted (after the run, when the references are shown for scoring).

use crate::engine::coordinators::act::view::ActView;
use crate::engine::views::html::esc;
use std::collections::HashSet;
use std::fmt::Write;

/// `text` with each word whose lower-cased letters and digits are in
/// `words` wrapped in `<mark>`; everything escaped.
pub fn highlight(text: &str, words: &HashSet<String>) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push_str("<br>");
        }
        let parts: Vec<String> = line
            .split(' ')
            .map(|w| {
                let key: String = w
                    .chars()
                    .filter(|c| c.is_alphanumeric())
                    .collect::<String>()
                    .to_lowercase();
                if !key.is_empty() && words.contains(&key) {
                    format!("<mark>{}</mark>", esc(w))
                } else {
                    esc(w)
                }
            })
            .collect();
        out.push_str(&parts.join(" "));
    }
    out
}

/// The lower-cased words of the references (for the highlight).
pub fn reference_words(references: &[String]) -> HashSet<String> {
    const STOP: [&str; 24] = [
        "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "is", "are", "it",
        "that", "this", "as", "at", "by", "be", "your", "you", "from", "can",
    ];
    references
        .iter()
        .flat_map(|r| r.split(|c: char| !c.is_alphanumeric()))
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty() && !STOP.contains(&w.as_str()))
        .collect()
}

fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

/// Rounds, the deliverable (highlighted against `references`) and scores.
pub fn output_html(view: &ActView, references: &[String]) -> String {
    let mut h = String::new();
    if view.rounds.is_empty() && view.result.is_none() {
        return "<p class=\"muted empty-note\">The leader's drafts, its checks and the final deliverable appear here in the production meeting.</p>".into();
    }
    if let Some(r) = &view.result {
        let words = reference_words(references);
        let _ = write!(
            h,
            "<section class=\"act-final\"><h4>Deliverable <span class=\"tp-badge {}\">{}</span> <span class=\"muted small\">{} words · {} round{}</span></h4>",
            if r.accepted { "tp-pass" } else { "tp-na" },
            if r.accepted { "accepted by the leader" } else { "last draft (not accepted)" },
            r.words,
            r.rounds,
            if r.rounds == 1 { "" } else { "s" }
        );
        // Recall, precision and F are ROUGE's columns; other scores have one value.
        h.push_str(if r.scores.rouge.is_some() {
            "<table class=\"tp-table act-scores\"><thead><tr><th scope=\"col\">metric</th><th scope=\"col\">recall</th><th scope=\"col\">precision</th><th scope=\"col\">F</th></tr></thead><tbody>"
        } else {
            "<table class=\"tp-table act-scores\"><thead><tr><th scope=\"col\">metric</th><th scope=\"col\">score</th><th scope=\"col\" colspan=\"2\"></th></tr></thead><tbody>"
        });
        if let Some(rouge) = &r.scores.rouge {
            for (name, s) in [
                ("ROUGE-1", rouge.rouge1),
                ("ROUGE-2", rouge.rouge2),
                ("ROUGE-L", rouge.rouge_l),
            ] {
                let _ = write!(h, "<tr><th scope=\"row\">{name}</th><td><strong>{}</strong></td><td>{}</td><td>{}</td></tr>", pct(s.recall), pct(s.precision), pct(s.fmeasure));
            }
        }
        if let Some(t) = r.scores.trivia_recall {
            let _ = write!(h, "<tr><th scope=\"row\">Trivia recall</th><td><strong>{}%</strong></td><td></td><td></td></tr>", pct(t));
        }
        match (&view.judge, r.judge) {
            (Some(_), Some(j)) => {
                let _ = write!(h, "<tr><th scope=\"row\">LLM judge</th><td><strong>{j}</strong> components</td><td></td><td></td></tr>");
            }
            (Some(_), None) => h.push_str("<tr><th scope=\"row\">LLM judge</th><td colspan=\"3\" class=\"muted\">the reply held no score (a parse failure, not counted)</td></tr>"),
            _ => {}
        }
        if let Some(t) = &view.tool_judge {
            match t.rate {
                Some(rate) => {
                    let done = t.subtasks.iter().filter(|s| s.done).count();
                    let _ = write!(h, "<tr><th scope=\"row\">Sub-tasks completed</th><td><strong>{}%</strong></td><td colspan=\"2\">{done} of {}</td></tr>", pct(rate), t.subtasks.len());
                }
                None => h.push_str("<tr><th scope=\"row\">Sub-tasks completed</th><td colspan=\"3\" class=\"muted\">the judgement could not be read (not measured)</td></tr>"),
            }
        }
        h.push_str("</tbody></table>");
        if let Some(t) = view.tool_judge.as_ref().filter(|t| !t.subtasks.is_empty()) {
            h.push_str("<ul class=\"act-subtasks small\" aria-label=\"The judge's sub-tasks\">");
            for s in &t.subtasks {
                let _ = write!(
                    h,
                    "<li data-done=\"{}\">{} {}</li>",
                    s.done,
                    if s.done { "✓" } else { "✗" },
                    esc(&s.subtask)
                );
            }
            h.push_str("</ul>");
        }
        if !references.is_empty() {
            h.push_str(
                "<p class=\"small muted\">Highlighted: words the reference solutions use too.</p>",
            );
        }
        let _ = write!(
            h,
            "<div class=\"act-deliverable\" tabindex=\"0\">{}</div></section>",
            highlight(&r.output, &words)
        );
    }
    for round in view.rounds.iter().rev() {
        let check = match &round.check {
            Some(c) if c.ok => "<span class=\"tp-badge tp-pass\">check passed</span>".to_string(),
            Some(c) => {
                let issues: Vec<String> = c
                    .issues
                    .iter()
                    .map(|i| format!("<li>{}</li>", esc(i)))
                    .collect();
                format!(
                    "<span class=\"tp-badge tp-fail\">{}</span><ul class=\"small act-issues\">{}</ul>",
                    if c.over_limit { "over the word limit" } else { "issues" },
                    issues.join("")
                )
            }
            None => "<span class=\"muted small\">checking…</span>".into(),
        };
        let _ = write!(
            h,
            "<details class=\"act-round\"><summary>Round {} · draft of {} words · {check}</summary><div class=\"act-draft small\">{}</div></details>",
            round.draft.round,
            round.draft.words,
            esc(&round.draft.text).replace('\n', "<br>")
        );
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_words_are_marked_and_everything_is_escaped() {
        let words = reference_words(&["Oolong and rooibos".into()]);
        assert!(words.contains("oolong") && !words.contains("and"));
        let h = highlight("Try Oolong, <not> rooibos!\nthen", &words);
        assert_eq!(
            h,
            "Try <mark>Oolong,</mark> &lt;not&gt; <mark>rooibos!</mark><br>then"
        );
    }
}
