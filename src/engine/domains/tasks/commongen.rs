//! CommonGen-Hard (as Self-Refine uses it): write a short coherent text
//! that uses every concept of a set of 20–30. There is no reference text;
//! the deterministic metric is concept coverage: a concept counts when it
//! is a word of the output or the base form of one. Without spaCy's
//! lemmatizer, base forms come from simple English inflection rules
//! (plural -s / -es / -ies, -ed, -ing, -er, doubled final consonants,
//! a dropped final e), which the app says.

use super::{Dataset, Gold, Task};
use crate::engine::model::embed::words;
use serde_json::Value;

/// A row `{"id", "concepts"}` as a task.
pub fn task(v: &Value, n: usize) -> Result<Task, String> {
    let concepts: Vec<String> = v
        .get("concepts")
        .and_then(Value::as_array)
        .ok_or("no \"concepts\" list")?
        .iter()
        .filter_map(Value::as_str)
        .map(|c| c.trim().to_lowercase())
        .filter(|c| !c.is_empty())
        .collect();
    if concepts.is_empty() {
        return Err("the concept list is empty".into());
    }
    let id = v
        .get("id")
        .and_then(Value::as_str)
        .map(|s| format!("commongen:{s}"))
        .unwrap_or_else(|| format!("commongen:{n}"));
    Ok(Task {
        dataset: Dataset::Commongen,
        id,
        prompt: format!(
            "Write a short, coherent text that uses every one of these concepts: {}.",
            concepts.join(", ")
        ),
        gold: Gold::Concepts(concepts),
    })
}

/// The base forms a word may come from (itself included).
pub fn base_forms(word: &str) -> Vec<String> {
    let w = word.to_lowercase();
    let mut out = vec![w.clone()];
    let mut stems: Vec<String> = Vec::new();
    if let Some(s) = w.strip_suffix("ies") {
        stems.push(format!("{s}y"));
    }
    if let Some(s) = w.strip_suffix("es") {
        stems.push(s.into());
    }
    if let Some(s) = w.strip_suffix('s').filter(|s| !s.ends_with('s')) {
        stems.push(s.into());
    }
    if let Some(s) = w.strip_suffix("ied") {
        stems.push(format!("{s}y"));
    }
    for suffix in ["ed", "ing", "er"] {
        if let Some(s) = w.strip_suffix(suffix).filter(|s| s.len() >= 2) {
            stems.push(s.into());
            stems.push(format!("{s}e"));
            let b = s.as_bytes();
            if b.len() >= 2 && b[b.len() - 1] == b[b.len() - 2] {
                stems.push(s[..s.len() - 1].into());
            }
        }
    }
    out.extend(stems);
    out
}

/// The share of `concepts` present in `text`.
pub fn coverage(concepts: &[String], text: &str) -> f64 {
    if concepts.is_empty() {
        return 0.0;
    }
    let forms: std::collections::HashSet<String> =
        words(text).iter().flat_map(|w| base_forms(w)).collect();
    let present = concepts
        .iter()
        .filter(|c| forms.contains(&c.to_lowercase()))
        .count();
    present as f64 / concepts.len() as f64
}

/// The concepts of `concepts` missing from `text`.
pub fn missing(concepts: &[String], text: &str) -> Vec<String> {
    let forms: std::collections::HashSet<String> =
        words(text).iter().flat_map(|w| base_forms(w)).collect();
    concepts
        .iter()
        .filter(|c| !forms.contains(&c.to_lowercase()))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflected_forms_count_and_others_do_not() {
        let c: Vec<String> = ["dog", "jump", "party", "run", "bake", "tooth"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let text = "The dogs jumped at parties while running; she baked.";
        assert_eq!(missing(&c, text), vec!["tooth".to_string()]);
        assert!((coverage(&c, text) - 5.0 / 6.0).abs() < 1e-12);
        assert_eq!(coverage(&c, ""), 0.0);
        assert_eq!(coverage(&[], "x"), 0.0);
        // A concept is not found inside another word.
        assert_eq!(
            missing(&["cat".to_string()], "concatenate"),
            vec!["cat".to_string()]
        );
        let t = task(
            &serde_json::json!({"id": "commongen_hard_000", "concepts": ["Vest", "snow"]}),
            0,
        )
        .expect("task");
        assert_eq!(t.gold, Gold::Concepts(vec!["vest".into(), "snow".into()]));
        assert!(task(&serde_json::json!({"concepts": []}), 0).is_err());
    }
}
