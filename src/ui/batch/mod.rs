//! The kit every "many runs" page is made of (the travel planner's Batch
//! page, the ACT page's batch, the MAEL page's learning phase and
//! evaluation): the batch under way and its runs (`state.rs`, over the
//! engine's batch runner), the fields every batch has (`fields.rs`: runs at
//! once, caps, History, the prompts), the progress line with Pause / Resume / Stop
//! (`progress.rs`), and the results' exports and list of runs with Open
//! (`results.rs`). A page brings its own form fields, jobs and tables.

mod fields;
mod progress;
mod results;
mod state;

pub use fields::{number, runs_per_job, Checks, CommonFields, PromptSetsField};
pub use progress::{BatchButtons, BatchNotices, ProgressLine};
pub use results::{ExportButton, ResultsHead, RunsTable, StatusBadge};
pub use state::{records, BatchCommon, BatchPage, BatchRun, Item};
