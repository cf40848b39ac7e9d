//! The single-agent baseline (TravelPlanner's ReAct agent): one agent with
//! all six tools gathers information step by step in its own context, then
//! writes the plan. No notebook, no other agents.

use super::contract::*;
use super::tools::{calls_in, ToolUser};
use super::world::{Delivery, Halt, World};
use super::{planning, prompts};
use crate::engine::domains::travel::tools::TOOL_NAMES;
use crate::engine::domains::travel::TravelDb;
use crate::engine::model::{ChatRequest, Message};
use crate::engine::run::{Audience, RunCtx};

/// Reason → act → observe until the agent answers without tool calls (its
/// plan) or the step limit stops it (no plan).
pub async fn react(
    ctx: &RunCtx,
    world: &mut World,
    db: &TravelDb,
    options: &TravelOptions,
) -> Result<Delivery, Halt> {
    let steps = async {
        let plan = react_steps(ctx, world, db, options)
            .await
            .or_else(Halt::into_delivery)?;
        Ok::<_, Halt>(plan)
    };
    ctx.phase("solo", "Plan alone (ReAct)", steps).await
}

async fn react_steps(
    ctx: &RunCtx,
    world: &mut World,
    db: &TravelDb,
    options: &TravelOptions,
) -> Result<Delivery, Halt> {
    let user = ToolUser {
        agent: SOLO,
        allowed: &TOOL_NAMES,
        mode: options.tool_mode,
    };
    let mut messages = vec![
        Message::system(prompts::solo_system(&world.prompts, options.tool_mode)?),
        Message::user(format!(
            "{}\n{}",
            world.goal_block(),
            prompts::solo_turn(&world.prompts)?
        )),
    ];
    loop {
        world.take_step()?;
        let req = user.offer(
            ChatRequest::new(messages.clone()).with_step(STEP_SOLO),
            true,
        );
        let (call, response) = ctx.chat(SOLO, req).await?;
        let calls = calls_in(&response, options.tool_mode, call);
        if calls.is_empty() {
            let text = response.text.trim().to_string();
            ctx.post(SOLO, Audience::To(vec!["user".into()]), &text, Some(call));
            return Ok(planning::record_plan(
                ctx,
                SOLO,
                0,
                (call, &text),
                "the run delivers no plan",
            ));
        }
        user.answer_calls(ctx, world, db, &mut messages, (call, &response), &calls);
    }
}
