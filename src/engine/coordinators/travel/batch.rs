//! The travel planner's batch, as the Batch page and `travel-batch` run
//! it through the engine's batch runner (`run::batch`): its jobs (every
//! variant × every query, variants outermost, each run on its own) and the
//! fold from finished runs to the paper's table (`report::comparison`).

use super::contract::*;
use super::report::comparison::{batch_groups, BatchEntry, GroupStats};
use super::setup::options_for;
use crate::engine::domains::travel::Query;
use crate::engine::run::batch::{grid, scored, Finished, Job};
use crate::engine::run::log::last_note;
use crate::engine::run::{LoggedEvent, RunConfig};
use serde_json::Value;

/// What a job is, for the tables and the list of runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Tag {
    pub variant: Variant,
    pub query_idx: u32,
    /// easy / medium / hard.
    pub level: &'static str,
}

/// How the batch's runs are set up besides their variant and query.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The database's name as recorded in the runs (`builtin` or an import's).
    pub db: String,
    pub tool_mode: ToolMode,
    /// Agent turns before a run gives up (None: the default).
    pub max_steps: Option<u32>,
}

/// Every variant × every query (variants outermost): each job is `base`
/// with the variant, the query as its task and options, and a run id of
/// its own.
pub fn jobs(
    base: &RunConfig,
    variants: &[Variant],
    queries: &[(Query, Value)],
    setup: &Setup,
) -> Vec<Job<Tag>> {
    grid(variants, queries)
        .enumerate()
        .map(|(i, (variant, (query, value)))| {
            let tag = Tag {
                variant,
                query_idx: query.idx,
                level: query.level.as_str(),
            };
            let mut job = Job::numbered(base, i, (ID, super::entry), tag);
            job.config.task = query.query.clone();
            job.config.variant = Some(variant.id().into());
            let mut options = options_for(value.clone(), &setup.db, setup.tool_mode);
            if let Some(n) = setup.max_steps {
                options.max_steps = n.max(1);
            }
            job.config.options = serde_json::to_value(&options).unwrap_or_default();
            job
        })
        .collect()
}

/// A finished run as the tables read it, with its cost (None when its
/// options hold no readable query).
pub fn entry(run: &Finished<Tag>) -> Option<BatchEntry> {
    BatchEntry::from_run(&run.config, &run.events).map(|mut e| {
        e.cost_usd = Some(run.cost_usd);
        e
    })
}

/// The runs the tables count, as entries: a run the user stopped is listed
/// but not scored.
pub fn entries<'a>(runs: impl IntoIterator<Item = &'a Finished<Tag>>) -> Vec<BatchEntry> {
    scored(runs).filter_map(entry).collect()
}

/// The paper's table: one column per variant, in the order of the jobs.
pub fn table<'a>(runs: impl IntoIterator<Item = &'a Finished<Tag>>) -> Vec<GroupStats> {
    batch_groups(&entries(runs))
}

/// The evaluation recorded in a run's log.
pub fn evaluation_of(events: &[LoggedEvent]) -> Option<RunEvaluation> {
    last_note(events, STORE_EVALUATION)
}
