//! Starting and forking MAEL runs: the task, mode and team from the setup,
//! a model per agent where the team names one, the pool opened from
//! IndexedDB with its embedder and given to the run, and written back
//! when a run that learned ends.

use super::memory;
use super::state::{mael_setup, MaelSetup};
use crate::engine::coordinators::mael::contract::MaelOptions;
use crate::engine::coordinators::mael::{self, ID};
use crate::engine::model::demo;
use crate::engine::model::ChatModel;
use crate::engine::run::config::ModelBinding;
use crate::engine::run::fork::ForkEdit;
use crate::engine::run::{ModelRouter, ModelSpec, RunConfig, RunCtx, RunDoc};
use crate::platform::{keys, locks, python};
use crate::ui::provider::LazyProvider;
use crate::ui::state::{Activity, AppState, RunSetup};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

/// The demo model's part for MAEL runs.
pub const SCRIPT: demo::Script = mael::demo::answer;

/// The run's models: the Settings' model for every agent, and for an agent
/// the team names a model for, that model at the same provider.
pub(super) fn models(
    app: AppState,
    config: &mut RunConfig,
    options: &MaelOptions,
    model: Rc<dyn ChatModel>,
    spec: &ModelSpec,
) -> ModelRouter {
    let mut router = ModelRouter::single(model);
    let Some(format) = spec.format else {
        return router; // the demo model plays every agent
    };
    let key = keys::get(&app.settings.get_untracked().provider);
    for agent in &options.team.agents {
        let Some(name) = agent
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
        else {
            continue;
        };
        let s = ModelSpec {
            model: name.to_string(),
            ..spec.clone()
        };
        config.models.push(ModelBinding {
            role: agent.id.clone(),
            spec: s.clone(),
        });
        router = router.bind(
            &agent.id,
            Rc::new(LazyProvider::new(s, Some(format), key.clone())),
        );
    }
    router
}

/// Opens the pool the options name and launches with it; writes the pool
/// back when a run that learned ends.
fn launch_with_pool(
    app: AppState,
    setup: MaelSetup,
    config: RunConfig,
    router: ModelRouter,
    paused: bool,
) {
    let learn = serde_json::from_value::<MaelOptions>(config.options.clone())
        .map(|o| o.learn)
        .unwrap_or(false);
    let pool = serde_json::from_value::<MaelOptions>(config.options.clone())
        .ok()
        .and_then(|o| o.pool)
        .unwrap_or_else(|| setup.pool.clone());
    if learn && super::learn::filling(&pool) {
        return app.warn(
            format!("A learning phase is filling the pool \"{pool}\" on the MAEL page: wait for it, stop it, or pick another pool (or untick Learn)."),
            false,
        );
    }
    spawn_local(async move {
        // Another tab learning into the pool would save over this run's work.
        let lock = match learn {
            true => match locks::try_lock(&locks::pool_lock(&pool)).await {
                Some(held) => Some(held),
                None => return app.warn(busy_elsewhere(&pool), false),
            },
            false => None,
        };
        let settings = app.settings.get_untracked();
        let embedder = match memory::embedder(&setup, &settings).await {
            Ok(e) => e,
            Err(e) => return app.warn(e, false),
        };
        let claim = lock.map(|held| Box::new(held) as Box<dyn std::any::Any>);
        let stored = match memory::open(&pool, embedder, claim).await {
            Ok(m) => m,
            Err(e) => return app.warn(e, false),
        };
        if app.activity.get_untracked() != Activity::Idle {
            return;
        }
        let run_setup: RunSetup = Box::new(move |ctx: &RunCtx| {
            ctx.insert_resource(stored.live());
            ctx.insert_resource(python::runner());
            ctx.insert_resource(crate::platform::project::runner());
            if learn {
                // The pool's lock is released once the pool is saved.
                app.save_at_end(ctx, stored, super::setup::refresh_stored);
            }
        });
        app.launch(config, router, paused, mael::entry, Some(run_setup));
    });
}

/// Why a run or a learning phase may not learn into the pool `name` now.
pub fn busy_elsewhere(name: &str) -> String {
    format!("Another tab is learning into the pool \"{name}\": let it end there (or stop it), or pick another pool here. Two tabs learning into one pool would each save over the other's experiences.")
}

/// Starts a MAEL run on the selected task, mode, team and pool.
pub fn start(app: AppState, paused: bool) {
    let setup = mael_setup().get_untracked();
    let Some(task) = setup.task().cloned() else {
        return app.warn("Pick a task to solve first.", false);
    };
    if let Err(e) = setup.team.validate() {
        return app.warn(e.user_message(), false);
    }
    let Some((spec, model)) = app.live_model(SCRIPT) else {
        return;
    };
    let options = setup.options(task.clone());
    let mut config = app.new_config(ID, &task.prompt, spec.clone());
    config.variant = Some(setup.mode.id().into());
    config.options = serde_json::to_value(&options).unwrap_or_default();
    let router = models(app, &mut config, &options, model, &spec);
    launch_with_pool(app, setup, config, router, paused);
}

/// Forks a MAEL run at LLM call `k`, on the pool the setup names.
pub fn fork(app: AppState, parent: RunDoc, k: u32, edit: ForkEdit) {
    let Some((config, model)) = app.fork_of(&parent, k, edit, SCRIPT) else {
        return;
    };
    launch_with_pool(
        app,
        mael_setup().get_untracked(),
        config,
        ModelRouter::single(model),
        false,
    );
}
