//! The learning page's two jobs: a learning phase (training tasks one
//! after another, the pool saved to IndexedDB after each, so a reload loses
//! at most the task in flight, and a new start resumes where it stopped)
//! and an evaluation (test tasks in each mode and Table 4 variant against
//! a pool it never changes, then the pool-size sweep). One at a time.

use super::super::launch::models;
use super::super::memory;
use super::super::setup::{refresh_stored, tasks_of};
use super::super::state::{mael_setup, MaelSetup};
use super::state::{Job, JobRun, LearnState};
use crate::engine::coordinators::mael::contract::{MaelOptions, Mode, Scoring};
use crate::engine::coordinators::mael::html::report::{label, Row};
use crate::engine::coordinators::mael::learn::{
    evaluation, first_tasks, learning_phase, pending, summarize, sweep_mode, Finished,
};
use crate::engine::coordinators::mael::memory::Memory;
use crate::engine::coordinators::mael::{self, setup::configure, ID};
use crate::engine::domains::tasks::Task;
use crate::engine::model::ChatModel;
use crate::engine::run::gate::Gate;
use crate::engine::run::{
    CancelToken, ModelRouter, ModelSpec, RunCtx, RunDoc, RunEvent, RunStatus,
};
use crate::platform::clock::BrowserClock;
use crate::platform::recorder;
use crate::ui::state::{settings_model, Activity, AppState};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;
use std::sync::Arc;

/// What both jobs need: the setup, the model, the tasks, the pool.
struct Prepared {
    setup: MaelSetup,
    spec: ModelSpec,
    model: Rc<dyn ChatModel>,
    tasks: Vec<Task>,
    memory: Rc<Memory>,
    saved: usize,
}

/// Whether the Run page's live run learns into the pool `name`.
fn run_page_learns_into(app: AppState, name: &str) -> bool {
    if app.activity.get_untracked() == Activity::Idle {
        return false;
    }
    app.shown.with_untracked(|s| {
        s.as_ref().is_some_and(|s| {
            s.config.coordinator == ID
                && serde_json::from_value::<MaelOptions>(s.config.options.clone())
                    .is_ok_and(|o| o.learn && o.pool.as_deref() == Some(name))
        })
    })
}

impl LearnState {
    async fn prepare(self, app: AppState, set: &str, n: usize) -> Result<Prepared, String> {
        let setup = mael_setup().get_untracked();
        setup.team.validate().map_err(|e| e.user_message())?;
        if setup.pool.trim().is_empty() {
            return Err(
                "Name a pool first (in the pools list or the Run page's MAEL panel).".into(),
            );
        }
        let settings = app.settings.get_untracked();
        let (spec, model) = settings_model(&settings, 0, mael::demo::answer)?;
        let tasks: Vec<Task> = tasks_of(set).await?.into_iter().take(n.max(1)).collect();
        if tasks.is_empty() {
            return Err("The task set has no task.".into());
        }
        let embedder = memory::embedder(&setup, &settings).await?;
        let (memory, saved) = memory::open(&setup.pool, embedder).await?;
        Ok(Prepared {
            setup,
            spec,
            model,
            tasks,
            memory,
            saved,
        })
    }

    fn begin(self, job: Job, pool: &str) -> (Gate, CancelToken) {
        self.error.set(None);
        self.runs.set(Vec::new());
        self.cost_usd.set(0.0);
        self.skipped.set(0);
        self.pool.set(pool.into());
        let now = js_sys::Date::now();
        self.started_ms.set(now);
        self.elapsed_ms.set(0.0);
        self.paused.set(false);
        self.stopping.set(false);
        self.job.set(job);
        let gate = Gate::new();
        let cancel = CancelToken::new();
        self.controls
            .set_value(Some((gate.clone(), cancel.clone())));
        (gate, cancel)
    }

    fn finish(self) {
        self.controls.set_value(None);
        self.job.set(Job::Idle);
        self.paused.set(false);
        self.stopping.set(false);
        self.tick();
    }

    fn tick(self) {
        self.elapsed_ms
            .set(js_sys::Date::now() - self.started_ms.get_untracked());
    }

    /// A run's context: the task in `mode` with `scoring`, on `memory`.
    #[allow(clippy::too_many_arguments)]
    fn context(
        self,
        app: AppState,
        p: &Prepared,
        memory: &Rc<Memory>,
        controls: &(Gate, CancelToken),
        (i, task, mode): (usize, &Task, Mode),
        scoring: Scoring,
        learn: bool,
        save: bool,
    ) -> RunCtx {
        let mut config = app.new_config(ID, &task.prompt, p.spec.clone());
        config.run_id = format!("{}-{}{i}", config.run_id, if learn { "l" } else { "e" });
        configure(&mut config, task.clone(), mode);
        let mut options: MaelOptions = p.setup.options(task.clone());
        options.scoring = scoring;
        options.learn = learn;
        options.pool = Some(memory.name.clone());
        config.options = serde_json::to_value(&options).unwrap_or_default();
        let router: ModelRouter = models(app, &mut config, &options, p.model.clone(), &p.spec);
        let (gate, cancel) = controls;
        let ctx = RunCtx::with_controls(
            config,
            router,
            Rc::new(BrowserClock),
            gate.clone(),
            cancel.child(),
        );
        ctx.insert_resource(memory.clone());
        if cancel.is_cancelled() {
            return ctx; // stopped: not started runs are dropped
        }
        let prices = app.settings.get_untracked().prices;
        if save {
            recorder::record(&ctx, prices.clone(), move |msg| self.error.set(Some(msg)));
        }
        let model_name = p.spec.model.clone();
        let this = self;
        ctx.on_event(move |e| {
            if let RunEvent::LlmResponse { response, .. } = &e.event {
                if let Some(c) = prices.cost(&model_name, &response.usage) {
                    this.cost_usd.update(|x| *x += c);
                }
                this.tick();
            }
        });
        ctx
    }

    fn push(self, group: &str, r: Finished, saved: bool) {
        let Some(config) = r.events.iter().find_map(|e| match &e.event {
            RunEvent::RunStarted { config } => Some(config.clone()),
            _ => None,
        }) else {
            return;
        };
        let started = r
            .events
            .iter()
            .any(|e| matches!(e.event, RunEvent::LlmRequest { .. }));
        if r.status == RunStatus::Cancelled && !started {
            return;
        }
        let n = self.runs.with_untracked(Vec::len);
        self.runs.update(|v| {
            v.push(JobRun {
                n,
                group: group.into(),
                task_id: r.task_id.clone(),
                status: r.status,
                score: r.result.as_ref().map(|x| x.score),
                rounds: r.result.as_ref().map(|x| x.rounds),
                learned: r.result.as_ref().map(|x| x.learned),
                completion_tokens: r.completion_tokens,
                saved,
                doc: Arc::new(RunDoc::new(config, r.events)),
            })
        });
        self.tick();
    }

    /// Starts a learning phase into the setup's pool.
    pub fn learn(self, app: AppState) {
        if self.job.get_untracked() != Job::Idle {
            return;
        }
        let form = self.learn_form.get_untracked();
        let pool_name = mael_setup().with_untracked(|s| s.pool.clone());
        if run_page_learns_into(app, &pool_name) {
            self.error.set(Some(format!("A run on the Run page is learning into the pool \"{pool_name}\": let it end (or stop it) first.")));
            return;
        }
        let controls = self.begin(Job::Learning, &pool_name);
        self.status.set("Opening the pool…".into());
        spawn_local(async move {
            let p = match self.prepare(app, &form.set, form.n).await {
                Ok(p) => p,
                Err(e) => {
                    self.error.set(Some(e));
                    return self.finish();
                }
            };
            let todo = pending(&p.memory.pool.borrow(), &p.tasks);
            self.skipped.set(p.tasks.len() - todo.len());
            self.total.set(todo.len());
            self.metric.set(p.tasks[0].dataset.metric().into());
            if todo.is_empty() {
                self.status.set(format!(
                    "The pool \"{pool_name}\" has learned all {} tasks already: pick more tasks or another pool.",
                    p.tasks.len()
                ));
                return self.finish();
            }
            self.status
                .set(format!("Learning task 1 of {}…", todo.len()));
            let saved = std::cell::Cell::new(p.saved);
            let memory = p.memory.clone();
            let make = |i: usize, t: &Task, m: Mode| {
                self.context(
                    app,
                    &p,
                    &memory,
                    &controls,
                    (i, t, m),
                    p.setup.scoring,
                    true,
                    form.save,
                )
            };
            let total = todo.len();
            learning_phase(&todo, form.mode, mael::entry, make, |run: Finished| {
                let memory = memory.clone();
                let from = saved.get();
                saved.set(memory.pool.borrow().len());
                let finished = run.status == RunStatus::Finished;
                self.push("learning", run, form.save);
                async move {
                    if finished {
                        if let Err(e) = memory::save(&memory, from).await {
                            self.error.set(Some(e));
                        }
                    }
                    let done = self.runs.with_untracked(Vec::len);
                    if done < total {
                        self.status
                            .set(format!("Learning task {} of {total}…", done + 1));
                    }
                }
            })
            .await;
            let n = self
                .runs
                .with_untracked(|v| v.iter().filter(|r| r.status == RunStatus::Finished).count());
            self.status.set(if n == total {
                format!("Learned {n} tasks; the pool \"{pool_name}\" has {} experiences.", p.memory.pool.borrow().len())
            } else {
                format!("Stopped after {n} of {total} tasks; the pool keeps what was learned. Start again to resume.")
            });
            refresh_stored();
            self.finish();
        });
    }

    /// Starts an evaluation against the setup's pool, then the sweep.
    pub fn evaluate(self, app: AppState) {
        if self.job.get_untracked() != Job::Idle {
            return;
        }
        let form = self.eval_form.get_untracked();
        let groups = form.groups();
        if groups.is_empty() {
            self.error.set(Some("Pick at least one mode.".into()));
            return;
        }
        let pool_name = mael_setup().with_untracked(|s| s.pool.clone());
        let controls = self.begin(Job::Evaluating, &pool_name);
        self.rows.set(Vec::new());
        self.sweep.set(Vec::new());
        self.status.set("Opening the pool…".into());
        spawn_local(async move {
            let p = match self.prepare(app, &form.set, form.n).await {
                Ok(p) => p,
                Err(e) => {
                    self.error.set(Some(e));
                    return self.finish();
                }
            };
            let sizes = form.sweep_sizes();
            let sweep = sweep_mode(&form.modes);
            self.total.set(p.tasks.len() * (groups.len() + sizes.len()));
            self.metric.set(p.tasks[0].dataset.metric().into());
            let concurrency = form.concurrency.clamp(1, 16);
            for g in &groups {
                if controls.1.is_cancelled() {
                    break;
                }
                self.status.set(format!("Evaluating {}…", g.label));
                let done = std::cell::RefCell::new(Vec::new());
                let make = |i: usize, t: &Task, m: Mode| {
                    self.context(
                        app,
                        &p,
                        &p.memory,
                        &controls,
                        (i, t, m),
                        g.scoring,
                        false,
                        form.save,
                    )
                };
                evaluation(&p.tasks, &[g.mode], concurrency, mael::entry, make, |r| {
                    self.push(&g.label, r.clone(), form.save);
                    done.borrow_mut().push(r);
                })
                .await;
                if let Some(summary) = summarize(&done.into_inner(), &[g.mode]).pop() {
                    self.rows.update(|rows| {
                        rows.push(Row {
                            label: g.label.clone(),
                            summary,
                        })
                    });
                }
            }
            for &size in &sizes {
                if controls.1.is_cancelled() {
                    break;
                }
                let sub = first_tasks(&p.memory.pool.borrow(), size);
                let m = match Memory::new(&p.setup.pool, sub, p.memory.embedder.clone()) {
                    Ok(m) => Rc::new(m),
                    Err(e) => {
                        self.error.set(Some(e.user_message()));
                        break;
                    }
                };
                let group = format!("sweep: {size} tasks ({})", label(sweep));
                self.status
                    .set(format!("Pool-size sweep: {size} learned tasks…"));
                let done = std::cell::RefCell::new(Vec::new());
                let make = |i: usize, t: &Task, md: Mode| {
                    self.context(
                        app,
                        &p,
                        &m,
                        &controls,
                        (i, t, md),
                        p.setup.scoring,
                        false,
                        form.save,
                    )
                };
                evaluation(&p.tasks, &[sweep], concurrency, mael::entry, make, |r| {
                    self.push(&group, r.clone(), form.save);
                    done.borrow_mut().push(r);
                })
                .await;
                if let Some(s) = summarize(&done.into_inner(), &[sweep]).pop() {
                    self.sweep.update(|v| v.push((size, s.score)));
                }
            }
            self.status.set(if controls.1.is_cancelled() {
                "Stopped: the figures count the runs that finished.".into()
            } else {
                format!(
                    "Done: {} tasks × {} rows{} against the pool \"{}\" ({} experiences, unchanged).",
                    p.tasks.len(),
                    groups.len(),
                    if sizes.is_empty() { String::new() } else { format!(" and a {}-point sweep", sizes.len()) },
                    p.setup.pool,
                    p.memory.pool.borrow().len()
                )
            });
            self.finish();
        });
    }
}
