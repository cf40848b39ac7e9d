//! Creative task sets for a team of agents (ACT's benchmarks): a complex
//! task made of one part per agent, each part a subject with details and
//! the references it is scored against. Two metrics: ROUGE against the
//! part's reference solutions (the Reddit-style communities: the built-in
//! design set and imported JSONL in the same shape), and trivia recall
//! (Trivia Creative Writing: the answers' aliases found in the story).
//!
//! The references are for scoring only: a coordinator gets a task's
//! [`ComplexTask::brief`], never its references.

pub mod builtin;
pub mod score;
pub mod trivia;

use serde::{Deserialize, Serialize};

/// Which set a task comes from, and so how it is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CreativeSet {
    /// The built-in design communities, written for Roundtable.
    Builtin,
    /// Trivia Creative Writing (SPP), five questions per story.
    Trivia,
    /// Imported JSONL in the built-in set's shape.
    Imported,
    /// A task typed by the user: no references, not scored.
    Free,
}

impl CreativeSet {
    pub fn id(self) -> &'static str {
        match self {
            CreativeSet::Builtin => "builtin",
            CreativeSet::Trivia => "trivia",
            CreativeSet::Imported => "imported",
            CreativeSet::Free => "free",
        }
    }

    pub fn metric(self) -> Metric {
        match self {
            CreativeSet::Trivia => Metric::TriviaRecall,
            CreativeSet::Free => Metric::None,
            _ => Metric::Rouge,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Per part the best ROUGE over its reference solutions, averaged over
    /// parts (recall is the headline).
    Rouge,
    /// Parts whose answer (any alias) the output mentions, over all parts.
    TriviaRecall,
    None,
}

/// One agent's share of a complex task: `subject` (what to do) and the
/// `details` that never change; `references` are reference solutions
/// (ROUGE) or accepted answer aliases (trivia), for scoring only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Part {
    pub subject: String,
    #[serde(default)]
    pub details: Vec<String>,
    #[serde(default)]
    pub references: Vec<String>,
}

/// A complex task C: the parts a team of `parts.len()` agents takes on,
/// and the deliverable they write together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComplexTask {
    pub set: CreativeSet,
    pub id: String,
    /// The task as a sentence (what the team is asked for).
    pub text: String,
    /// What the team writes: "service proposal", "story", …
    pub deliverable: String,
    /// The word limit of the deliverable, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word_limit: Option<u32>,
    pub parts: Vec<Part>,
}

impl ComplexTask {
    /// A task typed by the user: the team decomposes it itself.
    pub fn free(text: &str) -> ComplexTask {
        ComplexTask {
            set: CreativeSet::Free,
            id: "free".into(),
            text: text.trim().to_string(),
            deliverable: "proposal".into(),
            word_limit: Some(450),
            parts: Vec::new(),
        }
    }

    /// The task without its references (what a coordinator may read).
    pub fn brief(&self) -> ComplexTask {
        ComplexTask {
            parts: self
                .parts
                .iter()
                .map(|p| Part {
                    references: Vec::new(),
                    ..p.clone()
                })
                .collect(),
            ..self.clone()
        }
    }

    pub fn metric(&self) -> Metric {
        self.set.metric()
    }
}

/// One line of a community set (the built-in one and imports):
/// `{"subject": "...", "details": ["..."], "solutions": ["..."]}`, with an
/// optional `"community"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Item {
    #[serde(default)]
    pub community: String,
    pub subject: String,
    #[serde(default)]
    pub details: Vec<String>,
    pub solutions: Vec<String>,
}

impl Item {
    pub fn part(&self) -> Part {
        Part {
            subject: self.subject.clone(),
            details: self.details.clone(),
            references: self.solutions.clone(),
        }
    }
}

/// Reads a community set's JSONL. Every line must be an item with a
/// subject and at least one solution; an error names the file and line.
pub fn parse_items(text: &str, file: &str) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    for row in super::jsonl_rows(text, file) {
        let (line, v) = row?;
        let item: Item = serde_json::from_value(v).map_err(|e| {
            format!(
                "{file} line {line}: not a task ({e}); each line needs \"subject\", \"details\" and \"solutions\""
            )
        })?;
        if item.subject.trim().is_empty() {
            return Err(format!("{file} line {line}: the subject is empty"));
        }
        if item.solutions.iter().all(|s| s.trim().is_empty()) {
            return Err(format!(
                "{file} line {line}: no reference solution (\"solutions\" needs at least one)"
            ));
        }
        items.push(item);
    }
    if items.len() < 2 {
        return Err(format!(
            "{file} holds {} task{}; a team needs at least two",
            items.len(),
            if items.len() == 1 { "" } else { "s" }
        ));
    }
    Ok(items)
}

/// Trial `trial` of a community set: `team` items drawn without
/// replacement by a fixed shuffle of the trial's number (the same trial is
/// always the same task), as one complex task.
pub fn trial(items: &[Item], set: CreativeSet, trial: u32, team: usize) -> ComplexTask {
    let parts: Vec<Part> = shuffled(items.len(), trial)
        .into_iter()
        .take(team.min(items.len()))
        .map(|i| items[i].part())
        .collect();
    service(set, format!("{}-{trial}", set.id()), parts)
}

/// The indices `0..n` in trial `trial`'s fixed shuffle (the same trial,
/// the same order).
pub fn shuffled(n: usize, trial: u32) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(trial).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    for i in (1..order.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    order
}

/// A complex task asking one service of these parts (a community set's
/// trial): a service proposal of at most 450 words.
pub fn service(set: CreativeSet, id: String, parts: Vec<Part>) -> ComplexTask {
    let subjects: Vec<String> = parts.iter().map(|p| p.subject.clone()).collect();
    ComplexTask {
        set,
        id,
        text: format!(
            "Design one service that brings these together: {}.",
            subjects.join("; ")
        ),
        deliverable: "service proposal".into(),
        word_limit: Some(450),
        parts,
    }
}

/// Words in a text, as the paper counts them (whitespace-separated).
pub fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_read_defensively_and_trials_are_fixed_draws() {
        let ok = "{\"subject\": \"s1\", \"details\": [\"d\"], \"solutions\": [\"r\"]}\n\n{\"subject\": \"s2\", \"solutions\": [\"r2\"]}";
        let items = parse_items(ok, "f").expect("parse");
        assert_eq!(items.len(), 2);
        for (bad, msg) in [
            ("{\"subject\": \"s\"}", "line 1: not a task"),
            ("{\"subject\": \"s\", \"solutions\": []}\n", "no reference"),
            (
                "{\"subject\": \" \", \"solutions\": [\"r\"]}",
                "subject is empty",
            ),
            ("not json", "not valid JSON"),
            (
                "{\"subject\": \"s\", \"solutions\": [\"r\"]}",
                "a team needs at least two",
            ),
        ] {
            let e = parse_items(bad, "f").expect_err(bad);
            assert!(e.contains(msg), "{e}");
        }
        let many: Vec<Item> = (0..8)
            .map(|i| Item {
                community: "c".into(),
                subject: format!("s{i}"),
                details: vec![],
                solutions: vec![format!("r{i}")],
            })
            .collect();
        let a = trial(&many, CreativeSet::Builtin, 3, 4);
        assert_eq!(a, trial(&many, CreativeSet::Builtin, 3, 4));
        assert_ne!(a.parts, trial(&many, CreativeSet::Builtin, 4, 4).parts);
        assert_eq!(a.parts.len(), 4);
        let mut subjects: Vec<_> = a.parts.iter().map(|p| p.subject.clone()).collect();
        subjects.sort();
        subjects.dedup();
        assert_eq!(subjects.len(), 4, "drawn without replacement");
        assert!(a.brief().parts.iter().all(|p| p.references.is_empty()));
        assert_eq!(word_count(" a  b\nc "), 3);
    }
}
