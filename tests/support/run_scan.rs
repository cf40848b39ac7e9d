//! A run's log scanned for its model calls, as the tests of repaired
//! replies check them: every answered call (its step, request and
//! response), the calls its `reply_repaired` events name and whether each
//! of those answered; whether a request carried a text; and the run files
//! the CLI writes, read from disk. Included by `tests/hostile_server.rs`,
//! `tests/real_model.rs`, `tests/act/`, `tests/mael/` and `tests/travel/`
//! (`repaired_log.rs` has the repairs themselves and logs written by hand).
#![allow(dead_code)]

use roundtable::engine::model::{ChatRequest, ChatResponse};
use roundtable::engine::run::{LoggedEvent, RunDoc, RunEvent};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A call that answered: its number, the request it made (None when the
/// log holds none before the answer) and its response.
pub struct Answered<'a> {
    pub call: u32,
    pub request: Option<&'a ChatRequest>,
    pub response: &'a ChatResponse,
}

impl Answered<'_> {
    /// The request's step tag ("" for none).
    pub fn step(&self) -> &str {
        self.request
            .and_then(|r| r.step.as_deref())
            .unwrap_or_default()
    }

    /// The reply's text.
    pub fn reply(&self) -> &str {
        &self.response.text
    }
}

/// Whether any request of `events` carried `text` in a message.
pub fn told(events: &[LoggedEvent], text: &str) -> bool {
    events.iter().any(|e| match &e.event {
        RunEvent::LlmRequest { request, .. } => {
            request.messages.iter().any(|m| m.content.contains(text))
        }
        _ => false,
    })
}

/// Every `llm_response` of a log, in order, with its call's request.
pub fn answered(events: &[LoggedEvent]) -> Vec<Answered<'_>> {
    let mut asked: HashMap<u32, &ChatRequest> = HashMap::new();
    let mut out = Vec::new();
    for e in events {
        match &e.event {
            RunEvent::LlmRequest { call, request, .. } => {
                asked.insert(*call, request);
            }
            RunEvent::LlmResponse { call, response, .. } => out.push(Answered {
                call: *call,
                request: asked.get(call).copied(),
                response,
            }),
            _ => {}
        }
    }
    out
}

/// The calls a log's `reply_repaired` events name: the repaired replies
/// (a call named twice is one).
pub fn repaired_calls(events: &[LoggedEvent]) -> BTreeSet<u32> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::ReplyRepaired { call, .. } => Some(*call),
            _ => None,
        })
        .collect()
}

/// The calls whose replies their steps could not read (a repair that used
/// a default or asked again).
pub fn unreadable_calls(events: &[LoggedEvent]) -> BTreeSet<u32> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::ReplyRepaired { call, repairs }
                if repairs.iter().any(|r| r.kind.unreadable()) =>
            {
                Some(*call)
            }
            _ => None,
        })
        .collect()
}

/// The repaired calls that never answered: none, when every repair names
/// an answered call.
pub fn unanswered_repairs(events: &[LoggedEvent]) -> BTreeSet<u32> {
    let answered: BTreeSet<u32> = answered(events).iter().map(|a| a.call).collect();
    repaired_calls(events)
        .difference(&answered)
        .copied()
        .collect()
}

/// The files in `dir` (a run's or a batch's output folder), by name.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the runs' folder")
        .flatten()
        .map(|entry| entry.path())
        .collect();
    out.sort();
    out
}

/// The run file the CLI wrote at `path`; panics, naming `what` and the
/// file, when it cannot be read or is not a run file.
pub fn read_run(what: &str, path: &Path) -> RunDoc {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{what}: {}: {e}", path.display()));
    RunDoc::from_json(&text)
        .unwrap_or_else(|e| panic!("{what}: {} is not a run file: {e}", path.display()))
}
