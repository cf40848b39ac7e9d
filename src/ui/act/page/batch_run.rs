//! Starting the ACT batch: jobs = variants × trials of the setup's task
//! source, each an ordinary run (own context and log, recorded in History
//! when asked), a few at a time through one shared gate (Pause / Resume)
//! and cancellation token (Stop), as the travel batch does. ACT+ is the
//! exception: its trials run one after another in trial order, sharing one
//! knowledge bank (opened from IndexedDB, saved back after each trial),
//! alongside the other runs.

use super::super::setup::refresh_stored;
use super::super::state::{act_setup, ActSetup, BUILTIN, FREE};
use super::batch_state::{failure_of, result_of, BatchActivity, BatchItem, BatchState};
use crate::engine::coordinators::act::contract::Variant;
use crate::engine::coordinators::act::plus::{Bank, BankData};
use crate::engine::coordinators::act::{self, demo};
use crate::engine::domains::creative::ComplexTask;
use crate::engine::model::pricing::PriceTable;
use crate::engine::run::budget::{Budget, SpendCap};
use crate::engine::run::{execute, LoggedEvent, ModelRouter, RunCtx, RunDoc, RunEvent, RunStatus};
use crate::engine::views::usage::UsageView;
use crate::engine::views::Fold;
use crate::platform::clock::BrowserClock;
use crate::platform::{act_store, recorder};
use crate::ui::state::{settings_model, AppState};
use futures::StreamExt;
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;
use std::sync::Arc;

/// One run to make: a variant on a trial.
struct Job {
    idx: usize,
    variant: Variant,
    trial: u32,
    task: ComplexTask,
}

/// Why the setup gives no task for the batch, and what to do.
fn no_task(setup: &ActSetup, first: u32) -> String {
    match setup.source.as_str() {
        FREE => "Type the task for the team in the setup on the Run page first, or pick a task set below.".into(),
        BUILTIN => "The built-in set gave no task.".into(),
        name => match setup.trials() {
            Some(n) => format!("The set \"{name}\" has {n} task(s), so there is no trial {first}: start at trial {} or lower.", n.saturating_sub(1)),
            None => format!("The set \"{name}\" is still loading or could not be read: pick it again below."),
        },
    }
}

fn source_label(setup: &ActSetup) -> String {
    match setup.source.as_str() {
        BUILTIN if setup.community.is_empty() => "built-in design set".into(),
        BUILTIN => format!("built-in design set ({})", setup.community),
        FREE => "a typed task (not scored)".into(),
        name => format!("set \"{name}\""),
    }
}

impl BatchState {
    /// Starts the batch the form describes, on the setup's task source and
    /// the model in Settings.
    pub fn start(self, app: AppState) {
        if self.activity.get_untracked() != BatchActivity::Idle {
            return;
        }
        self.error.set(None);
        self.note.set(None);
        let form = self.form.get_untracked();
        let setup = act_setup().get_untracked();
        let settings = app.settings.get_untracked();
        if form.variants.is_empty() {
            self.error.set(Some("Pick at least one variant.".into()));
            return;
        }
        let bank_name = form.bank.trim().to_string();
        if form.has_plus() && bank_name.is_empty() {
            self.error.set(Some(
                "Name the knowledge bank ACT+ reads and fills (for example \"batch\").".into(),
            ));
            return;
        }
        let tasks: Vec<(u32, ComplexTask)> = (form.first..form.first + form.trials.max(1))
            .map_while(|t| setup.task_at(t).map(|task| (t, task)))
            .collect();
        let Some(last) = tasks.last().map(|(t, _)| *t) else {
            self.error.set(Some(no_task(&setup, form.first)));
            return;
        };
        if (tasks.len() as u32) < form.trials {
            self.note.set(Some(format!(
                "The set has no trial after {last}: running {} trial(s) per variant, not {}.",
                tasks.len(),
                form.trials
            )));
        }
        let (spec, model) = match settings_model(&settings, 0, demo::answer) {
            Ok(m) => m,
            Err(e) => {
                self.error.set(Some(format!(
                    "{e} Open Settings (top right) to fix the model, then Start again."
                )));
                return;
            }
        };
        let jobs: Vec<Job> = form
            .variants
            .iter()
            .flat_map(|v| tasks.iter().map(move |(t, task)| (*v, *t, task.clone())))
            .enumerate()
            .map(|(idx, (variant, trial, task))| Job {
                idx,
                variant,
                trial,
                task,
            })
            .collect();
        self.items.set(Vec::new());
        self.total.set(jobs.len());
        self.started.set(0);
        self.cost_usd.set(0.0);
        let now = js_sys::Date::now();
        self.started_ms.set(now);
        self.elapsed_ms.set(0.0);
        let first = form.first;
        self.label.set(format!(
            "{} · {} · trial{} {}{}{}",
            settings.label(),
            source_label(&setup),
            if first == last { "" } else { "s" },
            if first == last {
                first.to_string()
            } else {
                format!("{first}–{last}")
            },
            if form.judge { " · LLM judge" } else { "" },
            if form.has_plus() {
                format!(" · ACT+ bank \"{bank_name}\"")
            } else {
                String::new()
            }
        ));
        let (gate, cancel) = self.run.begin();
        let this = self;
        // The clock on the progress line, also while every run waits.
        spawn_local(async move {
            while this.activity.get_untracked() != BatchActivity::Idle
                && this.started_ms.get_untracked() == now
            {
                this.elapsed_ms.set(js_sys::Date::now() - now);
                TimeoutFuture::new(1000).await;
            }
        });
        spawn_local(async move {
            let prices = settings.prices.clone();
            let cap = SpendCap {
                usd: form.cap_usd,
                tokens: form.cap_tokens,
            };
            let batch_budget = cap
                .is_set()
                .then(|| Rc::new(Budget::new("batch", cap, prices.clone())));
            let make_ctx = |job: &Job| {
                let mut config = app.new_config(act::ID, &job.task.text, spec.clone());
                config.run_id = format!("{}-b{}", config.run_id, job.idx);
                config.variant = Some(job.variant.id().into());
                config.seed = u64::from(job.trial);
                let mut options = setup.options(job.task.clone());
                options.judge = form.judge;
                options.bank = (job.variant == Variant::ActPlus).then(|| bank_name.clone());
                config.options = serde_json::to_value(&options).unwrap_or_default();
                let ctx = RunCtx::with_controls(
                    config,
                    ModelRouter::single(model.clone()),
                    Rc::new(BrowserClock),
                    gate.clone(),
                    cancel.child(),
                );
                ctx.use_prices(prices.clone());
                if let Some(b) = &batch_budget {
                    ctx.add_budget(b.clone());
                }
                if cancel.is_cancelled() {
                    // Stopped: the jobs not started yet run as no-ops and are dropped.
                    return ctx;
                }
                if form.save {
                    recorder::record(&ctx, prices.clone(), move |msg| this.error.set(Some(msg)));
                }
                let (prices, model_name) = (prices.clone(), spec.model.clone());
                ctx.on_event(move |e| match &e.event {
                    RunEvent::RunStarted { .. } => this.started.update(|n| *n += 1),
                    RunEvent::LlmResponse { response, .. } => {
                        if let Some(c) = prices.cost(&model_name, &response.usage) {
                            this.cost_usd.update(|x| *x += c);
                        }
                    }
                    _ => {}
                });
                ctx
            };
            let (plus, others): (Vec<&Job>, Vec<&Job>) =
                jobs.iter().partition(|j| j.variant == Variant::ActPlus);
            let concurrency = form.concurrency.clamp(1, 16) as usize;
            // The ACT+ loop takes one of the places.
            let width = if plus.is_empty() {
                concurrency
            } else {
                concurrency.saturating_sub(1).max(1)
            };
            let concurrent = async {
                let runs = futures::stream::iter(others.iter().map(|job| {
                    let ctx = make_ctx(job);
                    async move {
                        let status = execute(&ctx, act::entry).await;
                        (*job, status, ctx.events())
                    }
                }))
                .buffer_unordered(width);
                futures::pin_mut!(runs);
                while let Some((job, status, events)) = runs.next().await {
                    this.push(job, status, events, &prices, form.save);
                }
            };
            let sequential = async {
                if plus.is_empty() {
                    return;
                }
                if !super::super::launch::begin_filling(&bank_name) {
                    this.error.set(Some(format!(
                        "A run on the Run page is filling the knowledge bank \"{bank_name}\": the ACT+ runs were skipped (pick another bank, or run them when it ends); the other variants run on."
                    )));
                    this.total.update(|n| *n -= plus.len());
                    return;
                }
                let data = match act_store::load_bank(&bank_name).await {
                    Ok(Some(d)) => d,
                    Ok(None) => BankData::empty(&bank_name),
                    Err(e) => {
                        this.error.set(Some(format!(
                            "{e} The ACT+ runs were skipped; the other variants run on."
                        )));
                        this.total.update(|n| *n -= plus.len());
                        super::super::launch::end_filling(&bank_name);
                        return;
                    }
                };
                let model = act_setup().with_untracked(|s| s.embedding_model.clone());
                let embedder = match crate::ui::embeddings::embedder(&model, &settings).await {
                    Ok(e) => e,
                    Err(e) => {
                        this.error.set(Some(format!(
                            "{e} The ACT+ runs were skipped; the other variants run on."
                        )));
                        this.total.update(|n| *n -= plus.len());
                        super::super::launch::end_filling(&bank_name);
                        return;
                    }
                };
                let bank = Rc::new(Bank {
                    data: std::cell::RefCell::new(data),
                    embedder,
                });
                for job in &plus {
                    if cancel.is_cancelled() {
                        break;
                    }
                    let ctx = make_ctx(job);
                    ctx.insert_resource(bank.clone());
                    let status = execute(&ctx, act::entry).await;
                    let data = bank.data.borrow().clone();
                    if let Err(e) = act_store::save_bank(&bank_name, &data).await {
                        this.error.set(Some(format!(
                            "The knowledge bank \"{bank_name}\" could not be saved after trial {}: {} The next ACT+ trials still carry it over in memory.",
                            job.trial,
                            e.user_message()
                        )));
                    }
                    refresh_stored();
                    this.push(job, status, ctx.events(), &prices, form.save);
                }
                super::super::launch::end_filling(&bank_name);
            };
            futures::join!(concurrent, sequential);
            this.finish();
        });
    }

    fn push(
        self,
        job: &Job,
        status: RunStatus,
        events: Vec<LoggedEvent>,
        prices: &PriceTable,
        saved: bool,
    ) {
        let config = events.iter().find_map(|e| match &e.event {
            RunEvent::RunStarted { config } => Some(config.clone()),
            _ => None,
        });
        let Some(config) = config else {
            return;
        };
        let never_started = !events
            .iter()
            .any(|e| matches!(e.event, RunEvent::LlmRequest { .. }));
        if status == RunStatus::Cancelled && never_started {
            return;
        }
        let (cost, _) = UsageView::of(&events).total.cost(prices);
        let item = BatchItem {
            job: job.idx,
            variant: job.variant,
            trial: job.trial,
            status,
            cost_usd: cost,
            saved,
            result: result_of(&events),
            failure: failure_of(&events),
            doc: Arc::new(RunDoc::new(config, events)),
        };
        self.items.update(|v| {
            v.push(item);
            v.sort_by_key(|i| i.job);
        });
        self.elapsed_ms
            .set(js_sys::Date::now() - self.started_ms.get_untracked());
    }
}
