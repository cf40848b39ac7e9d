//! The transcript: what was said, by whom, to whom, as it streams; tool
//! calls with their results; phase markers; retries and failures; replies
//! the model did not end itself (cut at the token limit, stopped looping).

use super::Fold;
use crate::engine::model::reply::Repair;
use crate::engine::model::shape::StructuredMode;
use crate::engine::model::{ChatResponse, ModelError, ToolCall};
use crate::engine::run::event::{Audience, FailReason, LoggedEvent, RunEvent};
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
        /// What its step had to repair before it could use the reply
        /// (empty: read as written).
        repairs: Vec<Repair>,
        /// Why the model stopped early, when it did (from the response's
        /// finish reason).
        cut: Option<Cut>,
        /// How the model was held to its step's shape, when the step asked
        /// for one (the response says).
        structured: Option<StructuredMode>,
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

/// A reply the model did not end itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// It reached its longest answer: `tokens` written (`estimated`: the
    /// provider did not count them).
    Length { tokens: u64, estimated: bool },
    /// The local model kept writing the same passage and was stopped.
    Repeat,
    /// The user stopped the run while the model was answering: the reply
    /// ends where it was cut, and no step read it.
    Stopped,
}

impl Cut {
    /// From a response's finish reason: `length` (OpenAI-compatible
    /// servers and the local model) and `max_tokens` (Anthropic) are the
    /// token limit, `repeat` the local model's loop check.
    pub fn of(response: &ChatResponse) -> Option<Cut> {
        match response.finish_reason.as_deref()? {
            "length" | "max_tokens" => Some(Cut::Length {
                tokens: response.usage.output_tokens,
                estimated: response.usage.estimated,
            }),
            "repeat" => Some(Cut::Repeat),
            _ => None,
        }
    }
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
    /// Each call's temperature as asked (what a loop's mark advises on).
    temperatures: HashMap<u32, Option<f32>>,
    /// The run's repeat penalty (its first model's), if it set one.
    pub repeat_penalty: Option<f32>,
}

impl Transcript {
    /// The display names of `ids`, joined by commas.
    pub fn names_of(&self, ids: &[String]) -> String {
        ids.iter()
            .map(|a| self.name_of(a))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The temperature call `call` asked for (None: unknown or unset).
    pub fn temperature_of(&self, call: u32) -> Option<f32> {
        self.temperatures.get(&call).copied().flatten()
    }

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

    /// [`Self::update`] on the entry of LLM call `call`, when it has one.
    fn update_call(&mut self, call: u32, f: impl FnOnce(&mut EntryKind)) {
        if let Some(&idx) = self.by_call.get(&call) {
            self.update(idx, f);
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
            RunEvent::AgentAdded { agent, name, .. } => self.agent_added(agent, name),
            RunEvent::PhaseStarted { label, .. } => self.phase_started(seq, label),
            RunEvent::RunStarted { config } => {
                self.repeat_penalty = config
                    .models
                    .first()
                    .and_then(|b| b.spec.sampling.local.repeat_penalty);
            }
            RunEvent::LlmRequest {
                call,
                agent,
                request,
                ..
            } => {
                self.temperatures.insert(*call, request.params.temperature);
                self.llm_request(seq, *call, agent)
            }
            RunEvent::LlmDelta { call, text } => self.llm_delta(*call, text),
            RunEvent::LlmRetry {
                call,
                attempt,
                error,
                wait_ms,
            } => self.llm_retry(seq, *call, *attempt, error, *wait_ms),
            RunEvent::LlmResponse { call, response, .. } => self.llm_response(*call, response),
            RunEvent::LlmFailed { call, error, .. } => self.llm_failed(seq, *call, error),
            RunEvent::MessagePosted {
                from,
                to,
                text,
                call,
            } => self.message_posted(seq, from, to, text, *call),
            RunEvent::ToolCalled {
                id,
                agent,
                tool,
                args,
                ..
            } => self.tool_called(seq, id, agent, tool, args),
            RunEvent::ToolReturned { id, ok, output, .. } => self.tool_returned(id, *ok, output),
            RunEvent::Handoff { from, to, reason } => self.handoff(seq, from, to, reason),
            RunEvent::ReplyRepaired { call, repairs } => self.reply_repaired(*call, repairs),
            RunEvent::RunFinished { .. } => self.run_finished(seq),
            RunEvent::RunFailed { reason } => self.run_failed(seq, reason),
            RunEvent::RunCancelled { interrupted } => {
                self.run_cancelled(seq, interrupted.as_deref())
            }
            _ => {}
        }
    }
}

// One method per event kind, out of line (see `views::Fold`): `apply` is
// called for every event, streamed deltas included, and stays a small
// dispatcher.
impl Transcript {
    #[inline(never)]
    fn agent_added(&mut self, agent: &str, name: &str) {
        self.names.insert(agent.to_owned(), name.to_owned());
    }

    #[inline(never)]
    fn phase_started(&mut self, seq: u64, label: &str) {
        self.push(
            seq,
            EntryKind::Phase {
                label: label.to_owned(),
            },
        );
    }

    /// An LLM call starts: a message that shows its streamed text.
    #[inline(never)]
    fn llm_request(&mut self, seq: u64, call: u32, agent: &str) {
        let idx = self.push(
            seq,
            EntryKind::Message {
                from: agent.to_owned(),
                to: None,
                text: String::new(),
                call: Some(call),
                streaming: true,
                tool_calls: Vec::new(),
                repairs: Vec::new(),
                cut: None,
                structured: None,
            },
        );
        self.by_call.insert(call, idx);
    }

    #[inline(never)]
    fn llm_delta(&mut self, call: u32, delta: &str) {
        self.update_call(call, |k| {
            if let EntryKind::Message { text, .. } = k {
                text.push_str(delta);
            }
        });
    }

    /// A failed attempt: its streamed text goes, a warning says when it is
    /// tried again.
    #[inline(never)]
    fn llm_retry(&mut self, seq: u64, call: u32, attempt: u32, error: &ModelError, wait_ms: u64) {
        self.update_call(call, |k| {
            if let EntryKind::Message { text, .. } = k {
                text.clear();
            }
        });
        self.notice(
            seq,
            NoticeLevel::Warning,
            format!(
                "Attempt {attempt} failed ({}); retrying in {:.1} s.",
                error.kind().replace('_', " "),
                wait_ms as f64 / 1000.0
            ),
        );
    }

    #[inline(never)]
    fn llm_response(&mut self, call: u32, response: &ChatResponse) {
        self.update_call(call, |k| {
            if let EntryKind::Message {
                text,
                streaming,
                tool_calls,
                cut,
                structured,
                ..
            } = k
            {
                *text = response.text.clone();
                *streaming = false;
                *tool_calls = response.tool_calls.clone();
                *cut = Cut::of(response);
                *structured = response.structured;
            }
        });
    }

    #[inline(never)]
    fn reply_repaired(&mut self, call: u32, found: &[Repair]) {
        self.update_call(call, |k| {
            if let EntryKind::Message { repairs, .. } = k {
                repairs.extend_from_slice(found);
            }
        });
    }

    /// A call that failed; one the user stopped mid-answer is marked so
    /// (its text is cut short and no step read it).
    #[inline(never)]
    fn llm_failed(&mut self, seq: u64, call: u32, error: &ModelError) {
        let stopped = error.kind() == "cancelled";
        self.update_call(call, |k| {
            if let EntryKind::Message {
                streaming,
                text,
                cut,
                ..
            } = k
            {
                *streaming = false;
                if stopped && !text.is_empty() {
                    *cut = Some(Cut::Stopped);
                }
            }
        });
        if error.kind() != "cancelled" {
            self.notice(seq, NoticeLevel::Error, error.user_message());
        }
    }

    /// A message posted: the answer of the LLM call it links to, or a new
    /// message.
    #[inline(never)]
    fn message_posted(
        &mut self,
        seq: u64,
        from: &str,
        to: &Audience,
        text: &str,
        call: Option<u32>,
    ) {
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
                    *body = text.to_owned();
                    *streaming = false;
                }
            }),
            None => {
                self.push(
                    seq,
                    EntryKind::Message {
                        from: from.to_owned(),
                        to: Some(to.clone()),
                        text: text.to_owned(),
                        call: None,
                        streaming: false,
                        tool_calls: Vec::new(),
                        repairs: Vec::new(),
                        cut: None,
                        structured: None,
                    },
                );
            }
        }
    }

    #[inline(never)]
    fn tool_called(
        &mut self,
        seq: u64,
        id: &str,
        agent: &str,
        tool: &str,
        args: &serde_json::Value,
    ) {
        let idx = self.push(
            seq,
            EntryKind::Tool {
                id: id.to_owned(),
                agent: agent.to_owned(),
                tool: tool.to_owned(),
                args: args.clone(),
                output: None,
            },
        );
        self.by_tool.insert(id.to_owned(), idx);
    }

    #[inline(never)]
    fn tool_returned(&mut self, id: &str, ok: bool, output: &str) {
        if let Some(&idx) = self.by_tool.get(id) {
            self.update(idx, |k| {
                if let EntryKind::Tool { output: o, .. } = k {
                    *o = Some((ok, output.to_owned()));
                }
            });
        }
    }

    #[inline(never)]
    fn handoff(&mut self, seq: u64, from: &str, to: &str, reason: &str) {
        self.push(
            seq,
            EntryKind::Handoff {
                from: from.to_owned(),
                to: to.to_owned(),
                reason: reason.to_owned(),
            },
        );
    }

    #[inline(never)]
    fn run_finished(&mut self, seq: u64) {
        self.notice(seq, NoticeLevel::Success, "Run finished.".into());
    }

    #[inline(never)]
    fn run_failed(&mut self, seq: u64, reason: &FailReason) {
        self.notice(
            seq,
            NoticeLevel::Error,
            format!("Run failed: {}", reason.message),
        );
    }

    #[inline(never)]
    fn run_cancelled(&mut self, seq: u64, interrupted: Option<&str>) {
        self.stop_streaming();
        let text = match interrupted {
            Some(by) => format!(
                "Run interrupted ({by}): what it did is kept. Fork it at its last call to go on."
            ),
            None => "Run stopped.".into(),
        };
        self.notice(seq, NoticeLevel::Info, text);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::Usage;

    fn response(finish: Option<&str>, output_tokens: u64, estimated: bool) -> ChatResponse {
        ChatResponse {
            text: "An answer".into(),
            usage: Usage {
                input_tokens: 10,
                output_tokens,
                estimated,
            },
            finish_reason: finish.map(String::from),
            ..ChatResponse::default()
        }
    }

    fn cut_after(resp: &ChatResponse) -> Option<Cut> {
        let mut t = Transcript::default();
        t.llm_request(0, 0, "a");
        t.llm_response(0, resp);
        match &t.entries[0].kind {
            EntryKind::Message { cut, .. } => *cut,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_reply_cut_at_its_limit_or_stopped_looping_says_so() {
        let length = Some(Cut::Length {
            tokens: 48,
            estimated: false,
        });
        // OpenAI-compatible servers and the local model, then Anthropic.
        assert_eq!(cut_after(&response(Some("length"), 48, false)), length);
        assert_eq!(cut_after(&response(Some("max_tokens"), 48, false)), length);
        assert_eq!(
            cut_after(&response(Some("length"), 12, true)),
            Some(Cut::Length {
                tokens: 12,
                estimated: true
            })
        );
        assert_eq!(
            cut_after(&response(Some("repeat"), 30, false)),
            Some(Cut::Repeat)
        );
        for ended in [Some("stop"), Some("end_turn"), Some("tool_calls"), None] {
            assert_eq!(cut_after(&response(ended, 48, false)), None, "{ended:?}");
        }
    }
}
