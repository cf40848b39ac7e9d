//! Views: pure folds over the event log. The UI shows these; replay folds a
//! prefix of the log; tests assert on them.

pub mod events;
pub mod export;
pub mod graph;
pub mod graph_svg;
pub mod html;
pub mod markdown;
pub mod timeline;
pub mod transcript;
pub mod travel;
pub mod usage;

use crate::engine::run::event::{LoggedEvent, RunEvent};
use crate::engine::run::log::RunStatus;

/// A view that is built by applying events one at a time.
pub trait Fold: Default {
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

/// Where the run stands and, when it ended badly, why.
#[derive(Clone, Debug, PartialEq)]
pub struct StatusView {
    pub status: RunStatus,
    pub started: bool,
    pub error: Option<String>,
    pub events: usize,
    pub llm_calls: usize,
    pub elapsed_ms: u64,
}

impl Default for StatusView {
    fn default() -> Self {
        StatusView {
            status: RunStatus::Running,
            started: false,
            error: None,
            events: 0,
            llm_calls: 0,
            elapsed_ms: 0,
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
            RunEvent::RunFinished { .. } => self.status = RunStatus::Finished,
            RunEvent::RunFailed { reason } => {
                self.status = RunStatus::Failed;
                self.error = Some(reason.message.clone());
            }
            RunEvent::RunCancelled {} => self.status = RunStatus::Cancelled,
            _ => {}
        }
    }
}

/// All views of a run, updated together.
#[derive(Clone, Debug, Default)]
pub struct RunView {
    pub status: StatusView,
    pub transcript: transcript::Transcript,
    pub graph: graph::AgentGraph,
    pub usage: usage::UsageView,
    /// Per-agent private activity (inspector) and the travel planner's
    /// notebook, reflections, plans and evaluation.
    pub travel: travel::TravelView,
}

impl Fold for RunView {
    fn apply(&mut self, ev: &LoggedEvent) {
        self.status.apply(ev);
        self.transcript.apply(ev);
        self.graph.apply(ev);
        self.usage.apply(ev);
        self.travel.apply(ev);
    }
}
