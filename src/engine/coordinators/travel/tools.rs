//! Running the experts' tool calls against the sandbox, privately: each call
//! and its result are recorded as events of the calling agent, and (in the
//! multi-agent variants) the raw result is written to the notebook N.

use super::contract::*;
use crate::engine::domains::travel::tools::{
    execute, execute_json, parameter_names, tool_specs, INVALID_ACTION,
};
use crate::engine::domains::travel::TravelDb;
use crate::engine::model::text_tools::parse_all;
use crate::engine::model::{ChatResponse, ToolCall, ToolSpec};
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
pub fn specs_for(allowed: &[&str]) -> Vec<ToolSpec> {
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
        ToolMode::Text => parse_all(
            &response.text,
            &crate::engine::domains::travel::tools::TOOL_NAMES,
        )
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

/// Runs one call for `agent` (refusing tools it does not have), records it,
/// and returns the text the agent sees. With `notebook`, the raw result is
/// also written to N.
pub fn run_call(
    ctx: &RunCtx,
    db: &TravelDb,
    agent: &str,
    allowed: &[&str],
    call: &Call,
    llm_call: u32,
    notebook: Option<&mut Vec<NotebookEntry>>,
) -> String {
    let args_json = serde_json::json!(call.args);
    ctx.emit(RunEvent::ToolCalled {
        id: call.id.clone(),
        agent: agent.into(),
        tool: call.name.clone(),
        args: args_json,
        call: Some(llm_call),
    });
    let result = if !allowed.contains(&call.name.as_str()) {
        crate::engine::domains::travel::ToolResult {
            text: format!("{} is not one of your tools. {INVALID_ACTION}", call.name),
            rows: crate::engine::domains::travel::ToolRows::None,
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
    if let Some(nb) = notebook {
        let entry = NotebookEntry {
            author: agent.to_string(),
            tool: call.name.clone(),
            args: call.args.clone(),
            call_id: call.id.clone(),
            ok: result.ok,
            content: result.text.clone(),
        };
        ctx.emit(RunEvent::NoteWritten {
            agent: agent.into(),
            store: STORE_NOTEBOOK.into(),
            key: Some(format!("N{}", nb.len() + 1)),
            payload: serde_json::to_value(&entry).unwrap_or_default(),
        });
        nb.push(entry);
    }
    result.text
}
