//! The ACT batch in the browser: what the form asks (variants × trials of
//! the setup's task source, the judge, ACT+'s bank; runs at once, caps,
//! History) and the batch itself (`ui::batch::BatchRun` over the engine's
//! runner, with ACT's jobs and fold from `coordinators::act::batch`). Kept
//! while the page lives (`part_state`). Starting it is in `batch_run.rs`.

use crate::engine::coordinators::act::batch::{self, Tag};
use crate::engine::coordinators::act::contract::Variant;
use crate::engine::coordinators::act::report::Report;
use crate::ui::batch::{records, BatchCommon, BatchPage};
use crate::ui::part_state::part_state;
use leptos::prelude::*;

/// The knowledge bank ACT+ runs of a batch read and fill, unless renamed.
pub const DEFAULT_BANK: &str = "batch";

/// What the form asks for besides the common fields.
#[derive(Clone, Debug, PartialEq)]
pub struct ActBatchForm {
    /// In `Variant::ALL` order.
    pub variants: Vec<Variant>,
    /// The first trial (trials `first`, `first + 1`, …).
    pub first: u32,
    /// Trials per variant (K).
    pub trials: u32,
    /// Ask the LLM judge (one more call per run).
    pub judge: bool,
    /// ACT+'s knowledge bank.
    pub bank: String,
}

impl Default for ActBatchForm {
    fn default() -> Self {
        ActBatchForm {
            variants: vec![Variant::Act, Variant::NoBreakTime, Variant::Baseline],
            first: 0,
            trials: 5,
            judge: false,
            bank: DEFAULT_BANK.into(),
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

/// The page's form and batch.
pub type ActBatch = BatchPage<ActBatchForm, Tag>;

impl ActBatch {
    /// The paper's tables over the runs that ended on their own: a run the
    /// user stopped is not a failure of its variant.
    pub fn report(self) -> Report {
        self.run.runs.with(|v| batch::table(records(v)))
    }
}

/// The batch, kept while the page lives.
pub fn use_batch() -> ActBatch {
    part_state(|| BatchPage::new(ActBatchForm::default(), BatchCommon::new(2, true)))
}
