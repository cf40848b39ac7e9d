//! The judge's reply: whether the agent solves the task alone, from its
//! JSON or else from the last explicit verdict in its text.

use super::fields::{clip, text_field, yes_no};
use super::tokens::{after_separators, tokens, word, Tok};
use crate::engine::coordinators::mael::contract::Judgement;
use crate::engine::model::reply::{read_json, Read, Repair, RepairKind, Unreadable};
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::coordinators::mael::read::rating;
    use crate::engine::coordinators::mael::read::tests::kinds;

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
}
