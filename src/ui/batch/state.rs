//! A page's batch in the browser: the one under way (or the last one),
//! run by the engine's batch runner (`engine::run::batch`): its controls
//! (Pause / Resume / Stop), its progress and cost so far as signals, the
//! runs that ended (in job order, each kept as a document to open or
//! export), the clock, and messages. Each run is recorded in History as
//! it goes when the page asks. A page keeps one in its `part_state`, so a
//! batch keeps running while one of its runs is shown on the Run page.

use crate::engine::model::pricing::PriceTable;
use crate::engine::run::batch::{self, Batch, Controls, Finished, Host, Job, Progress, PromptSets};
use crate::engine::run::budget::SpendCap;
use crate::engine::run::{RunCtx, RunStatus};
use crate::platform::recorder;
use futures::future::LocalBoxFuture;
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::sync::Arc;

/// What every batch form asks besides its own fields.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchCommon {
    /// Runs at once.
    pub concurrency: u32,
    /// Record each run in History.
    pub save: bool,
    /// The batch's spend cap in US dollars and its token cap (shared by
    /// its runs; each run also has the Settings' caps).
    pub cap_usd: Option<f64>,
    pub cap_tokens: Option<u64>,
    /// The prompts as set up, or each job also on the paper's.
    pub prompt_sets: PromptSets,
}

impl BatchCommon {
    pub fn new(concurrency: u32, save: bool) -> BatchCommon {
        BatchCommon {
            concurrency,
            save,
            cap_usd: None,
            cap_tokens: None,
            prompt_sets: PromptSets::AsSetUp,
        }
    }

    pub fn cap(&self) -> SpendCap {
        SpendCap {
            usd: self.cap_usd,
            tokens: self.cap_tokens,
        }
    }

    pub fn concurrency(&self) -> usize {
        self.concurrency.clamp(1, 16) as usize
    }
}

/// A batch page's state: its own form `F`, the fields every batch has,
/// and the batch (runs tagged `T`).
pub struct BatchPage<F: Send + Sync + 'static, T: Send + Sync + 'static> {
    pub form: RwSignal<F>,
    pub common: RwSignal<BatchCommon>,
    pub run: BatchRun<T>,
}

impl<F: Send + Sync + 'static, T: Send + Sync + 'static> Clone for BatchPage<F, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F: Send + Sync + 'static, T: Send + Sync + 'static> Copy for BatchPage<F, T> {}

impl<F: Send + Sync + 'static, T: Clone + Send + Sync + 'static> BatchPage<F, T> {
    pub fn new(form: F, common: BatchCommon) -> Self {
        BatchPage {
            form: RwSignal::new(form),
            common: RwSignal::new(common),
            run: BatchRun::new(),
        }
    }

    /// What the form asks now: its own fields and the common ones.
    pub fn asked(self) -> (F, BatchCommon)
    where
        F: Clone,
    {
        (self.form.get_untracked(), self.common.get_untracked())
    }
}

/// Where the batch stands, for its buttons and line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    Idle,
    Running,
    Paused,
    Stopping,
}

/// A run of the batch that ended, as the page lists it.
#[derive(Clone, Debug)]
pub struct Item<T> {
    pub run: Arc<Finished<T>>,
    /// Recorded in History as it ran.
    pub saved: bool,
}

impl<T> Item<T> {
    pub fn status(&self) -> RunStatus {
        self.run.status
    }
}

/// The ended runs' records, for a paper's fold.
pub fn records<T>(items: &[Item<T>]) -> impl Iterator<Item = &Finished<T>> {
    items.iter().map(|i| &*i.run)
}

pub struct BatchRun<T: Send + Sync + 'static> {
    pub progress: RwSignal<Progress>,
    /// The runs that ended, in job order.
    pub runs: RwSignal<Vec<Item<T>>>,
    /// A batch is under way (from Start until its last run ended).
    pub active: RwSignal<bool>,
    pub started_ms: RwSignal<f64>,
    pub elapsed_ms: RwSignal<f64>,
    /// The model and what the batch runs on, for the results' header.
    pub label: RwSignal<String>,
    pub error: RwSignal<Option<String>>,
    /// Something to know that is not an error (fewer trials than asked).
    pub note: RwSignal<Option<String>>,
    controls: StoredValue<Option<Controls>, LocalStorage>,
}

impl<T: Send + Sync + 'static> Clone for BatchRun<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Send + Sync + 'static> Copy for BatchRun<T> {}

impl<T: Clone + Send + Sync + 'static> BatchRun<T> {
    pub fn new() -> Self {
        BatchRun {
            progress: RwSignal::new(Progress::default()),
            runs: RwSignal::new(Vec::new()),
            active: RwSignal::new(false),
            started_ms: RwSignal::new(0.0),
            elapsed_ms: RwSignal::new(0.0),
            label: RwSignal::new(String::new()),
            error: RwSignal::new(None),
            note: RwSignal::new(None),
            controls: StoredValue::new_local(None),
        }
    }

    pub fn activity(self) -> Activity {
        if !self.active.get() {
            return Activity::Idle;
        }
        self.progress.with(|p| {
            if p.stopping {
                Activity::Stopping
            } else if p.paused {
                Activity::Paused
            } else {
                Activity::Running
            }
        })
    }

    pub fn busy(self) -> Signal<bool> {
        Signal::derive(move || self.active.get())
    }

    /// A batch starts (its jobs may still be prepared: a database or a
    /// pool opened): the last one's runs and messages are cleared and the
    /// clock starts. Returns its controls, or None when one is under way.
    pub fn begin(
        self,
        common: &BatchCommon,
        prices: PriceTable,
        label: String,
    ) -> Option<Controls> {
        if self.active.get_untracked() {
            return None;
        }
        let controls = Controls::new(common.cap(), prices);
        let progress = self.progress;
        controls.on_progress(move |p| progress.set(p.clone()));
        self.controls.set_value(Some(controls.clone()));
        self.progress.set(Progress::default());
        self.runs.set(Vec::new());
        self.error.set(None);
        self.note.set(None);
        self.label.set(label);
        self.active.set(true);
        let now = js_sys::Date::now();
        self.started_ms.set(now);
        self.elapsed_ms.set(0.0);
        // The clock on the progress line, also while every run waits.
        spawn_local(async move {
            while self.active.get_untracked() && self.started_ms.get_untracked() == now {
                self.elapsed_ms.set(js_sys::Date::now() - now);
                TimeoutFuture::new(1000).await;
            }
        });
        Some(controls)
    }

    /// Runs `batch` under `controls` (from [`begin`](Self::begin)) with
    /// `host` making each run's context; each run is recorded in History
    /// when `save`. Ends the batch when its last run ended.
    pub async fn run(
        self,
        controls: Controls,
        batch: Batch<T>,
        host: impl Host<T>,
        save: bool,
    ) -> batch::Report<T> {
        let page = Page {
            host,
            state: self,
            save,
            prices: controls.prices().clone(),
        };
        let report = batch::run(batch, &controls, &page).await;
        self.end();
        report
    }

    /// The batch's name says which prompts its `jobs` are told.
    pub fn name_prompts<U>(self, jobs: &[Job<U>]) {
        let more = batch::prompt_sets::described(jobs);
        self.label.update(|l| l.push_str(more));
    }

    /// The batch could not start (its setup failed after `begin`): says why.
    pub fn fail(self, message: String) {
        self.error.set(Some(message));
        self.end();
    }

    /// The batch turned out to have nothing to do: it ends, saying nothing.
    pub fn abandon(self) {
        self.end();
    }

    fn end(self) {
        self.controls.set_value(None);
        self.active.set(false);
        self.elapsed_ms
            .set(js_sys::Date::now() - self.started_ms.get_untracked());
    }

    pub fn pause(self) {
        self.controls
            .with_value(|c| c.as_ref().map(Controls::pause));
    }

    pub fn resume(self) {
        self.controls
            .with_value(|c| c.as_ref().map(Controls::resume));
    }

    pub fn stop(self) {
        self.controls.with_value(|c| c.as_ref().map(Controls::stop));
    }

    /// Runs that ended with `status`.
    pub fn count(self, status: RunStatus) -> usize {
        self.runs
            .with(|v| v.iter().filter(|i| i.status() == status).count())
    }
}

impl<T: Clone + Send + Sync + 'static> Default for BatchRun<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The page's host, with what every page does for each run: record it in
/// History when asked, list it when it ends.
struct Page<T: Send + Sync + 'static, H> {
    host: H,
    state: BatchRun<T>,
    save: bool,
    prices: PriceTable,
}

impl<T: Clone + Send + Sync + 'static, H: Host<T>> Host<T> for Page<T, H> {
    fn context(&self, job: &Job<T>, controls: &Controls) -> Result<RunCtx, String> {
        let ctx = self.host.context(job, controls)?;
        if self.save && !controls.is_stopped() {
            let error = self.state.error;
            recorder::record(&ctx, self.prices.clone(), move |msg| error.set(Some(msg)));
        }
        Ok(ctx)
    }

    fn ended<'a>(&'a self, run: &'a Finished<T>) -> LocalBoxFuture<'a, ()> {
        Box::pin(async move {
            self.host.ended(run).await;
            if run.status == RunStatus::Cancelled && !run.started() {
                return;
            }
            let item = Item {
                run: Arc::new(run.clone()),
                // Recorded from its context on: not a run that could not be set up.
                saved: self.save && !run.resumed && !run.not_set_up(),
            };
            self.state.runs.update(|v| {
                v.push(item);
                v.sort_by_key(|i| i.run.job);
            });
        })
    }
}
