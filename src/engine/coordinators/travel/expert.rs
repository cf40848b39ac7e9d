//! An expert's turn: private tool calls against the sandbox (results seen by
//! this expert only, and written to the notebook), then its part posted to
//! the public conversation.

use super::contract::*;
use super::tools::{calls_in, ToolUser};
use super::{prompts, world::World};
use crate::engine::domains::travel::TravelDb;
use crate::engine::model::reply::{Repair, RepairKind};
use crate::engine::model::{ChatRequest, Message};
use crate::engine::run::{Audience, RunCtx, RunError};

/// An expert's turn: who, and what the orchestrator asked of it (nothing
/// in the fixed order).
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    pub expert: &'static str,
    pub instruction: String,
}

impl Turn {
    /// A turn in the fixed order: no instruction.
    pub fn in_order(expert: &'static str) -> Turn {
        Turn {
            expert,
            instruction: String::new(),
        }
    }
}

/// The expert reads G and c, calls its tools as often as it needs (up to
/// the tool-round limit, then it must answer), and posts its part to c.
pub async fn expert_turn(
    ctx: &RunCtx,
    world: &mut World,
    db: &TravelDb,
    options: &TravelOptions,
    turn: Turn,
) -> Result<(), RunError> {
    let expert = turn.expert;
    world.expert_turn_starts(expert);
    let user = ToolUser {
        agent: expert,
        allowed: expert_tools(expert),
        mode: options.tool_mode,
    };
    let p = world.prompts.clone();
    let mut messages = world.messages(
        prompts::expert_system(&p, expert, options.tool_mode)?,
        &world.goal_block(),
        &prompts::expert_turn(&p, &turn.instruction)?,
    );
    for round in 0..=options.max_tool_rounds {
        let last = round == options.max_tool_rounds;
        if last {
            messages.push(Message::user(prompts::force_answer(&p)?));
        }
        let req = user.offer(
            ChatRequest::new(messages.clone()).with_step(expert_step(expert)),
            !last,
        );
        let (call, response) = ctx.chat(expert, req).await?;
        let calls = calls_in(&response, options.tool_mode, call);
        if last && !calls.is_empty() {
            ctx.repaired(
                call,
                &[Repair::new(
                    RepairKind::ToolError,
                    format!(
                        "{} tool call{} after the last tool round {} not run: the answer was posted as it is",
                        calls.len(),
                        if calls.len() == 1 { "" } else { "s" },
                        if calls.len() == 1 { "was" } else { "were" }
                    ),
                )],
            );
        }
        if last || calls.is_empty() {
            let text = response.text.trim().to_string();
            ctx.post(expert, Audience::Public, &text, Some(call));
            world.post(expert, &text);
            return Ok(());
        }
        // The expert's own context grows with its calls and their private results.
        user.answer_calls(ctx, world, db, &mut messages, (call, &response), &calls);
    }
    Ok(())
}
