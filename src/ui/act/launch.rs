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
use crate::engine::run::fork::ForkEdit;
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
    if !begin_filling(&name) {
        return app.warn(
            format!("Another ACT+ run or batch is filling the knowledge bank \"{name}\": wait for it to end, or pick another bank."),
            false,
        );
    }
    spawn_local(async move {
        let fail = |msg: Option<String>| {
            end_filling(&name);
            if let Some(m) = msg {
                app.warn(m, false);
            }
        };
        let data = match act_store::load_bank(&name).await {
            Ok(Some(d)) => d,
            Ok(None) => BankData::empty(&name),
            Err(e) => return fail(Some(e)),
        };
        if app.activity.get_untracked() != Activity::Idle {
            return fail(None);
        }
        let settings = app.settings.get_untracked();
        let embedder =
            match crate::ui::embeddings::embedder(&setup.embedding_model, &settings).await {
                Ok(e) => e,
                Err(e) => return fail(Some(e)),
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
                        end_filling(&name);
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

// Knowledge banks an ACT+ run or batch is filling now: a second one on
// the same bank would lose one's updates.
thread_local! {
    static FILLING: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Marks `bank` as being filled; false when it already is.
pub fn begin_filling(bank: &str) -> bool {
    FILLING.with(|f| {
        let mut f = f.borrow_mut();
        if f.iter().any(|b| b == bank) {
            false
        } else {
            f.push(bank.to_string());
            true
        }
    })
}

pub fn end_filling(bank: &str) {
    FILLING.with(|f| f.borrow_mut().retain(|b| b != bank));
}

pub fn fork(app: AppState, parent: RunDoc, k: u32, edit: ForkEdit) {
    if parent.config.variant.as_deref() == Some(Variant::ActPlus.id()) {
        return app.warn(
            "An ACT+ run cannot be forked: its knowledge bank has changed since the run began, so the fork could not start from what the run knew. Start a new ACT+ run instead.",
            false,
        );
    }
    let Some((config, model)) = app.fork_of(&parent, k, edit, SCRIPT) else {
        return;
    };
    launch_with_bank(
        app,
        act_setup().get_untracked(),
        config,
        ModelRouter::single(model),
        false,
    );
}
