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
            prompts::single(step, &act.task),
            Audience::Public,
        )
        .await?;
    let mut out = final_answer(&first);
    if act.variant == Variant::SelfRefine {
        let feedback = act
            .say(
                WRITER,
                STEP_SELF_FEEDBACK,
                prompts::self_feedback(&act.task, &out),
                Audience::Public,
            )
            .await?;
        out = act
            .say(
                WRITER,
                STEP_SELF_REFINE,
                prompts::self_refine(&act.task, &out, &feedback),
                Audience::Public,
            )
            .await?;
    }
    Ok(out)
}

/// The text after the last "Final answer:" (chain of thought, SPP), else all.
pub fn final_answer(reply: &str) -> String {
    let lower = reply.to_ascii_lowercase();
    match lower.rfind("final answer:") {
        Some(i) => reply[i + "final answer:".len()..].trim().to_string(),
        None => reply.trim().to_string(),
    }
}
