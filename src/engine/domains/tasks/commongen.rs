//! CommonGen-Hard (as Self-Refine uses it): write a short coherent text
//! that uses every concept of a set of 20–30. There is no reference text;
//! the deterministic metric is concept coverage: a concept counts when it
//! is a word of the output or the base form of one. Without spaCy's
//! lemmatizer, base forms come from simple English inflection rules
//! (plural -s / -es / -ies, -ed, -ing, -er, doubled final consonants,
//! a dropped final e), which the app says.
//!
//! Coverage is counted on the reply's final sentences only
//! ([`final_sentences`]), so a reply cannot score by repeating the
//! concept list before its reasoning:
//!
//! 1. If the reply has a marker "Answer:", "Sentence:" or "Sentences:" in
//!    any ASCII case ("Final answer:", "**Final sentences**:"), the text
//!    after the last one is read (nothing, when nothing follows it).
//! 2. Else the last paragraph that holds text (after the last blank line)
//!    is read, once echo lines (3) are dropped.
//! 3. Lines that only echo the concepts are dropped before counting: a
//!    list of two or more items split by `,` `;` `|`, each made of
//!    concepts alone ("dog, frisbee, catch"); any concepts after a label
//!    naming them ("Concepts: dog frisbee", "Keywords used: dog"); a
//!    bullet holding concepts alone ("- dog"). Words joined by spaces
//!    alone are no list ("dog frisbee catch" counts).

use super::{Dataset, Gold, Task};
use crate::engine::model::embed::words;
use serde_json::Value;
use std::collections::HashSet;

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
    let id = super::row_id(v, "commongen", n);
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
            // Compared and cut by characters: two equal last bytes may
            // belong to one character ("丸" is E4 B8 B8).
            let mut rev = s.chars().rev();
            if let (Some(a), Some(b)) = (rev.next(), rev.next()) {
                if a == b {
                    stems.push(s.get(..s.len() - a.len_utf8()).unwrap_or(s).into());
                }
            }
        }
    }
    out.extend(stems);
    out
}

/// Words that, before a `:`, say the line lists the concepts.
const LIST_LABELS: [&str; 5] = ["concept", "keyword", "word", "list", "item"];

/// Whether `line` only echoes concepts (rule 3 of the module docs).
fn is_echo(line: &str, concepts: &HashSet<String>) -> bool {
    let t = line.trim();
    let bare = t.trim_start_matches(|c: char| c.is_ascii_digit() || "-*•+#>.) \t".contains(c));
    let bullet = bare.len() < t.len();
    let (labelled, rest) = match bare.split_once(':') {
        Some((label, rest))
            if words(label).len() <= 4
                && LIST_LABELS.iter().any(|l| label.to_lowercase().contains(l)) =>
        {
            (true, rest)
        }
        _ => (false, bare),
    };
    let items: Vec<Vec<String>> = rest
        .split([',', ';', '|', '\u{3001}', '\u{FF0C}'])
        .map(|item| {
            let mut w = words(item);
            if w.first().is_some_and(|f| f == "and" || f == "or") {
                w.remove(0);
            }
            w
        })
        .filter(|w| !w.is_empty())
        .collect();
    if items.is_empty() {
        // A heading such as "Concepts:" with the list below it.
        return labelled;
    }
    let all_concepts = items
        .iter()
        .flatten()
        .all(|w| base_forms(w).iter().any(|f| concepts.contains(f.as_str())));
    all_concepts && (items.len() >= 2 || labelled || bullet)
}

/// The text after each marker (rule 1), the last first, found in `text`
/// itself (markers are ASCII, so every match starts on a character
/// boundary) and taken with `get`.
fn marker_tails(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    (0..bytes.len()).rev().filter_map(move |i| {
        let before_ok = i == 0
            || text
                .get(..i)
                .and_then(|h| h.chars().next_back())
                .is_none_or(|c| !c.is_alphanumeric());
        if !before_ok {
            return None;
        }
        let rest = text.get(i..)?;
        ["answer", "sentences", "sentence"].iter().find_map(|m| {
            let head = rest.get(..m.len())?;
            if !head.eq_ignore_ascii_case(m) {
                return None;
            }
            let after = rest.get(m.len()..)?.trim_start_matches(['*', '_', ' ']);
            after.strip_prefix(':')
        })
    })
}

/// The lines of `part` that are no echo of the concepts.
fn kept_lines<'a>(part: &'a str, concepts: &HashSet<String>) -> Vec<&'a str> {
    part.lines().filter(|l| !is_echo(l, concepts)).collect()
}

/// The final sentences of a reply, the text its coverage is counted on
/// (see the module docs).
pub fn final_sentences(concepts: &[String], text: &str) -> String {
    let set: HashSet<String> = concepts.iter().map(|c| c.to_lowercase()).collect();
    if let Some(tail) = marker_tails(text).next() {
        return kept_lines(tail, &set).join("\n").trim().to_string();
    }
    let has_text = |lines: &&[&str]| lines.iter().any(|l| l.chars().any(char::is_alphanumeric));
    kept_lines(text, &set)
        .split(|l| l.trim().is_empty())
        .rfind(has_text)
        .map(|p| p.join("\n"))
        .unwrap_or_default()
}

/// The base forms of every word of `text`.
fn forms(text: &str) -> HashSet<String> {
    words(text).iter().flat_map(|w| base_forms(w)).collect()
}

/// The share of `concepts` present in the final sentences of `text`.
pub fn coverage(concepts: &[String], text: &str) -> f64 {
    if concepts.is_empty() {
        return 0.0;
    }
    let forms = forms(&final_sentences(concepts, text));
    let present = concepts
        .iter()
        .filter(|c| forms.contains(&c.to_lowercase()))
        .count();
    present as f64 / concepts.len() as f64
}

/// The concepts of `concepts` missing from the final sentences of `text`
/// (the ones [`coverage`] does not count).
pub fn missing(concepts: &[String], text: &str) -> Vec<String> {
    let forms = forms(&final_sentences(concepts, text));
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

    fn set(c: &[&str]) -> Vec<String> {
        c.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_reply_that_echoes_the_concepts_scores_only_its_final_sentences() {
        // The old metric counted the whole reply: the echoed list scored 1.
        let c = set(&["dog", "frisbee", "catch", "park"]);
        let reply = "Concepts: dog, frisbee, catch, park\n\
                     I need a scene that uses each of them.\n\n\
                     The dog ran.";
        assert_eq!(coverage(&c, reply), 0.25);
        assert_eq!(missing(&c, reply), set(&["frisbee", "catch", "park"]));
        let reply = "dog, frisbee, catch, park\n\
                     Reasoning: the dog should chase something.\n\
                     Final answer: The dog ran in the park.";
        assert_eq!(coverage(&c, reply), 0.5);
        // The echo after the sentence is dropped too, and the paragraph
        // before it is read.
        let reply = "The dog sat.\n\nConcepts used: dog, frisbee, catch, park";
        assert_eq!(coverage(&c, reply), 0.25);
        let reply = "The dog sat.\nKeywords:\n- frisbee\n- catch\n- park";
        assert_eq!(coverage(&c, reply), 0.25);
    }

    #[test]
    fn a_proper_final_sentence_still_scores_full() {
        let c = set(&["dog", "frisbee", "catch", "park"]);
        let good = "The dog catches a frisbee in the park.";
        for reply in [
            good.to_string(),
            format!("Concepts: dog, frisbee, catch, park\n\nFINAL ANSWER: {good}"),
            format!("Concepts: dog, frisbee, catch, park\n{good}"),
            format!("Let me think about a dog.\n\n**Final sentences:**\n{good}"),
            format!("Draft: a dog.\n\n{good}\n"),
            "dog frisbee catch park".to_string(),
        ] {
            assert_eq!(coverage(&c, &reply), 1.0, "{reply:?}");
            assert!(missing(&c, &reply).is_empty(), "{reply:?}");
        }
        // Only the last marker counts, and a marker with nothing after it
        // gives nothing.
        assert_eq!(
            coverage(&c, &format!("Answer: {good}\nAnswer: A dog.")),
            0.25
        );
        assert_eq!(coverage(&c, &format!("{good}\nFinal answer:")), 0.0);
        assert_eq!(
            final_sentences(&c, "Concepts: dog, park\nİ Answer: The dog ran."),
            "The dog ran."
        );
    }

    #[test]
    fn doubled_multibyte_endings_never_panic() {
        // "丸" is E4 B8 B8: its last two bytes are equal, and cutting one
        // byte off used to slice inside the character.
        assert!(base_forms("丸ed").contains(&"丸".to_string()));
        assert_eq!(coverage(&set(&["x"]), "x₂ing 丸ed"), 0.0);
        assert!(base_forms("running").contains(&"run".to_string()));
    }
}
