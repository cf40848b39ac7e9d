//! ACT's batch, as the ACT page and `act-batch` run it through the
//! engine's batch runner (`run::batch`): its jobs (every variant × every
//! trial; ACT+'s trials one lane, in trial order, since each carries the
//! team's knowledge bank to the next) and the fold from finished runs to
//! the paper's tables (`report`).

use super::contract::{
    ActOptions, ResultRecord, ToolJudgeRecord, Variant, ID, STORE_RESULT, STORE_TOOL_JUDGE,
};
use super::report::{self, Report};
use crate::engine::domains::creative::ComplexTask;
use crate::engine::run::batch::{grid, group_name, scored, Finished, Job};
use crate::engine::run::log::last_note;
use crate::engine::run::{LoggedEvent, RunConfig};

/// The lane of ACT+'s trials.
pub const PLUS_LANE: &str = "act-plus";

/// What a job is, for the tables and the list of runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Tag {
    pub variant: Variant,
    pub trial: u32,
}

/// Every variant × every trial (variants outermost): each job is `base`
/// with the variant, the trial's task and options, the trial as the seed
/// (so variants meet the same leader), and a run id of its own. `options`
/// gives a trial's options (the judge, the bank's name for ACT+…).
pub fn jobs(
    base: &RunConfig,
    variants: &[Variant],
    trials: &[(u32, ComplexTask)],
    options: impl Fn(Variant, &ComplexTask) -> ActOptions,
) -> Vec<Job<Tag>> {
    grid(variants, trials)
        .enumerate()
        .map(|(i, (variant, (trial, task)))| {
            let tag = Tag {
                variant,
                trial: *trial,
            };
            let mut job = Job::numbered(base, i, (ID, super::entry), tag);
            job.config.task = task.text.clone();
            job.config.variant = Some(variant.id().into());
            job.config.seed = u64::from(*trial);
            job.config.options = serde_json::to_value(options(variant, task)).unwrap_or_default();
            job.lane = (variant == Variant::ActPlus).then(|| PLUS_LANE.to_string());
            job
        })
        .collect()
}

/// The paper's tables over the runs the user did not stop, in job order
/// (so the table does not depend on which run ended first).
pub fn table<'a>(runs: impl IntoIterator<Item = &'a Finished<Tag>>) -> Report {
    let mut counted: Vec<&Finished<Tag>> = scored(runs).collect();
    counted.sort_by_key(|r| r.job);
    // A variant's runs told edited prompts are a row of their own.
    let rows: Vec<(String, &[LoggedEvent])> = counted
        .into_iter()
        .map(|r| {
            let row = group_name(r.tag.variant.id(), &r.config);
            (row, r.events.as_slice())
        })
        .collect();
    report::report(rows.iter().map(|(row, events)| (row.as_str(), *events)))
}

/// The result a run's log holds (its last `result` note).
pub fn result_of(events: &[LoggedEvent]) -> Option<ResultRecord> {
    last_note(events, STORE_RESULT)
}

/// A run's headline, ×100, with its name: ROUGE-L recall or trivia recall
/// (its result's), else a tool task's sub-tasks done (its judge's note).
pub fn headline(events: &[LoggedEvent]) -> Option<(f64, &'static str)> {
    let scored = result_of(events).and_then(|r| {
        r.scores
            .rouge
            .as_ref()
            .map(|x| (100.0 * x.rouge_l.recall, "ROUGE-L"))
            .or(r.scores.trivia_recall.map(|t| (100.0 * t, "trivia")))
    });
    scored.or_else(|| {
        last_note::<ToolJudgeRecord>(events, STORE_TOOL_JUDGE)
            .and_then(|j| j.rate)
            .map(|r| (100.0 * r, "sub-tasks done %"))
    })
}
