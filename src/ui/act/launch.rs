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
use crate::platform::act_store::{self, Banks};
use crate::platform::locks::{self, TabClaim};
use crate::platform::stored::Stored;
use crate::ui::state::{Activity, AppState, RunSetup};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

/// The demo model's part for ACT runs.
pub const SCRIPT: demo::Script = act::demo::answer;

/// What a run with tools is given: the page's Python (the notebook) and,
/// when Settings name a search endpoint, the web.
pub fn give_tools(app: AppState, config: &RunConfig, ctx: &RunCtx) {
    let tools = serde_json::from_value::<crate::engine::coordinators::act::contract::ActOptions>(
        config.options.clone(),
    )
    .is_ok_and(|o| o.is_tool_task());
    if !tools {
        return;
    }
    ctx.insert_resource(crate::platform::project::runner());
    let endpoint = app
        .settings
        .with_untracked(|s| s.search_url.trim().to_string());
    if !endpoint.is_empty() {
        ctx.insert_resource(Rc::new(crate::engine::domains::agentverse::web::Web {
            endpoint,
            client: Rc::new(crate::platform::fetch::PageGet),
        }));
    }
}

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
        let shown = config.clone();
        let run_setup: RunSetup = Box::new(move |ctx: &RunCtx| give_tools(app, &shown, ctx));
        return app.launch(config, router, paused, act::entry, Some(run_setup));
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
    let Some(claim) = locks::claim_in_tab(&locks::bank_claim(&name)) else {
        return app.warn(
            format!("Another ACT+ run or batch is filling the knowledge bank \"{name}\": wait for it to end, or pick another bank."),
            false,
        );
    };
    spawn_local(async move {
        let bank = match open_bank(&name, &setup.embedding_model, app, claim, true).await {
            Ok(Some(b)) => b,
            Ok(None) => return,
            Err(e) => return app.warn(e, false),
        };
        let shown = config.clone();
        let run_setup: RunSetup = Box::new(move |ctx: &RunCtx| {
            give_tools(app, &shown, ctx);
            ctx.insert_resource(bank.live());
            app.save_at_end(ctx, bank, super::setup::refresh_stored);
        });
        app.launch(config, router, paused, act::entry, Some(run_setup));
    });
}

/// Starts an ACT run on the selected task and variant.
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
    let web = app
        .settings
        .with_untracked(|s| !s.search_url.trim().is_empty());
    if let Some(why) = setup.web_refusal(setup.trial, web) {
        return app.warn(why, false);
    }
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

/// The bank `name` (an empty one if new) with the embedder `model` names,
/// holding `claim` until it is released; None when `idle_only` and a run
/// began meanwhile (the launch is dropped).
pub async fn open_bank(
    name: &str,
    model: &str,
    app: AppState,
    claim: TabClaim,
    idle_only: bool,
) -> Result<Option<Rc<Stored<Banks>>>, String> {
    let data = match act_store::load_bank(name).await? {
        Some(d) => d,
        None => BankData::empty(name),
    };
    if idle_only && app.activity.get_untracked() != Activity::Idle {
        return Ok(None);
    }
    let settings = app.settings.get_untracked();
    let embedder = crate::ui::embeddings::embedder(model, &settings).await?;
    let bank = Bank {
        data: std::cell::RefCell::new(data),
        embedder,
    };
    Ok(Some(Stored::opened(name, bank, Some(Box::new(claim)))))
}

/// Forks an ACT run at LLM call `k`.
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
