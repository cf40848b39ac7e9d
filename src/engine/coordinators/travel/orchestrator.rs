//! The orchestrator D: reads only the goal and the public conversation,
//! reflects on what is done, missing and conflicting, and chooses who acts
//! next. It never reads the notebook or tool results and never posts to the
//! conversation; its reflections are recorded for its inspector.

use super::contract::*;
use super::{prompts, world::World};
use crate::engine::model::{ChatRequest, Message};
use crate::engine::run::{RunCtx, RunError, RunEvent};

/// Reads a decision from the model's answer: a JSON object, bare or in a
/// code fence or in prose.
pub fn parse_decision(text: &str) -> Option<Decision> {
    if let Some(v) = first_json_block(text) {
        if let Ok(d) = serde_json::from_value::<Decision>(v) {
            return Some(d);
        }
    }
    if let Ok(d) = serde_json::from_str::<Decision>(text.trim()) {
        return Some(d);
    }
    let (start, end) = (text.find('{')?, text.rfind('}')?);
    (start < end)
        .then(|| serde_json::from_str::<Decision>(&text[start..=end]).ok())
        .flatten()
}

fn valid_next(next: &str) -> Option<&'static str> {
    let n = next.trim().to_ascii_lowercase();
    EXPERTS
        .iter()
        .copied()
        .chain([PLAN])
        .find(|x| n == *x || n.starts_with(x))
}

/// What to do when the answer is unusable: the first expert who has not
/// spoken, or plan.
fn fallback(world: &World) -> &'static str {
    EXPERTS
        .iter()
        .copied()
        .find(|e| !world.spoken.iter().any(|s| s == e))
        .unwrap_or(PLAN)
}

/// One orchestrator step: the request (G and c only), the reflection, the
/// hand-off. Returns the chosen agent (an expert id or `plan`) and its instruction.
pub async fn choose_next_speaker(
    ctx: &RunCtx,
    world: &World,
) -> Result<(&'static str, String), RunError> {
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
    let parsed = parse_decision(&response.text);
    let (next, decision, fallback_note) = match parsed {
        Some(d) => match valid_next(&d.next) {
            Some(n) => (n, d, None),
            None => {
                let f = fallback(world);
                (
                    f,
                    d.clone(),
                    Some(format!("\"{}\" is not an agent; chose {f} instead", d.next)),
                )
            }
        },
        None => {
            let f = fallback(world);
            (
                f,
                Decision {
                    next: f.into(),
                    ..Decision::default()
                },
                Some(format!("the reply was not a JSON decision; chose {f}")),
            )
        }
    };
    let record = Reflection {
        step: world.steps,
        decision: decision.clone(),
        fallback: fallback_note,
    };
    ctx.emit(RunEvent::NoteWritten {
        agent: ORCHESTRATOR.into(),
        store: STORE_REFLECTION.into(),
        key: Some(format!("step {}", world.steps)),
        payload: serde_json::to_value(&record).unwrap_or_default(),
    });
    let target = if next == PLAN { SUMMARIZER } else { next };
    ctx.emit(RunEvent::Handoff {
        from: ORCHESTRATOR.into(),
        to: target.into(),
        reason: decision.instruction.clone(),
    });
    Ok((next, decision.instruction))
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
        assert_eq!(valid_next(" Hotel "), Some(HOTEL));
        assert_eq!(valid_next("pilot"), None);
    }
}
