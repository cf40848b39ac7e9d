//! The travel planner's views, folded from the log: the notebook (with tool
//! tables read back), the orchestrator's reflections, the plan of every
//! compiler round, the evaluation, live revisit counters, hand-offs, and a
//! private inspector per agent (its LLM calls and tool calls).
//!
//! Payloads are parsed with serde and skipped when they do not parse (runs
//! may be old or shared); nothing here panics on a payload.

pub mod batch;
pub mod export;
pub mod run_export;
pub mod tool_table;

use super::Fold;
use crate::engine::coordinators::travel::contract::*;
use crate::engine::domains::travel::Query;
use crate::engine::run::event::{LoggedEvent, RunEvent};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
pub use tool_table::{parse_tool_table, ToolTable};

/// One notebook entry with what the UI needs around it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NotebookCard {
    /// "N1", "N2", ...
    pub key: String,
    /// The `note_written` event.
    pub seq: u64,
    pub entry: NotebookEntry,
    /// The `tool_called` event the entry came from.
    pub source_seq: Option<u64>,
    /// The content read as a table, when it is one.
    pub table: Option<ToolTable>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReflectionItem {
    pub seq: u64,
    pub agent: String,
    pub reflection: Reflection,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanItem {
    pub seq: u64,
    pub agent: String,
    pub record: PlanRecord,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HandoffItem {
    pub seq: u64,
    pub from: String,
    pub to: String,
    pub reason: String,
}

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

/// What one agent did privately.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AgentInspector {
    pub llm_calls: Vec<LlmCallView>,
    pub tool_calls: Vec<ToolCallView>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TravelView {
    /// Agent ids in the order they were added, and their display names.
    pub agents: Vec<String>,
    pub names: HashMap<String, String>,
    /// The query of the run (from the run's options), when readable.
    #[serde(skip)]
    pub query: Option<Query>,
    pub variant: Option<Variant>,
    pub notebook: Vec<NotebookCard>,
    pub reflections: Vec<ReflectionItem>,
    pub plans: Vec<PlanItem>,
    /// The summarizer's brief.
    pub brief: Option<String>,
    pub evaluation: Option<RunEvaluation>,
    /// `score_computed` values by name.
    pub scores: BTreeMap<String, f64>,
    pub handoffs: Vec<HandoffItem>,
    pub inspectors: HashMap<String, AgentInspector>,
    revisit_counts: BTreeMap<String, u32>,
    /// Experts that have taken a turn.
    spoken: Vec<String>,
    /// An expert the orchestrator handed control to, whose turn has not started.
    pending_turn: Option<String>,
    /// tool call id → seq of its latest `tool_called` event.
    tool_seq: HashMap<String, u64>,
    /// LLM call number → agent.
    call_agent: HashMap<u32, String>,
}

impl TravelView {
    pub fn name_of<'a>(&'a self, id: &'a str) -> &'a str {
        self.names.get(id).map(String::as_str).unwrap_or(id)
    }

    /// Revisits per expert, in the experts' order: how often the
    /// orchestrator gave the turn back to an expert that had already taken
    /// one. Counted when that turn starts (its first LLM request), exactly
    /// as the coordinator counts them for `RunEvaluation::revisits`, so a
    /// hand-off cut short by the step limit is not a revisit.
    pub fn revisits(&self) -> Vec<(String, u32)> {
        EXPERTS
            .iter()
            .map(|e| {
                (
                    e.to_string(),
                    self.revisit_counts.get(*e).copied().unwrap_or(0),
                )
            })
            .collect()
    }

    /// The latest compiled plan record.
    pub fn latest_plan(&self) -> Option<&PlanItem> {
        self.plans.last()
    }

    /// The query's budget, when the run's options hold a readable query.
    pub fn budget(&self) -> Option<f64> {
        self.query.as_ref().map(|q| q.budget)
    }

    pub fn inspector(&self, agent: &str) -> Option<&AgentInspector> {
        self.inspectors.get(agent)
    }

    /// The reflections recorded by `agent` (the orchestrator).
    pub fn reflections_of<'a>(
        &'a self,
        agent: &'a str,
    ) -> impl Iterator<Item = &'a ReflectionItem> {
        self.reflections.iter().filter(move |r| r.agent == agent)
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

    fn note(&mut self, seq: u64, agent: &str, store: &str, key: Option<&str>, payload: &Value) {
        // Every payload of this coordinator is an object (serde would also
        // read a struct from a list).
        if !payload.is_object() {
            return;
        }
        match store {
            STORE_NOTEBOOK => {
                let Ok(entry) = serde_json::from_value::<NotebookEntry>(payload.clone()) else {
                    return;
                };
                let key = key
                    .filter(|k| !k.trim().is_empty())
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("N{}", self.notebook.len() + 1));
                let table = if entry.ok {
                    parse_tool_table(&entry.tool, &entry.content)
                } else {
                    None
                };
                self.notebook.push(NotebookCard {
                    key,
                    seq,
                    source_seq: self.tool_seq.get(&entry.call_id).copied(),
                    table,
                    entry,
                });
            }
            STORE_REFLECTION => {
                if let Ok(reflection) = serde_json::from_value::<Reflection>(payload.clone()) {
                    self.reflections.push(ReflectionItem {
                        seq,
                        agent: agent.to_string(),
                        reflection,
                    });
                }
            }
            STORE_PLAN => {
                if let Ok(record) = serde_json::from_value::<PlanRecord>(payload.clone()) {
                    self.plans.push(PlanItem {
                        seq,
                        agent: agent.to_string(),
                        record,
                    });
                }
            }
            STORE_BRIEF => {
                if let Some(t) = payload.get("text").and_then(Value::as_str) {
                    self.brief = Some(t.to_string());
                }
            }
            STORE_EVALUATION => {
                if let Ok(e) = serde_json::from_value::<RunEvaluation>(payload.clone()) {
                    self.evaluation = Some(e);
                }
            }
            _ => {}
        }
    }
}

impl Fold for TravelView {
    fn apply(&mut self, ev: &LoggedEvent) {
        let seq = ev.seq;
        match &ev.event {
            RunEvent::RunStarted { config } => {
                self.variant = config.variant.as_deref().and_then(Variant::parse);
                self.query = serde_json::from_value::<TravelOptions>(config.options.clone())
                    .ok()
                    .and_then(|o| Query::from_json(&o.query, 0).ok());
            }
            RunEvent::AgentAdded { agent, name, .. } => {
                if !self.agents.contains(agent) {
                    self.agents.push(agent.clone());
                }
                self.names.insert(agent.clone(), name.clone());
            }
            RunEvent::LlmRequest {
                call,
                agent,
                request,
                ..
            } => {
                if self.pending_turn.as_deref() == Some(agent.as_str()) {
                    self.pending_turn = None;
                    if self.spoken.contains(agent) {
                        *self.revisit_counts.entry(agent.clone()).or_insert(0) += 1;
                    } else {
                        self.spoken.push(agent.clone());
                    }
                }
                self.call_agent.insert(*call, agent.clone());
                let view = LlmCallView {
                    call: *call,
                    seq,
                    step: request.step.clone(),
                    prompt: request.last_user().unwrap_or_default().to_string(),
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
                self.tool_seq.insert(id.clone(), seq);
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
            RunEvent::Handoff { from, to, reason } => {
                if from == ORCHESTRATOR && EXPERTS.contains(&to.as_str()) {
                    self.pending_turn = Some(to.clone());
                }
                self.handoffs.push(HandoffItem {
                    seq,
                    from: from.clone(),
                    to: to.clone(),
                    reason: reason.clone(),
                });
            }
            RunEvent::NoteWritten {
                agent,
                store,
                key,
                payload,
            } => self.note(seq, agent, store, key.as_deref(), payload),
            RunEvent::ScoreComputed { name, value, .. } => {
                self.scores.insert(name.clone(), *value);
            }
            _ => {}
        }
    }
}
