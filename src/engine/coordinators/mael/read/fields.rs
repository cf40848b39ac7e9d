//! The JSON fields the readers share: a yes/no field, a free-text field,
//! and texts clipped for a repair's detail.

use crate::engine::model::reply::{Repair, RepairKind};
use serde_json::Value;

/// A yes/no field: a boolean, or one of the texts true/false/yes/no
/// (mapped, with a `Shape` repair). Else why it cannot be read.
pub(super) fn yes_no(v: &Value, name: &str, repairs: &mut Vec<Repair>) -> Result<bool, String> {
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
pub(super) fn text_field(v: &Value, name: &str, repairs: &mut Vec<Repair>) -> String {
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

/// At most `max` chars of `s` (cut at a char, with "…").
pub(super) fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use crate::engine::coordinators::mael::read::tests::kinds;
    use crate::engine::coordinators::mael::read::{critique, judgement};
    use crate::engine::model::reply::RepairKind;

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
            let c = critique(&format!(r#"{{"adequate": "{text}", "feedback": ""}}"#))
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
}
