//! The demo model's general answer (what the single agent gets): a
//! structured reply computed from the task (its length, key terms, any
//! arithmetic in it), and a clear statement that it is scripted.

use super::arith;
use crate::engine::model::ChatRequest;
use std::collections::BTreeMap;

const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i", "in",
    "is", "it", "me", "my", "of", "on", "or", "please", "that", "the", "this", "to", "what",
    "when", "which", "who", "why", "with", "you", "your", "we", "our", "will", "would", "should",
    "could", "about", "into", "than", "then", "there", "these", "those", "its", "it's", "give",
    "make", "write",
];

/// Up to `n` most frequent content words, ties broken by first appearance.
pub fn key_terms(text: &str, n: usize) -> Vec<String> {
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (pos, w) in text
        .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'')
        .map(|w| w.trim_matches(['-', '\'']).to_lowercase())
        .filter(|w| w.chars().count() > 2 && !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .enumerate()
    {
        let e = counts.entry(w).or_insert((0, pos));
        e.0 += 1;
    }
    let mut v: Vec<(String, (usize, usize))> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.1 .1.cmp(&b.1 .1)));
    v.into_iter().take(n).map(|(w, _)| w).collect()
}

fn sentences(text: &str) -> usize {
    text.split(['.', '!', '?'])
        .filter(|s| s.chars().any(char::is_alphanumeric))
        .count()
        .max(1)
}

pub fn answer(req: &ChatRequest) -> String {
    let task = req.last_user().unwrap_or("").trim();
    let words = task.split_whitespace().count();
    let terms = key_terms(task, 5);
    let mut out = String::new();
    out.push_str(
        "**Offline demo answer** — scripted by Roundtable, not written by a language model.\n\n",
    );
    let quoted: String = task.chars().take(160).collect();
    let ellipsis = if task.chars().count() > 160 {
        "…"
    } else {
        ""
    };
    out.push_str(&format!(
        "You asked: “{}{ellipsis}”\n\n",
        quoted.replace('\n', " ")
    ));
    out.push_str("### What I can compute offline\n\n");
    out.push_str(&format!(
        "- Your task has **{words}** words in **{}** sentence{}.\n",
        sentences(task),
        if sentences(task) == 1 { "" } else { "s" }
    ));
    if !terms.is_empty() {
        let t: Vec<String> = terms.iter().map(|t| format!("`{t}`")).collect();
        out.push_str(&format!("- Key terms: {}.\n", t.join(", ")));
    }
    if let Some((expr, value)) = arith::find_expression(task) {
        out.push_str(&format!(
            "- Arithmetic: `{expr}` = **{}**.\n",
            arith::format_number(value)
        ));
    }
    out.push_str("\n### How an agent would approach it\n\n");
    let focus = terms.first().map(String::as_str).unwrap_or("the task");
    out.push_str(&format!(
        "1. Restate the goal around **{focus}** and list the constraints.\n"
    ));
    if let Some(second) = terms.get(1) {
        out.push_str(&format!("2. Gather what is needed about **{second}**.\n"));
    } else {
        out.push_str("2. Gather what is needed.\n");
    }
    out.push_str("3. Draft an answer, check it against the constraints, and refine it.\n\n");
    out.push_str(
        "For a real answer, open **Settings** and choose a provider: OpenAI, Anthropic, \
         OpenRouter, or a local Ollama / LM Studio server.",
    );
    out
}

pub fn unknown_step(step: &str, req: &ChatRequest) -> String {
    let task = req.last_user().unwrap_or("").trim();
    let preview: String = task.chars().take(120).collect();
    format!(
        "**Offline demo** — scripted, not an LLM. The demo model has no script for the step \
         `{step}`, so it acknowledges the request: “{preview}”."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::Message;

    #[test]
    fn key_terms_by_frequency_then_position() {
        assert_eq!(
            key_terms("Rust study plan: study Rust daily, plan weekly", 3),
            vec!["rust", "study", "plan"]
        );
    }

    #[test]
    fn answer_reflects_the_task() {
        let req = ChatRequest::new(vec![Message::user(
            "Compare Paris and Rome for a trip. Budget 3 * 400 euros.",
        )]);
        let a = answer(&req);
        assert!(a.contains("not written by a language model"));
        assert!(a.contains("`3 * 400` = **1200**"), "{a}");
        assert!(a.contains("`paris`"), "{a}");
        assert!(a.contains("**2** sentences"), "{a}");
    }
}
