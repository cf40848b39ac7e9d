//! The decomposer's reply: how its parts relate (`mode`: modules or a
//! pipeline) and the subtasks, each with the neighbour it is given to,
//! from its JSON (`{"mode", "subtasks": [{"task", "agent"}]}`), or with no
//! neighbour named from a list of texts, a bare JSON list, or its list
//! lines (the step then assigns them round robin, flagged; such a reply
//! names no mode: modules).

use crate::engine::coordinators::mael::contract::Split;
use crate::engine::model::reply::{read_json, read_value, Read, Repair, RepairKind, Unreadable};
use serde::Deserialize;
use serde_json::Value;

/// One subtask as the decomposer wrote it.
#[derive(Clone, Debug, PartialEq)]
pub struct Subtask {
    pub text: String,
    /// The neighbour it names (an id or a name, as written), if any.
    pub agent: Option<String>,
}

impl Subtask {
    fn text(text: &str) -> Subtask {
        Subtask {
            text: text.to_string(),
            agent: None,
        }
    }
}

/// Where an object names its subtask's text and its neighbour.
const TEXT_KEYS: [&str; 4] = ["task", "subtask", "description", "text"];
const AGENT_KEYS: [&str; 6] = [
    "agent",
    "assignee",
    "assign_to",
    "to",
    "neighbour",
    "neighbor",
];

/// The decomposer's reply: the subtasks (possibly none).
pub fn subtasks(reply: &str) -> Result<Read<Vec<Subtask>>, Unreadable> {
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
        value: lines.iter().map(|l| Subtask::text(l)).collect(),
        repairs: vec![Repair::new(
            RepairKind::Shape,
            format!("the reply was not a JSON decomposition ({why}); its list lines were read as the subtasks"),
        )],
    })
}

/// The decomposer's reply: its mode and its subtasks. A JSON object that
/// names no mode, or one of neither name, is read as modules (a `Shape`
/// repair); a near name ("sequential", "parallel") is mapped, flagged.
pub fn decomposition(reply: &str) -> Result<Read<(Split, Vec<Subtask>)>, Unreadable> {
    let mut read = subtasks(reply)?;
    let object = read_value(reply)
        .ok()
        .filter(|r| r.value.is_object())
        .map(|r| r.value);
    let mode = match object.as_ref().map(|o| o.get("mode")) {
        // Not an object: its other repairs say how it was read.
        None => Split::Modules,
        Some(given) => {
            let text = given
                .and_then(Value::as_str)
                .map(|m| m.trim().to_lowercase());
            let (mode, exact) = match text.as_deref() {
                Some("modules") => (Split::Modules, true),
                Some("pipeline") => (Split::Pipeline, true),
                Some("module" | "parallel" | "functional" | "independent") => {
                    (Split::Modules, false)
                }
                Some("stages" | "sequential" | "sequence" | "ordered" | "chain") => {
                    (Split::Pipeline, false)
                }
                _ => {
                    read.repairs.push(Repair::new(
                        RepairKind::Shape,
                        match given {
                            None => "the decomposition named no mode; its subtasks were taken as independent modules".to_string(),
                            Some(v) => format!("the decomposition's mode {v} is neither modules nor pipeline; its subtasks were taken as independent modules"),
                        },
                    ));
                    (Split::Modules, true)
                }
            };
            if !exact {
                read.repairs.push(Repair::new(
                    RepairKind::Shape,
                    format!(
                        "the mode {:?} was read as {}",
                        text.unwrap_or_default(),
                        mode.id()
                    ),
                ));
            }
            mode
        }
    };
    Ok(Read {
        value: (mode, read.value),
        repairs: read.repairs,
    })
}

/// The subtasks of a JSON list: strings as they are (no neighbour named),
/// objects by their `task` and `agent` (another text field is a `Shape`
/// repair), other items dropped (a `Shape` repair). None when `v` is not
/// a list.
fn texts_of(v: &Value, repairs: &mut Vec<Repair>) -> Option<Vec<Subtask>> {
    let items = v.as_array()?;
    let mut out = Vec::new();
    let (mut mapped, mut dropped) = (false, false);
    for item in items {
        match item {
            Value::String(s) => out.push(Subtask::text(s)),
            Value::Object(o) => {
                let field = |keys: &[&'static str]| {
                    keys.iter()
                        .find_map(|k| o.get(*k).and_then(Value::as_str).map(|v| (*k, v)))
                };
                let agent = field(&AGENT_KEYS);
                let text = field(&TEXT_KEYS).map(|(_, t)| t).or_else(|| {
                    // Another text field, not the neighbour's.
                    mapped = true;
                    o.iter()
                        .filter(|(k, _)| agent.is_none_or(|(a, _)| a != k.as_str()))
                        .find_map(|(_, v)| v.as_str())
                });
                match text {
                    Some(t) => out.push(Subtask {
                        text: t.to_string(),
                        agent: agent.map(|(_, a)| a.trim().to_string()),
                    }),
                    None => dropped = true,
                }
            }
            _ => dropped = true,
        }
    }
    if mapped {
        repairs.push(Repair::new(
            RepairKind::Shape,
            "subtasks given as objects without a \"task\" were read by another text field",
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
        let texts = |r: &Read<Vec<Subtask>>| -> Vec<String> {
            r.value.iter().map(|s| s.text.clone()).collect()
        };
        let agents = |r: &Read<Vec<Subtask>>| -> Vec<Option<String>> {
            r.value.iter().map(|s| s.agent.clone()).collect()
        };
        let asked = subtasks(
            r#"{"subtasks": [{"task": "a", "agent": "a2"}, {"agent": " Bo ", "task": "b"}]}"#,
        )
        .expect("json");
        assert_eq!(texts(&asked), ["a", "b"]);
        assert_eq!(agents(&asked), [Some("a2".into()), Some("Bo".into())]);
        assert!(!asked.repaired(), "the shape asked for");
        let fenced = subtasks("```json\n{\"subtasks\": [\"a\", \"b\"]}\n```").expect("json");
        assert_eq!(texts(&fenced), ["a", "b"]);
        assert_eq!(agents(&fenced), [None, None]);
        assert_eq!(kinds(&fenced), [RepairKind::Fence]);
        let clean = subtasks(r#"{"subtasks": []}"#).expect("none");
        assert!(clean.value.is_empty() && !clean.repaired());
        let objects = subtasks(r#"{"subtasks": [{"task": "a"}, {"to": "a3", "x": "b"}, 3]}"#)
            .expect("objects");
        assert_eq!(texts(&objects), ["a", "b"], "not the neighbour's id");
        assert_eq!(agents(&objects), [None, Some("a3".into())]);
        assert_eq!(kinds(&objects), [RepairKind::Shape, RepairKind::Shape]);
        let bare = subtasks(r#"["a", "b"]"#).expect("list");
        assert_eq!(texts(&bare), ["a", "b"]);
        assert_eq!(kinds(&bare), [RepairKind::Shape]);
        let lines =
            subtasks("Plan:\n1. cost of pens\n2) cost of mugs\n- tax\n1990 was a year\nthanks")
                .expect("lines");
        assert_eq!(texts(&lines), ["cost of pens", "cost of mugs", "tax"]);
        assert_eq!(kinds(&lines), [RepairKind::Shape]);
        assert!(subtasks("I cannot split this.").is_err());
    }

    #[test]
    fn the_mode_is_read_and_a_missing_one_is_modules_flagged() {
        let mode = |reply: &str| {
            let r = decomposition(reply).expect("read");
            (r.value.0, kinds(&r))
        };
        let one = r#""subtasks": [{"task": "a", "agent": "a2"}]"#;
        assert_eq!(
            mode(&format!(r#"{{"mode": "pipeline", {one}}}"#)),
            (Split::Pipeline, vec![])
        );
        assert_eq!(
            mode(&format!(r#"{{"mode": "modules", {one}}}"#)),
            (Split::Modules, vec![])
        );
        assert_eq!(
            mode(&format!(r#"{{"mode": " Sequential", {one}}}"#)),
            (Split::Pipeline, vec![RepairKind::Shape])
        );
        assert_eq!(
            mode(&format!("{{{one}}}")),
            (Split::Modules, vec![RepairKind::Shape])
        );
        assert_eq!(
            mode(&format!(r#"{{"mode": 3, {one}}}"#)),
            (Split::Modules, vec![RepairKind::Shape])
        );
        // A list says nothing of a mode: its own repair says how it was read.
        assert_eq!(
            mode(r#"["a", "b"]"#),
            (Split::Modules, vec![RepairKind::Shape])
        );
        assert!(decomposition("no list").is_err());
    }
}
