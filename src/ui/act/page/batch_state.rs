//! The ACT batch in the browser: what to run (variants × trials of the
//! setup's task source), the shared pause gate and stop token, progress,
//! cost so far, and every finished run (kept as a document to open or
//! score). Kept while the page lives (`part_state`), so a batch keeps
//! running while the user looks at one of its runs on the Run page.
//! Starting it is in `batch_run.rs`.

use crate::engine::coordinators::act::contract::{ResultRecord, Variant, STORE_RESULT};
use crate::engine::coordinators::act::report::{self, Report};
use crate::engine::run::{LoggedEvent, RunDoc, RunEvent, RunStatus};
pub use crate::ui::batch_controls::BatchActivity;
use crate::ui::batch_controls::BatchControls;
use crate::ui::part_state::part_state;
use leptos::prelude::*;
use std::sync::Arc;

/// The knowledge bank ACT+ runs of a batch read and fill, unless renamed.
pub const DEFAULT_BANK: &str = "batch";

/// What the form asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct ActBatchForm {
    /// In `Variant::ALL` order.
    pub variants: Vec<Variant>,
    /// The first trial (trials `first`, `first + 1`, …).
    pub first: u32,
    /// Trials per variant (K).
    pub trials: u32,
    /// Runs at once.
    pub concurrency: u32,
    /// Record each run in History.
    pub save: bool,
    /// Ask the LLM judge (one more call per run).
    pub judge: bool,
    /// ACT+'s knowledge bank.
    pub bank: String,
    /// The batch's spend cap in US dollars and its token cap (shared by
    /// its runs; each run also has the Settings' caps).
    pub cap_usd: Option<f64>,
    pub cap_tokens: Option<u64>,
}

impl Default for ActBatchForm {
    fn default() -> Self {
        ActBatchForm {
            variants: vec![Variant::Act, Variant::NoBreakTime, Variant::Baseline],
            first: 0,
            trials: 5,
            concurrency: 2,
            save: true,
            judge: false,
            bank: DEFAULT_BANK.into(),
            cap_usd: None,
            cap_tokens: None,
        }
    }
}

impl ActBatchForm {
    pub fn has_plus(&self) -> bool {
        self.variants.contains(&Variant::ActPlus)
    }

    /// Trials actually run when the source has `available` trials in all.
    pub fn trials_within(&self, available: Option<u32>) -> u32 {
        match available {
            Some(n) => self.trials.min(n.saturating_sub(self.first)),
            None => self.trials,
        }
    }
}

/// One finished run of the batch.
#[derive(Clone, Debug)]
pub struct BatchItem {
    pub job: usize,
    pub variant: Variant,
    pub trial: u32,
    pub status: RunStatus,
    pub cost_usd: f64,
    /// Recorded in History as it ran.
    pub saved: bool,
    pub result: Option<ResultRecord>,
    /// Why it failed, as the run said.
    pub failure: Option<String>,
    pub doc: Arc<RunDoc>,
}

impl BatchItem {
    /// ROUGE-L recall or trivia recall, ×100, with its name.
    pub fn score(&self) -> Option<(f64, &'static str)> {
        let s = &self.result.as_ref()?.scores;
        s.rouge
            .as_ref()
            .map(|r| (100.0 * r.rouge_l.recall, "ROUGE-L"))
            .or(s.trivia_recall.map(|t| (100.0 * t, "trivia")))
    }
}

/// The result a run's log holds (its last `result` note).
pub fn result_of(events: &[LoggedEvent]) -> Option<ResultRecord> {
    events.iter().rev().find_map(|e| match &e.event {
        RunEvent::NoteWritten { store, payload, .. } if store == STORE_RESULT => {
            serde_json::from_value(payload.clone()).ok()
        }
        _ => None,
    })
}

/// Why a run failed, from its log.
pub fn failure_of(events: &[LoggedEvent]) -> Option<String> {
    events.iter().rev().find_map(|e| match &e.event {
        RunEvent::RunFailed { reason } => Some(reason.message.clone()),
        _ => None,
    })
}

#[derive(Clone, Copy)]
pub struct BatchState {
    pub form: RwSignal<ActBatchForm>,
    pub activity: RwSignal<BatchActivity>,
    pub(super) run: BatchControls,
    pub total: RwSignal<usize>,
    /// Runs started so far (finished ones included).
    pub started: RwSignal<usize>,
    /// Finished runs, in job order.
    pub items: RwSignal<Vec<BatchItem>>,
    /// Cost of every LLM response so far, including runs still going.
    pub cost_usd: RwSignal<f64>,
    pub started_ms: RwSignal<f64>,
    pub elapsed_ms: RwSignal<f64>,
    /// The model, tasks and trials of the current / last batch.
    pub label: RwSignal<String>,
    pub error: RwSignal<Option<String>>,
    /// Something to know that is not an error (fewer trials than asked).
    pub note: RwSignal<Option<String>>,
}

impl BatchState {
    pub fn new() -> Self {
        let run = BatchControls::new();
        BatchState {
            form: RwSignal::new(ActBatchForm::default()),
            activity: run.activity,
            run,
            total: RwSignal::new(0),
            started: RwSignal::new(0),
            items: RwSignal::new(Vec::new()),
            cost_usd: RwSignal::new(0.0),
            started_ms: RwSignal::new(0.0),
            elapsed_ms: RwSignal::new(0.0),
            label: RwSignal::new(String::new()),
            error: RwSignal::new(None),
            note: RwSignal::new(None),
        }
    }

    pub(super) fn finish(self) {
        self.run.end();
        self.elapsed_ms
            .set(js_sys::Date::now() - self.started_ms.get_untracked());
    }

    pub fn pause(self) {
        self.run.pause();
    }

    pub fn resume(self) {
        self.run.resume();
    }

    pub fn stop(self) {
        self.run.stop();
    }

    /// The paper's tables over the runs that ended on their own: a run the
    /// user stopped is not a failure of its variant.
    pub fn report(self) -> Report {
        self.items.with(|v| {
            report::report(
                v.iter()
                    .filter(|i| i.status != RunStatus::Cancelled)
                    .map(|i| (i.variant.id(), i.doc.events.as_slice())),
            )
        })
    }

    /// Runs stopped by the user (listed, not scored).
    pub fn stopped(self) -> usize {
        self.count(RunStatus::Cancelled)
    }

    pub fn failed(self) -> usize {
        self.count(RunStatus::Failed)
    }

    fn count(self, status: RunStatus) -> usize {
        self.items
            .with(|v| v.iter().filter(|i| i.status == status).count())
    }
}

impl Default for BatchState {
    fn default() -> Self {
        Self::new()
    }
}

/// The batch, kept while the page lives.
pub fn use_batch() -> BatchState {
    part_state(BatchState::new)
}
