//! MMLU (Hendrycks et al., 2021), the 100-question sample: a multiple
//! choice question with four options; the metric is the letter. The prompt
//! follows Hendrycks' `evaluate.py` ("The following are multiple choice
//! questions (with answers) about {subject}."), with k dev examples of the
//! same subject before the question.
//!
//! A chat model's letter ([`answer_letter`]) is read from its LAST answer
//! marker, in any ASCII case: "Answer: C", "answer is (C)", "Final answer:
//! C", "**Answer:** C", "the correct option is C", "the best choice would
//! be **B) Paris**", `\boxed{C}`, or a last line that is only the letter
//! ("(C)", "C.", "**C**"). A marker counts when an uppercase A–D stands
//! alone right after it (past spaces, markdown, brackets and a few filler
//! words such as "option" or "clearly"); "the answer is not A" is no
//! marker. Without a marker, only the last non-empty line is read: its
//! leading letter ("C) Paris", "(C) Paris", "C. Paris") or its only
//! standalone letter ("I pick (B)."); an "A" that starts a sentence
//! before a lowercase noun ("A careful look favours D") is the article.
//! Anything else, two different letters included, is unreadable
//! (`None`): the reader never guesses.

use super::{Dataset, Gold, Task};
use serde_json::Value;

pub const LETTERS: [&str; 4] = ["A", "B", "C", "D"];

/// One question with its choices, as the prompt shows it.
fn block(v: &Value) -> Result<String, String> {
    let q = super::str_field(v, "question")?;
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
    let id = super::row_id(v, "mmlu", n);
    Ok(Task {
        dataset: Dataset::Mmlu,
        id,
        prompt,
        gold: Gold::Letter(answer.into()),
    })
}

/// Characters that may stand between a marker and its letter.
fn decoration(c: char) -> bool {
    c.is_whitespace() || "*_([{\"'`$:>=-\u{2014}\u{2013}".contains(c)
}

/// Words that may stand between a marker and its letter ("the answer is
/// clearly option B").
const FILLERS: [&str; 14] = [
    "option",
    "choice",
    "letter",
    "definitely",
    "clearly",
    "certainly",
    "probably",
    "likely",
    "most",
    "therefore",
    "thus",
    "so",
    "\\text{",
    "\\textbf{",
];

/// `s` without a leading `prefix` (ASCII, any case) that ends a word.
fn strip_word<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    let rest = s.get(prefix.len()..)?;
    let ends = prefix.ends_with(|c: char| !c.is_alphanumeric())
        || !rest.starts_with(|c: char| c.is_alphanumeric());
    (head.eq_ignore_ascii_case(prefix) && ends).then_some(rest)
}

/// The letter right after a marker: an uppercase A–D that stands alone,
/// past decoration and at most three filler words.
fn letter_after(rest: &str) -> Option<char> {
    let mut s = rest.trim_start_matches(decoration);
    for _ in 0..3 {
        match FILLERS.iter().find_map(|f| strip_word(s, f)) {
            Some(r) => s = r.trim_start_matches(decoration),
            None => break,
        }
    }
    let mut chars = s.chars();
    let c = chars.next().filter(|c| matches!(c, 'A'..='D'))?;
    chars
        .next()
        .is_none_or(|n| !n.is_alphanumeric())
        .then_some(c)
}

/// The text after a connector ("is", "would be", ":", "=") that follows
/// a marker word, or None when there is none. `heading`: whether the
/// marker word is all its line holds (past markdown and "Final"), so the
/// letter may stand on the next line without a connector (asked last: it
/// reads back to the line start).
fn after_connector(rest: &str, heading: impl FnOnce() -> bool) -> Option<&str> {
    let s = rest.trim_start_matches(['*', '_', ' ']);
    if let Some(r) = s.strip_prefix([':', '=', '-', '\u{2014}', '\u{2013}']) {
        return Some(r);
    }
    let mut s = s;
    let mut linked = false;
    for _ in 0..4 {
        s = s.trim_start_matches([' ', '\t']);
        let words = ["is", "be", "would", "should", "must", "will", "then"];
        match words.iter().find_map(|w| strip_word(s, w).map(|r| (*w, r))) {
            Some((w, r)) => {
                linked |= w == "is" || w == "be";
                s = r;
            }
            None => break,
        }
    }
    if linked {
        return Some(s);
    }
    // A heading: "**Answer**" with the letter on the next line.
    let gap = s.len() - s.trim_start_matches(decoration).len();
    (s.get(..gap)?.contains('\n') && heading()).then_some(s)
}

/// The letter of a marker that starts at byte `i` of `text`.
fn marker_at(text: &str, i: usize) -> Option<char> {
    let rest = text.get(i..)?;
    if let Some(r) = strip_word(rest, "\\boxed{") {
        return letter_after(r);
    }
    let head = text.get(..i)?;
    if head.chars().next_back().is_some_and(char::is_alphanumeric) {
        return None;
    }
    let heading = || {
        let line_head = head
            .rsplit('\n')
            .next()
            .unwrap_or_default()
            .trim_matches(|c: char| decoration(c) || c == '#');
        line_head.is_empty() || line_head.eq_ignore_ascii_case("final")
    };
    ["answer", "option", "choice"]
        .iter()
        .find_map(|w| strip_word(rest, w))
        .and_then(|r| after_connector(r, heading))
        .and_then(letter_after)
}

/// The letter of a line that is only a letter ("(C)", "C.", "**C**").
fn lone_letter(line: &str) -> Option<char> {
    let t = line.trim_matches(|c: char| decoration(c) || ".)]}".contains(c));
    let mut chars = t.chars();
    let c = chars.next().filter(|c| matches!(c, 'A'..='D'))?;
    chars.next().is_none().then_some(c)
}

/// Whether the "A" at `chars[i]` is the article: the first word of its
/// sentence, before a lowercase word that is no verb or conjunction ("A
/// careful look favours D", not "A is right" nor "A or B").
fn is_article(chars: &[char], i: usize) -> bool {
    let starts = chars[..i]
        .iter()
        .rev()
        .find(|c| !c.is_whitespace() && !matches!(c, '*' | '_' | '"' | '\''))
        .is_none_or(|c| matches!(c, '.' | '!' | '?' | ':'));
    let word: String = chars
        .get(i + 2..)
        .unwrap_or_default()
        .iter()
        .take_while(|c| c.is_alphabetic())
        .collect();
    let not_a_noun = [
        "and", "or", "nor", "is", "was", "seems", "looks", "fits", "would", "could", "might",
        "must", "should", "vs", "then", "to",
    ];
    starts
        && chars.get(i + 1) == Some(&' ')
        && word.starts_with(char::is_lowercase)
        && !not_a_noun.contains(&word.as_str())
}

/// The letter of the last line when it holds no marker: its leading
/// letter ("C) Paris"), else its only standalone letter.
fn line_letter(line: &str) -> Option<char> {
    let t = line.trim_start_matches(decoration);
    let mut chars = t.chars();
    if let Some(c) = chars.next().filter(|c| matches!(c, 'A'..='D')) {
        if chars.next().is_none_or(|n| ".):]},".contains(n)) {
            return Some(c);
        }
    }
    let chars: Vec<char> = line.chars().collect();
    let mut found: Option<char> = None;
    for (i, &c) in chars.iter().enumerate() {
        if !matches!(c, 'A'..='D') {
            continue;
        }
        let before = i == 0 || !chars[i - 1].is_alphanumeric();
        let next = chars.get(i + 1).copied();
        let after = next.is_none_or(|n| !n.is_alphanumeric());
        let article = c == 'A' && is_article(&chars, i);
        if !before || !after || article {
            continue;
        }
        match found {
            Some(f) if f != c => return None,
            _ => found = Some(c),
        }
    }
    found
}

/// The letter a reply gives, or None when it gives none (see the module
/// docs).
pub fn answer_letter(text: &str) -> Option<String> {
    let last = text.lines().rev().find(|l| !l.trim().is_empty())?;
    if let Some(c) = lone_letter(last) {
        return Some(c.to_string());
    }
    let found = text
        .char_indices()
        .rev()
        .filter(|(_, c)| matches!(c, 'a' | 'A' | 'o' | 'O' | 'c' | 'C' | '\\'))
        .find_map(|(i, _)| marker_at(text, i))
        .or_else(|| line_letter(last));
    found.map(|c| c.to_string())
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

    fn read(text: &str) -> Option<String> {
        answer_letter(text)
    }

    #[test]
    fn a_final_answer_marker_in_any_case_beats_an_earlier_letter() {
        // The old reader looked for "Answer" in this case only, missed
        // "Final answer:" and fell back to the first letter anywhere (A).
        let reply = "A careful reading of the passage rules out B.\nFinal answer: C";
        assert_eq!(read(reply), Some("C".into()));
        assert_eq!(read("Hmm, A or B?\nFINAL ANSWER: D"), Some("D".into()));
        assert_eq!(read("A first guess.\n**answer:** B"), Some("B".into()));
    }

    #[test]
    fn the_last_marker_wins() {
        // The old reader took the last case-sensitive "Answer" (B here).
        let reply = "Answer: B\nOn reflection, the final answer is C.";
        assert_eq!(read(reply), Some("C".into()));
        assert_eq!(
            read("The answer is A.\nWait, no: the correct option is (D)."),
            Some("D".into())
        );
        // A later marker without a letter does not undo an earlier one.
        assert_eq!(
            read("Final answer: B\nThe answer is not obvious, but B fits best."),
            Some("B".into())
        );
    }

    #[test]
    fn the_usual_marker_forms_are_read() {
        let cases = [
            ("Answer: C", "C"),
            ("answer: c is what I think. So answer is (C)", "C"),
            ("Final answer: C", "C"),
            ("**Answer:** C", "C"),
            ("**Final Answer**: A", "A"),
            ("The correct option is C", "C"),
            ("The best choice would be **B) Paris**.", "B"),
            ("The answer is clearly option B, since A fails.", "B"),
            ("Answer:\n\nD", "D"),
            ("**Answer**\nD. Lyon", "D"),
            ("The final answer is $\\boxed{\\text{A}}$", "A"),
            ("We rule out A and B.\n(C)", "C"),
            (
                "Answer: A\nExplanation: B and D are wrong; C is close.",
                "A",
            ),
        ];
        for (reply, want) in cases {
            assert_eq!(read(reply).as_deref(), Some(want), "{reply:?}");
        }
    }

    #[test]
    fn without_a_marker_only_the_last_line_is_read() {
        // The old reader took the first standalone letter anywhere (A).
        assert_eq!(read("A is tempting, and B too.\nD"), Some("D".into()));
        assert_eq!(read("A looks right at first.\nC) Paris"), Some("C".into()));
        assert_eq!(read("Thinking about A.\n(B) 42"), Some("B".into()));
        assert_eq!(read("So I pick (B)."), Some("B".into()));
        assert_eq!(read("A careful look favours D."), Some("D".into()));
        assert_eq!(read("Not B.\nA is right."), Some("A".into()));
    }

    #[test]
    fn an_unreadable_reply_is_none_not_a_guess() {
        // The old reader read A here.
        assert_eq!(read("Both A and B look plausible; I cannot decide."), None);
        assert_eq!(read("A is right.\nI am not sure, though."), None);
        assert_eq!(read("A or B, hard to say."), None);
        assert_eq!(read("The answer is not obvious."), None);
        assert_eq!(read("answer: c"), None, "letters are uppercase");
        assert_eq!(read(""), None);
        assert_eq!(read("İİ answer: Éclair"), None);
    }
}
