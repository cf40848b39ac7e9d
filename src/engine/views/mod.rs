//! Views: pure folds over the event log (`*.rs` here), and their renderings
//! as HTML and SVG (`html/`). The UI shows these; replay folds a prefix of
//! the log; tests assert on them. Every view here is generic: it reads the
//! events every coordinator records. A coordinator's own views (its stores'
//! payloads) live in its folder (`coordinators/<name>/view.rs`, `html/`).

pub mod compare;
pub mod compare_report;
pub mod diff;
pub mod events;
pub mod export;
pub mod files;
pub mod graph;
pub mod highlight;
pub mod html;
pub mod inspector;
pub mod record;
pub mod repairs;
pub mod sampling;
pub mod timeline;
pub mod transcript;
pub mod usage;

use crate::engine::run::event::{LoggedEvent, RunEvent};
use crate::engine::run::log::RunStatus;
use std::collections::BTreeMap;

/// A view that is built by applying events one at a time.
pub trait Fold: Default {
    /// Called for every event, streamed deltas included (most of a log).
    /// Keep it a small dispatcher with heavy arms out of line
    /// (`#[inline(never)]`; scripts/build-wasm.sh keeps binaryen from
    /// merging big functions back): in the browser V8 charges a call the
    /// size of the function's code up to its return, whatever path it
    /// took, and recompiles a function charged enough with its optimising
    /// compiler on a worker thread. ACT's 35 KB `apply` was recompiled
    /// while a link opened, taking a core from the page (83 ms of CPU).
    fn apply(&mut self, ev: &LoggedEvent);

    /// The view of a whole log (or a prefix of it).
    fn of(events: &[LoggedEvent]) -> Self {
        let mut v = Self::default();
        for e in events {
            v.apply(e);
        }
        v
    }
}

/// A note's payload as `T` when it is a JSON object that parses, else None
/// (a coordinator's view skips payloads of old or shared runs that do not).
pub fn parse_object<T: serde::de::DeserializeOwned>(v: &serde_json::Value) -> Option<T> {
    v.is_object()
        .then(|| serde_json::from_value(v.clone()).ok())
        .flatten()
}

/// A view kept up to date with a log that grows, and is sometimes replaced
/// or cut (another run shown, the replay cursor moved back): [`Folded::sync`]
/// applies only the new events while the log grows, and folds from the
/// start otherwise.
#[derive(Clone, Debug)]
pub struct Folded<V> {
    /// Which log it was folded from (any number that changes when the log
    /// is replaced).
    serial: u64,
    /// Events applied.
    len: usize,
    view: V,
}

impl<V: Fold> Default for Folded<V> {
    fn default() -> Self {
        Folded {
            serial: u64::MAX,
            len: 0,
            view: V::default(),
        }
    }
}

impl<V: Fold> Folded<V> {
    /// Brings the view to `events` of the log numbered `serial`, and returns it.
    pub fn sync(&mut self, serial: u64, events: &[LoggedEvent]) -> &V {
        if serial != self.serial || events.len() < self.len {
            *self = Folded::default();
            self.serial = serial;
        }
        for e in &events[self.len..] {
            self.view.apply(e);
        }
        self.len = events.len();
        &self.view
    }
}

/// Where the run stands and, when it ended badly, why.
#[derive(Clone, Debug, PartialEq)]
pub struct StatusView {
    pub status: RunStatus,
    pub started: bool,
    pub error: Option<String>,
    /// The failure's kind (`model`, `spend_cap`, …).
    pub error_kind: Option<String>,
    pub events: usize,
    pub llm_calls: usize,
    /// Replies received, and the calls whose replies their steps had to
    /// repair or could not read (see `repair_count`).
    pub replies: usize,
    pub repaired: std::collections::BTreeSet<u32>,
    /// The run was recorded by a version that flags repaired replies
    /// (older runs show no count: their repairs were never recorded).
    pub repairs_recorded: bool,
    answered: std::collections::BTreeSet<u32>,
    /// Calls whose replies could not be read at all (the step used a stated
    /// default or asked again).
    pub unreadable: std::collections::BTreeSet<u32>,
    /// Calls whose replies stopped at their token limit, with the tokens
    /// they had written.
    cut_at_limit: BTreeMap<u32, u64>,
    /// Calls that failed for good (`llm_failed`), and those a stop cut off.
    pub failed: usize,
    pub stopped: usize,
    /// Per agent, calls waiting for a free slot (`llm_queued` not yet
    /// followed by that agent's `llm_request`).
    queued: BTreeMap<String, usize>,
    pub elapsed_ms: u64,
    /// Notes written so far, per store (a coordinator's tab shows its count).
    pub notes: BTreeMap<String, usize>,
    /// Files written so far (`file_written` events, refused ones too: the
    /// Files tab shows once there is one, and counts what its workspace holds).
    pub files_written: usize,
}

impl Default for StatusView {
    fn default() -> Self {
        StatusView {
            status: RunStatus::Running,
            started: false,
            error: None,
            error_kind: None,
            events: 0,
            llm_calls: 0,
            replies: 0,
            repaired: Default::default(),
            repairs_recorded: false,
            answered: Default::default(),
            unreadable: Default::default(),
            cut_at_limit: BTreeMap::new(),
            failed: 0,
            stopped: 0,
            queued: BTreeMap::new(),
            elapsed_ms: 0,
            notes: BTreeMap::new(),
            files_written: 0,
        }
    }
}

impl StatusView {
    /// Calls sent to a model and not yet answered or failed (running now,
    /// or cut off by a stop).
    pub fn unanswered(&self) -> usize {
        self.llm_calls
            .saturating_sub(self.replies + self.failed + self.stopped)
    }

    /// How a run that will not reach its end ended, for the panels that
    /// wait for the end ("The run {was stopped} before …"); None while it
    /// runs or once it finished.
    pub fn ended_early(&self) -> Option<&'static str> {
        match self.status {
            RunStatus::Cancelled => Some("was stopped"),
            RunStatus::Failed if self.error_kind.as_deref() == Some("spend_cap") => {
                Some("stopped at its spend cap")
            }
            RunStatus::Failed => Some("failed"),
            RunStatus::Running | RunStatus::Finished => None,
        }
    }

    /// The replies received, repaired and unreadable (the status line's
    /// count; every unreadable reply is also in `repaired`, the set of
    /// flagged calls).
    pub fn repair_count(&self) -> repairs::RepairCount {
        let unreadable = self.unreadable.len() as u32;
        repairs::RepairCount {
            replies: self.replies as u32,
            repaired: (self.repaired.len() as u32).saturating_sub(unreadable),
            unreadable,
        }
    }

    /// Once most replies (at least 4) could not be read: how many of how
    /// many, for a run-level notice (the model is not up to the steps).
    pub fn mostly_unreadable(&self) -> Option<(usize, usize)> {
        let n = self.unreadable.len();
        (self.replies >= 4 && n * 2 > self.replies).then_some((n, self.replies))
    }

    /// Of the unreadable replies, how many stopped at their token limit,
    /// and the most tokens such a reply had written: when that is most of
    /// them, the cap is the cause, not the model's way with formats.
    pub fn unreadable_at_limit(&self) -> Option<(usize, u64)> {
        let cut: Vec<u64> = self
            .unreadable
            .iter()
            .filter_map(|c| self.cut_at_limit.get(c).copied())
            .collect();
        (cut.len() * 2 > self.unreadable.len())
            .then(|| (cut.len(), cut.iter().copied().max().unwrap_or(0)))
    }

    /// Calls waiting for a free slot (not yet sent).
    pub fn queued(&self) -> usize {
        self.queued.values().sum()
    }

    /// The status line's count of calls: answered ones (as Usage counts
    /// them), then, while `live`, those running and those waiting their
    /// turn, else those left unanswered; and those a stop cut off and
    /// failed ones. "1 LLM call · 2 running · 3 waiting for a slot".
    pub fn calls_line(&self, live: bool) -> String {
        let open = self.unanswered();
        let open = if live {
            [(open, "running"), (self.queued(), "waiting for a slot")]
        } else {
            [(open, "unanswered"), (0, "")]
        };
        calls_words(self.replies, &open, self.stopped, self.failed)
    }
}

/// A run's calls in words, one definition for the status line and History:
/// the answered ones, as Usage counts them ("7 LLM calls"), then those
/// still open (`open`: how many, and what they are doing), those a stop cut
/// off and those that failed, each only when there are some.
pub fn calls_words(
    answered: usize,
    open: &[(usize, &str)],
    stopped: usize,
    failed: usize,
) -> String {
    let mut line = format!(
        "{answered} LLM call{}",
        if answered == 1 { "" } else { "s" }
    );
    let rest = open
        .iter()
        .copied()
        .chain([(stopped, "stopped"), (failed, "failed")]);
    for (n, what) in rest.filter(|(n, _)| *n > 0) {
        line.push_str(&format!(" · {n} {what}"));
    }
    line
}

impl Fold for StatusView {
    fn apply(&mut self, ev: &LoggedEvent) {
        self.events += 1;
        self.elapsed_ms = ev.t_ms;
        match &ev.event {
            RunEvent::RunStarted { config } => {
                self.started = true;
                self.repairs_recorded = config.repairs_recorded;
            }
            RunEvent::LlmQueued { agent } => *self.queued.entry(agent.clone()).or_insert(0) += 1,
            RunEvent::LlmRequest { agent, .. } => {
                self.llm_calls += 1;
                if let Some(n) = self.queued.get_mut(agent) {
                    *n = n.saturating_sub(1);
                }
            }
            RunEvent::LlmFailed {
                error: crate::engine::model::ModelError::Cancelled,
                ..
            } => self.stopped += 1,
            RunEvent::LlmFailed { .. } => self.failed += 1,
            RunEvent::LlmResponse { call, response, .. } => {
                self.replies += 1;
                self.answered.insert(*call);
                if matches!(
                    response.finish_reason.as_deref(),
                    Some("length" | "max_tokens")
                ) {
                    self.cut_at_limit
                        .insert(*call, response.usage.output_tokens);
                }
            }
            // A reply is repaired after it came (never "5 of 3" from an
            // imported file naming calls that never answered).
            RunEvent::ReplyRepaired { call, repairs } if self.answered.contains(call) => {
                self.repaired.insert(*call);
                if repairs.iter().any(|r| r.kind.unreadable()) {
                    self.unreadable.insert(*call);
                }
            }
            RunEvent::NoteWritten { store, .. } => {
                *self.notes.entry(store.clone()).or_insert(0) += 1;
            }
            RunEvent::FileWritten { .. } => self.files_written += 1,
            RunEvent::RunFinished { .. } => self.status = RunStatus::Finished,
            RunEvent::RunFailed { reason } => {
                self.status = RunStatus::Failed;
                self.error = Some(reason.message.clone());
                self.error_kind = Some(reason.kind.clone());
            }
            RunEvent::RunCancelled { .. } => self.status = RunStatus::Cancelled,
            _ => {}
        }
    }
}

/// The views every run page shows, updated together as events arrive (the
/// app folds these in its core module; panels that load later fold their
/// own views, e.g. the inspector and a coordinator's tabs).
#[derive(Clone, Debug, Default)]
pub struct RunView {
    pub status: StatusView,
    pub transcript: transcript::Transcript,
    pub graph: graph::AgentGraph,
    pub usage: usage::UsageView,
}

impl Fold for RunView {
    fn apply(&mut self, ev: &LoggedEvent) {
        self.status.apply(ev);
        self.transcript.apply(ev);
        self.graph.apply(ev);
        self.usage.apply(ev);
    }
}

/// Two views folded together (e.g. a coordinator's view and the inspector).
impl<A: Fold, B: Fold> Fold for (A, B) {
    fn apply(&mut self, ev: &LoggedEvent) {
        self.0.apply(ev);
        self.1.apply(ev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::retry::SplitMix;
    use crate::engine::run::random::random_run;

    fn logged(events: Vec<RunEvent>) -> Vec<LoggedEvent> {
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

    fn request(call: u32, agent: &str) -> RunEvent {
        RunEvent::LlmRequest {
            call,
            agent: agent.into(),
            model: "m".into(),
            request: crate::engine::model::ChatRequest::new(vec![]),
        }
    }

    fn response(call: u32) -> RunEvent {
        RunEvent::LlmResponse {
            call,
            response: Default::default(),
            latency_ms: 1,
            retries: 0,
        }
    }

    /// The status line counts answered calls (as Usage does), then those
    /// running and waiting while live, those left unanswered once ended,
    /// and failed ones.
    #[test]
    fn the_status_counts_answered_running_waiting_unanswered_and_failed_calls() {
        let queued = |agent: &str| RunEvent::LlmQueued {
            agent: agent.into(),
        };
        let mut log = vec![
            request(0, "a"),
            queued("b"),
            queued("c"),
            response(0),
            request(1, "b"),
        ];
        let s = StatusView::of(&logged(log.clone()));
        assert_eq!((s.replies, s.unanswered(), s.queued()), (1, 1, 1));
        assert_eq!(
            s.calls_line(true),
            "1 LLM call · 1 running · 1 waiting for a slot"
        );
        log.push(RunEvent::LlmFailed {
            call: 1,
            error: crate::engine::model::ModelError::Timeout { after_ms: 1 },
            retries: 0,
        });
        log.push(request(2, "c"));
        log.push(request(3, "a"));
        log.push(RunEvent::LlmFailed {
            call: 3,
            error: crate::engine::model::ModelError::Cancelled,
            retries: 0,
        });
        log.push(RunEvent::RunCancelled { interrupted: None });
        let s = StatusView::of(&logged(log));
        assert_eq!(
            s.calls_line(false),
            "1 LLM call · 1 unanswered · 1 stopped · 1 failed"
        );
        assert_eq!(s.ended_early(), Some("was stopped"));
        let s = StatusView::of(&logged(vec![
            request(0, "a"),
            response(0),
            request(1, "a"),
            response(1),
        ]));
        assert_eq!(s.calls_line(true), "2 LLM calls");
        assert_eq!(s.ended_early(), None, "running: the end may still come");
    }

    #[test]
    fn most_replies_unreadable_is_noticed_from_four_replies_on() {
        use crate::engine::model::reply::{Repair, RepairKind};
        let flag = |call: u32, kind: RepairKind| RunEvent::ReplyRepaired {
            call,
            repairs: vec![Repair::new(kind, "x")],
        };
        let mut log = Vec::new();
        for c in 0..4 {
            log.push(request(c, "a"));
            log.push(response(c));
        }
        log.push(flag(0, RepairKind::Default));
        log.push(flag(1, RepairKind::AskedAgain));
        log.push(flag(2, RepairKind::Fence));
        let s = StatusView::of(&logged(log.clone()));
        assert_eq!(
            s.mostly_unreadable(),
            None,
            "2 of 4 is not most; a stripped fence was read"
        );
        log.push(flag(3, RepairKind::Default));
        assert_eq!(
            StatusView::of(&logged(log.clone())).mostly_unreadable(),
            Some((3, 4))
        );
        let three: Vec<_> = log[..6]
            .iter()
            .cloned()
            .chain([flag(0, RepairKind::Default), flag(1, RepairKind::Default)])
            .collect();
        assert_eq!(
            StatusView::of(&logged(three)).mostly_unreadable(),
            None,
            "too few replies to say"
        );
    }

    #[test]
    fn a_run_that_did_not_finish_says_how_it_ended() {
        let failed = |kind: &str| {
            StatusView::of(&logged(vec![RunEvent::RunFailed {
                reason: crate::engine::run::event::FailReason {
                    kind: kind.into(),
                    message: "m".into(),
                    model_error: None,
                },
            }]))
        };
        assert_eq!(failed("model").ended_early(), Some("failed"));
        assert_eq!(
            failed("spend_cap").ended_early(),
            Some("stopped at its spend cap")
        );
        let finished = StatusView::of(&logged(vec![RunEvent::RunFinished { output: None }]));
        assert_eq!(finished.ended_early(), None);
    }

    #[test]
    fn folded_matches_a_fold_from_scratch_as_the_log_grows_is_cut_and_replaced() {
        let a = random_run(&mut SplitMix::new(7), 300).events;
        let b = random_run(&mut SplitMix::new(8), 300).events;
        assert!(a.len() > 120 && !b.is_empty());
        let mut f = Folded::<(transcript::Transcript, inspector::InspectorView)>::default();
        for k in [0, 1, 50, 51, 120, a.len()] {
            assert_eq!(f.sync(1, &a[..k]).0, transcript::Transcript::of(&a[..k]));
        }
        // The replay cursor goes back: folded again from the start.
        assert_eq!(
            f.sync(1, &a[..40]).1,
            inspector::InspectorView::of(&a[..40])
        );
        // Another run of the same length or longer: the serial tells.
        assert_eq!(f.sync(2, &b).1, inspector::InspectorView::of(&b));
        let mut status = Folded::<StatusView>::default();
        status.sync(1, &a);
        assert_eq!(
            status.sync(1, &a).events,
            a.len(),
            "a second sync applies nothing twice"
        );
    }
}
