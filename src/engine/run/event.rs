//! The events of a run. A run is its config plus an append-only list of
//! these; every view in the app is a fold over them.

use super::config::RunConfig;
use crate::engine::model::reply::Repair;
use crate::engine::model::{ChatRequest, ChatResponse, ModelError};
use serde::{Deserialize, Serialize};

/// Who sees a posted message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    /// The public conversation: every agent sees it.
    Public,
    /// Only the listed agents.
    To(Vec<String>),
}

/// Why a run failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FailReason {
    /// `model`, `step_limit`, `invalid_output`, `config`, `internal`.
    pub kind: String,
    /// What happened and what to do, for the user.
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_error: Option<ModelError>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunEvent {
    RunStarted {
        config: RunConfig,
    },
    AgentAdded {
        agent: String,
        role: String,
        name: String,
        /// Model name serving this agent.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        model: String,
    },
    PhaseStarted {
        phase: String,
        label: String,
    },
    PhaseEnded {
        phase: String,
    },
    /// `agent`'s next call waits for a free slot (the run's "Parallel LLM
    /// calls" are all taken): its `llm_request` comes when one frees, so
    /// the wait is the time between the two and never part of a call's
    /// `latency_ms`.
    LlmQueued {
        agent: String,
    },
    LlmRequest {
        call: u32,
        agent: String,
        model: String,
        request: ChatRequest,
    },
    LlmDelta {
        call: u32,
        text: String,
    },
    LlmRetry {
        call: u32,
        /// The attempt that failed (1-based).
        attempt: u32,
        error: ModelError,
        wait_ms: u64,
    },
    LlmResponse {
        call: u32,
        response: ChatResponse,
        latency_ms: u64,
        #[serde(default)]
        retries: u32,
    },
    LlmFailed {
        call: u32,
        error: ModelError,
        #[serde(default)]
        retries: u32,
    },
    ToolCalled {
        id: String,
        agent: String,
        tool: String,
        args: serde_json::Value,
        /// The LLM call that asked for it, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<u32>,
    },
    ToolReturned {
        id: String,
        agent: String,
        ok: bool,
        output: String,
    },
    MessagePosted {
        from: String,
        to: Audience,
        text: String,
        /// The LLM call whose answer this message is, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<u32>,
    },
    /// Control passes from one agent to another (e.g. an orchestrator picks
    /// the next speaker).
    Handoff {
        from: String,
        to: String,
        #[serde(default)]
        reason: String,
    },
    /// Something written to a store: notebook, episodic memory, knowledge,
    /// experience pool. The payload is the coordinator's own shape.
    NoteWritten {
        agent: String,
        store: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
        payload: serde_json::Value,
    },
    /// A file written to the run's workspace (`base::workspace`): its whole
    /// text, a new version of it (`path` as the workspace keeps it).
    FileWritten {
        agent: String,
        path: String,
        text: String,
        /// The LLM call whose answer it came from, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<u32>,
    },
    /// A reply its step could read only after repairing it, or not at all
    /// (a stated default used, the step asked again): what was wrong and
    /// what was done. The call's answer itself stays as the model wrote it.
    ReplyRepaired {
        call: u32,
        repairs: Vec<Repair>,
    },
    ScoreComputed {
        name: String,
        value: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
        detail: serde_json::Value,
    },
    RunFinished {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<String>,
    },
    RunFailed {
        reason: FailReason,
    },
    /// Stopped by the user (the page's Stop), or by a signal to the CLI
    /// (`interrupted`: "SIGINT", "SIGTERM"); what was done is kept.
    RunCancelled {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        interrupted: Option<String>,
    },
}

impl RunEvent {
    /// The serde tag of the event (`llm_request`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            RunEvent::RunStarted { .. } => "run_started",
            RunEvent::AgentAdded { .. } => "agent_added",
            RunEvent::PhaseStarted { .. } => "phase_started",
            RunEvent::PhaseEnded { .. } => "phase_ended",
            RunEvent::LlmQueued { .. } => "llm_queued",
            RunEvent::LlmRequest { .. } => "llm_request",
            RunEvent::LlmDelta { .. } => "llm_delta",
            RunEvent::LlmRetry { .. } => "llm_retry",
            RunEvent::LlmResponse { .. } => "llm_response",
            RunEvent::LlmFailed { .. } => "llm_failed",
            RunEvent::ToolCalled { .. } => "tool_called",
            RunEvent::ToolReturned { .. } => "tool_returned",
            RunEvent::MessagePosted { .. } => "message_posted",
            RunEvent::Handoff { .. } => "handoff",
            RunEvent::NoteWritten { .. } => "note_written",
            RunEvent::FileWritten { .. } => "file_written",
            RunEvent::ReplyRepaired { .. } => "reply_repaired",
            RunEvent::ScoreComputed { .. } => "score_computed",
            RunEvent::RunFinished { .. } => "run_finished",
            RunEvent::RunFailed { .. } => "run_failed",
            RunEvent::RunCancelled { .. } => "run_cancelled",
        }
    }

    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            RunEvent::RunFinished { .. }
                | RunEvent::RunFailed { .. }
                | RunEvent::RunCancelled { .. }
        )
    }
}

/// An event with its place in the log and its time since the run started.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggedEvent {
    pub seq: u64,
    pub t_ms: u64,
    pub event: RunEvent,
}

/// Tests: `event` as the log's event `seq`, logged `seq` ms in.
#[cfg(test)]
pub fn ev(seq: u64, event: RunEvent) -> LoggedEvent {
    LoggedEvent {
        seq,
        t_ms: seq,
        event,
    }
}
