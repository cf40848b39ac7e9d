//! The learning page's jobs, kept while the page lives (`part_state`, so a
//! learning phase goes on while the user looks at one of its runs): which
//! job runs, its forms, progress, cost, the runs it made and the
//! evaluation's rows; pause / resume / stop. The jobs themselves are in
//! `runner.rs`.

use super::forms::{EvalForm, LearnForm};
use crate::engine::coordinators::mael::html::report::Row;
use crate::engine::run::gate::Gate;
use crate::engine::run::{CancelToken, RunDoc, RunStatus};
use crate::ui::part_state::part_state;
use leptos::prelude::*;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    Idle,
    Learning,
    Evaluating,
}

/// A finished run of the current job.
#[derive(Clone, Debug)]
pub struct JobRun {
    pub n: usize,
    /// The row it counts in (evaluation), or "learning".
    pub group: String,
    pub task_id: String,
    pub status: RunStatus,
    pub score: Option<f64>,
    pub rounds: Option<u32>,
    pub learned: Option<usize>,
    pub completion_tokens: u64,
    pub saved: bool,
    pub doc: Arc<RunDoc>,
}

#[derive(Clone, Copy)]
pub struct LearnState {
    pub learn_form: RwSignal<LearnForm>,
    pub eval_form: RwSignal<EvalForm>,
    pub job: RwSignal<Job>,
    pub paused: RwSignal<bool>,
    pub stopping: RwSignal<bool>,
    /// The pool the current / last job used.
    pub pool: RwSignal<String>,
    pub total: RwSignal<usize>,
    pub runs: RwSignal<Vec<JobRun>>,
    /// Tasks the pool had learned before the learning phase (resumed).
    pub skipped: RwSignal<usize>,
    pub rows: RwSignal<Vec<Row>>,
    pub sweep: RwSignal<Vec<(usize, f64)>>,
    pub metric: RwSignal<String>,
    pub cost_usd: RwSignal<f64>,
    pub started_ms: RwSignal<f64>,
    pub elapsed_ms: RwSignal<f64>,
    pub status: RwSignal<String>,
    pub error: RwSignal<Option<String>>,
    pub(super) controls: StoredValue<Option<(Gate, CancelToken)>, LocalStorage>,
}

impl LearnState {
    fn new() -> Self {
        LearnState {
            learn_form: RwSignal::new(LearnForm::default()),
            eval_form: RwSignal::new(EvalForm::default()),
            job: RwSignal::new(Job::Idle),
            paused: RwSignal::new(false),
            stopping: RwSignal::new(false),
            pool: RwSignal::new(String::new()),
            total: RwSignal::new(0),
            runs: RwSignal::new(Vec::new()),
            skipped: RwSignal::new(0),
            rows: RwSignal::new(Vec::new()),
            sweep: RwSignal::new(Vec::new()),
            metric: RwSignal::new(String::new()),
            cost_usd: RwSignal::new(0.0),
            started_ms: RwSignal::new(0.0),
            elapsed_ms: RwSignal::new(0.0),
            status: RwSignal::new(String::new()),
            error: RwSignal::new(None),
            controls: StoredValue::new_local(None),
        }
    }

    pub fn pause(self) {
        if let Some((g, _)) = self.controls.get_value() {
            g.pause();
            self.paused.set(true);
        }
    }

    pub fn resume(self) {
        if let Some((g, _)) = self.controls.get_value() {
            g.resume();
            self.paused.set(false);
        }
    }

    pub fn stop(self) {
        if let Some((g, c)) = self.controls.get_value() {
            c.cancel();
            g.resume();
            self.paused.set(false);
            self.stopping.set(true);
        }
    }

    /// Finished runs of this job (stopped ones are listed, not counted).
    pub fn done(self) -> usize {
        self.runs.with(|v| {
            v.iter()
                .filter(|r| r.status != RunStatus::Cancelled)
                .count()
        })
    }
}

/// The page's jobs, kept while the page lives.
pub fn use_learn() -> LearnState {
    part_state(LearnState::new)
}
