//! MMLU (Hendrycks et al., 2021), the 100-question sample: a multiple
//! choice question with four options; the metric is the letter. The prompt
//! follows Hendrycks' `evaluate.py` ("The following are multiple choice
//! questions (with answers) about {subject}."), with k dev examples of the
//! same subject before the question; a chat model's letter is the first
//! standalone A–D after "Answer" (or anywhere, when it never says it).

use super::{Dataset, Gold, Task};
use serde_json::Value;

pub const LETTERS: [&str; 4] = ["A", "B", "C", "D"];

/// One question with its choices, as the prompt shows it.
fn block(v: &Value) -> Result<String, String> {
    let q = v
        .get("question")
        .and_then(Value::as_str)
        .ok_or("no \"question\"")?;
    let choices = v
        .get("choices")
        .and_then(Value::as_array)
        .filter(|c| c.len() == 4)
        .ok_or("\"choices\" is not a list of four")?;
    let mut s = q.trim().to_string();
    for (l, c) in LETTERS.iter().zip(choices) {
        s.push_str(&format!("\n{l}. {}", c.as_str().unwrap_or_default()));
    }
    Ok(s)
}

fn subject(v: &Value) -> String {
    v.get("subject")
        .and_then(Value::as_str)
        .unwrap_or("general knowledge")
        .replace('_', " ")
}

/// A row as a task, with `shots` (dev rows of the same subject) before it.
pub fn task(v: &Value, n: usize, shots: &[Value]) -> Result<Task, String> {
    let answer = v
        .get("answer")
        .and_then(Value::as_str)
        .filter(|a| LETTERS.contains(a))
        .ok_or("\"answer\" is not one of A, B, C, D")?;
    let subject = subject(v);
    let mut prompt =
        format!("The following are multiple choice questions (with answers) about {subject}.\n\n");
    for shot in shots.iter().filter(|s| self::subject(s) == subject) {
        if let (Ok(b), Some(a)) = (block(shot), shot.get("answer").and_then(Value::as_str)) {
            prompt.push_str(&format!("{b}\nAnswer: {a}\n\n"));
        }
    }
    prompt.push_str(&format!(
        "{}\nAnswer:\n\nReply with the letter of the right choice, as \"Answer: <letter>\".",
        block(v)?
    ));
    let id = v
        .get("id")
        .and_then(Value::as_str)
        .map(|s| format!("mmlu:{s}"))
        .unwrap_or_else(|| format!("mmlu:{n}"));
    Ok(Task {
        dataset: Dataset::Mmlu,
        id,
        prompt,
        gold: Gold::Letter(answer.into()),
    })
}

fn standalone_letter(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if !matches!(c, 'A'..='D') {
            continue;
        }
        let before = i == 0 || !chars[i - 1].is_alphanumeric();
        let after = chars.get(i + 1).is_none_or(|n| !n.is_alphanumeric());
        if before && after {
            return Some(c.to_string());
        }
    }
    None
}

/// The letter a reply gives (see the module docs).
pub fn answer_letter(text: &str) -> Option<String> {
    match text.rfind("Answer") {
        Some(at) => standalone_letter(&text[at + "Answer".len()..]),
        None => standalone_letter(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_follow_the_standard_format_and_letters_are_read_from_replies() {
        let row = serde_json::json!({"id": "marketing/test/0", "subject": "marketing", "question": "Q?",
            "choices": ["w", "x", "y", "z"], "answer": "C"});
        let shot = serde_json::json!({"subject": "marketing", "question": "S?", "choices": ["1", "2", "3", "4"], "answer": "A"});
        let other = serde_json::json!({"subject": "philosophy", "question": "P?", "choices": ["1", "2", "3", "4"], "answer": "B"});
        let t = task(&row, 0, &[shot, other]).expect("task");
        assert!(t.prompt.starts_with(
            "The following are multiple choice questions (with answers) about marketing.\n\nS?\nA. 1\n"
        ));
        assert!(t.prompt.contains("Q?\nA. w\nB. x\nC. y\nD. z\nAnswer:"));
        assert!(!t.prompt.contains("P?"), "shots of the same subject only");
        assert_eq!(t.id, "mmlu:marketing/test/0");
        assert_eq!(
            answer_letter("Let me think. A is wrong. Answer: C"),
            Some("C".into())
        );
        assert_eq!(answer_letter("I pick (B)."), Some("B".into()));
        assert_eq!(answer_letter("Answer: Definitely D"), Some("D".into()));
        assert_eq!(answer_letter("none"), None);
        assert!(task(
            &serde_json::json!({"question": "q", "choices": ["a"], "answer": "A"}),
            0,
            &[]
        )
        .is_err());
    }
}
