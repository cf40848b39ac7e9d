//! The learning page's jobs, kept while the page lives (`part_state`, so a
//! learning phase goes on while the user looks at one of its runs): the
//! forms, which job runs, the batch itself (`ui::batch::BatchRun` over the
//! engine's runner, with MAEL's jobs and folds from `mael::learn`), the
//! pool it uses, and what it says. The jobs are started in `runner.rs`.

use super::forms::{EvalForm, LearnForm};
use crate::engine::coordinators::mael::learn::{self, QualityCurve, Row, Tag};
use crate::engine::run::RunStatus;
use crate::engine::views::repairs::RepairSum;
use crate::ui::batch::{records, BatchCommon, BatchRun, Item};
use crate::ui::part_state::part_state;
use leptos::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    Idle,
    Learning,
    Evaluating,
}

#[derive(Clone, Copy)]
pub struct LearnState {
    pub learn_form: RwSignal<LearnForm>,
    pub eval_form: RwSignal<EvalForm>,
    /// Runs at once (evaluation), caps and History, for both jobs.
    pub common: RwSignal<BatchCommon>,
    /// The kind of the current / last job (Learning or Evaluating).
    kind: RwSignal<Job>,
    pub run: BatchRun<Tag>,
    /// The pool the current / last job used.
    pub pool: RwSignal<String>,
    /// Tasks the pool had learned before the learning phase (resumed).
    pub skipped: RwSignal<usize>,
    pub metric: RwSignal<String>,
    pub status: RwSignal<String>,
    /// The last evaluation's runs (a learning phase after it keeps its table).
    pub evaluated: RwSignal<Vec<Item<Tag>>>,
}

impl LearnState {
    fn new() -> Self {
        LearnState {
            learn_form: RwSignal::new(LearnForm::default()),
            eval_form: RwSignal::new(EvalForm::default()),
            common: RwSignal::new(BatchCommon::new(4, false)),
            kind: RwSignal::new(Job::Idle),
            run: BatchRun::new(),
            pool: RwSignal::new(String::new()),
            skipped: RwSignal::new(0),
            metric: RwSignal::new(String::new()),
            status: RwSignal::new(String::new()),
            evaluated: RwSignal::new(Vec::new()),
        }
    }

    /// The job under way: Idle once its batch ended.
    pub fn job(self) -> Job {
        if self.run.active.get() {
            self.kind.get()
        } else {
            Job::Idle
        }
    }

    /// A job of `kind` starts (its batch has begun).
    pub fn starts(self, kind: Job) {
        self.kind.set(kind);
    }

    /// The evaluation's runs: the one under way, else the last one.
    fn evaluation<R>(self, f: impl FnOnce(&[Item<Tag>]) -> R) -> R {
        if self.job() == Job::Evaluating {
            self.run.runs.with(|v| f(v))
        } else {
            self.evaluated.with(|v| f(v))
        }
    }

    /// The evaluation's rows (Table 1, Table 4's variants), as runs end.
    pub fn rows(self) -> Vec<Row> {
        self.evaluation(|v| learn::rows(records(v)))
    }

    /// SRDD's quality per iteration for the first five cases (Fig. 4).
    pub fn curves(self) -> Vec<QualityCurve> {
        self.evaluation(|v| learn::quality_curves(records(v), 5))
    }

    /// (stopped, failed) among the evaluation's runs.
    pub fn counts(self) -> (usize, usize) {
        self.evaluation(|v| {
            let n = |s| v.iter().filter(|i| i.status() == s).count();
            (n(RunStatus::Cancelled), n(RunStatus::Failed))
        })
    }

    /// The learning phase's replies and repaired replies, as runs end (None
    /// unless the current / last job learns and a run ended).
    pub fn learning_repairs(self) -> Option<RepairSum> {
        if self.kind.get() != Job::Learning {
            return None;
        }
        self.run
            .runs
            .with(|v| (!v.is_empty()).then(|| learn::learning_repairs(records(v))))
    }

    /// The pool-size sweep (Fig. 3), as runs end.
    pub fn sweep(self) -> Vec<(usize, f64)> {
        self.evaluation(|v| {
            (learn::sweep(records(v)).into_iter())
                .map(|(n, s)| (n, s.score))
                .collect()
        })
    }
}

/// The page's jobs, kept while the page lives.
pub fn use_learn() -> LearnState {
    part_state(LearnState::new)
}
