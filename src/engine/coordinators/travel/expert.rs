//! An expert's turn: private tool calls against the sandbox (results seen by
//! this expert only, and written to the notebook), then its part posted to
//! the public conversation.

use super::contract::*;
use super::tools::{calls_in, run_call, specs_for};
use super::{prompts, world::World};
use crate::engine::domains::travel::TravelDb;
use crate::engine::model::{ChatRequest, Message};
use crate::engine::run::{Audience, RunCtx, RunError};

pub async fn expert_turn(
    ctx: &RunCtx,
    world: &mut World,
    db: &TravelDb,
    expert: &str,
    options: &TravelOptions,
    notebook: bool,
    instruction: Option<&str>,
) -> Result<(), RunError> {
    world.expert_turn_starts(expert);
    let allowed = expert_tools(expert);
    let mut messages = vec![
        Message::system(prompts::expert_system(expert, options.tool_mode)),
        Message::user(format!(
            "{}\n{}\n{}",
            world.goal_block(),
            world.conversation(),
            prompts::expert_turn(instruction)
        )),
    ];
    let tools = if options.tool_mode == ToolMode::Native {
        specs_for(allowed)
    } else {
        Vec::new()
    };
    for round in 0..=options.max_tool_rounds {
        let last = round == options.max_tool_rounds;
        if last {
            messages.push(Message::user(prompts::FORCE_ANSWER));
        }
        let req = ChatRequest::new(messages.clone())
            .with_step(expert_step(expert))
            .with_tools(if last { Vec::new() } else { tools.clone() });
        let (call, response) = ctx.chat(expert, req).await?;
        let calls = if last {
            Vec::new()
        } else {
            calls_in(&response, options.tool_mode, call)
        };
        if calls.is_empty() {
            let text = response.text.trim().to_string();
            ctx.post(expert, Audience::Public, &text, Some(call));
            world.post(expert, &text);
            return Ok(());
        }
        // The expert's own context grows with its calls and their private results.
        match options.tool_mode {
            ToolMode::Native => messages.push(Message::assistant_with_tools(
                response.text.clone(),
                calls.iter().filter_map(|c| c.native.clone()).collect(),
            )),
            ToolMode::Text => messages.push(Message::assistant(response.text.clone())),
        }
        let mut observations = Vec::new();
        for c in &calls {
            let nb = if notebook {
                Some(&mut world.notebook)
            } else {
                None
            };
            let text = run_call(ctx, db, expert, allowed, c, call, nb);
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
    Ok(())
}
