//! From findings to a plan: the plan summarizer P_S (no LLM) assembles a
//! brief from G and N; the plan compiler P_C writes the plan and posts it;
//! the plan critic P_R reviews it with P_C.

use super::contract::*;
use super::{prompts, world::World};
use crate::engine::domains::travel::{parse_plan_text, Plan};
use crate::engine::model::{ChatRequest, Message};
use crate::engine::run::{Audience, RunCtx, RunError, RunEvent};

/// P_S: the planning brief (G, and N when the variant has a notebook).
pub fn summarize(ctx: &RunCtx, world: &World, with_notebook: bool) -> String {
    let mut brief = world.goal_block();
    if with_notebook {
        brief.push('\n');
        brief.push_str(&world.notebook_section());
    }
    ctx.emit(RunEvent::NoteWritten {
        agent: SUMMARIZER.into(),
        store: STORE_BRIEF.into(),
        key: None,
        payload: serde_json::json!({ "text": brief }),
    });
    ctx.emit(RunEvent::Handoff {
        from: SUMMARIZER.into(),
        to: COMPILER.into(),
        reason: "planning brief".into(),
    });
    brief
}

/// P_C: writes (or rewrites) the plan from the brief and the conversation,
/// posts it, and records whether it could be read as a plan.
pub async fn compile(
    ctx: &RunCtx,
    world: &mut World,
    brief: &str,
    round: u32,
) -> Result<Result<Plan, String>, RunError> {
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
    let parsed = parse_plan_text(&text).map_err(|e| e.reason);
    let record = match &parsed {
        Ok(plan) => PlanRecord {
            round,
            plan: Some(plan.to_json()),
            not_delivered: None,
        },
        Err(reason) => PlanRecord {
            round,
            plan: None,
            not_delivered: Some(reason.clone()),
        },
    };
    ctx.emit(RunEvent::NoteWritten {
        agent: COMPILER.into(),
        store: STORE_PLAN.into(),
        key: Some(format!("round {round}")),
        payload: serde_json::to_value(&record).unwrap_or_default(),
    });
    Ok(parsed)
}

/// P_R: reviews the latest plan in the conversation. Returns true when it approves.
pub async fn critique(ctx: &RunCtx, world: &mut World) -> Result<bool, RunError> {
    ctx.emit(RunEvent::Handoff {
        from: COMPILER.into(),
        to: CRITIC.into(),
        reason: "review the plan".into(),
    });
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
    if !approved {
        ctx.emit(RunEvent::Handoff {
            from: CRITIC.into(),
            to: COMPILER.into(),
            reason: "fix the problems found".into(),
        });
    }
    Ok(approved)
}
