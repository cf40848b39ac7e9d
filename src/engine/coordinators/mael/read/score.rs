//! The evaluator's reply: a 0–10 score (from its JSON, else the last
//! explicit score in its text, never from a cut-off JSON) scaled to
//! [0, 1], and its reason. A fraction strictly between 0 and 1 given with
//! no scale is a 0–1 score (0.8 is 8 of 10, not 0.08), flagged.

use super::fields::{clip, text_field};
use super::tokens::{after_separators, tokens, Tok};
use crate::engine::model::reply::{read_json, Read, Repair, RepairKind, Unreadable};
use serde::Deserialize;
use serde_json::Value;

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
            // (score, whether "of 10" was said with it)
            let raw = match &read.value.score {
                Value::Number(n) => n.as_f64().filter(|x| x.is_finite()).map(|x| (x, false)),
                Value::String(s) => {
                    let found = s
                        .trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite())
                        .map(|x| (x, false))
                        .or_else(|| explicit_score(&tokens(s)).map(|(x, _, ten)| (x, ten)));
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
                Some((raw, _)) if closed && ends_in_number(reply, raw) => {
                    return Err(Unreadable(format!(
                        "the reply was cut off right after its score {raw}, which may be the start of a longer number"
                    )))
                }
                Some((raw, ten)) => {
                    let reason = text_field(&read.value.reason, "reason", &mut repairs);
                    return Ok(Read {
                        value: (scaled(raw, ten, &mut repairs), reason),
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
        Some((raw, said, ten)) => {
            let mut repairs = vec![Repair::new(
                RepairKind::Shape,
                format!(
                    "the reply was not a JSON rating ({why}); its last explicit score, \"{said}\", was read"
                ),
            )];
            Ok(Read {
                value: (scaled(raw, ten, &mut repairs), String::new()),
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

/// A 0–10 score as [0, 1]; outside 0–10 it is clamped (and flagged). A
/// fraction strictly between 0 and 1 said without "of 10" is a 0–1 score
/// (and flagged).
fn scaled(raw: f64, of_ten: bool, repairs: &mut Vec<Repair>) -> f64 {
    if !of_ten && raw > 0.0 && raw < 1.0 {
        repairs.push(Repair::new(
            RepairKind::Shape,
            format!(
                "the score {raw} is on a 0–1 scale: read as {} of 10",
                (raw * 100.0).round() / 10.0
            ),
        ));
        return raw;
    }
    let clamped = raw.clamp(0.0, 10.0);
    if clamped != raw {
        repairs.push(Repair::new(
            RepairKind::Clamped,
            format!("the score {raw} is outside 0–10; {clamped} was used"),
        ));
    }
    clamped / 10.0
}

/// The last explicit score of a rating's text: (score on 0–10, what was
/// said, whether "of 10" was said with it). Forms: `score: 7`, `score of 7`, `rating 7`, `rated 7`, `7/10`,
/// `7 out of 10` (a labelled number followed by another scale is not
/// one).
fn explicit_score(toks: &[Tok]) -> Option<(f64, String, bool)> {
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
    let mut last: Option<(usize, f64, String, bool)> = None;
    for (i, t) in toks.iter().enumerate() {
        let found = match t {
            Tok::Word(label)
                if matches!(label.as_str(), "score" | "rating" | "rated" | "grade") =>
            {
                let j = after_separators(toks, i + 1);
                match toks.get(j) {
                    Some(Tok::Num(x)) if scale(j) != Some(false) => {
                        Some((j, *x, format!("{label} {x}"), scale(j) == Some(true)))
                    }
                    _ => None,
                }
            }
            Tok::Num(x) if scale(i) == Some(true) => Some((i, *x, format!("{x}/10"), true)),
            _ => None,
        };
        if let Some(f) = found {
            if last.as_ref().is_none_or(|l| f.0 > l.0) {
                last = Some(f);
            }
        }
    }
    last.map(|(_, x, said, ten)| (x, said, ten))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::coordinators::mael::read::tests::kinds;

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
        // A 0–1 score is read as one and flagged (it went into the pool
        // as 0.08, unflagged); "0.8/10" says its scale, and whole 0 and 1
        // are on 0–10.
        assert_eq!(read(r#"{"score": 0.8}"#), Ok((0.8, shape.clone())));
        assert_eq!(
            read(r#"{"score": "0.8"}"#),
            Ok((0.8, vec![RepairKind::Shape, RepairKind::Shape]))
        );
        assert_eq!(
            read("score: 0.8"),
            Ok((0.8, vec![RepairKind::Shape, RepairKind::Shape]))
        );
        assert_eq!(read("score: 0.8/10").map(|r| r.0), Ok(0.08));
        assert_eq!(read(r#"{"score": 1}"#), Ok((0.1, Vec::new())));
        assert_eq!(read(r#"{"score": 0}"#), Ok((0.0, Vec::new())));
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
}
