//! App-wide state (signals only, so it can live in context) and the run
//! controls: start, pause, step, resume, stop, fork; showing a stored or
//! shared run; the replay cursor.

use super::travel_state::{TravelSetup, BUILTIN};
use crate::engine::coordinators::travel;
use crate::engine::domains::travel::TravelDb;
use crate::engine::model::factory::{build_model, Platform};
use crate::engine::model::fork::{ForkEdit, ForkModel};
use crate::engine::model::ChatModel;
use crate::engine::run::config::ParentRef;
use crate::engine::run::gate::{Gate, GateMode};
use crate::engine::run::{
    execute, CancelToken, LoggedEvent, ModelRouter, RunConfig, RunCtx, RunDoc,
};
use crate::engine::views::{Fold, RunView};
use crate::platform::clock::BrowserClock;
use crate::platform::fetch::FetchTransport;
use crate::platform::settings::Settings;
use crate::platform::{keys, recorder, travel_store};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    Idle,
    Running,
    Paused,
}

/// Where the shown run came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Run in this tab (and recorded to History as it goes).
    Live,
    History,
    /// Opened from a share link; not in History until saved.
    Link,
    /// Imported from a file (and saved to History).
    File,
    /// One run of a batch.
    Batch,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub config: RunConfig,
    pub source: Source,
    /// In History (live runs are recorded as they go).
    pub saved: bool,
}

/// A message above the controls, e.g. a missing key; `settings` offers a
/// button that opens Settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub text: String,
    pub settings: bool,
}

struct Live {
    gate: Gate,
    cancel: CancelToken,
}

#[derive(Clone, Copy)]
pub struct AppState {
    pub settings: RwSignal<Settings>,
    pub coordinator: RwSignal<String>,
    pub task: RwSignal<String>,
    /// The shown run (live or loaded); its events; the view at the cursor.
    pub shown: RwSignal<Option<Shown>>,
    pub events: RwSignal<Vec<LoggedEvent>>,
    pub view: RwSignal<RunView>,
    /// Replay position: how many events are shown (`None` = all, following a live run).
    pub cursor: RwSignal<Option<usize>>,
    pub playing: RwSignal<bool>,
    pub speed: RwSignal<f64>,
    pub activity: RwSignal<Activity>,
    /// Agents whose LLM calls are held at the gate while paused.
    pub waiting: RwSignal<Vec<String>>,
    pub notice: RwSignal<Option<Notice>>,
    pub storage_error: RwSignal<Option<String>>,
    pub settings_open: RwSignal<bool>,
    /// The LLM call number the fork dialog is open for.
    pub fork_at: RwSignal<Option<u32>>,
    pub share_open: RwSignal<bool>,
    /// What the travel coordinator runs on.
    pub travel: RwSignal<TravelSetup>,
    /// The agent whose private activity the inspector shows.
    pub inspect: RwSignal<Option<String>>,
    live: StoredValue<Option<Live>, LocalStorage>,
}

/// Pause between the demo model's chunks in the app (it should look live).
const DEMO_CHUNK_DELAY_MS: u64 = 35;

fn new_run_id() -> String {
    let r = (js_sys::Math::random() * 1e9) as u64;
    format!("run-{}-{r:x}", js_sys::Date::now() as u64)
}

fn platform(demo_chunk_delay_ms: u64) -> Platform {
    Platform {
        transport: Rc::new(FetchTransport),
        clock: Rc::new(BrowserClock),
        demo_chunk_delay_ms,
    }
}

/// The model the settings describe, with its key; `demo_chunk_delay_ms`
/// paces the demo model (batches run it without pauses).
pub fn settings_model(
    settings: &Settings,
    demo_chunk_delay_ms: u64,
) -> Result<(crate::engine::run::ModelSpec, Rc<dyn ChatModel>), String> {
    let spec = settings.model_spec();
    let key = if settings.is_demo() {
        None
    } else {
        keys::get(&settings.provider)
    };
    build_model(&spec, key, &platform(demo_chunk_delay_ms)).map(|m| (spec, m))
}

impl AppState {
    pub fn new() -> Self {
        AppState {
            settings: RwSignal::new(Settings::load()),
            coordinator: RwSignal::new("single".into()),
            task: RwSignal::new(String::new()),
            shown: RwSignal::new(None),
            events: RwSignal::new(Vec::new()),
            view: RwSignal::new(RunView::default()),
            cursor: RwSignal::new(None),
            playing: RwSignal::new(false),
            speed: RwSignal::new(1.0),
            activity: RwSignal::new(Activity::Idle),
            waiting: RwSignal::new(Vec::new()),
            notice: RwSignal::new(None),
            storage_error: RwSignal::new(None),
            settings_open: RwSignal::new(false),
            fork_at: RwSignal::new(None),
            share_open: RwSignal::new(false),
            travel: RwSignal::new(TravelSetup::default()),
            inspect: RwSignal::new(None),
            live: StoredValue::new_local(None),
        }
    }

    fn gate(&self) -> Option<Gate> {
        self.live.with_value(|l| l.as_ref().map(|l| l.gate.clone()))
    }

    fn warn(&self, text: impl Into<String>, settings: bool) {
        self.notice.set(Some(Notice {
            text: text.into(),
            settings,
        }));
    }

    /// The live model from the current settings, or a notice saying what to fix.
    fn live_model(&self) -> Option<(crate::engine::run::ModelSpec, Rc<dyn ChatModel>)> {
        match settings_model(&self.settings.get_untracked(), DEMO_CHUNK_DELAY_MS) {
            Ok(m) => Some(m),
            Err(text) => {
                self.warn(text, true);
                None
            }
        }
    }

    pub(crate) fn new_config(
        &self,
        coordinator: &str,
        task: &str,
        spec: crate::engine::run::ModelSpec,
    ) -> RunConfig {
        let settings = self.settings.get_untracked();
        let mut config = RunConfig::new(coordinator, task, spec);
        config.created_ms = js_sys::Date::now().floor();
        config.run_id = new_run_id();
        config.max_concurrency = settings.max_concurrency.max(1);
        config.retry.max_attempts = settings.max_attempts.clamp(1, 10);
        config.seed = (js_sys::Math::random() * u32::MAX as f64) as u64;
        config
    }

    /// Starts a run of the chosen coordinator on the task. With `paused`, the
    /// run waits at the gate before its first LLM call.
    pub fn start(self, paused: bool) {
        if self.activity.get_untracked() != Activity::Idle {
            return;
        }
        if self.coordinator.get_untracked() == travel::ID {
            return self.start_travel(paused);
        }
        let task = self.task.get_untracked();
        if task.trim().is_empty() {
            self.warn("Write a task first: what should the agents do?", false);
            return;
        }
        let Some((spec, model)) = self.live_model() else {
            return;
        };
        let config = self.new_config(&self.coordinator.get_untracked(), &task, spec);
        self.launch(config, model, paused, None);
    }

    /// A travel run on the selected query, variant and database.
    fn start_travel(self, paused: bool) {
        let setup = self.travel.get_untracked();
        let Some(query) = setup.query() else {
            self.warn("Pick a query to plan first.", false);
            return;
        };
        let Some((spec, model)) = self.live_model() else {
            return;
        };
        let mut config = self.new_config(travel::ID, &query.text, spec);
        config.variant = Some(setup.variant.id().into());
        config.options = serde_json::to_value(travel::options_for(
            query.value.clone(),
            &setup.db,
            setup.tool_mode,
        ))
        .unwrap_or_default();
        self.with_travel_db(setup.db.clone(), move |app, db| {
            app.launch(config, model, paused, db)
        });
    }

    /// Runs `then` with the run's database: none for the built-in world
    /// (the coordinator has it), else the imported one, loaded first.
    fn with_travel_db(
        self,
        name: String,
        then: impl FnOnce(AppState, Option<Rc<TravelDb>>) + 'static,
    ) {
        if name == BUILTIN {
            return then(self, None);
        }
        spawn_local(async move {
            match travel_store::load_db(&name).await {
                Ok(db) => then(self, Some(db)),
                Err(e) => self.warn(e, false),
            }
        });
    }

    /// Forks `parent` at LLM call `k` with the user's edit, continuing live.
    pub fn fork(self, parent: RunDoc, k: u32, edit: ForkEdit) {
        if self.activity.get_untracked() != Activity::Idle {
            self.warn("Stop the current run before forking.", false);
            return;
        }
        let Some((spec, live)) = self.live_model() else {
            return;
        };
        let mut config = self.new_config(&parent.config.coordinator, &parent.config.task, spec);
        config.variant = parent.config.variant.clone();
        config.options = parent.config.options.clone();
        config.seed = parent.config.seed;
        config.parent = Some(ParentRef {
            run_id: parent.config.run_id.clone(),
            fork_call: k,
        });
        let model = Rc::new(ForkModel::new(&parent.events, k as usize, edit, live));
        self.coordinator.set(config.coordinator.clone());
        self.task.set(config.task.clone());
        let db_name = config
            .options
            .get("db")
            .and_then(|d| d.as_str())
            .unwrap_or(BUILTIN)
            .to_string();
        if config.coordinator == travel::ID {
            self.with_travel_db(db_name, move |app, db| app.launch(config, model, false, db));
        } else {
            self.launch(config, model, false, None);
        }
    }

    fn launch(
        self,
        config: RunConfig,
        model: Rc<dyn ChatModel>,
        paused: bool,
        db: Option<Rc<TravelDb>>,
    ) {
        if self.activity.get_untracked() != Activity::Idle {
            return;
        }
        let gate = Gate::new();
        if paused {
            gate.pause();
        }
        let cancel = CancelToken::new();
        let clock = Rc::new(BrowserClock);
        let ctx = RunCtx::with_controls(
            config.clone(),
            ModelRouter::single(model),
            clock,
            gate.clone(),
            cancel.clone(),
        );
        if let Some(db) = db {
            ctx.insert_resource(db);
        }
        self.inspect.set(None);
        self.notice.set(None);
        self.storage_error.set(None);
        self.playing.set(false);
        self.cursor.set(None);
        self.events.set(Vec::new());
        self.view.set(RunView::default());
        self.shown.set(Some(Shown {
            config: config.sanitized(),
            source: Source::Live,
            saved: true,
        }));
        crate::platform::location::set_hash("");
        let (events, view) = (self.events, self.view);
        ctx.on_event(move |e| {
            events.update(|v| v.push(e.clone()));
            view.update(|v| v.apply(e));
        });
        let storage_error = self.storage_error;
        recorder::record(&ctx, self.settings.get_untracked().prices, move |msg| {
            storage_error.set(Some(msg))
        });
        let (activity, waiting) = (self.activity, self.waiting);
        gate.on_change(move |mode, agents| {
            waiting.set(agents.to_vec());
            if activity.get_untracked() != Activity::Idle {
                activity.set(if mode == GateMode::Paused {
                    Activity::Paused
                } else {
                    Activity::Running
                });
            }
        });
        self.activity.set(if paused {
            Activity::Paused
        } else {
            Activity::Running
        });
        self.live.set_value(Some(Live { gate, cancel }));
        let live = self.live;
        spawn_local(async move {
            execute(&ctx).await;
            live.set_value(None);
            activity.set(Activity::Idle);
            waiting.set(Vec::new());
        });
    }

    /// Run: start a new run when idle, or continue a paused one.
    pub fn run_or_resume(self) {
        match self.activity.get_untracked() {
            Activity::Idle => self.start(false),
            Activity::Paused => {
                if let Some(g) = self.gate() {
                    g.resume();
                }
            }
            Activity::Running => {}
        }
    }

    pub fn pause(self) {
        if let Some(g) = self.gate() {
            g.pause();
        }
    }

    /// Step: when idle, start the run paused at its first LLM call; when
    /// paused, let exactly one call through.
    pub fn step(self) {
        match self.activity.get_untracked() {
            Activity::Idle => self.start(true),
            Activity::Paused => {
                if let Some(g) = self.gate() {
                    g.step();
                }
            }
            Activity::Running => self.pause(),
        }
    }

    pub fn stop(self) {
        if let Some(l) = self
            .live
            .with_value(|l| l.as_ref().map(|l| l.cancel.clone()))
        {
            l.cancel();
        }
    }

    /// Shows a stored, shared or imported run, at its end.
    pub fn show_doc(self, doc: RunDoc, source: Source, saved: bool) -> bool {
        if self.activity.get_untracked() != Activity::Idle {
            self.warn(
                "A run is in progress: stop it before opening another.",
                false,
            );
            return false;
        }
        self.playing.set(false);
        self.cursor.set(None);
        self.notice.set(None);
        self.view.set(RunView::of(&doc.events));
        self.coordinator.set(doc.config.coordinator.clone());
        self.task.set(doc.config.task.clone());
        self.shown.set(Some(Shown {
            config: doc.config.clone(),
            source,
            saved,
        }));
        self.events.set(doc.events);
        true
    }

    /// The shown run as a document (config + all events).
    pub fn doc(self) -> Option<RunDoc> {
        let shown = self.shown.get_untracked()?;
        Some(RunDoc::new(shown.config, self.events.get_untracked()))
    }

    /// Moves the replay cursor to `k` events (clamped; the end = follow all).
    pub fn set_cursor(self, k: usize) {
        let len = self.events.with_untracked(Vec::len);
        let k = k.min(len);
        self.cursor.set(if k == len { None } else { Some(k) });
        self.view
            .set(self.events.with_untracked(|e| RunView::of(&e[..k])));
    }

    /// The current replay position (all events when not scrubbing).
    pub fn position(self) -> usize {
        self.cursor
            .get()
            .unwrap_or_else(|| self.events.with(Vec::len))
    }
}

impl Default for AppState {
    fn default() -> Self {
        Self::new()
    }
}

pub fn use_app() -> AppState {
    expect_context::<AppState>()
}
