//! The one-model baselines of Trivia Creative Writing (Table 7): one writer
//! answers the whole task with a standard prompt, chain of thought,
//! solo-performance prompting (personas it imagines), or self-refine (a
//! draft, its own feedback, a refined version).

use super::contract::*;
use super::prompts;
use super::team::Act;
use crate::engine::run::{Audience, RunError};

pub async fn write(act: &Act<'_>) -> Result<String, RunError> {
    act.ctx.add_agent(WRITER, ROLE_WRITER, "Writer");
    let step = match act.variant {
        Variant::Cot => STEP_COT,
        Variant::Spp => STEP_SPP,
        _ => STEP_STANDARD,
    };
    let first = act
        .say(
            WRITER,
            step,
            prompts::single(&act.prompts, step, &act.task)?,
            Audience::Public,
        )
        .await?
        .text;
    let mut out = final_answer(&first);
    if act.variant == Variant::SelfRefine {
        let feedback = act
            .say(
                WRITER,
                STEP_SELF_FEEDBACK,
                prompts::self_feedback(&act.prompts, &act.task, &out)?,
                Audience::Public,
            )
            .await?
            .text;
        out = act
            .say(
                WRITER,
                STEP_SELF_REFINE,
                prompts::self_refine(&act.prompts, &act.task, &out, &feedback)?,
                Audience::Public,
            )
            .await?
            .text;
    }
    Ok(out)
}

/// The text after the last "Final answer:" (chain of thought, SPP), else all.
pub fn final_answer(reply: &str) -> String {
    const MARK: &str = "final answer:";
    // Positions are found in `reply` itself (ASCII case folded per char).
    let after = reply
        .char_indices()
        .rev()
        .find(|(i, _)| {
            reply
                .get(*i..)
                .and_then(|rest| rest.get(..MARK.len()))
                .is_some_and(|head| head.eq_ignore_ascii_case(MARK))
        })
        .and_then(|(i, _)| reply.get(i + MARK.len()..));
    after.unwrap_or(reply).trim().to_string()
}
