//! Trivia Creative Writing (Wang et al. 2023, the SPP paper): a story about
//! a topic that must mention the answers to five trivia questions. One
//! agent per question (ACT's setting); recall = questions whose answer
//! (any alias, case-insensitive substring) the story mentions, over all.

use super::{ComplexTask, CreativeSet, Part};
use serde::Deserialize;

#[derive(Deserialize)]
struct Row {
    topic: String,
    questions: Vec<String>,
    answers: Vec<Vec<String>>,
}

/// The team's task sentence, in the dataset's wording.
pub fn task_text(topic: &str, questions: &[String]) -> String {
    format!(
        "Write a short and coherent story about {topic} that incorporates the answers to the following {} questions: {}",
        questions.len(),
        questions.join(" ")
    )
}

/// Reads the dataset's JSONL (`topic`, `questions`, `answers` per line).
pub fn parse(text: &str, file: &str) -> Result<Vec<ComplexTask>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row: Row = serde_json::from_str(line).map_err(|e| {
            format!(
                "{file} line {}: not a Trivia Creative Writing row ({e}); each line needs \"topic\", \"questions\" and \"answers\"",
                i + 1
            )
        })?;
        if row.questions.is_empty() || row.questions.len() != row.answers.len() {
            return Err(format!(
                "{file} line {}: {} questions but {} answer lists",
                i + 1,
                row.questions.len(),
                row.answers.len()
            ));
        }
        let parts = row
            .questions
            .iter()
            .zip(&row.answers)
            .map(|(q, aliases)| Part {
                subject: format!(
                    "Answer the trivia question \"{q}\" and work the answer into the story."
                ),
                details: vec![
                    format!("Topic: {}", row.topic),
                    "The team writes one story that must mention the answer.".into(),
                ],
                references: aliases.clone(),
            })
            .collect();
        out.push(ComplexTask {
            set: CreativeSet::Trivia,
            id: format!("trivia-{}", out.len()),
            text: task_text(&row.topic, &row.questions),
            deliverable: "story".into(),
            word_limit: None,
            parts,
        });
    }
    if out.is_empty() {
        return Err(format!("{file} holds no rows"));
    }
    Ok(out)
}

/// Whether `output` mentions any of `aliases` (case-insensitive substring).
pub fn mentions(output: &str, aliases: &[String]) -> bool {
    let lower = output.to_lowercase();
    aliases
        .iter()
        .any(|a| !a.trim().is_empty() && lower.contains(&a.to_lowercase()))
}

/// Recall over the task's parts: answers mentioned / questions.
pub fn recall(task: &ComplexTask, output: &str) -> f64 {
    if task.parts.is_empty() {
        return 0.0;
    }
    let found = task
        .parts
        .iter()
        .filter(|p| mentions(output, &p.references))
        .count();
    found as f64 / task.parts.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alias_counts_case_insensitively_as_a_substring() {
        let row = r#"{"topic": "Mario", "questions": ["q1", "q2", "q3", "q4", "q5"], "answers": [["Sunset Blvd.", "sunset boulevard"], ["David Seville"], ["Exile"], ["Octopussy"], ["1912"]]}"#;
        let tasks = parse(row, "t").expect("parse");
        let t = &tasks[0];
        assert_eq!(t.parts.len(), 5);
        assert!(t.text.contains("about Mario") && t.text.contains("5 questions"));
        let story = "Mario walked down SUNSET BLVD. humming a David Seville tune; in 1912 he ...";
        assert!((recall(t, story) - 0.6).abs() < 1e-12);
        assert!(!mentions("nothing", &[String::new()]));
        assert!(parse(
            "{\"topic\": \"x\", \"questions\": [\"a\"], \"answers\": []}",
            "t"
        )
        .expect_err("mismatch")
        .contains("1 questions but 0 answer lists"));
        assert!(parse("", "t").is_err());
    }
}
