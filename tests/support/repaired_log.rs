//! Run logs written by hand for the tests of "replies repaired" columns:
//! calls with their step tags, each answered, some repaired (a call named
//! twice gets two `reply_repaired` events: it is still one repaired reply),
//! and the batch runner's record of such a run. Included by the test
//! binaries that fold batches (`tests/act/`, `tests/travel/`, `tests/mael/`)
//! and `tests/engine_views.rs`.
#![allow(dead_code)]

use roundtable::engine::model::reply::{Repair, RepairKind};
use roundtable::engine::model::{ChatRequest, ChatResponse, Message};
use roundtable::engine::run::batch::Finished;
use roundtable::engine::run::event::FailReason;
use roundtable::engine::run::log::status_of;
use roundtable::engine::run::{LoggedEvent, RunConfig, RunEvent};

/// Call `i` asks with step tag `steps[i]` ("" for none) and is answered;
/// then one `reply_repaired` event per entry of `repaired` (a call number,
/// repeats allowed).
pub fn calls(steps: &[&str], repaired: &[u32]) -> Vec<RunEvent> {
    let mut out = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let mut request = ChatRequest::new(vec![Message::user("go")]);
        if !step.is_empty() {
            request = request.with_step(*step);
        }
        out.push(RunEvent::LlmRequest {
            call: i as u32,
            agent: "a".into(),
            model: "m".into(),
            request,
        });
        out.push(RunEvent::LlmResponse {
            call: i as u32,
            response: ChatResponse {
                text: "{\"half\": ".into(),
                ..ChatResponse::default()
            },
            latency_ms: 1,
            retries: 0,
        });
    }
    for call in repaired {
        out.push(RunEvent::ReplyRepaired {
            call: *call,
            repairs: vec![Repair::new(RepairKind::Closed, "cut-off JSON closed")],
        });
    }
    out
}

/// A failed run's last event.
pub fn failed() -> RunEvent {
    RunEvent::RunFailed {
        reason: FailReason {
            kind: "invalid_output".into(),
            message: "the reply could not be read".into(),
            model_error: None,
        },
    }
}

/// A finished run's last event.
pub fn done() -> RunEvent {
    RunEvent::RunFinished { output: None }
}

/// Events as a log (numbered, one millisecond apart).
pub fn logged(events: Vec<RunEvent>) -> Vec<LoggedEvent> {
    events
        .into_iter()
        .enumerate()
        .map(|(i, event)| LoggedEvent {
            seq: i as u64,
            t_ms: i as u64,
            event,
        })
        .collect()
}

/// Job `job` of a batch: `run_started` with `config`, then `events`;
/// ended as its last event says.
pub fn finished<T>(job: usize, tag: T, config: RunConfig, events: Vec<RunEvent>) -> Finished<T> {
    let started = RunEvent::RunStarted {
        config: config.clone(),
    };
    let events = logged(std::iter::once(started).chain(events).collect());
    Finished {
        job,
        tag,
        status: status_of(&events),
        config,
        events,
        cost_usd: 0.0,
        resumed: false,
    }
}

/// How many replies a log holds (its `llm_response` events).
pub fn replies(events: &[LoggedEvent]) -> u32 {
    events
        .iter()
        .filter(|e| matches!(e.event, RunEvent::LlmResponse { .. }))
        .count() as u32
}

/// A log's `reply_repaired` events as they are: (call, repairs), one per
/// event (a call named twice shows twice).
pub fn repaired(events: &[LoggedEvent]) -> Vec<(u32, Vec<Repair>)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::ReplyRepaired { call, repairs } => Some((*call, repairs.clone())),
            _ => None,
        })
        .collect()
}
