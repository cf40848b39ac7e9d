//! The travel planner's views, folded from the log: the notebook (with tool
//! tables read back), the orchestrator's reflections, the plan of every
//! compiler round, the evaluation and live revisit counters. What each
//! agent did privately is the generic inspector's (`views::inspector`).
//!
//! Payloads are parsed with serde and skipped when they do not parse (runs
//! may be old or shared); nothing here panics on a payload.

use super::contract::*;
use crate::engine::domains::travel::table_read::{tool_table, ToolTable};
use crate::engine::domains::travel::Query;
use crate::engine::run::event::{LoggedEvent, RunEvent};
use crate::engine::views::html::agents::AgentMarks;
use crate::engine::views::Fold;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

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

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TravelView {
    /// Display names by agent id.
    pub names: HashMap<String, String>,
    /// The agents in the order they joined: their colours.
    #[serde(skip)]
    pub marks: AgentMarks,
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
    revisit_counts: BTreeMap<String, u32>,
    /// Experts that have taken a turn.
    spoken: Vec<String>,
    /// An expert the orchestrator handed control to, whose turn has not started.
    pending_turn: Option<String>,
    /// tool call id → seq of its latest `tool_called` event.
    tool_seq: HashMap<String, u64>,
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

    /// The reflections recorded by `agent` (the orchestrator).
    pub fn reflections_of<'a>(
        &'a self,
        agent: &'a str,
    ) -> impl Iterator<Item = &'a ReflectionItem> {
        self.reflections.iter().filter(move |r| r.agent == agent)
    }

    // Out of line (see `views::Fold`): the payloads' parsers would make
    // `apply` one giant wasm function.
    #[inline(never)]
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
                    tool_table(&entry.tool, &entry.content)
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
                self.names.insert(agent.clone(), name.clone());
                self.marks.add(agent, name);
            }
            RunEvent::LlmRequest { agent, .. }
                if self.pending_turn.as_deref() == Some(agent.as_str()) =>
            {
                self.pending_turn = None;
                if self.spoken.contains(agent) {
                    *self.revisit_counts.entry(agent.clone()).or_insert(0) += 1;
                } else {
                    self.spoken.push(agent.clone());
                }
            }
            RunEvent::ToolCalled { id, .. } => {
                self.tool_seq.insert(id.clone(), seq);
            }
            RunEvent::Handoff { from, to, .. }
                if from == ORCHESTRATOR && EXPERTS.contains(&to.as_str()) =>
            {
                self.pending_turn = Some(to.clone());
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
