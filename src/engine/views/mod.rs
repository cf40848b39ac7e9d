//! Views: pure folds over the event log (`*.rs` here), and their renderings
//! as HTML and SVG (`html/`). The UI shows these; replay folds a prefix of
//! the log; tests assert on them. Every view here is generic: it reads the
//! events every coordinator records. A coordinator's own views (its stores'
//! payloads) live in its folder (`coordinators/<name>/view.rs`, `html/`).

pub mod compare;
pub mod compare_report;
pub mod events;
pub mod export;
pub mod graph;
pub mod html;
pub mod inspector;
pub mod record;
pub mod repairs;
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
    /// repair (or could not read): "replies repaired: N of M".
    pub replies: usize,
    pub repaired: std::collections::BTreeSet<u32>,
    answered: std::collections::BTreeSet<u32>,
    pub elapsed_ms: u64,
    /// Notes written so far, per store (a coordinator's tab shows its count).
    pub notes: BTreeMap<String, usize>,
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
            answered: Default::default(),
            elapsed_ms: 0,
            notes: BTreeMap::new(),
        }
    }
}

impl Fold for StatusView {
    fn apply(&mut self, ev: &LoggedEvent) {
        self.events += 1;
        self.elapsed_ms = ev.t_ms;
        match &ev.event {
            RunEvent::RunStarted { .. } => self.started = true,
            RunEvent::LlmRequest { .. } => self.llm_calls += 1,
            RunEvent::LlmResponse { call, .. } => {
                self.replies += 1;
                self.answered.insert(*call);
            }
            // A reply is repaired after it came (never "5 of 3" from an
            // imported file naming calls that never answered).
            RunEvent::ReplyRepaired { call, .. } if self.answered.contains(call) => {
                self.repaired.insert(*call);
            }
            RunEvent::NoteWritten { store, .. } => {
                *self.notes.entry(store.clone()).or_insert(0) += 1;
            }
            RunEvent::RunFinished { .. } => self.status = RunStatus::Finished,
            RunEvent::RunFailed { reason } => {
                self.status = RunStatus::Failed;
                self.error = Some(reason.message.clone());
                self.error_kind = Some(reason.kind.clone());
            }
            RunEvent::RunCancelled {} => self.status = RunStatus::Cancelled,
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
