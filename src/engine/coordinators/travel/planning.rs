//! From findings to a plan: the plan summarizer P_S (no LLM) assembles a
//! brief from G and N; the plan compiler P_C writes the plan and posts it;
//! the plan critic P_R reviews it with P_C for a few rounds.

use super::contract::*;
use super::prompts;
use super::world::{Delivery, Halt, World};
use crate::engine::domains::travel::parse_plan_text;
use crate::engine::model::{ChatRequest, Message};
use crate::engine::run::{Audience, RunCtx, RunError};

/// What the critic said of the latest plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Review {
    Approved,
    /// It listed problems for the compiler to fix.
    Problems,
}

/// P_S: the planning brief (G, and N when the variant keeps a notebook).
pub fn summarize(ctx: &RunCtx, world: &World) -> String {
    let mut brief = world.goal_block();
    if let Some(notebook) = world.notebook_section() {
        brief.push('\n');
        brief.push_str(&notebook);
    }
    ctx.note(
        SUMMARIZER,
        STORE_BRIEF,
        None,
        &serde_json::json!({ "text": brief }),
    );
    ctx.handoff(SUMMARIZER, COMPILER, "planning brief");
    brief
}

/// P_C: writes (or rewrites) the plan from the brief and the conversation,
/// posts it, and records whether it could be read as a plan.
pub async fn compile(
    ctx: &RunCtx,
    world: &mut World,
    brief: &str,
    round: u32,
) -> Result<Delivery, RunError> {
    let req = ChatRequest::new(vec![
        Message::system(prompts::COMPILER_SYSTEM),
        Message::user(format!(
            "{brief}\n{}\n{}",
            world.conversation(),
            prompts::compiler_turn()
        )),
    ])
    .with_step(STEP_COMPILER);
    let (call, response) = ctx.chat(COMPILER, req).await?;
    let text = response.text.trim().to_string();
    ctx.post(COMPILER, Audience::Public, &text, Some(call));
    world.post(COMPILER, &text);
    Ok(record_plan(ctx, COMPILER, round, &text))
}

/// P_R and P_C in turn: the critic reviews the latest plan and, unless it
/// approves, the compiler revises it. A revision that cannot be read does
/// not replace a readable plan. Each review and each revision is a step.
pub async fn critic_rounds(
    ctx: &RunCtx,
    world: &mut World,
    brief: &str,
    rounds: u32,
    latest: &mut Delivery,
) -> Result<(), Halt> {
    for round in 1..=rounds {
        world.take_step()?;
        if critique(ctx, world).await? == Review::Approved {
            break;
        }
        world.take_step()?;
        let revised = compile(ctx, world, brief, round).await?;
        if revised.is_ok() || latest.is_err() {
            *latest = revised;
        }
    }
    Ok(())
}

/// P_R: reviews the latest plan in the conversation.
pub async fn critique(ctx: &RunCtx, world: &mut World) -> Result<Review, RunError> {
    ctx.handoff(COMPILER, CRITIC, "review the plan");
    let req = ChatRequest::new(vec![
        Message::system(prompts::CRITIC_SYSTEM),
        Message::user(format!(
            "{}\n{}\n{}",
            world.goal_block(),
            world.conversation(),
            prompts::critic_turn()
        )),
    ])
    .with_step(STEP_CRITIC);
    let (call, response) = ctx.chat(CRITIC, req).await?;
    let text = response.text.trim().to_string();
    ctx.post(CRITIC, Audience::Public, &text, Some(call));
    world.post(CRITIC, &text);
    let approved = text
        .lines()
        .any(|l| l.trim().trim_matches(|c: char| !c.is_alphanumeric()) == APPROVED);
    if approved {
        return Ok(Review::Approved);
    }
    ctx.handoff(CRITIC, COMPILER, "fix the problems found");
    Ok(Review::Problems)
}

/// Reads a plan out of `agent`'s answer and records the attempt (the plan,
/// or why it is not one) as round `round` of the plan store.
pub fn record_plan(ctx: &RunCtx, agent: &str, round: u32, text: &str) -> Delivery {
    let delivery = parse_plan_text(text);
    let record = PlanRecord {
        round,
        plan: delivery.as_ref().ok().map(|p| p.to_json()),
        not_delivered: delivery.as_ref().err().map(|e| e.reason.clone()),
    };
    ctx.note(agent, STORE_PLAN, Some(&format!("round {round}")), &record);
    delivery
}
