//! Running an agent's tool calls against the sandbox, privately: each call
//! and its result are recorded as events of the calling agent, and (in the
//! variants with a notebook) the raw result is written to the notebook N.
//! The ReAct step (calls → results back into the agent's context) is
//! written once here, for the experts and the single-agent baseline.

use super::contract::*;
use super::world::World;
use crate::engine::domains::travel::tools::{
    execute, execute_json, parameter_names, tool_specs, INVALID_ACTION, TOOL_NAMES,
};
use crate::engine::domains::travel::{ToolResult, ToolRows, TravelDb};
use crate::engine::model::text_tools::parse_all;
use crate::engine::model::{ChatResponse, Message, ToolCall, ToolSpec};
use crate::engine::run::{RunCtx, RunEvent};

/// A tool call found in a model's answer, in either protocol.
pub struct Call {
    pub id: String,
    pub name: String,
    pub args: Vec<String>,
    /// The native call, to echo back in the conversation (native mode).
    pub native: Option<ToolCall>,
}

/// The tool specs for native function calling, limited to `allowed`.
fn specs_for(allowed: &[&str]) -> Vec<ToolSpec> {
    tool_specs()
        .into_iter()
        .filter(|s| allowed.contains(&s.name.as_str()))
        .collect()
}

/// Positional arguments of a native call (as the text protocol would have them).
fn native_args(name: &str, arguments: &str) -> Vec<String> {
    let parsed: Option<serde_json::Map<String, serde_json::Value>> =
        serde_json::from_str(arguments).ok();
    match (parameter_names(name), parsed) {
        (Some(names), Some(map)) => names
            .iter()
            .map(|n| match map.get(*n) {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            })
            .collect(),
        _ => vec![arguments.to_string()],
    }
}

/// The tool calls in an answer: native calls in native mode, `Tool[args]`
/// lines in text mode (any known tool name; unknown ones are ignored).
pub fn calls_in(response: &ChatResponse, mode: ToolMode, llm_call: u32) -> Vec<Call> {
    match mode {
        ToolMode::Native => response
            .tool_calls
            .iter()
            .map(|c| Call {
                id: c.id.clone(),
                name: c.name.clone(),
                args: native_args(&c.name, &c.arguments),
                native: Some(c.clone()),
            })
            .collect(),
        ToolMode::Text => parse_all(&response.text, &TOOL_NAMES)
            .into_iter()
            .enumerate()
            .map(|(i, c)| Call {
                id: format!("t{llm_call}-{i}"),
                name: c.name,
                args: c.args,
                native: None,
            })
            .collect(),
    }
}

/// Who calls tools, and how: the agent, the tools it may call, the protocol.
pub struct ToolUser<'a> {
    pub agent: &'a str,
    pub allowed: &'a [&'a str],
    pub mode: ToolMode,
}

impl ToolUser<'_> {
    /// The tools to offer with a request: native specs, or none in the
    /// text protocol (the prompt describes them).
    pub fn specs(&self) -> Vec<ToolSpec> {
        match self.mode {
            ToolMode::Native => specs_for(self.allowed),
            ToolMode::Text => Vec::new(),
        }
    }

    /// One ReAct step after the model asked for tools: its message with the
    /// calls joins the agent's own context, each call runs against the
    /// sandbox, and the results follow (tool messages, or one
    /// "Observation:" message in the text protocol).
    pub fn answer_calls(
        &self,
        ctx: &RunCtx,
        world: &mut World,
        db: &TravelDb,
        messages: &mut Vec<Message>,
        (llm_call, response): (u32, &ChatResponse),
        calls: &[Call],
    ) {
        messages.push(match self.mode {
            ToolMode::Native => Message::assistant_with_tools(
                response.text.clone(),
                calls.iter().filter_map(|c| c.native.clone()).collect(),
            ),
            ToolMode::Text => Message::assistant(response.text.clone()),
        });
        let mut observations = Vec::new();
        for c in calls {
            let text = self.run_call(ctx, world, db, c, llm_call);
            match self.mode {
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

    /// Runs one call (refusing tools the agent does not have), records it
    /// as this agent's, writes the raw result to N when the variant keeps a
    /// notebook, and returns the text the agent sees.
    fn run_call(
        &self,
        ctx: &RunCtx,
        world: &mut World,
        db: &TravelDb,
        call: &Call,
        llm_call: u32,
    ) -> String {
        let agent = self.agent;
        ctx.emit(RunEvent::ToolCalled {
            id: call.id.clone(),
            agent: agent.into(),
            tool: call.name.clone(),
            args: serde_json::json!(call.args),
            call: Some(llm_call),
        });
        let result = if !self.allowed.contains(&call.name.as_str()) {
            ToolResult {
                text: format!("{} is not one of your tools. {INVALID_ACTION}", call.name),
                rows: ToolRows::None,
                ok: false,
            }
        } else {
            match &call.native {
                Some(n) => execute_json(db, &n.name, &n.arguments),
                None => execute(db, &call.name, &call.args),
            }
        };
        ctx.emit(RunEvent::ToolReturned {
            id: call.id.clone(),
            agent: agent.into(),
            ok: result.ok,
            output: result.text.clone(),
        });
        if let Some(notebook) = world.notebook.as_mut() {
            let entry = NotebookEntry {
                author: agent.to_string(),
                tool: call.name.clone(),
                args: call.args.clone(),
                call_id: call.id.clone(),
                ok: result.ok,
                content: result.text.clone(),
            };
            let key = format!("N{}", notebook.len() + 1);
            ctx.note(agent, STORE_NOTEBOOK, Some(&key), &entry);
            notebook.push(entry);
        }
        result.text
    }
}
