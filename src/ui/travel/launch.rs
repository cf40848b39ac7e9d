//! Starting and forking travel runs: the query and options from the setup,
//! the database (built-in, or an imported one loaded from IndexedDB), the
//! travel coordinator and the demo model's travel roles.

use super::state::{travel_setup, BUILTIN};
use crate::engine::coordinators::travel;
use crate::engine::domains::travel::TravelDb;
use crate::engine::model::demo;
use crate::engine::model::ChatModel;
use crate::engine::run::fork::ForkEdit;
use crate::engine::run::{ModelRouter, RunConfig, RunCtx, RunDoc};
use crate::platform::travel_store;
use crate::ui::state::{Activity, AppState, RunSetup};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

/// The demo model's part for travel runs.
const SCRIPT: demo::Script = travel::demo::answer;

/// Starts a travel run on the selected query, variant and database.
pub fn start(app: AppState, paused: bool) {
    let setup = travel_setup().get_untracked();
    let Some(query) = setup.query() else {
        app.warn("Pick a query to plan first.", false);
        return;
    };
    let Some((spec, model)) = app.live_model(SCRIPT) else {
        return;
    };
    let mut config = app.new_config(travel::ID, &query.text, spec.clone());
    config.variant = Some(setup.variant.id().into());
    config.options = serde_json::to_value(travel::options_for(
        query.value.clone(),
        &setup.db,
        setup.tool_mode.for_model(&spec),
    ))
    .unwrap_or_default();
    launch_on(app, config, model, paused, setup.db.clone());
}

/// Forks a travel run at LLM call `k`, on the database it ran on.
pub fn fork(app: AppState, parent: RunDoc, k: u32, edit: ForkEdit) {
    let Some((config, model)) = app.fork_of(&parent, k, edit, SCRIPT) else {
        return;
    };
    let db = config
        .options
        .get("db")
        .and_then(|d| d.as_str())
        .unwrap_or(BUILTIN)
        .to_string();
    launch_on(app, config, model, false, db);
}

/// Launches on the named database: none for the built-in world (the
/// coordinator has it), else the imported one, loaded first.
fn launch_on(
    app: AppState,
    config: RunConfig,
    model: Rc<dyn ChatModel>,
    paused: bool,
    db_name: String,
) {
    let go = move |db: Option<Rc<TravelDb>>| {
        let setup: RunSetup = Box::new(move |ctx: &RunCtx| {
            if let Some(db) = db {
                ctx.insert_resource(db);
            }
        });
        app.launch(
            config,
            ModelRouter::single(model),
            paused,
            travel::entry,
            Some(setup),
        );
    };
    if db_name == BUILTIN {
        return go(None);
    }
    spawn_local(async move {
        match travel_store::load_db(&db_name).await {
            Ok(db) if app.activity.get_untracked() == Activity::Idle => go(Some(db)),
            Ok(_) => {}
            Err(e) => app.warn(e, false),
        }
    });
}
