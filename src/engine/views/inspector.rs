//! What each agent did, privately and in detail, for the inspector: its LLM
//! calls (the request's last user message, the answer as it streams, the
//! tools it asked for), its tool calls with their results, and the
//! hand-offs it gave or received. Works for every coordinator: it reads
//! only the generic events.

use super::html::agents::AgentMarks;
use super::Fold;
use crate::engine::run::event::{LoggedEvent, RunEvent};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "state", content = "error", rename_all = "snake_case")]
pub enum CallState {
    /// Asked, the answer is streaming (or not started).
    Streaming,
    Done,
    Failed(String),
}

/// One LLM call of an agent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LlmCallView {
    pub call: u32,
    /// The `llm_request` event.
    pub seq: u64,
    pub step: Option<String>,
    /// The request's last user message.
    pub prompt: String,
    /// The reply shape the step asked for (its JSON Schema, indented).
    pub schema: Option<String>,
    /// The request's system message, if it has one (what the step's
    /// template told the agent).
    pub system: Option<String>,
    /// The grammar a text-protocol step asked a model run here to keep.
    pub grammar: Option<String>,
    /// The answer (streamed so far, or complete).
    pub answer: String,
    /// Names of the tools the answer called (native tool calls).
    pub tool_calls: Vec<String>,
    pub state: CallState,
}

/// One private tool call of an agent, with its result once returned.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolCallView {
    pub id: String,
    /// The `tool_called` event.
    pub seq: u64,
    pub tool: String,
    pub args: Value,
    /// The LLM call that asked for it.
    pub call: Option<u32>,
    /// (ok, output) once returned.
    pub result: Option<(bool, String)>,
}

impl ToolCallView {
    /// `Tool[arg1, arg2]` (the arguments as written, or their JSON).
    pub fn label(&self) -> String {
        format!("{}[{}]", self.tool, args_text(&self.args))
    }
}

/// Positional arguments as the text protocol writes them.
pub fn args_text(args: &Value) -> String {
    match args {
        Value::Array(items) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", "),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Control passing from one agent to another.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HandoffItem {
    pub seq: u64,
    pub from: String,
    pub to: String,
    pub reason: String,
}

/// What one agent did privately.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AgentInspector {
    pub llm_calls: Vec<LlmCallView>,
    pub tool_calls: Vec<ToolCallView>,
}

/// Who handed control to whom, and the agents' names to show them with.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Handoffs {
    /// Display names by agent id.
    pub names: HashMap<String, String>,
    /// Every hand-off, in order.
    pub items: Vec<HandoffItem>,
    /// The agents in the order they joined: their colours.
    pub marks: AgentMarks,
}

impl Handoffs {
    pub fn name_of<'a>(&'a self, id: &'a str) -> &'a str {
        self.names.get(id).map(String::as_str).unwrap_or(id)
    }

    /// The hand-offs `agent` gave or received.
    pub fn of<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = &'a HandoffItem> {
        self.items
            .iter()
            .filter(move |h| h.from == agent || h.to == agent)
    }
}

impl Fold for Handoffs {
    fn apply(&mut self, ev: &LoggedEvent) {
        match &ev.event {
            RunEvent::AgentAdded { agent, name, .. } => {
                self.names.insert(agent.clone(), name.clone());
                self.marks.add(agent, name);
            }
            RunEvent::Handoff { from, to, reason } => self.items.push(HandoffItem {
                seq: ev.seq,
                from: from.clone(),
                to: to.clone(),
                reason: reason.clone(),
            }),
            _ => {}
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct InspectorView {
    /// Every agent's private activity.
    pub inspectors: HashMap<String, AgentInspector>,
    /// The hand-offs (and the agents' names).
    pub handoffs: Handoffs,
    /// LLM call number → agent.
    call_agent: HashMap<u32, String>,
}

impl InspectorView {
    pub fn name_of<'a>(&'a self, id: &'a str) -> &'a str {
        self.handoffs.name_of(id)
    }

    pub fn inspector(&self, agent: &str) -> Option<&AgentInspector> {
        self.inspectors.get(agent)
    }

    /// The hand-offs `agent` gave or received.
    pub fn handoffs_of<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = &'a HandoffItem> {
        self.handoffs.of(agent)
    }

    fn inspector_mut(&mut self, agent: &str) -> &mut AgentInspector {
        self.inspectors.entry(agent.to_string()).or_default()
    }

    fn call_mut(&mut self, call: u32) -> Option<&mut LlmCallView> {
        let agent = self.call_agent.get(&call)?.clone();
        self.inspectors
            .get_mut(&agent)?
            .llm_calls
            .iter_mut()
            .rev()
            .find(|c| c.call == call)
    }
}

impl Fold for InspectorView {
    fn apply(&mut self, ev: &LoggedEvent) {
        self.handoffs.apply(ev);
        let seq = ev.seq;
        match &ev.event {
            RunEvent::LlmRequest {
                call,
                agent,
                request,
                ..
            } => {
                self.call_agent.insert(*call, agent.clone());
                let view = LlmCallView {
                    call: *call,
                    seq,
                    step: request.step.clone(),
                    prompt: request.last_user().unwrap_or_default().to_string(),
                    schema: request
                        .params
                        .schema
                        .as_ref()
                        .map(|s| serde_json::to_string_pretty(&s.schema).unwrap_or_default()),
                    grammar: request.params.grammar.as_ref().map(|g| g.lark()),
                    system: request
                        .messages
                        .iter()
                        .find(|m| m.role == crate::engine::model::Role::System)
                        .map(|m| m.content.clone()),
                    answer: String::new(),
                    tool_calls: Vec::new(),
                    state: CallState::Streaming,
                };
                self.inspector_mut(agent).llm_calls.push(view);
            }
            RunEvent::LlmDelta { call, text } => {
                if let Some(c) = self.call_mut(*call) {
                    if c.state == CallState::Streaming {
                        c.answer.push_str(text);
                    }
                }
            }
            RunEvent::LlmResponse { call, response, .. } => {
                if let Some(c) = self.call_mut(*call) {
                    c.answer = response.text.clone();
                    c.tool_calls = response.tool_calls.iter().map(|t| t.name.clone()).collect();
                    c.state = CallState::Done;
                }
            }
            RunEvent::LlmFailed { call, error, .. } => {
                if let Some(c) = self.call_mut(*call) {
                    c.state = CallState::Failed(error.user_message());
                }
            }
            RunEvent::ToolCalled {
                id,
                agent,
                tool,
                args,
                call,
            } => {
                self.inspector_mut(agent).tool_calls.push(ToolCallView {
                    id: id.clone(),
                    seq,
                    tool: tool.clone(),
                    args: args.clone(),
                    call: *call,
                    result: None,
                });
            }
            RunEvent::ToolReturned {
                id,
                agent,
                ok,
                output,
            } => {
                let Some(insp) = self.inspectors.get_mut(agent) else {
                    return;
                };
                if let Some(t) = insp
                    .tool_calls
                    .iter_mut()
                    .rev()
                    .find(|t| t.id == *id && t.result.is_none())
                {
                    t.result = Some((*ok, output.clone()));
                }
            }
            _ => {}
        }
    }
}
