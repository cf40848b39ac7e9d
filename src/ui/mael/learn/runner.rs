//! The learning page's two jobs, through the page's batch (`ui::batch`)
//! with MAEL's jobs (`mael::learn`): a learning phase (training tasks one
//! after another, the pool saved to IndexedDB after each, so a reload
//! loses at most the task in flight, and a new start resumes where it
//! stopped) and an evaluation (test tasks in each mode and Table 4
//! variant against a pool it never changes, then the pool-size sweep).
//! One at a time.

use super::super::launch::{busy_elsewhere, models};
use super::super::memory;
use super::super::setup::{refresh_stored, tasks_of};
use super::super::state::{is_split, mael_setup, MaelSetup};
use super::state::{Job, LearnState};
use crate::engine::base::words::count;
use crate::engine::coordinators::mael::contract::MaelOptions;
use crate::engine::coordinators::mael::learn::{
    evaluation_jobs, first_tasks, learning_jobs, pending, refuse_trained, Tag,
};
use crate::engine::coordinators::mael::memory::Memory;
use crate::engine::coordinators::mael::{self, ID};
use crate::engine::domains::tasks::builtin::Split;
use crate::engine::domains::tasks::{split_file, Task};
use crate::engine::model::ChatModel;
use crate::engine::run::batch::{
    for_prompt_sets, Batch, Controls, Ended, Finished, Host, Job as BatchJob, PromptSets,
};
use crate::engine::run::{ModelSpec, RunCtx, RunStatus};
use crate::platform::clock::BrowserClock;
use crate::platform::experience_store::Pools;
use crate::platform::stored::Stored;
use crate::platform::{locks, python};
use crate::ui::state::{settings_model, Activity, AppState};
use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::any::Any;
use std::collections::HashMap;
use std::rc::Rc;

/// What both jobs need: the setup, the model, the tasks, the pool.
struct Prepared {
    setup: MaelSetup,
    spec: ModelSpec,
    model: Rc<dyn ChatModel>,
    tasks: Vec<Task>,
    pool: Rc<Stored<Pools>>,
    memory: Rc<Memory>,
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

/// MAEL's runs: the Settings' model (and the team's own per agent), on the
/// pool (a sweep point's pool for its runs); a learning run's pool is
/// saved when it finishes.
struct Runs {
    app: AppState,
    p: Prepared,
    sweep: HashMap<usize, Rc<Memory>>,
    learning: bool,
    error: RwSignal<Option<String>>,
}

impl Host<Tag> for Runs {
    fn context(&self, job: &BatchJob<Tag>, controls: &Controls) -> Result<RunCtx, String> {
        let mut config = job.config.clone();
        let options: MaelOptions =
            serde_json::from_value(config.options.clone()).map_err(|e| e.to_string())?;
        let router = models(
            self.app,
            &mut config,
            &options,
            self.p.model.clone(),
            &self.p.spec,
        );
        let ctx = controls.context(config, router, Rc::new(BrowserClock));
        let memory = match job.tag.pool_tasks {
            Some(n) => self.sweep.get(&n).cloned().ok_or("no pool of that size")?,
            None => self.p.memory.clone(),
        };
        ctx.insert_resource(memory);
        ctx.insert_resource(python::runner());
        ctx.insert_resource(crate::platform::project::runner());
        Ok(ctx)
    }

    fn ended<'a>(&'a self, run: &'a Finished<Tag>) -> LocalBoxFuture<'a, ()> {
        Box::pin(async move {
            if !self.learning || run.status != RunStatus::Finished {
                return;
            }
            if let Err(e) = self.p.pool.save_new().await {
                self.error.set(Some(e.user_message()));
            }
        })
    }
}

impl LearnState {
    /// `split`: the half of an imported set the job takes (its even tasks
    /// learn, its odd ones test; the built-in sets are splits already).
    /// `claim`: the pool's lock (a learning phase holds it until it ends).
    async fn prepare(
        self,
        app: AppState,
        set: &str,
        n: usize,
        split: Split,
        claim: Option<Box<dyn Any>>,
    ) -> Result<Prepared, String> {
        let setup = mael_setup().get_untracked();
        setup.team.validate().map_err(|e| e.user_message())?;
        if setup.pool.trim().is_empty() {
            return Err(
                "Name a pool first (in the pools list or the Run page's MAEL panel).".into(),
            );
        }
        let settings = app.settings.get_untracked();
        let (spec, model) = settings_model(&settings, 0, mael::demo::answer)?;
        let mut tasks = tasks_of(set).await?;
        // A built-in set is a split already; a file lends its even tasks
        // to learning and its odd ones to testing.
        if !is_split(set) {
            tasks = split_file(tasks, split);
        }
        tasks.truncate(n.max(1));
        if tasks.is_empty() {
            return Err("The task set has no task.".into());
        }
        let embedder = memory::embedder(&setup, &settings).await?;
        let pool = memory::open(&setup.pool, embedder, claim).await?;
        Ok(Prepared {
            setup,
            spec,
            model,
            tasks,
            memory: pool.live(),
            pool,
        })
    }

    /// A job starts: its batch begins (the clock, the controls).
    fn begin(self, app: AppState, job: Job, pool: &str) -> Option<Controls> {
        let settings = app.settings.get_untracked();
        let controls = self.run.begin(
            &self.common.get_untracked(),
            settings.prices.clone(),
            settings.label(),
        )?;
        self.skipped.set(0);
        self.pool.set(pool.into());
        self.starts(job);
        self.status.set("Opening the pool…".into());
        Some(controls)
    }

    /// Starts a learning phase into the setup's pool.
    pub fn learn(self, app: AppState) {
        let form = self.learn_form.get_untracked();
        let pool_name = mael_setup().with_untracked(|s| s.pool.clone());
        if run_page_learns_into(app, &pool_name) {
            self.run.error.set(Some(format!("A run on the Run page is learning into the pool \"{pool_name}\": let it end (or stop it) first.")));
            return;
        }
        let (save, sets) = self.common.with_untracked(|c| (c.save, c.prompt_sets));
        spawn_local(async move {
            // Held until the phase ends: no other tab learns into the pool.
            // Taken before the job begins, so a refusal leaves the last
            // job's figures on screen (a job of this tab holding it: a
            // second click, nothing to say).
            let Some(lock) = locks::try_lock(&locks::pool_lock(&pool_name)).await else {
                if !self.run.active.get_untracked() {
                    self.run.error.set(Some(busy_elsewhere(&pool_name)));
                }
                return;
            };
            let Some(controls) = self.begin(app, Job::Learning, &pool_name) else {
                return;
            };
            let claim: Box<dyn Any> = Box::new(lock);
            let p = match self
                .prepare(app, &form.set, form.n, Split::Train, Some(claim))
                .await
            {
                Ok(p) => p,
                Err(e) => return self.run.fail(e),
            };
            let todo = pending(&p.memory.pool.borrow(), &p.tasks);
            self.skipped.set(p.tasks.len() - todo.len());
            self.metric.set(p.tasks[0].dataset.metric().into());
            if todo.is_empty() {
                self.status.set(format!(
                    "The pool \"{pool_name}\" has learned all {} tasks already: pick more tasks or another pool.",
                    p.tasks.len()
                ));
                return self.run.abandon();
            }
            self.status
                .set(format!("Learning {} tasks, one after another…", todo.len()));
            let base = app.new_config(ID, "", p.spec.clone());
            let jobs = learning_jobs(&base, &todo, form.mode, |t| p.setup.options(t.clone()));
            let jobs = for_prompt_sets(jobs, one_set(sets), |_| {});
            self.run.name_prompts(&jobs);
            let mut batch = Batch::new(jobs, 1);
            batch.halt_lane_on_failure = true;
            let total = todo.len();
            let memory = p.memory.clone();
            // Held until the phase ends (the pool's lock goes with it).
            let pool = p.pool.clone();
            let host = Runs {
                app,
                p,
                sweep: HashMap::new(),
                learning: true,
                error: self.run.error,
            };
            let report = self.run.run(controls, batch, host, save).await;
            let n = report.progress.finished;
            self.status.set(if n == total {
                format!(
                    "Learned {}; the pool \"{pool_name}\" has {}.",
                    count(n, "task"),
                    count(memory.pool.borrow().len(), "experience")
                )
            } else {
                format!("Stopped after {n} of {total} tasks; the pool keeps what was learned. Start again to resume.")
            });
            refresh_stored();
            pool.release();
        });
    }

    /// Starts an evaluation against the setup's pool, then the sweep.
    pub fn evaluate(self, app: AppState) {
        let form = self.eval_form.get_untracked();
        let scoring = mael_setup().with_untracked(|s| s.scoring);
        let rows = form.groups(scoring);
        if rows.is_empty() {
            self.run.error.set(Some("Pick at least one mode.".into()));
            return;
        }
        let pool_name = mael_setup().with_untracked(|s| s.pool.clone());
        let common = self.common.get_untracked();
        spawn_local(async move {
            // Checked before the job begins: a refused evaluation leaves the
            // last one's results on screen.
            let p = match self
                .prepare(app, &form.set, form.n, Split::Test, None)
                .await
            {
                Ok(p) => p,
                Err(e) => return self.run.error.set(Some(e)),
            };
            let name = format!("The pool \"{pool_name}\"");
            if let Err(e) = refuse_trained(&p.memory.pool.borrow(), &name, &p.tasks) {
                return self.run.error.set(Some(e));
            }
            let Some(controls) = self.begin(app, Job::Evaluating, &pool_name) else {
                return;
            };
            self.evaluated.set(Vec::new());
            let sizes = form.sweep_sizes();
            self.metric.set(p.tasks[0].dataset.metric().into());
            let mut sweep = HashMap::new();
            for &size in &sizes {
                let sub = first_tasks(&p.memory.pool.borrow(), size);
                match Memory::new(&p.setup.pool, sub, p.memory.embedder.clone()) {
                    Ok(m) => sweep.insert(size, Rc::new(m)),
                    Err(e) => return self.run.fail(e.user_message()),
                };
            }
            self.status.set(format!(
                "Evaluating {} rows{} on {} test tasks…",
                rows.len(),
                if sizes.is_empty() {
                    String::new()
                } else {
                    format!(" and a {}-point sweep", sizes.len())
                },
                p.tasks.len()
            ));
            let base = app.new_config(ID, "", p.spec.clone());
            let jobs = evaluation_jobs(&base, &p.tasks, &rows, &sizes, |t| {
                let mut o = p.setup.options(t.clone());
                o.learn = false;
                o
            });
            // The table's rows may run on both prompt sets; the sweep runs
            // on one (the user's, side by side).
            let (table, sweep_jobs): (Vec<_>, Vec<_>) =
                jobs.into_iter().partition(|j| j.tag.pool_tasks.is_none());
            let mut jobs = for_prompt_sets(table, common.prompt_sets, |_| {});
            jobs.extend(for_prompt_sets(
                sweep_jobs,
                one_set(common.prompt_sets),
                |_| {},
            ));
            let (tasks, pool_len) = (p.tasks.len(), p.memory.pool.borrow().len());
            let host = Runs {
                app,
                p,
                sweep,
                learning: false,
                error: self.run.error,
            };
            self.run.name_prompts(&jobs);
            let batch = Batch::new(jobs, common.concurrency());
            let report = self.run.run(controls, batch, host, common.save).await;
            self.evaluated.set(self.run.runs.get_untracked());
            self.status.set(match report.progress.ended {
                Some(Ended::Completed) => format!(
                    "Done: {tasks} tasks × {} rows{} against the pool \"{pool_name}\" ({pool_len} experiences, unchanged).",
                    rows.len(),
                    if sizes.is_empty() { String::new() } else { format!(" and a {}-point sweep", sizes.len()) },
                ),
                _ => "Stopped: the figures count the runs that finished.".into(),
            });
        });
    }
}

/// The prompts of the runs that fill one pool (a learning phase) or one
/// figure (the sweep): the user's when the table compares both sets.
fn one_set(sets: PromptSets) -> PromptSets {
    match sets {
        PromptSets::Both => PromptSets::AsSetUp,
        other => other,
    }
}
