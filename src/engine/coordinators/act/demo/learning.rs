//! What the demo team does after a meeting: task exploration (the subject
//! sharpened with the best acquired term) and knowledge acquisition
//! (episodes and scored entries about every other speaker, never itself).

use super::glossary::{self, Term};
use super::request::*;
use super::text::*;
use super::Me;
use crate::engine::coordinators::act::contract::*;
use serde_json::{json, Value};

/// act.explore: the subject sharpened with the most important acquired
/// glossary term it does not name yet (the entries come best first, and
/// only those that matter to its task count); unchanged without one.
pub fn explore(text: &str) -> String {
    let me = Me::read(text);
    let base = bare(me.base_subject()).to_string();
    let named = |k: &str| glossary::contains_phrase(&normalise(&base), &normalise(k));
    // Only what matters to its own task (importance 6 or more).
    let term = me
        .entries
        .iter()
        .filter(|e| e.importance >= 6)
        .find_map(|e| {
            e.keywords
                .iter()
                .map(String::as_str)
                .chain(e.summary.split_once(" is ").map(|(h, _)| h))
                .filter_map(glossary::find)
                .find(|t| !named(t.term))
        });
    let task = match term {
        Some(t) => format!("{base}, using {}", t.term),
        None => me.current.clone(),
    };
    json!({ "task": task }).to_string()
}

/// Whether a sentence defines the term ("<term> is", "A <term> is").
fn defines(sentence: &str, t: &Term) -> bool {
    let n = normalise(sentence);
    let term = normalise(t.term);
    ["", "a ", "an "].iter().any(|a| {
        n.starts_with(&format!("{a}{term} is ")) || n.starts_with(&format!("{a}{term} are "))
    })
}

/// An entry's importance for the owner: 4, and 2 per keyword its task
/// words hold, at most 10.
fn importance(keywords: &[String], own: &[String]) -> u8 {
    let hits = keywords
        .iter()
        .filter(|k| overlap(&words(k), own) > 0)
        .count();
    (4 + 2 * hits).min(10) as u8
}

/// Entries about the glossary terms a speaker named (an expert's whole
/// answers count for its own term). An entry that explains the term is
/// scored by [`importance`]; one that only names it is worth two less,
/// at most 6.
fn term_entries(speaker: &str, said: &[&str], own: &[String]) -> Vec<Value> {
    let all = said.join(" ");
    let sents: Vec<String> = said.iter().flat_map(|t| sentences(t)).collect();
    let own_term = speaker.strip_prefix("Expert on ").and_then(glossary::find);
    let mut out = Vec::new();
    for t in glossary::named_in(&all) {
        let is_own = own_term.is_some_and(|o| std::ptr::eq(o, t));
        let mut about: Vec<String> = sents
            .iter()
            .filter(|s| is_own || glossary::mentions(s, t))
            .cloned()
            .collect();
        if let Some(i) = about.iter().position(|s| defines(s, t)) {
            let d = about.remove(i);
            about.insert(0, d);
        }
        let mut summary = about.join(" ");
        // A term only named, not explained, is worth less.
        let explained = defines(&summary, t);
        if !explained {
            summary = format!(
                "{} is something {speaker} brought up: {summary}",
                capitalise(t.term)
            );
        }
        let mut keywords = vec![t.term.to_string()];
        for w in t.triggers {
            if keywords.len() < 4 && overlap(&[w.to_string()], own) > 0 {
                keywords.push(w.to_string());
            }
        }
        if keywords.len() < 2 {
            keywords.extend(t.triggers.first().map(|w| w.to_string()));
        }
        let score = importance(&keywords, own);
        out.push(json!({
            "subject": speaker,
            "source": speaker,
            "summary": clip(&summary, 70),
            "keywords": keywords,
            "importance": if explained { score } else { score.saturating_sub(2).min(6) },
        }));
    }
    out
}

/// The entry about a member's task, from the first sentence it said.
fn task_entry(speaker: &str, said: &[&str], own: &[String]) -> Option<Value> {
    let sents = sentences(said.first()?);
    let first = sents.first()?;
    let subject = bare(first.strip_prefix("My task is:").unwrap_or(first)).trim();
    let name_words = words(speaker);
    let mut keywords: Vec<String> = content_words(subject)
        .into_iter()
        .filter(|w| !name_words.contains(w))
        .take(3)
        .collect();
    if let Some(more) = sents.get(1) {
        for w in content_words(more) {
            if keywords.len() >= 2 {
                break;
            }
            if !keywords.contains(&w) {
                keywords.push(w);
            }
        }
    }
    if keywords.is_empty() {
        return None;
    }
    let more = sents.get(1).map(|s| format!(" {s}")).unwrap_or_default();
    Some(json!({
        "subject": speaker,
        "source": speaker,
        "summary": clip(&format!("{speaker}'s task is to answer: {subject}.{more}"), 60),
        "importance": importance(&keywords, own),
        "keywords": keywords,
    }))
}

/// act.acquire: for every other speaker, episodes (the first sentence of
/// each thing it said) and knowledge entries (the terms it named, and a
/// member's task), scored against the owner's task; never about itself.
/// Each entry's source is its speaker (no demo agent quotes another).
pub fn acquire(text: &str) -> String {
    let me = Me::read(text);
    let own = me.task_words();
    let speakers: Vec<String> = sec(text, H_SPEAKERS)
        .split(", ")
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && *s != me.name)
        .collect();
    let instruction = instruction(text);
    let m = number_after(instruction, "write up to ").unwrap_or(4);
    let x = number_after(instruction, "episodes of at most ")
        .unwrap_or(40)
        .max(1);
    let n = number_after(instruction, "keep at most ").unwrap_or(4);
    let mut known = speakers.clone();
    known.push(me.name.clone());
    let lines = utterances(last_sec(text, H_TRANSCRIPT), &known);
    let mut episodes = Vec::new();
    let mut knowledge = Vec::new();
    for sp in &speakers {
        let said: Vec<&str> = lines
            .iter()
            .filter(|(who, _)| who == sp)
            .map(|(_, t)| t.as_str())
            .collect();
        for t in said.iter().take(m) {
            let s = first_sentence(t);
            let verb = if s.ends_with('?') {
                "asked"
            } else if sp.starts_with("Expert on ") {
                "explained"
            } else {
                "proposed"
            };
            episodes.push(json!({"subject": sp, "text": clip(&format!("{sp} {verb}: {s}"), x)}));
        }
        let mut entries = term_entries(sp, &said, &own);
        if sp.starts_with("Agent ") {
            entries.extend(task_entry(sp, &said, &own));
        }
        // The most important first (stable), at most n.
        entries.sort_by_key(|e| std::cmp::Reverse(e["importance"].as_u64().unwrap_or(0)));
        entries.truncate(n);
        knowledge.extend(entries);
    }
    json!({ "episodes": episodes, "knowledge": knowledge }).to_string()
}
