//! The learning phase and the evaluation (§2.2, §3), as the MAEL page and
//! `mael-learn` / `mael-eval` run them through the engine's batch runner
//! (`run::batch`). A learning phase is one lane: training tasks one after
//! another, the pool growing with each (the host saves it after every
//! task, so a crash loses at most the task in flight), ended by the first
//! task that does not finish; an evaluation runs test tasks in each row
//! (a mode, with Table 4's score variants) and then the pool-size sweep
//! (Fig. 3) against pools it never changes, a few at a time. This file
//! brings the jobs and the fold from finished runs to the paper's figures.
//!
//! **Disjoint splits.** A pool records the tasks it learned from (`tasks`:
//! `{id, key}`, `key` = FNV-1a of the task's set and prompt, so a task is
//! known by its content, whatever file or position it comes from; pools from
//! before it know their tasks by the ids in `task_id`). An evaluation (the
//! page's, `mael-eval`) whose test tasks include any of them is refused,
//! naming them. The built-in set has its own splits (40 training tasks, 30
//! test tasks). A data set that comes as one file (CommonGen-Hard, MMLU's
//! sample, HumanEval, an imported set) is split by position: counting its
//! tasks from 0, the even ones are the training split and the odd ones the
//! test split (both sample the whole file; MMLU's rows are grouped by
//! subject, so halves would not); `--split all` takes a whole file, for
//! GSM8K, whose splits are files of their own. The defaults are the paper's:
//! 30 training tasks, 30 test tasks, and Fig. 3's sweep (pools after 0, 10,
//! 20, 30 learned tasks) in task-wise retrieval.

use super::contract::*;
use super::experience::Pool;
use crate::engine::domains::tasks::Task;
use crate::engine::run::batch::{group_name, scored, Finished, Job};
use crate::engine::run::log::{last_note, status_of};
use crate::engine::run::{LoggedEvent, RunConfig, RunStatus};
use crate::engine::views::repairs::{self, RepairSum};
use crate::engine::views::usage::UsageView;
use crate::engine::views::Fold;
use serde::Serialize;

/// The row of a learning phase's runs, and their lane: its tasks run one
/// after another.
pub const LEARNING: &str = "learning";

/// What a job is: its row (a learning phase's, an evaluation row's label,
/// or a sweep point's), its task and how it retrieves.
#[derive(Clone, Debug, PartialEq)]
pub struct Tag {
    pub row: String,
    pub task_id: String,
    pub mode: Mode,
    pub scoring: Scoring,
    /// A sweep point: the pool as it was after this many learned tasks.
    pub pool_tasks: Option<usize>,
}

/// The paper's name of a mode's row.
pub fn label(mode: Mode) -> &'static str {
    match mode {
        Mode::None => "MAEL-ØExp",
        Mode::Task => "MAEL-Task",
        Mode::Step => "MAEL-Step",
    }
}

/// One row of an evaluation: a mode, or a retrieval mode with one of
/// Table 4's score variants.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub label: String,
    pub mode: Mode,
    pub scoring: Scoring,
}

/// Table 4's variants of the retrieval score, beside the plain one:
/// (name, reward polarity, similarity polarity).
pub const VARIANTS: [(&str, Polarity, Polarity); 3] = [
    ("reward low", Polarity::Low, Polarity::High),
    ("similarity low", Polarity::High, Polarity::Low),
    ("both low", Polarity::Low, Polarity::Low),
];

/// The rows: each mode with `scoring`, then each of `variants` (indexes
/// into [`VARIANTS`]) for each retrieval mode.
pub fn groups(modes: &[Mode], variants: &[usize], scoring: Scoring) -> Vec<Group> {
    let mut out: Vec<Group> = modes
        .iter()
        .map(|&mode| Group {
            label: label(mode).into(),
            mode,
            scoring,
        })
        .collect();
    for (name, reward, similarity) in variants.iter().filter_map(|v| VARIANTS.get(*v)) {
        for &mode in modes.iter().filter(|m| **m != Mode::None) {
            out.push(Group {
                label: format!("{} · {name}", label(mode)),
                mode,
                scoring: Scoring {
                    reward: *reward,
                    similarity: *similarity,
                    ..scoring
                },
            });
        }
    }
    out
}

fn job(
    base: &RunConfig,
    i: usize,
    task: &Task,
    tag: Tag,
    learn: bool,
    mut o: MaelOptions,
) -> Job<Tag> {
    o.scoring = tag.scoring;
    o.learn = learn;
    let mut job = Job::numbered(base, i, (ID, super::entry), tag);
    job.config.task = task.prompt.clone();
    job.config.variant = Some(job.tag.mode.id().into());
    job.config.options = serde_json::to_value(&o).unwrap_or_default();
    job.lane = learn.then(|| LEARNING.to_string());
    job
}

/// A learning phase: `tasks` one after another in `mode`, learning. Run it
/// with `halt_lane_on_failure`: a task that does not finish ends it (start
/// again to resume: [`pending`]).
pub fn learning_jobs(
    base: &RunConfig,
    tasks: &[Task],
    mode: Mode,
    options: impl Fn(&Task) -> MaelOptions,
) -> Vec<Job<Tag>> {
    tasks
        .iter()
        .enumerate()
        .map(|(i, task)| {
            let o = options(task);
            let tag = Tag {
                row: LEARNING.into(),
                task_id: task.id.clone(),
                mode,
                scoring: o.scoring,
                pool_tasks: None,
            };
            job(base, i, task, tag, true, o)
        })
        .collect()
}

/// An evaluation: every test task in every row (rows outermost), then in
/// the sweep's mode for each pool size of `sweep` (the host gives those
/// runs the pool as it was after that many learned tasks: [`first_tasks`]).
pub fn evaluation_jobs(
    base: &RunConfig,
    tasks: &[Task],
    rows: &[Group],
    sweep: &[usize],
    options: impl Fn(&Task) -> MaelOptions,
) -> Vec<Job<Tag>> {
    let modes: Vec<Mode> = rows.iter().map(|g| g.mode).collect();
    let sweep_in = sweep_mode(&modes);
    let options = &options;
    let row_jobs = rows.iter().flat_map(|g| {
        tasks.iter().map(move |t| {
            let tag = Tag {
                row: g.label.clone(),
                task_id: t.id.clone(),
                mode: g.mode,
                scoring: g.scoring,
                pool_tasks: None,
            };
            (t, tag, options(t))
        })
    });
    let sweep_jobs = sweep.iter().flat_map(|&n| {
        tasks.iter().map(move |t| {
            let o = options(t);
            let tag = Tag {
                row: sweep_row(n, sweep_in),
                task_id: t.id.clone(),
                mode: sweep_in,
                scoring: o.scoring,
                pool_tasks: Some(n),
            };
            (t, tag, o)
        })
    });
    let all: Vec<(&Task, Tag, MaelOptions)> = row_jobs.chain(sweep_jobs).collect();
    all.into_iter()
        .enumerate()
        .map(|(i, (t, tag, o))| job(base, i, t, tag, false, o))
        .collect()
}

/// A sweep point's row.
pub fn sweep_row(pool_tasks: usize, mode: Mode) -> String {
    format!("sweep: {pool_tasks} tasks ({})", label(mode))
}

/// The result recorded in a run's log.
pub fn result_of(events: &[LoggedEvent]) -> Option<ResultRecord> {
    last_note(events, STORE_RESULT)
}

/// The tasks of `tasks` that `pool` has not learned yet (a learning phase
/// resumes with these): see [`Pool::has_learned`].
pub fn pending(pool: &Pool, tasks: &[Task]) -> Vec<Task> {
    tasks
        .iter()
        .filter(|t| !pool.has_learned(t))
        .cloned()
        .collect()
}

/// Refuses an evaluation of the pool `name` on tasks it learned from (it
/// would measure recall, not learning), naming the first few.
pub fn refuse_trained(pool: &Pool, name: &str, tasks: &[Task]) -> Result<(), String> {
    let seen = pool.overlap(tasks);
    if seen.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{name} learned from {} of these {} test tasks ({}{}): an evaluation on them would measure recall, not learning. Evaluate on tasks it did not learn: a test split (the built-in test set, or a file's odd tasks), or another set.",
        seen.len(),
        tasks.len(),
        seen.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
        if seen.len() > 5 { ", …" } else { "" }
    ))
}

/// One row's figures over an evaluation (the paper's Table 1 and Fig. 2).
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
    /// Their ids, in the order they were run.
    pub task_ids: Vec<String>,
    /// CommonGen-Hard: each part of the composite, mean over the tasks
    /// that read it (coverage, then the judged criteria).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<(String, f64)>,
    /// Replies and repaired (or unreadable) replies, in all and per step
    /// kind, over the row's runs the user did not stop (failed ones too:
    /// an unreadable reply may be why). In JSON `replies`, `repaired` and
    /// `repaired_by_step` beside the other figures.
    #[serde(flatten)]
    pub repairs: RepairSum,
}

/// One row of a comparison: a label (a mode, or a mode with Table 4's
/// variant) and its figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub label: String,
    pub summary: ModeSummary,
}

/// The figures of the finished runs of one row (None when none finished
/// with a result), and the replies of all but the stopped ones.
pub fn summarize<'a>(
    mode: Mode,
    runs: impl Iterator<Item = &'a [LoggedEvent]>,
) -> Option<ModeSummary> {
    let runs: Vec<&[LoggedEvent]> = runs.collect();
    let repairs = repairs::sum(
        runs.iter()
            .copied()
            .filter(|events| status_of(events) != RunStatus::Cancelled),
    );
    let done: Vec<(u64, ResultRecord)> = runs
        .into_iter()
        .filter(|events| status_of(events) == RunStatus::Finished)
        .filter_map(|events| {
            let tokens = UsageView::of(events).total.output_tokens;
            result_of(events).map(|r| (tokens, r))
        })
        .collect();
    if done.is_empty() {
        return None;
    }
    let n = done.len() as f64;
    let mean = |f: &dyn Fn(&(u64, ResultRecord)) -> f64| done.iter().map(f).sum::<f64>() / n;
    Some(ModeSummary {
        mode,
        score: mean(&|(_, r)| r.score),
        completion_tokens: mean(&|(t, _)| *t as f64),
        rounds: mean(&|(_, r)| r.rounds as f64),
        tasks: done.len(),
        task_ids: done.iter().map(|(_, r)| r.task_id.clone()).collect(),
        parts: mean_parts(done.iter().map(|(_, r)| r.parts.as_slice())),
        repairs,
    })
}

/// Each part's mean over the results that have it, in order of first sight.
fn mean_parts<'a>(all: impl Iterator<Item = &'a [(String, f64)]>) -> Vec<(String, f64)> {
    let mut sums: Vec<(String, f64, usize)> = Vec::new();
    for parts in all {
        for (name, v) in parts {
            match sums.iter_mut().find(|(n, _, _)| n == name) {
                Some(s) => {
                    s.1 += v;
                    s.2 += 1;
                }
                None => sums.push((name.clone(), *v, 1)),
            }
        }
    }
    sums.into_iter()
        .map(|(n, sum, k)| (n, sum / k as f64))
        .collect()
}

/// The runs grouped by `key` (in order of first sight; runs it gives no
/// key stay out), each group summarized in its first run's mode; a group
/// with no finished result is left out.
fn summaries<'a, K: PartialEq>(
    runs: impl IntoIterator<Item = &'a Finished<Tag>>,
    key: impl Fn(&'a Finished<Tag>) -> Option<K>,
) -> Vec<(K, ModeSummary)> {
    let runs: Vec<&Finished<Tag>> = runs.into_iter().collect();
    let mut keys: Vec<(K, Mode)> = Vec::new();
    for r in &runs {
        match key(r) {
            Some(k) if !keys.iter().any(|(seen, _)| *seen == k) => keys.push((k, r.tag.mode)),
            _ => {}
        }
    }
    keys.into_iter()
        .filter_map(|(k, mode)| {
            let mine = runs.iter().filter(|r| key(r).as_ref() == Some(&k));
            summarize(mode, mine.map(|r| r.events.as_slice())).map(|s| (k, s))
        })
        .collect()
}

/// The evaluation's table: one row per row label (sweep points aside), in
/// job order.
pub fn rows<'a>(runs: impl IntoIterator<Item = &'a Finished<Tag>>) -> Vec<Row> {
    // A row's runs told edited prompts are a row of their own.
    let row = |r: &'a Finished<Tag>| {
        let t = &r.tag;
        (t.pool_tasks.is_none() && t.row != LEARNING).then(|| group_name(&t.row, &r.config))
    };
    summaries(runs, row)
        .into_iter()
        .map(|(label, summary)| Row { label, summary })
        .collect()
}

/// A learning phase's replies and repaired replies, in all and per step
/// kind, over its runs the user did not stop (as a row's).
pub fn learning_repairs<'a>(runs: impl IntoIterator<Item = &'a Finished<Tag>>) -> RepairSum {
    repairs::sum(
        scored(runs)
            .filter(|r| r.tag.row == LEARNING)
            .map(|r| r.events.as_slice()),
    )
}

/// The sweep (Fig. 3): the figures at each pool size, in size order of the jobs.
pub fn sweep<'a>(runs: impl IntoIterator<Item = &'a Finished<Tag>>) -> Vec<(usize, ModeSummary)> {
    summaries(runs, |r| r.tag.pool_tasks)
}

/// The mode a pool-size sweep runs in: task-wise retrieval, as Fig. 3,
/// when it is among `modes`, else step-wise (the sweep needs a mode that
/// reads the pool).
pub fn sweep_mode(modes: &[Mode]) -> Mode {
    if modes.contains(&Mode::Task) {
        Mode::Task
    } else {
        Mode::Step
    }
}

/// Fig. 2: each row's completion tokens and rounds relative to the
/// no-experience row's (MAEL-ØExp: 1.0), when the evaluation has one with
/// tokens and rounds to divide by.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Relative {
    pub label: String,
    pub completion_tokens: Option<f64>,
    pub rounds: Option<f64>,
}

pub fn relative_to_none(rows: &[Row]) -> Vec<Relative> {
    let base = rows
        .iter()
        .find(|r| r.summary.mode == Mode::None && r.label == label(Mode::None));
    let ratio = |x: f64, of: f64| (of > 0.0).then(|| x / of);
    rows.iter()
        .map(|r| Relative {
            label: r.label.clone(),
            completion_tokens: base
                .and_then(|b| ratio(r.summary.completion_tokens, b.summary.completion_tokens)),
            rounds: base.and_then(|b| ratio(r.summary.rounds, b.summary.rounds)),
        })
        .collect()
}

/// The project's quality after each step that wrote files (SRDD), in order.
pub fn iterations(events: &[LoggedEvent]) -> Vec<IterationRecord> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            crate::engine::run::RunEvent::NoteWritten { store, payload, .. }
                if store == STORE_ITERATION =>
            {
                serde_json::from_value(payload.clone()).ok()
            }
            _ => None,
        })
        .collect()
}

/// One case of Fig. 4: a task's quality per iteration in one row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QualityCurve {
    pub task_id: String,
    pub label: String,
    pub quality: Vec<f64>,
}

/// Fig. 4: the quality per iteration of the first `cases` tasks (in job
/// order) that some finished run measured, in every row (sweep points
/// aside), the rows in job order within each task.
pub fn quality_curves<'a>(
    runs: impl IntoIterator<Item = &'a Finished<Tag>>,
    cases: usize,
) -> Vec<QualityCurve> {
    let runs: Vec<&Finished<Tag>> = runs
        .into_iter()
        .filter(|r| r.tag.pool_tasks.is_none() && r.tag.row != LEARNING)
        .filter(|r| r.status == RunStatus::Finished)
        .collect();
    let mut tasks: Vec<&str> = Vec::new();
    for r in &runs {
        let id = r.tag.task_id.as_str();
        if !tasks.contains(&id) && !iterations(&r.events).is_empty() && tasks.len() < cases {
            tasks.push(id);
        }
    }
    let mut out = Vec::new();
    for task in tasks {
        for r in runs.iter().filter(|r| r.tag.task_id == task) {
            let quality: Vec<f64> = iterations(&r.events).iter().map(|i| i.quality).collect();
            if !quality.is_empty() {
                out.push(QualityCurve {
                    task_id: task.to_string(),
                    label: group_name(&r.tag.row, &r.config),
                    quality,
                });
            }
        }
    }
    out
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
    out.learned = pool.learned.iter().take(n).cloned().collect();
    out
}
