//! The learning phase and the evaluation (§2.2, §3), shared by the CLI
//! and the app: a learning phase runs the workflow over training tasks one
//! after another (the pool grows with each; the caller saves it after
//! every task, so a crash loses at most the task in flight), and an
//! evaluation runs test tasks in the chosen modes against a pool it never
//! changes, a few at a time. Each run is an ordinary run (own context and
//! log) the caller builds; the entry is passed in.

use super::contract::*;
use super::experience::Pool;
use crate::engine::domains::tasks::Task;
use crate::engine::run::{execute, CoordinatorFn, LoggedEvent, RunCtx, RunEvent, RunStatus};
use crate::engine::views::usage::UsageView;
use crate::engine::views::Fold;
use futures::StreamExt;
use serde::Serialize;

/// A finished run of a learning phase or an evaluation.
#[derive(Clone, Debug)]
pub struct Finished {
    pub job: usize,
    pub task_id: String,
    pub mode: Mode,
    pub status: RunStatus,
    pub result: Option<ResultRecord>,
    pub completion_tokens: u64,
    pub events: Vec<LoggedEvent>,
}

/// The result recorded in a run's log.
pub fn result_of(events: &[LoggedEvent]) -> Option<ResultRecord> {
    events.iter().rev().find_map(|e| match &e.event {
        RunEvent::NoteWritten { store, payload, .. } if store == STORE_RESULT => {
            serde_json::from_value(payload.clone()).ok()
        }
        _ => None,
    })
}

async fn finish(
    job: usize,
    task: &Task,
    mode: Mode,
    ctx: RunCtx,
    coordinator: CoordinatorFn,
) -> Finished {
    let status = execute(&ctx, coordinator).await;
    let events = ctx.events();
    Finished {
        job,
        task_id: task.id.clone(),
        mode,
        status,
        result: result_of(&events),
        completion_tokens: UsageView::of(&events).total.output_tokens,
        events,
    }
}

/// One task after another in `mode`, learning; `on_done` after each,
/// awaited before the next task starts (save the pool there). Stops at the
/// first run that does not finish (a stop, a failure): the caller decides
/// whether to resume ([`pending`]).
pub async fn learning_phase<Fut: std::future::Future<Output = ()>>(
    tasks: &[Task],
    mode: Mode,
    coordinator: CoordinatorFn,
    make_ctx: impl Fn(usize, &Task, Mode) -> RunCtx,
    mut on_done: impl FnMut(Finished) -> Fut,
) {
    for (i, task) in tasks.iter().enumerate() {
        let run = finish(i, task, mode, make_ctx(i, task, mode), coordinator).await;
        let go_on = run.status == RunStatus::Finished;
        on_done(run).await;
        if !go_on {
            break;
        }
    }
}

/// The tasks of `tasks` that `pool` has not learned yet (a learning phase
/// resumes with these): a learned task's experiences carry its id
/// (`<task id>@<run id>`).
pub fn pending(pool: &Pool, tasks: &[Task]) -> Vec<Task> {
    let done: Vec<String> = pool.traces().into_iter().map(|t| t.task_id).collect();
    tasks
        .iter()
        .filter(|t| {
            let prefix = format!("{}@", t.id);
            !done.iter().any(|d| d.starts_with(&prefix))
        })
        .cloned()
        .collect()
}

/// Every test task in every mode (modes outermost), at most `concurrency`
/// at once, calling `on_done` as each finishes.
pub async fn evaluation(
    tasks: &[Task],
    modes: &[Mode],
    concurrency: usize,
    coordinator: CoordinatorFn,
    make_ctx: impl Fn(usize, &Task, Mode) -> RunCtx,
    mut on_done: impl FnMut(Finished),
) {
    let jobs: Vec<(Mode, &Task)> = modes
        .iter()
        .flat_map(|m| tasks.iter().map(move |t| (*m, t)))
        .collect();
    let runs = futures::stream::iter(jobs.iter().enumerate().map(|(i, (mode, task))| {
        let ctx = make_ctx(i, task, *mode);
        finish(i, task, *mode, ctx, coordinator)
    }))
    .buffer_unordered(concurrency.max(1));
    futures::pin_mut!(runs);
    while let Some(run) = runs.next().await {
        on_done(run);
    }
}

/// One mode's figures over an evaluation (the paper's Table 1 and Fig. 2).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModeSummary {
    pub mode: Mode,
    /// The dataset's metric, mean over the tasks, in [0, 1].
    pub score: f64,
    /// Completion tokens per task.
    pub completion_tokens: f64,
    /// Critique rounds per task.
    pub rounds: f64,
    /// Tasks that finished (the others are not counted).
    pub tasks: usize,
}

/// The figures per mode, in `modes` order (modes with no finished run are left out).
pub fn summarize(runs: &[Finished], modes: &[Mode]) -> Vec<ModeSummary> {
    modes
        .iter()
        .filter_map(|&mode| {
            let done: Vec<(&Finished, &ResultRecord)> = runs
                .iter()
                .filter(|r| r.mode == mode && r.status == RunStatus::Finished)
                .filter_map(|r| r.result.as_ref().map(|res| (r, res)))
                .collect();
            if done.is_empty() {
                return None;
            }
            let n = done.len() as f64;
            Some(ModeSummary {
                mode,
                score: done.iter().map(|(_, r)| r.score).sum::<f64>() / n,
                completion_tokens: done
                    .iter()
                    .map(|(f, _)| f.completion_tokens as f64)
                    .sum::<f64>()
                    / n,
                rounds: done.iter().map(|(_, r)| r.rounds as f64).sum::<f64>() / n,
                tasks: done.len(),
            })
        })
        .collect()
}

/// The mode a pool-size sweep runs in (Fig. 3): step-wise retrieval when
/// it is among `modes`, else task-wise (the sweep needs a mode that reads
/// the pool).
pub fn sweep_mode(modes: &[Mode]) -> Mode {
    if modes.contains(&Mode::Step) || !modes.contains(&Mode::Task) {
        Mode::Step
    } else {
        Mode::Task
    }
}

/// The pool as it was after its first `n` learned tasks (Fig. 3's sweep).
pub fn first_tasks(pool: &Pool, n: usize) -> Pool {
    let keep: Vec<String> = pool
        .traces()
        .into_iter()
        .take(n)
        .map(|t| t.task_id)
        .collect();
    let mut out = Pool::new(pool.embedder.clone());
    for (i, e) in pool.entries.iter().enumerate() {
        if keep.contains(&e.task_id) {
            // The vectors are the pool's own: they fit.
            let _ = out.push(e.clone(), pool.vector(i).to_vec());
        }
    }
    out
}
