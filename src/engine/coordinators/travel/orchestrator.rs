//! The orchestrator D: reads only the goal and the public conversation,
//! reflects on what is done, missing and conflicting, and chooses who acts
//! next. It never reads the notebook or tool results and never posts to the
//! conversation; its reflections are recorded for its inspector.

use super::contract::*;
use super::expert::Turn;
use super::{prompts, world::World};
use crate::engine::model::reply::{echo, read_value, Read, Repair, RepairKind, Unreadable};
use crate::engine::model::shape::ReplySchema;
use crate::engine::model::ChatRequest;
use crate::engine::run::{RunCtx, RunError};
use serde_json::Value;

/// Who acts next, as the orchestrator decides.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    /// An expert's turn (again, for a revisit), with the orchestrator's instruction.
    Expert(Turn),
    /// Every part is there: the summarizer and the compiler write the plan.
    Plan,
}

/// One orchestrator step: ask (G and c only) → read the decision → record
/// the reflection → hand off.
pub async fn choose_next_speaker(ctx: &RunCtx, world: &World) -> Result<Next, RunError> {
    let req = ChatRequest::new(world.messages(
        prompts::orchestrator_system(&world.prompts)?,
        &world.goal_block(),
        &prompts::orchestrator_turn(&world.prompts)?,
    ))
    .with_step(STEP_ORCHESTRATOR)
    .with_schema(decision_schema());
    let (call, response) = ctx.chat(ORCHESTRATOR, req).await?;
    let read = read_decision(&response.text, world);
    ctx.repaired(call, &read.repairs);
    let key = format!("step {}", world.steps);
    let reflection = Reflection {
        step: world.steps,
        decision: read.decision.clone(),
        fallback: read.fallback,
    };
    ctx.note(ORCHESTRATOR, STORE_REFLECTION, Some(&key), &reflection);
    let instruction = read.decision.instruction;
    // Planning starts with the summarizer.
    ctx.handoff(ORCHESTRATOR, read.next.unwrap_or(SUMMARIZER), &instruction);
    Ok(match read.next {
        Some(expert) => Next::Expert(Turn {
            expert,
            instruction,
        }),
        None => Next::Plan,
    })
}

/// A decision as read from the model's answer.
struct ReadDecision {
    /// The expert chosen, or None to plan.
    next: Option<&'static str>,
    decision: Decision,
    /// Set when the answer could not be used as it was, saying what was done.
    fallback: Option<String>,
    /// What reading the answer needed (recorded against its call).
    repairs: Vec<Repair>,
}

/// Reads the answer; an unusable one (no JSON decision, or no such agent)
/// falls back to the first expert who has not spoken, or to planning (a
/// stated default, flagged).
fn read_decision(text: &str, world: &World) -> ReadDecision {
    let read = match read_decision_reply(text) {
        Ok(read) => read,
        Err(why) => {
            let f = fallback(world);
            let id = f.unwrap_or(PLAN);
            let note = format!("the reply was not a JSON decision ({why}); chose {id}");
            return ReadDecision {
                next: f,
                decision: Decision {
                    next: id.into(),
                    ..Decision::default()
                },
                repairs: vec![Repair::new(RepairKind::Default, note.clone())],
                fallback: Some(note),
            };
        }
    };
    let Read {
        value: decision,
        mut repairs,
    } = read;
    match valid_next(&decision.next) {
        Some(next) => {
            let exact = decision.next.trim().to_ascii_lowercase();
            if exact != next.unwrap_or(PLAN) {
                repairs.push(Repair::new(
                    RepairKind::Shape,
                    format!(
                        "\"{}\" was read as {}",
                        echo(&decision.next, ECHO_CHARS),
                        next.unwrap_or(PLAN)
                    ),
                ));
            }
            decision_schema().flag_misfit(text, &mut repairs);
            ReadDecision {
                next,
                decision,
                fallback: None,
                repairs,
            }
        }
        None => {
            let f = fallback(world);
            let note = format!(
                "\"{}\" is not an agent; chose {} instead",
                echo(&decision.next, ECHO_CHARS),
                f.unwrap_or(PLAN)
            );
            repairs.push(Repair::new(RepairKind::Default, note.clone()));
            ReadDecision {
                next: f,
                decision,
                fallback: Some(note),
                repairs,
            }
        }
    }
}

/// The orchestrator's reply shape, made from [`Decision`].
pub fn decision_schema() -> ReplySchema {
    ReplySchema::of::<Decision>(STEP_ORCHESTRATOR)
}

/// The most of the model's text a note repeats (chars).
const ECHO_CHARS: usize = 60;

/// Reads a decision from the model's answer: a JSON object, bare or in a
/// code fence or in prose.
pub fn parse_decision(text: &str) -> Option<Decision> {
    read_decision_reply(text).ok().map(|r| r.value)
}

/// A decision in the model's answer, with what reading it needed: the JSON
/// object with a text `"next"`, also wrapped in a one-key object or as the
/// first item of a list (a [`RepairKind::Shape`] repair); its other fields
/// as text (a list joined, a number written out).
pub fn read_decision_reply(text: &str) -> Result<Read<Decision>, Unreadable> {
    let Read { value, mut repairs } = read_value(text)?;
    let fits = |v: &Value| v.get("next").and_then(Value::as_str).is_some();
    let first_fitting = |v: &Value| -> Option<Value> {
        v.as_array()
            .and_then(|items| items.iter().find(|x| fits(x)).cloned())
    };
    let only = value
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.iter().next());
    let object = if fits(&value) {
        value
    } else if let Some((key, inner)) = only.filter(|(_, inner)| fits(inner)) {
        repairs.push(Repair::new(
            RepairKind::Shape,
            format!(
                "the decision was wrapped in \"{}\": unwrapped",
                echo(key, ECHO_CHARS)
            ),
        ));
        inner.clone()
    } else if let Some(item) =
        first_fitting(&value).or_else(|| only.and_then(|(_, inner)| first_fitting(inner)))
    {
        repairs.push(Repair::new(
            RepairKind::Shape,
            "the decision was in a list: its first decision was taken",
        ));
        item
    } else {
        return Err(Unreadable(
            "the JSON has no \"next\" naming an agent".into(),
        ));
    };
    let mut joined = false;
    let mut field = |key: &str| -> String {
        match object.get(key) {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(Value::Array(items)) => {
                joined = true;
                items
                    .iter()
                    .map(|x| match x {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            }
            Some(other) => {
                joined = true;
                other.to_string()
            }
        }
    };
    let decision = Decision {
        done: field("done"),
        missing: field("missing"),
        conflicts: field("conflicts"),
        next: field("next"),
        instruction: field("instruction"),
    };
    if joined {
        repairs.push(Repair::new(
            RepairKind::Shape,
            "a field of the decision was not text: written as text",
        ));
    }
    Ok(Read {
        value: decision,
        repairs,
    })
}

/// The choice named in `next`: Some(Some(expert)), Some(None) for plan,
/// None for anything else.
fn valid_next(next: &str) -> Option<Option<&'static str>> {
    let n = next.trim().to_ascii_lowercase();
    if n == PLAN || n.starts_with(PLAN) {
        return Some(None);
    }
    EXPERTS
        .iter()
        .copied()
        .find(|x| n == *x || n.starts_with(x))
        .map(Some)
}

/// The first expert who has not spoken, or None (plan).
fn fallback(world: &World) -> Option<&'static str> {
    EXPERTS
        .iter()
        .copied()
        .find(|e| !world.spoken.iter().any(|s| s == e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_are_read_from_json_in_any_wrapping() {
        let d = parse_decision(
            r#"Sure. ```json
{"done": "flights", "missing": "hotel", "conflicts": "", "next": "hotel", "instruction": "find 2 nights"}
```"#,
        );
        assert_eq!(d.map(|d| d.next), Some("hotel".into()));
        assert_eq!(
            parse_decision(r#"{"next": "plan"}"#).map(|d| d.next),
            Some("plan".into())
        );
        assert_eq!(
            parse_decision(r#"I think {"next": "attraction", "done": "x"} is best"#)
                .map(|d| d.next),
            Some("attraction".into())
        );
        assert_eq!(parse_decision("hotel please"), None);
        assert_eq!(valid_next(" Hotel "), Some(Some(HOTEL)));
        assert_eq!(valid_next("plan now"), Some(None));
        assert_eq!(valid_next("pilot"), None);
    }
}
