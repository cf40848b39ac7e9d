//! The batch runner: every chosen variant over a query set, a few runs at a time,
//! each an ordinary run (own context and log) that the caller builds, so
//! the browser and the CLI share the loop. Pause and stop act on all runs
//! through a shared gate and cancellation token.

use super::contract::*;
use crate::engine::domains::travel::Query;
use crate::engine::run::{execute, CoordinatorFn, LoggedEvent, RunCtx, RunEvent, RunStatus};
use crate::engine::views::usage::UsageView;
use crate::engine::views::Fold;
use futures::StreamExt;
use serde_json::Value;

#[derive(Clone, Debug)]
pub struct BatchJob {
    pub variant: Variant,
    pub query: Query,
    /// The query as stored in a run's options.
    pub value: Value,
}

/// Every variant × every query, variants outermost.
pub fn jobs(variants: &[Variant], queries: &[(Query, Value)]) -> Vec<BatchJob> {
    variants
        .iter()
        .flat_map(|v| {
            queries.iter().map(move |(q, value)| BatchJob {
                variant: *v,
                query: q.clone(),
                value: value.clone(),
            })
        })
        .collect()
}

/// A finished run of a batch.
#[derive(Clone, Debug)]
pub struct BatchRun {
    pub job: usize,
    pub variant: Variant,
    pub query_idx: u32,
    pub status: RunStatus,
    pub evaluation: Option<RunEvaluation>,
    pub usage: UsageView,
    pub events: Vec<LoggedEvent>,
}

/// The evaluation recorded in a run's log.
pub fn evaluation_of(events: &[LoggedEvent]) -> Option<RunEvaluation> {
    events.iter().rev().find_map(|e| match &e.event {
        RunEvent::NoteWritten { store, payload, .. } if store == STORE_EVALUATION => {
            serde_json::from_value(payload.clone()).ok()
        }
        _ => None,
    })
}

/// Runs the jobs with `coordinator` (the travel planner's entry, given so
/// that this code never names another coordinator), at most `concurrency`
/// at once, calling `on_done` as each finishes (in completion order).
/// `make_ctx` builds a job's context.
pub async fn run_batch(
    jobs: &[BatchJob],
    concurrency: usize,
    coordinator: CoordinatorFn,
    make_ctx: impl Fn(usize, &BatchJob) -> RunCtx,
    mut on_done: impl FnMut(BatchRun),
) {
    let runs = futures::stream::iter(jobs.iter().enumerate().map(|(i, job)| {
        let ctx = make_ctx(i, job);
        async move {
            let status = execute(&ctx, coordinator).await;
            let events = ctx.events();
            BatchRun {
                job: i,
                variant: job.variant,
                query_idx: job.query.idx,
                status,
                evaluation: evaluation_of(&events),
                usage: UsageView::of(&events),
                events,
            }
        }
    }))
    .buffer_unordered(concurrency.max(1));
    futures::pin_mut!(runs);
    while let Some(run) = runs.next().await {
        on_done(run);
    }
}
