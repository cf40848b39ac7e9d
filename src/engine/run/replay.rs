//! The replay model: answers requests from a recorded run's log. Used to
//! replay a run with no provider and to fork one (the first k calls come
//! from the log, the rest from a live model).

use super::event::{LoggedEvent, RunEvent};
use crate::engine::model::{Call, Completion};
use crate::engine::model::{
    ChatModel, ChatRequest, ChatResponse, DeltaSink, ModelError, StreamDelta,
};
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Clone, Debug)]
pub struct RecordedCall {
    pub call: u32,
    pub model: String,
    pub request: ChatRequest,
    pub deltas: Vec<String>,
    pub outcome: Result<ChatResponse, ModelError>,
}

/// Collects every LLM call of a log with its deltas and final outcome.
/// Calls that never completed (an interrupted run) are left out.
pub fn recorded_calls(events: &[LoggedEvent]) -> Vec<RecordedCall> {
    let mut calls: Vec<RecordedCall> = Vec::new();
    let mut open: Vec<RecordedCall> = Vec::new();
    for e in events {
        match &e.event {
            RunEvent::LlmRequest {
                call,
                model,
                request,
                ..
            } => open.push(RecordedCall {
                call: *call,
                model: model.clone(),
                request: request.clone(),
                deltas: Vec::new(),
                outcome: Err(ModelError::Cancelled),
            }),
            RunEvent::LlmDelta { call, text } => {
                if let Some(c) = open.iter_mut().find(|c| c.call == *call) {
                    c.deltas.push(text.clone());
                }
            }
            RunEvent::LlmRetry { call, .. } => {
                if let Some(c) = open.iter_mut().find(|c| c.call == *call) {
                    c.deltas.clear();
                }
            }
            RunEvent::LlmResponse { call, response, .. } => {
                if let Some(p) = open.iter().position(|c| c.call == *call) {
                    let mut c = open.remove(p);
                    c.outcome = Ok(response.clone());
                    calls.push(c);
                }
            }
            RunEvent::LlmFailed { call, error, .. } => {
                if let Some(p) = open.iter().position(|c| c.call == *call) {
                    let mut c = open.remove(p);
                    c.outcome = Err(error.clone());
                    calls.push(c);
                }
            }
            _ => {}
        }
    }
    calls.sort_by_key(|c| c.call);
    calls
}

pub struct ReplayModel {
    name: String,
    pending: RefCell<Vec<RecordedCall>>,
    fallback: Option<Rc<dyn ChatModel>>,
}

impl ReplayModel {
    /// Answers from the first `answer_first` recorded calls (all when `None`),
    /// then from `fallback` (an error when there is none).
    pub fn new(
        events: &[LoggedEvent],
        answer_first: Option<usize>,
        fallback: Option<Rc<dyn ChatModel>>,
    ) -> Self {
        let mut calls = recorded_calls(events);
        if let Some(k) = answer_first {
            calls.truncate(k);
        }
        let name = fallback
            .as_ref()
            .map(|m| m.name())
            .or_else(|| calls.first().map(|c| c.model.clone()))
            .unwrap_or_else(|| "replay".into());
        ReplayModel {
            name,
            pending: RefCell::new(calls),
            fallback,
        }
    }

    /// Recorded calls not used yet.
    pub fn remaining(&self) -> usize {
        self.pending.borrow().len()
    }

    /// Takes the first unused recorded call whose request equals `req`.
    fn take(&self, req: &ChatRequest) -> Option<RecordedCall> {
        let mut pending = self.pending.borrow_mut();
        let pos = pending.iter().position(|c| c.request.same_ask(req))?;
        Some(pending.remove(pos))
    }

    /// Answers `req` from the log if it is there: streams the recorded
    /// deltas and returns the recorded outcome, marked as replayed.
    pub fn answer_recorded(
        &self,
        req: &ChatRequest,
        sink: DeltaSink<'_>,
    ) -> Option<Result<ChatResponse, ModelError>> {
        let rec = self.take(req)?;
        for d in &rec.deltas {
            sink(StreamDelta::Text(d.clone()));
        }
        Some(rec.outcome.map(|mut r| {
            r.replayed = true;
            r
        }))
    }
}

impl ChatModel for ReplayModel {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a> {
        let Call { req, sink, cancel } = call;
        Box::pin(async move {
            if let Some(answer) = self.answer_recorded(req, sink) {
                return answer;
            }
            match &self.fallback {
                Some(m) => m.complete(Call::new(req, sink, cancel)).await,
                None => Err(ModelError::Malformed {
                    detail: "this request is not in the recorded run, and replay has no live model"
                        .into(),
                }),
            }
        })
    }
}
