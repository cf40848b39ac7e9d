//! Starting and forking ACT runs: the task, variant and options from the
//! setup; for ACT+ the knowledge bank opened from IndexedDB (the built-in
//! lexical embedder compares keywords with tasks), given to the run and
//! written back when the run ends, so the team's knowledge survives
//! reloads.

use super::state::{act_setup, ActSetup};
use crate::engine::coordinators::act::contract::Variant;
use crate::engine::coordinators::act::plus::{Bank, BankData};
use crate::engine::coordinators::act::{self, ID};
use crate::engine::model::demo;
use crate::engine::model::fork::{ForkEdit, ForkModel};
use crate::engine::model::ChatModel;
use crate::engine::run::{ModelRouter, RunConfig, RunCtx, RunDoc};
use crate::platform::act_store;
use crate::ui::state::{Activity, AppState, RunSetup};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

/// The demo model's part for ACT runs.
pub const SCRIPT: demo::Script = act::demo::answer;

/// Opens the bank (ACT+) and launches; the bank is saved when the run ends.
fn launch_with_bank(
    app: AppState,
    setup: ActSetup,
    config: RunConfig,
    router: ModelRouter,
    paused: bool,
) {
    let plus = config.variant.as_deref() == Some(Variant::ActPlus.id());
    if !plus {
        return app.launch(config, router, paused, act::entry, None);
    }
    // The bank the run's options name (a fork keeps its parent's).
    let name = serde_json::from_value::<crate::engine::coordinators::act::contract::ActOptions>(
        config.options.clone(),
    )
    .ok()
    .and_then(|o| o.bank)
    .unwrap_or(setup.bank)
    .trim()
    .to_string();
    if name.is_empty() {
        return app.warn("Name the knowledge bank ACT+ reads and fills.", false);
    }
    spawn_local(async move {
        let data = match act_store::load_bank(&name).await {
            Ok(Some(d)) => d,
            Ok(None) => BankData::empty(&name),
            Err(e) => return app.warn(e, false),
        };
        if app.activity.get_untracked() != Activity::Idle {
            return;
        }
        let settings = app.settings.get_untracked();
        let embedder =
            match crate::ui::embeddings::embedder(&setup.embedding_model, &settings).await {
                Ok(e) => e,
                Err(e) => return app.warn(e, false),
            };
        let bank = Rc::new(Bank {
            data: std::cell::RefCell::new(data),
            embedder,
        });
        let run_setup: RunSetup = Box::new(move |ctx: &RunCtx| {
            ctx.insert_resource(bank.clone());
            ctx.on_event(move |e| {
                if e.event.is_terminal() {
                    let (bank, name) = (bank.clone(), name.clone());
                    spawn_local(async move {
                        let data = bank.data.borrow().clone();
                        if let Err(err) = act_store::save_bank(&name, &data).await {
                            app.storage_error.set(Some(err.user_message()));
                        }
                        super::setup::refresh_stored();
                    });
                }
            });
        });
        app.launch(config, router, paused, act::entry, Some(run_setup));
    });
}

pub fn start(app: AppState, paused: bool) {
    let setup = act_setup().get_untracked();
    let Some(task) = setup.task() else {
        return app.warn(
            if setup.source == super::state::FREE {
                "Type the task for the team first."
            } else {
                "Pick a task to work on first."
            },
            false,
        );
    };
    let Some((spec, model)) = app.live_model(SCRIPT) else {
        return;
    };
    let options = setup.options(task.clone());
    let mut config = app.new_config(ID, &task.text, spec);
    config.variant = Some(setup.variant.id().into());
    config.seed = u64::from(setup.trial);
    config.options = serde_json::to_value(&options).unwrap_or_default();
    launch_with_bank(app, setup, config, ModelRouter::single(model), paused);
}

pub fn fork(app: AppState, parent: RunDoc, k: u32, edit: ForkEdit) {
    let Some((spec, live)) = app.live_model(SCRIPT) else {
        return;
    };
    let config = app.fork_config(&parent, k, spec);
    let model: Rc<dyn ChatModel> = Rc::new(ForkModel::new(&parent.events, k as usize, edit, live));
    launch_with_bank(
        app,
        act_setup().get_untracked(),
        config,
        ModelRouter::single(model),
        false,
    );
}
