//! Forking a run at LLM call k: calls before k are answered from the parent
//! run's log (no cost), call k may carry the user's edit (a rewritten answer,
//! or rewritten request messages sent live), and every later call goes to
//! the live model.

use super::config::RunConfig;
use super::event::LoggedEvent;
use super::replay::{recorded_calls, ReplayModel};
use crate::engine::model::spec::ModelSpec;
use crate::engine::model::{Call, Completion};
use crate::engine::model::{ChatModel, ChatRequest, ChatResponse, Message, StreamDelta, Usage};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

/// What the user changed at the fork point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ForkEdit {
    /// Continue unchanged: call k goes live as it was recorded.
    None,
    /// Use this answer for call k instead of asking a model.
    Response { text: String },
    /// Send call k live with these messages instead of the recorded ones.
    Request { messages: Vec<Message> },
}

/// The model a fork of `parent` runs on: the one the user chose, with the
/// parent's sampling (temperature, answer length). The run fills both into
/// every request, and the log answers only requests equal to the recorded
/// ones: with other sampling, call 0 would already miss the log and be
/// taken for the fork point. A local model's fork of a local model's run
/// also samples as the parent did (top-k, top-p, min-p, repeat penalty).
pub fn fork_spec(parent: &RunConfig, mut chosen: ModelSpec) -> ModelSpec {
    if let Some(p) = parent.main_model() {
        chosen.sampling.temperature = p.sampling.temperature;
        chosen.max_tokens = p.max_tokens;
        if chosen.is_local() && p.is_local() {
            chosen.sampling.local = p.sampling.local.clone();
        }
    }
    chosen
}

/// Where Continue picks up a stopped run (the page's History, the CLI's
/// `run --continue`): the number of its calls answered from its log. Every
/// call it completed is, except failed ones at its end: a run stopped by a
/// network error asks that call again, live.
pub fn continue_point(events: &[LoggedEvent]) -> u32 {
    let calls = recorded_calls(events);
    let failed_at_end = calls
        .iter()
        .rev()
        .take_while(|c| c.outcome.is_err())
        .count();
    (calls.len() - failed_at_end) as u32
}

pub struct ForkModel {
    log: ReplayModel,
    live: Rc<dyn ChatModel>,
    edit: RefCell<Option<ForkEdit>>,
}

impl ForkModel {
    /// `fork_call` = k: the number of calls answered from `parent_events`.
    pub fn new(
        parent_events: &[LoggedEvent],
        fork_call: usize,
        edit: ForkEdit,
        live: Rc<dyn ChatModel>,
    ) -> Self {
        ForkModel {
            log: ReplayModel::new(parent_events, Some(fork_call), None),
            live,
            edit: RefCell::new(Some(edit)),
        }
    }
}

impl ChatModel for ForkModel {
    fn name(&self) -> String {
        self.live.name()
    }

    fn reports_usage(&self) -> bool {
        self.live.reports_usage()
    }

    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a> {
        let Call { req, sink, cancel } = call;
        Box::pin(async move {
            if let Some(answer) = self.log.answer_recorded(req, sink) {
                return answer;
            }
            // The first request the log cannot answer is the fork point.
            let edit = self.edit.borrow_mut().take();
            match edit {
                Some(ForkEdit::Response { text }) => {
                    sink(StreamDelta::Text(text.clone()));
                    Ok(ChatResponse {
                        text,
                        usage: Usage {
                            estimated: true,
                            ..Usage::default()
                        },
                        finish_reason: Some("edited".into()),
                        replayed: true,
                        structured: None,
                        ..ChatResponse::default()
                    })
                }
                Some(ForkEdit::Request { messages }) => {
                    let edited = ChatRequest {
                        messages,
                        ..req.clone()
                    };
                    self.live.complete(Call::new(&edited, sink, cancel)).await
                }
                Some(ForkEdit::None) | None => {
                    self.live.complete(Call::new(req, sink, cancel)).await
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::ModelError;
    use crate::engine::run::event::{ev, RunEvent};

    fn call(seq: &mut u64, n: u32, ok: bool) -> Vec<LoggedEvent> {
        *seq += 2;
        let request = RunEvent::LlmRequest {
            call: n,
            agent: "a".into(),
            model: "m".into(),
            request: ChatRequest::default(),
        };
        let end = if ok {
            RunEvent::LlmResponse {
                call: n,
                response: ChatResponse::default(),
                latency_ms: 1,
                retries: 0,
            }
        } else {
            RunEvent::LlmFailed {
                call: n,
                error: ModelError::Cancelled,
                retries: 0,
            }
        };
        vec![ev(*seq - 1, request), ev(*seq, end)]
    }

    #[test]
    fn continue_takes_every_completed_call_but_failures_at_the_end() {
        let mut seq = 0;
        let mut log = Vec::new();
        for (n, ok) in [(0, true), (1, false), (2, true)] {
            log.extend(call(&mut seq, n, ok));
        }
        // A failure in the middle was part of the run: replayed as it was.
        assert_eq!(continue_point(&log), 3);
        log.extend(call(&mut seq, 3, false));
        log.extend(call(&mut seq, 4, false));
        assert_eq!(continue_point(&log), 3, "failed calls at the end go live");
        // A call under way when the run stopped is not among them.
        log.push(ev(
            seq + 1,
            RunEvent::LlmRequest {
                call: 5,
                agent: "a".into(),
                model: "m".into(),
                request: ChatRequest::default(),
            },
        ));
        assert_eq!(continue_point(&log), 3);
        assert_eq!(continue_point(&[]), 0);
    }
}
