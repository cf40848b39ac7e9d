//! The single-agent baseline (TravelPlanner's ReAct agent): one agent with
//! all six tools gathers information step by step in its own context, then
//! writes the plan. No notebook, no other agents.

use super::contract::*;
use super::tools::{calls_in, run_call, specs_for};
use super::{prompts, world::World};
use crate::engine::domains::travel::tools::TOOL_NAMES;
use crate::engine::domains::travel::{parse_plan_text, Plan, TravelDb};
use crate::engine::model::{ChatRequest, Message};
use crate::engine::run::{Audience, RunCtx, RunError, RunEvent};

/// Runs the agent until it answers without tool calls or the step limit is
/// reached. Returns the plan, or why none was delivered.
pub async fn run(
    ctx: &RunCtx,
    world: &mut World,
    db: &TravelDb,
    options: &TravelOptions,
) -> Result<Result<Plan, String>, RunError> {
    let mut messages = vec![
        Message::system(prompts::solo_system(options.tool_mode)),
        Message::user(format!("{}\n{}", world.goal_block(), prompts::solo_turn())),
    ];
    let tools = if options.tool_mode == ToolMode::Native {
        specs_for(&TOOL_NAMES)
    } else {
        Vec::new()
    };
    while world.take_step() {
        let req = ChatRequest::new(messages.clone())
            .with_step(STEP_SOLO)
            .with_tools(tools.clone());
        let (call, response) = ctx.chat(SOLO, req).await?;
        let calls = calls_in(&response, options.tool_mode, call);
        if calls.is_empty() {
            let text = response.text.trim().to_string();
            ctx.post(SOLO, Audience::To(vec!["user".into()]), &text, Some(call));
            let parsed = parse_plan_text(&text).map_err(|e| e.reason);
            let record = match &parsed {
                Ok(p) => PlanRecord {
                    round: 0,
                    plan: Some(p.to_json()),
                    not_delivered: None,
                },
                Err(r) => PlanRecord {
                    round: 0,
                    plan: None,
                    not_delivered: Some(r.clone()),
                },
            };
            ctx.emit(RunEvent::NoteWritten {
                agent: SOLO.into(),
                store: STORE_PLAN.into(),
                key: Some("round 0".into()),
                payload: serde_json::to_value(&record).unwrap_or_default(),
            });
            return Ok(parsed);
        }
        match options.tool_mode {
            ToolMode::Native => messages.push(Message::assistant_with_tools(
                response.text.clone(),
                calls.iter().filter_map(|c| c.native.clone()).collect(),
            )),
            ToolMode::Text => messages.push(Message::assistant(response.text.clone())),
        }
        let mut observations = Vec::new();
        for c in &calls {
            let text = run_call(ctx, db, SOLO, &TOOL_NAMES, c, call, None);
            match options.tool_mode {
                ToolMode::Native => messages.push(Message::tool_result(c.id.clone(), text)),
                ToolMode::Text => observations.push(format!(
                    "{OBSERVATION_PREFIX} {}[{}]\n{text}",
                    c.name,
                    c.args.join(", ")
                )),
            }
        }
        if !observations.is_empty() {
            messages.push(Message::user(observations.join("\n\n")));
        }
    }
    Ok(Err(format!(
        "the step limit ({}) was reached before the agent wrote a plan",
        world.max_steps
    )))
}
