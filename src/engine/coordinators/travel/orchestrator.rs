//! The orchestrator D: reads only the goal and the public conversation,
//! reflects on what is done, missing and conflicting, and chooses who acts
//! next. It never reads the notebook or tool results and never posts to the
//! conversation; its reflections are recorded for its inspector.

use super::contract::*;
use super::expert::Turn;
use super::{prompts, world::World};
use crate::engine::model::reply::json_object;
use crate::engine::model::{ChatRequest, Message};
use crate::engine::run::{RunCtx, RunError};

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
    let mut req = ChatRequest::new(vec![
        Message::system(prompts::ORCHESTRATOR_SYSTEM),
        Message::user(format!(
            "{}\n{}\n{}",
            world.goal_block(),
            world.conversation(),
            prompts::orchestrator_turn()
        )),
    ])
    .with_step(STEP_ORCHESTRATOR);
    req.params.json_mode = true;
    let (_, response) = ctx.chat(ORCHESTRATOR, req).await?;
    let read = read_decision(&response.text, world);
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
}

/// Reads the answer; an unusable one (no JSON decision, or no such agent)
/// falls back to the first expert who has not spoken, or to planning.
fn read_decision(text: &str, world: &World) -> ReadDecision {
    let Some(decision) = parse_decision(text) else {
        let f = fallback(world);
        let id = f.unwrap_or(PLAN);
        return ReadDecision {
            next: f,
            decision: Decision {
                next: id.into(),
                ..Decision::default()
            },
            fallback: Some(format!("the reply was not a JSON decision; chose {id}")),
        };
    };
    match valid_next(&decision.next) {
        Some(next) => ReadDecision {
            next,
            decision,
            fallback: None,
        },
        None => {
            let f = fallback(world);
            let note = format!(
                "\"{}\" is not an agent; chose {} instead",
                decision.next,
                f.unwrap_or(PLAN)
            );
            ReadDecision {
                next: f,
                decision,
                fallback: Some(note),
            }
        }
    }
}

/// Reads a decision from the model's answer: a JSON object, bare or in a
/// code fence or in prose.
pub fn parse_decision(text: &str) -> Option<Decision> {
    json_object::<Decision>(text)
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
