//! The decomposer's reply: the subtasks, from its JSON, a bare JSON list,
//! or its list lines.

use crate::engine::model::reply::{read_json, read_value, Read, Repair, RepairKind, Unreadable};
use serde::Deserialize;
use serde_json::Value;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::coordinators::mael::read::tests::kinds;

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
}
