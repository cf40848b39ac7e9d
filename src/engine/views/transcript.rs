//! The transcript: what was said, by whom, to whom, as it streams; tool
//! calls with their results; phase markers; retries and failures.

use super::Fold;
use crate::engine::model::ToolCall;
use crate::engine::run::event::{Audience, LoggedEvent, RunEvent};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
    Success,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EntryKind {
    /// Text from an agent (or the user). `call` links it to an LLM call, whose
    /// streamed text it shows while `streaming`.
    Message {
        from: String,
        /// Recipients; `None` until posted (a private LLM answer).
        to: Option<Audience>,
        text: String,
        call: Option<u32>,
        streaming: bool,
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        id: String,
        agent: String,
        tool: String,
        args: serde_json::Value,
        output: Option<(bool, String)>,
    },
    Handoff {
        from: String,
        to: String,
        reason: String,
    },
    Phase {
        label: String,
    },
    Notice {
        level: NoticeLevel,
        text: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Stable id: the sequence number of the event that created the entry.
    pub id: u64,
    /// Bumped whenever the entry changes (lets the UI re-render only it).
    pub version: u32,
    pub kind: EntryKind,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Transcript {
    pub entries: Vec<Entry>,
    /// Display names by agent id.
    pub names: HashMap<String, String>,
    by_call: HashMap<u32, usize>,
    by_tool: HashMap<String, usize>,
}

impl Transcript {
    pub fn name_of<'a>(&'a self, id: &'a str) -> &'a str {
        if id == "user" {
            return "You";
        }
        self.names.get(id).map(String::as_str).unwrap_or(id)
    }

    fn push(&mut self, id: u64, kind: EntryKind) -> usize {
        self.entries.push(Entry {
            id,
            version: 0,
            kind,
        });
        self.entries.len() - 1
    }

    fn update(&mut self, idx: usize, f: impl FnOnce(&mut EntryKind)) {
        if let Some(e) = self.entries.get_mut(idx) {
            f(&mut e.kind);
            e.version += 1;
        }
    }

    fn notice(&mut self, id: u64, level: NoticeLevel, text: String) {
        self.push(id, EntryKind::Notice { level, text });
    }
}

impl Fold for Transcript {
    fn apply(&mut self, ev: &LoggedEvent) {
        let seq = ev.seq;
        match &ev.event {
            RunEvent::AgentAdded { agent, name, .. } => {
                self.names.insert(agent.clone(), name.clone());
            }
            RunEvent::PhaseStarted { label, .. } => {
                self.push(
                    seq,
                    EntryKind::Phase {
                        label: label.clone(),
                    },
                );
            }
            RunEvent::LlmRequest { call, agent, .. } => {
                let idx = self.push(
                    seq,
                    EntryKind::Message {
                        from: agent.clone(),
                        to: None,
                        text: String::new(),
                        call: Some(*call),
                        streaming: true,
                        tool_calls: Vec::new(),
                    },
                );
                self.by_call.insert(*call, idx);
            }
            RunEvent::LlmDelta { call, text: delta } => {
                if let Some(&idx) = self.by_call.get(call) {
                    self.update(idx, |k| {
                        if let EntryKind::Message { text, .. } = k {
                            text.push_str(delta);
                        }
                    });
                }
            }
            RunEvent::LlmRetry {
                call,
                attempt,
                error,
                wait_ms,
            } => {
                if let Some(&idx) = self.by_call.get(call) {
                    self.update(idx, |k| {
                        if let EntryKind::Message { text, .. } = k {
                            text.clear();
                        }
                    });
                }
                self.notice(
                    seq,
                    NoticeLevel::Warning,
                    format!(
                        "Attempt {attempt} failed ({}); retrying in {:.1} s.",
                        error.kind().replace('_', " "),
                        *wait_ms as f64 / 1000.0
                    ),
                );
            }
            RunEvent::LlmResponse { call, response, .. } => {
                if let Some(&idx) = self.by_call.get(call) {
                    self.update(idx, |k| {
                        if let EntryKind::Message {
                            text,
                            streaming,
                            tool_calls,
                            ..
                        } = k
                        {
                            *text = response.text.clone();
                            *streaming = false;
                            *tool_calls = response.tool_calls.clone();
                        }
                    });
                }
            }
            RunEvent::LlmFailed { call, error, .. } => {
                if let Some(&idx) = self.by_call.get(call) {
                    self.update(idx, |k| {
                        if let EntryKind::Message { streaming, .. } = k {
                            *streaming = false;
                        }
                    });
                }
                if error.kind() != "cancelled" {
                    self.notice(seq, NoticeLevel::Error, error.user_message());
                }
            }
            RunEvent::MessagePosted {
                from,
                to,
                text,
                call,
            } => {
                let linked = call.and_then(|c| self.by_call.get(&c).copied());
                match linked {
                    Some(idx) => self.update(idx, |k| {
                        if let EntryKind::Message {
                            to: t,
                            text: body,
                            streaming,
                            ..
                        } = k
                        {
                            *t = Some(to.clone());
                            *body = text.clone();
                            *streaming = false;
                        }
                    }),
                    None => {
                        self.push(
                            seq,
                            EntryKind::Message {
                                from: from.clone(),
                                to: Some(to.clone()),
                                text: text.clone(),
                                call: None,
                                streaming: false,
                                tool_calls: Vec::new(),
                            },
                        );
                    }
                }
            }
            RunEvent::ToolCalled {
                id,
                agent,
                tool,
                args,
                ..
            } => {
                let idx = self.push(
                    seq,
                    EntryKind::Tool {
                        id: id.clone(),
                        agent: agent.clone(),
                        tool: tool.clone(),
                        args: args.clone(),
                        output: None,
                    },
                );
                self.by_tool.insert(id.clone(), idx);
            }
            RunEvent::ToolReturned { id, ok, output, .. } => {
                if let Some(&idx) = self.by_tool.get(id) {
                    self.update(idx, |k| {
                        if let EntryKind::Tool { output: o, .. } = k {
                            *o = Some((*ok, output.clone()));
                        }
                    });
                }
            }
            RunEvent::Handoff { from, to, reason } => {
                self.push(
                    seq,
                    EntryKind::Handoff {
                        from: from.clone(),
                        to: to.clone(),
                        reason: reason.clone(),
                    },
                );
            }
            RunEvent::RunFinished { .. } => {
                self.notice(seq, NoticeLevel::Success, "Run finished.".into());
            }
            RunEvent::RunFailed { reason } => {
                self.notice(
                    seq,
                    NoticeLevel::Error,
                    format!("Run failed: {}", reason.message),
                );
            }
            RunEvent::RunCancelled {} => {
                self.stop_streaming();
                self.notice(seq, NoticeLevel::Info, "Run stopped.".into());
            }
            _ => {}
        }
    }
}

impl Transcript {
    fn stop_streaming(&mut self) {
        let open: Vec<usize> = self.by_call.values().copied().collect();
        for idx in open {
            self.update(idx, |k| {
                if let EntryKind::Message { streaming, .. } = k {
                    *streaming = false;
                }
            });
        }
    }
}
