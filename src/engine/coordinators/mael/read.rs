//! Reading MAEL's replies (judge, decompose, critique, evaluate) with the
//! engine's one lenient JSON reader, [`read_json`]: every repair it needed
//! is returned with the value, and every mapping done here is one more
//! ([`RepairKind::Shape`], [`RepairKind::Clamped`]). A reply that holds no
//! answer is [`Unreadable`]: the step decides what to do (`steps`,
//! `rewards`), never this file.
//!
//! - A yes/no field (`solvable`, `adequate`) is a JSON boolean; the texts
//!   "true"/"false"/"yes"/"no" (any case) are mapped with a `Shape`
//!   repair; anything else is unreadable (never read as a yes).
//! - A judgement with no readable JSON may be read from an explicit
//!   verdict in its text (`solvable: no`, `verdict: split`, or a reply
//!   that is only "yes" / "no"), whole words only, the last one given.
//! - A decomposition may be a bare JSON list, or a list of objects, or
//!   the reply's list lines (`- …`, `1. …`).
//! - A score may be read from its text only in an explicit form ("score:
//!   7", "rating 7", "7/10", "7 out of 10"), the last one given; a number
//!   outside 0–10 is clamped.

use super::contract::{Critique, Judgement};
use crate::engine::model::reply::{read_json, read_value, Read, Repair, RepairKind, Unreadable};
use serde::Deserialize;
use serde_json::Value;

/// The judge's reply: whether the agent solves the task alone.
pub fn judgement(reply: &str) -> Result<Read<Judgement>, Unreadable> {
    #[derive(Deserialize)]
    struct Loose {
        solvable: Value,
        #[serde(default)]
        reason: Value,
    }
    let why = match read_json::<Loose>(reply) {
        Ok(read) => {
            let mut repairs = read.repairs;
            match yes_no(&read.value.solvable, "solvable", &mut repairs) {
                Ok(solvable) => {
                    let reason = text_field(&read.value.reason, "reason", &mut repairs);
                    return Ok(Read {
                        value: Judgement { solvable, reason },
                        repairs,
                    });
                }
                Err(why) => why,
            }
        }
        Err(e) => e.0,
    };
    match verdict(&tokens(reply)) {
        Some((solvable, said)) => Ok(Read {
            value: Judgement {
                solvable,
                reason: clip(reply.trim(), 200),
            },
            repairs: vec![Repair::new(
                RepairKind::Shape,
                format!(
                    "the reply was not a JSON judgement ({why}); its last explicit verdict, \"{said}\", was read: {}",
                    if solvable { "solvable alone" } else { "to be split" }
                ),
            )],
        }),
        None => Err(Unreadable(format!(
            "{why}, and the text gives no explicit verdict"
        ))),
    }
}

/// The decomposer's reply: the subtasks (possibly none).
pub fn subtasks(reply: &str) -> Result<Read<Vec<String>>, Unreadable> {
    #[derive(Deserialize)]
    struct Loose {
        subtasks: Value,
    }
    let mut why = match read_json::<Loose>(reply) {
        Ok(read) => {
            let mut repairs = read.repairs;
            match texts_of(&read.value.subtasks, &mut repairs) {
                Some(list) => {
                    return Ok(Read {
                        value: list,
                        repairs,
                    })
                }
                None => "\"subtasks\" is not a list".to_string(),
            }
        }
        Err(e) => e.0,
    };
    if let Ok(read) = read_value(reply) {
        if read.value.is_array() {
            let mut repairs = read.repairs;
            if let Some(list) = texts_of(&read.value, &mut repairs) {
                if !list.is_empty() {
                    repairs.push(Repair::new(
                        RepairKind::Shape,
                        "the reply was a bare JSON list; it was read as the subtasks",
                    ));
                    return Ok(Read {
                        value: list,
                        repairs,
                    });
                }
            }
            why = "the reply's JSON list holds no subtask".into();
        }
    }
    let lines = list_lines(reply);
    if lines.is_empty() {
        return Err(Unreadable(format!("{why}, and the text has no list lines")));
    }
    Ok(Read {
        value: lines,
        repairs: vec![Repair::new(
            RepairKind::Shape,
            format!("the reply was not a JSON decomposition ({why}); its list lines were read as the subtasks"),
        )],
    })
}

/// The critic's reply: adequate or not, and the feedback.
pub fn critique(reply: &str) -> Result<Read<Critique>, Unreadable> {
    #[derive(Deserialize)]
    struct Loose {
        adequate: Value,
        #[serde(default)]
        feedback: Value,
    }
    let read = read_json::<Loose>(reply)?;
    let mut repairs = read.repairs;
    let adequate = yes_no(&read.value.adequate, "adequate", &mut repairs).map_err(Unreadable)?;
    let feedback = text_field(&read.value.feedback, "feedback", &mut repairs);
    Ok(Read {
        value: Critique { adequate, feedback },
        repairs,
    })
}

/// The evaluator's reply: its score mapped from 0–10 to [0, 1], and its
/// reason.
pub fn rating(reply: &str) -> Result<Read<(f64, String)>, Unreadable> {
    #[derive(Deserialize)]
    struct Loose {
        score: Value,
        #[serde(default)]
        reason: Value,
    }
    let why = match read_json::<Loose>(reply) {
        Ok(read) => {
            let mut repairs = read.repairs;
            let raw = match &read.value.score {
                Value::Number(n) => n.as_f64().filter(|x| x.is_finite()),
                Value::String(s) => {
                    let found = s
                        .trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite())
                        .or_else(|| explicit_score(&tokens(s)).map(|(x, _)| x));
                    if found.is_some() {
                        repairs.push(Repair::new(
                            RepairKind::Shape,
                            format!(
                                "\"score\" was the text \"{}\"; its number was read",
                                clip(s, 40)
                            ),
                        ));
                    }
                    found
                }
                _ => None,
            };
            let closed = repairs.iter().any(|r| r.kind == RepairKind::Closed);
            match raw {
                Some(raw) if closed && ends_in_number(reply, raw) => {
                    return Err(Unreadable(format!(
                        "the reply was cut off right after its score {raw}, which may be the start of a longer number"
                    )))
                }
                Some(raw) => {
                    let reason = text_field(&read.value.reason, "reason", &mut repairs);
                    return Ok(Read {
                        value: (scaled(raw, &mut repairs), reason),
                        repairs,
                    });
                }
                None if closed => {
                    return Err(Unreadable(format!(
                        "the reply was cut off and its \"score\" is {}, not a number",
                        clip(&read.value.score.to_string(), 40)
                    )))
                }
                None => format!(
                    "\"score\" is {}, not a number",
                    clip(&read.value.score.to_string(), 40)
                ),
            }
        }
        Err(e) => e.0,
    };
    // A JSON rating cut off before its score was read is not rescued from
    // its text: the text's last score would be the cut JSON's own number
    // (`{"score": 1` of `10`).
    if cut_in_json(reply) {
        return Err(Unreadable(format!(
            "{why}; the reply's JSON was cut off, so no score in its text is taken"
        )));
    }
    match explicit_score(&tokens(reply)) {
        Some((raw, said)) => {
            let mut repairs = vec![Repair::new(
                RepairKind::Shape,
                format!(
                    "the reply was not a JSON rating ({why}); its last explicit score, \"{said}\", was read"
                ),
            )];
            Ok(Read {
                value: (scaled(raw, &mut repairs), String::new()),
                repairs,
            })
        }
        None => Err(Unreadable(format!(
            "{why}, and the text gives no explicit score"
        ))),
    }
}

/// Whether the reply ends inside a JSON object: from its first `{`, a
/// bracket or a string is still open at the end (the reply was cut off).
fn cut_in_json(reply: &str) -> bool {
    let Some(start) = reply.find('{') else {
        return false;
    };
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    // `start` is the offset `find` gave in this same text: a char boundary.
    for c in reply.get(start..).unwrap_or("").chars() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    in_string || depth > 0
}

/// Whether the reply's last token is the number `x` (a cut-off reply that
/// ends in its score may have lost the score's end).
fn ends_in_number(reply: &str, x: f64) -> bool {
    matches!(tokens(reply).last(), Some(Tok::Num(n)) if *n == x)
}

/// A 0–10 score as [0, 1]; outside 0–10 it is clamped (and flagged).
fn scaled(raw: f64, repairs: &mut Vec<Repair>) -> f64 {
    let clamped = raw.clamp(0.0, 10.0);
    if clamped != raw {
        repairs.push(Repair::new(
            RepairKind::Clamped,
            format!("the score {raw} is outside 0–10; {clamped} was used"),
        ));
    }
    clamped / 10.0
}

/// A yes/no field: a boolean, or one of the texts true/false/yes/no
/// (mapped, with a `Shape` repair). Else why it cannot be read.
fn yes_no(v: &Value, name: &str, repairs: &mut Vec<Repair>) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::String(s) => {
            let b = match s.trim().to_lowercase().as_str() {
                "true" | "yes" => true,
                "false" | "no" => false,
                _ => {
                    return Err(format!(
                        "\"{name}\" is \"{}\", not true or false",
                        clip(s, 40)
                    ))
                }
            };
            repairs.push(Repair::new(
                RepairKind::Shape,
                format!(
                    "\"{name}\" was the text \"{}\"; it was read as {b}",
                    s.trim()
                ),
            ));
            Ok(b)
        }
        Value::Null => Err(format!("the JSON object has no \"{name}\"")),
        other => Err(format!(
            "\"{name}\" is {}, not true or false",
            clip(&other.to_string(), 40)
        )),
    }
}

/// A free-text field: a string as is, absent as empty; another value as
/// its JSON text (a list of strings as lines), with a `Shape` repair.
fn text_field(v: &Value, name: &str, repairs: &mut Vec<Repair>) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(items) if items.iter().all(Value::is_string) => {
            repairs.push(Repair::new(
                RepairKind::Shape,
                format!("\"{name}\" was a list; its items were joined as lines"),
            ));
            items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n")
        }
        other => {
            repairs.push(Repair::new(
                RepairKind::Shape,
                format!("\"{name}\" was not text; its JSON was kept as text"),
            ));
            other.to_string()
        }
    }
}

/// The texts of a JSON list of subtasks: strings as they are, objects by
/// their first text field (a `Shape` repair), other items dropped (a
/// `Shape` repair). None when `v` is not a list.
fn texts_of(v: &Value, repairs: &mut Vec<Repair>) -> Option<Vec<String>> {
    let items = v.as_array()?;
    let mut out = Vec::new();
    let (mut mapped, mut dropped) = (false, false);
    for item in items {
        match item {
            Value::String(s) => out.push(s.clone()),
            Value::Object(o) => {
                let named = ["task", "subtask", "description", "text"]
                    .iter()
                    .find_map(|k| o.get(*k).and_then(Value::as_str));
                match named.or_else(|| o.values().find_map(Value::as_str)) {
                    Some(s) => {
                        out.push(s.to_string());
                        mapped = true;
                    }
                    None => dropped = true,
                }
            }
            _ => dropped = true,
        }
    }
    if mapped {
        repairs.push(Repair::new(
            RepairKind::Shape,
            "subtasks given as objects were read by their text",
        ));
    }
    if dropped {
        repairs.push(Repair::new(
            RepairKind::Shape,
            "subtasks that were not text were dropped",
        ));
    }
    Some(out)
}

/// The list lines of a reply (`- a`, `* a`, `• a`, `1. a`, `2) a`).
fn list_lines(reply: &str) -> Vec<String> {
    reply
        .lines()
        .map(str::trim)
        .filter_map(|l| {
            let item = l
                .strip_prefix("- ")
                .or_else(|| l.strip_prefix("* "))
                .or_else(|| l.strip_prefix("• "))
                .or_else(|| {
                    let digits = l.chars().take_while(char::is_ascii_digit).count();
                    let rest = l.get(digits..)?;
                    let rest = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')'))?;
                    (digits > 0 && rest.starts_with(' ')).then_some(rest)
                })?
                .trim();
            (!item.is_empty()).then(|| item.to_string())
        })
        .collect()
}

/// At most `max` chars of `s` (cut at a char, with "…").
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max).collect();
    format!("{cut}…")
}

/// A reply's words (lowercase letters), numbers and other characters,
/// without white space: what the text fallbacks match on, whole words.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Num(f64),
    Punct(char),
}

fn tokens(text: &str) -> Vec<Tok> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts_number = c.is_ascii_digit()
            || (c == '-'
                && chars.get(i + 1).is_some_and(char::is_ascii_digit)
                && (i == 0 || !chars[i - 1].is_alphanumeric()));
        if c.is_whitespace() {
            i += 1;
        } else if starts_number {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let number: String = chars[start..i].iter().collect();
            match number.parse::<f64>() {
                Ok(x) if x.is_finite() => out.push(Tok::Num(x)),
                _ => out.push(Tok::Punct('#')),
            }
        } else if c.is_alphabetic() {
            let mut word = String::new();
            while i < chars.len() && chars[i].is_alphabetic() {
                word.extend(chars[i].to_lowercase());
                i += 1;
            }
            out.push(Tok::Word(word));
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// Separators between a label and its value: `solvable: no`,
/// `"score" = 7`, `**Verdict** - split`, `score is 7`, `score of 7`.
fn separator(t: &Tok) -> bool {
    match t {
        Tok::Punct(c) => matches!(
            c,
            ':' | '=' | '"' | '\'' | '*' | '-' | '`' | '“' | '”' | '‘' | '’' | '_'
        ),
        Tok::Word(w) => matches!(w.as_str(), "is" | "of" | "was" | "at"),
        Tok::Num(_) => false,
    }
}

/// The index of the first token after `from` that is not a separator.
fn after_separators(toks: &[Tok], from: usize) -> usize {
    let mut j = from;
    while toks.get(j).is_some_and(separator) {
        j += 1;
    }
    j
}

fn word(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Word(w)) => Some(w.as_str()),
        _ => None,
    }
}

/// The last explicit verdict of a judgement's text: (solvable, what was
/// said). Forms: `solvable: yes|no|true|false`; `verdict:` or
/// `decision:` followed by one of those or by solve / alone / split /
/// decompose; a reply that is only yes / no / true / false.
fn verdict(toks: &[Tok]) -> Option<(bool, String)> {
    let yes_no = |w: &str| match w {
        "true" | "yes" => Some(true),
        "false" | "no" => Some(false),
        _ => None,
    };
    let words: Vec<&str> = toks.iter().filter_map(|t| word(Some(t))).collect();
    if words.len() == 1 && toks.iter().all(|t| !matches!(t, Tok::Num(_))) {
        if let Some(b) = yes_no(words[0]) {
            return Some((b, words[0].to_string()));
        }
    }
    let mut last = None;
    for (i, t) in toks.iter().enumerate() {
        let Tok::Word(label) = t else { continue };
        // The label first: skipping separators after every word made a
        // reply of "is is is …" quadratic. A label is no separator, so
        // each separator is skipped after one label at most: linear.
        if !matches!(label.as_str(), "solvable" | "verdict" | "decision") {
            continue;
        }
        let j = after_separators(toks, i + 1);
        let Some(value) = word(toks.get(j)) else {
            continue;
        };
        let read = match label.as_str() {
            "solvable" => yes_no(value),
            "verdict" | "decision" => yes_no(value).or(match value {
                "solve" | "solvable" | "alone" => Some(true),
                "split" | "decompose" | "unsolvable" => Some(false),
                _ => None,
            }),
            _ => None,
        };
        if let Some(b) = read {
            last = Some((b, format!("{label}: {value}")));
        }
    }
    last
}

/// The last explicit score of a rating's text: (score on 0–10, what was
/// said). Forms: `score: 7`, `score of 7`, `rating 7`, `rated 7`, `7/10`,
/// `7 out of 10` (a labelled number followed by another scale is not
/// one).
fn explicit_score(toks: &[Tok]) -> Option<(f64, String)> {
    // The scale after the number at `j`: Some(true) out of 10,
    // Some(false) another scale, None none given.
    let scale = |j: usize| -> Option<bool> {
        match (toks.get(j + 1), toks.get(j + 2), toks.get(j + 3)) {
            (Some(Tok::Punct('/')), Some(Tok::Num(d)), _) => Some(*d == 10.0),
            (Some(Tok::Word(out)), Some(Tok::Word(of)), Some(Tok::Num(d)))
                if out == "out" && of == "of" =>
            {
                Some(*d == 10.0)
            }
            _ => None,
        }
    };
    let mut last: Option<(usize, f64, String)> = None;
    for (i, t) in toks.iter().enumerate() {
        let found = match t {
            Tok::Word(label)
                if matches!(label.as_str(), "score" | "rating" | "rated" | "grade") =>
            {
                let j = after_separators(toks, i + 1);
                match toks.get(j) {
                    Some(Tok::Num(x)) if scale(j) != Some(false) => {
                        Some((j, *x, format!("{label} {x}")))
                    }
                    _ => None,
                }
            }
            Tok::Num(x) if scale(i) == Some(true) => Some((i, *x, format!("{x}/10"))),
            _ => None,
        };
        if let Some(f) = found {
            if last.as_ref().is_none_or(|l| f.0 > l.0) {
                last = Some(f);
            }
        }
    }
    last.map(|(_, x, said)| (x, said))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds<T>(r: &Read<T>) -> Vec<RepairKind> {
        r.repairs.iter().map(|r| r.kind.clone()).collect()
    }

    #[test]
    fn yes_no_fields_take_booleans_and_the_four_words_else_nothing() {
        let c = critique(r#"{"adequate": true, "feedback": ""}"#).expect("clean");
        assert!(c.value.adequate && !c.repaired());
        // The old reader took {"adequate": "false"} as adequate.
        for (text, want) in [
            ("false", false),
            ("FALSE", false),
            ("No", false),
            ("true", true),
            (" yes ", true),
        ] {
            let c = critique(&format!(r#"{{"adequate": "{text}", "feedback": "x"}}"#))
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(c.value.adequate, want, "{text}");
            assert_eq!(kinds(&c), [RepairKind::Shape], "{text}");
        }
        for bad in [
            r#"{"adequate": "maybe"}"#,
            r#"{"adequate": 1}"#,
            r#"{"adequate": null}"#,
            r#"{"feedback": "fine"}"#,
            "Looks adequate to me.",
            "",
        ] {
            assert!(critique(bad).is_err(), "{bad}");
        }
        let j = judgement(r#"{"solvable": "No", "reason": "three lines"}"#).expect("mapped");
        assert!(!j.value.solvable);
        assert_eq!(kinds(&j), [RepairKind::Shape]);
    }

    #[test]
    fn a_judgement_without_json_is_read_from_its_last_explicit_verdict_only() {
        let read = |s: &str| judgement(s).map(|r| (r.value.solvable, kinds(&r)));
        let shape = vec![RepairKind::Shape];
        // The old fallback read "No." as solvable and any "false" as split.
        assert_eq!(read("No."), Ok((false, shape.clone())));
        assert_eq!(read("yes"), Ok((true, shape.clone())));
        assert_eq!(
            read("Solvable: yes. No false assumptions are needed."),
            Ok((true, shape.clone()))
        );
        assert_eq!(
            read("solvable: true ... on reflection, solvable: false"),
            Ok((false, shape.clone()))
        );
        assert_eq!(read("**Verdict**: split"), Ok((false, shape.clone())));
        // No explicit verdict: unreadable (words inside others never count).
        for s in [
            "hmm, I would decompose this",
            "I know it is not falsifiable",
            "no idea, honestly",
            "",
        ] {
            assert!(read(s).is_err(), "{s}");
        }
        let clean = judgement(r#"{"solvable": false, "reason": "r"}"#).expect("json");
        assert!(!clean.value.solvable && !clean.repaired());
    }

    #[test]
    fn a_score_without_json_is_read_from_its_last_explicit_form_only() {
        let read = |s: &str| rating(s).map(|r| (r.value.0, kinds(&r)));
        let shape = vec![RepairKind::Shape];
        assert_eq!(
            read(r#"{"score": 7, "reason": "ok"}"#),
            Ok((0.7, Vec::new()))
        );
        // The old fallback took the first number: "step 3 … 9/10" was 0.3.
        assert_eq!(
            read("In step 3 the total is right … 9/10"),
            Ok((0.9, shape.clone()))
        );
        assert_eq!(read("Score: 9/10."), Ok((0.9, shape.clone())));
        assert_eq!(read("I rate it 6 out of 10"), Ok((0.6, shape.clone())));
        assert_eq!(read("score: 4, then rating = 8"), Ok((0.8, shape.clone())));
        assert_eq!(
            read("score: 12"),
            Ok((1.0, vec![RepairKind::Shape, RepairKind::Clamped]))
        );
        assert_eq!(
            read(r#"{"score": -2}"#),
            Ok((0.0, vec![RepairKind::Clamped]))
        );
        assert_eq!(read(r#"{"score": "7/10"}"#), Ok((0.7, shape.clone())));
        for s in [
            "I'd say 12",
            "great",
            "step 3 of 5",
            "score: 4/5",
            r#"{"score": "high"}"#,
            "",
        ] {
            assert!(read(s).is_err(), "{s}");
        }
    }

    #[test]
    fn a_rating_cut_off_at_or_before_its_score_is_not_read() {
        // `{"score": 1` may be 10 cut short. The shared reader drops a
        // number the cut touches; the text fallback then read "score 1"
        // from the same cut JSON, and the solution was rated 0.1.
        for cut in [
            r#"{"score": 1"#,
            r#"{"score": 7."#,
            r#"{"reason": "fine", "score": 1"#,
            r#"Here it is: {"score": 1"#,
            // Cut with an odd score: no score from the text either.
            r#"{"score": "high", "reason": "9/10 is fair"#,
        ] {
            assert!(rating(cut).is_err(), "{cut}");
        }
        // Cut after the score: the score is whole, and read.
        let read = rating(r#"{"score": 7, "reason": "it is 3"#).expect("score before the cut");
        assert_eq!(read.value.0, 0.7);
        assert_eq!(kinds(&read), [RepairKind::Closed]);
        // Prose that ends in its score is no cut JSON.
        assert_eq!(rating("Score: 9").map(|r| r.value.0), Ok(0.9));
        assert_eq!(rating("{} score: 9").map(|r| r.value.0), Ok(0.9));
    }

    #[test]
    fn a_long_run_of_separators_is_read_in_linear_time() {
        // `verdict` skipped the separators after every word before looking
        // at the label: 200 KB of "is is is …" took ~2·10^9 steps, minutes
        // in a debug build. Now only a label's separators are skipped, so
        // this finishes at once (the test has no time bound: it has to
        // finish).
        for sep in ["is ", "of ", "- "] {
            let run = sep.repeat(200_000 / sep.len());
            assert!(judgement(&run).is_err(), "{sep:?}");
            let said = format!("solvable {run}no");
            assert_eq!(
                judgement(&said).map(|r| r.value.solvable),
                Ok(false),
                "{sep:?}"
            );
            let _ = rating(&format!("score {run}"));
        }
    }

    #[test]
    fn subtasks_are_read_from_json_a_list_or_list_lines() {
        let fenced = subtasks("```json\n{\"subtasks\": [\"a\", \"b\"]}\n```").expect("json");
        assert_eq!(fenced.value, ["a", "b"]);
        assert_eq!(kinds(&fenced), [RepairKind::Fence]);
        let clean = subtasks(r#"{"subtasks": []}"#).expect("none");
        assert!(clean.value.is_empty() && !clean.repaired());
        let objects = subtasks(r#"{"subtasks": [{"task": "a"}, {"x": "b"}, 3]}"#).expect("objects");
        assert_eq!(objects.value, ["a", "b"]);
        assert_eq!(kinds(&objects), [RepairKind::Shape, RepairKind::Shape]);
        let bare = subtasks(r#"["a", "b"]"#).expect("list");
        assert_eq!(bare.value, ["a", "b"]);
        assert_eq!(kinds(&bare), [RepairKind::Shape]);
        let lines =
            subtasks("Plan:\n1. cost of pens\n2) cost of mugs\n- tax\n1990 was a year\nthanks")
                .expect("lines");
        assert_eq!(lines.value, ["cost of pens", "cost of mugs", "tax"]);
        assert_eq!(kinds(&lines), [RepairKind::Shape]);
        assert!(subtasks("I cannot split this.").is_err());
    }

    #[test]
    fn odd_text_never_panics() {
        let long = "é{[\"".repeat(25_000);
        let odd = [
            long.as_str(),
            "ß\u{0130}\u{FB03} score: ９/１０ \u{200D}👩‍👩‍👧 - 5/10",
            "-",
            "1.",
            "99999999999999999999999999999999999999999999/10",
            "{\"score\": 1e400}",
            "{\"adequate\": \"İ\"}",
        ];
        for s in odd {
            let _ = judgement(s);
            let _ = subtasks(s);
            let _ = critique(s);
            let _ = rating(s);
        }
        assert_eq!(
            rating(odd[1]).map(|r| r.value.0),
            Ok(0.5),
            "full-width digits are not a score"
        );
    }
}
