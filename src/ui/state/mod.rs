//! App-wide state (signals only, so it can live in context) and the run
//! controls: start, pause, step, resume, stop, fork. Showing a stored,
//! shared or live class's run and the replay cursor are in `shown`; the
//! comparison's and the lesson's controls in `classroom`.

use super::provider::LazyProvider;
use crate::engine::model::demo;
use crate::engine::model::factory::{demo_model, validate, Platform};
use crate::engine::model::ChatModel;
use crate::engine::run::config::ParentRef;
use crate::engine::run::fork::{ForkEdit, ForkModel};
use crate::engine::run::gate::{Gate, GateMode};
use crate::engine::run::{
    execute, CancelToken, CoordinatorFn, LoggedEvent, ModelRouter, RunConfig, RunCtx, RunDoc,
};
use crate::engine::views::{Fold, RunView};
use crate::platform::clock::BrowserClock;
use crate::platform::fetch::FetchTransport;
use crate::platform::settings::Settings;
use crate::platform::stored::{Keep, Stored};
use crate::platform::{keys, recorder};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

mod classroom;
mod shown;
pub use classroom::{LessonMode, LessonSession};

/// This tab's part in a live class (`ui::classroom::live` holds the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassRole {
    /// Drives a class: what it shows goes to the students.
    Teacher,
    /// Follows a teacher's class.
    Student,
}

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

/// Prepares a run's context before it starts (e.g. gives a coordinator an
/// imported database).
pub type RunSetup = Box<dyn FnOnce(&RunCtx)>;

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
    /// The agent whose private activity the inspector shows.
    pub inspect: RwSignal<Option<String>>,
    /// The runs on the Compare page (2 to 4 to compare) and, per run, how
    /// many of its events the synchronized replay shows.
    pub compare: RwSignal<Vec<RunDoc>>,
    pub compare_pos: RwSignal<Vec<usize>>,
    /// The lesson being played, previewed or written.
    pub lesson: RwSignal<Option<LessonSession>>,
    /// Presenter mode: large type, high contrast, only the lesson's panels.
    pub presenter: RwSignal<bool>,
    /// The "Run a variant of this" dialog.
    pub variant_open: RwSignal<bool>,
    /// The prompt templates a new run of each coordinator changes (by
    /// coordinator id, then template name; only those edited), as the
    /// Prompts dialog left them or a shown run had them.
    pub prompt_edits: RwSignal<crate::platform::prompt_edits::Edits>,
    /// The Prompts dialog, open on this coordinator's templates.
    pub prompts_open: RwSignal<Option<String>>,
    /// The user chose to edit the setup panel of a shown (not live) run for
    /// a new run; until then the panel shows the shown run's setup,
    /// read-only (`ui::shown_setup`). Cleared whenever a run is shown.
    pub setup_unlocked: RwSignal<bool>,
    /// A path the router should go to (set outside the router's context).
    pub goto: RwSignal<Option<String>>,
    /// This tab's part in a live class, if it is in one.
    pub class: RwSignal<Option<ClassRole>>,
    /// The run a variant was started from and the variant asked for: the
    /// next run launched, if it is that variant of that task, is compared
    /// with it when it ends (any launch clears it).
    pub(super) then_compare: StoredValue<Option<(RunDoc, Option<String>)>>,
    /// Counts the runs shown (views folded in parts start over when it changes).
    run_serial: StoredValue<u64>,
    live: StoredValue<Option<Live>, LocalStorage>,
}

fn new_run_id() -> String {
    let r = (js_sys::Math::random() * 1e9) as u64;
    format!("run-{}-{r:x}", js_sys::Date::now() as u64)
}

thread_local! {
    // Reference-counted, not owned by whichever view first asked for it.
    static LOCAL_STATUS: ArcRwSignal<Option<String>> = ArcRwSignal::new(None);
}

/// What the in-browser model is doing (loading, reading a long prompt),
/// shown on the Run page while it works.
pub fn local_status() -> ArcRwSignal<Option<String>> {
    LOCAL_STATUS.with(|s| s.clone())
}

/// The browser's transport and clock, with the demo model's pace and script.
pub(crate) fn platform(demo_chunk_delay_ms: u64, demo_script: demo::Script) -> Platform {
    Platform {
        transport: Rc::new(FetchTransport),
        clock: Rc::new(BrowserClock),
        demo_chunk_delay_ms,
        demo_script,
    }
}

/// The model the settings describe, with its key; `demo_chunk_delay_ms`
/// paces the demo model (batches run it without pauses), which plays the
/// steps of `demo_script` (the run's coordinator's).
pub fn settings_model(
    settings: &Settings,
    demo_chunk_delay_ms: u64,
    demo_script: demo::Script,
) -> Result<(crate::engine::run::ModelSpec, Rc<dyn ChatModel>), String> {
    let spec = settings.model_spec();
    let key = if settings.is_demo() {
        None
    } else {
        keys::get(&settings.provider)
    };
    validate(&spec, key.as_deref())?;
    let model: Rc<dyn ChatModel> = match spec.format {
        None if spec.is_local() => Rc::new(LazyProvider::new(spec.clone(), None, None)),
        None => demo_model(&platform(demo_chunk_delay_ms, demo_script)),
        Some(format) => Rc::new(LazyProvider::new(spec.clone(), Some(format), key)),
    };
    Ok((spec, model))
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
            inspect: RwSignal::new(None),
            compare: RwSignal::new(Vec::new()),
            compare_pos: RwSignal::new(Vec::new()),
            lesson: RwSignal::new(None),
            presenter: RwSignal::new(false),
            variant_open: RwSignal::new(false),
            prompt_edits: RwSignal::new(crate::platform::prompt_edits::load()),
            prompts_open: RwSignal::new(None),
            setup_unlocked: RwSignal::new(false),
            goto: RwSignal::new(None),
            class: RwSignal::new(None),
            then_compare: StoredValue::new(None),
            run_serial: StoredValue::new(0),
            live: StoredValue::new_local(None),
        }
    }

    fn gate(&self) -> Option<Gate> {
        self.live.with_value(|l| l.as_ref().map(|l| l.gate.clone()))
    }

    pub(crate) fn warn(&self, text: impl Into<String>, settings: bool) {
        self.notice.set(Some(Notice {
            text: text.into(),
            settings,
        }));
    }

    /// The live model from the current settings (the demo model playing
    /// `script`), or a notice saying what to fix.
    pub(crate) fn live_model(
        &self,
        script: demo::Script,
    ) -> Option<(crate::engine::run::ModelSpec, Rc<dyn ChatModel>)> {
        let settings = self.settings.get_untracked();
        let pace = u64::from(settings.demo_delay_ms.min(1000));
        match settings_model(&settings, pace, script) {
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
        config.spend_cap = settings.spend_cap();
        config.prompts = self
            .prompt_edits
            .with_untracked(|m| m.get(coordinator).cloned().unwrap_or_default());
        config
    }

    /// Starts `entry` on the task box's text with the settings' model (the
    /// demo model playing `script`): the single agent's start.
    pub(crate) fn start_task(self, paused: bool, entry: CoordinatorFn, script: demo::Script) {
        let task = self.task.get_untracked();
        if task.trim().is_empty() {
            self.warn("Write a task first: what should the agents do?", false);
            return;
        }
        let Some((spec, model)) = self.live_model(script) else {
            return;
        };
        let config = self.new_config(&self.coordinator.get_untracked(), &task, spec);
        self.launch(config, ModelRouter::single(model), paused, entry, None);
    }

    /// Forks `parent` at call `k` with the user's edit, answering the calls
    /// after it with the settings' model: the single agent's fork.
    pub(crate) fn fork_task(
        self,
        parent: RunDoc,
        k: u32,
        edit: ForkEdit,
        entry: CoordinatorFn,
        script: demo::Script,
    ) {
        let Some((config, model)) = self.fork_of(&parent, k, edit, script) else {
            return;
        };
        self.launch(config, ModelRouter::single(model), false, entry, None);
    }

    /// A fork's config and model: the parent's first `k` calls answered
    /// from its log (the k-th with `edit`), the rest by the model in
    /// Settings. None (with a warning) when that model is not usable.
    pub(crate) fn fork_of(
        &self,
        parent: &RunDoc,
        k: u32,
        edit: ForkEdit,
        script: demo::Script,
    ) -> Option<(RunConfig, Rc<dyn ChatModel>)> {
        let (spec, live) = self.live_model(script)?;
        let config = self.fork_config(parent, k, spec);
        let model: Rc<dyn ChatModel> =
            Rc::new(ForkModel::new(&parent.events, k as usize, edit, live));
        Some((config, model))
    }

    /// The config of a fork of `parent` at call `k` (the page shows its
    /// coordinator and task).
    fn fork_config(
        &self,
        parent: &RunDoc,
        k: u32,
        spec: crate::engine::run::ModelSpec,
    ) -> RunConfig {
        let spec = crate::engine::run::fork::fork_spec(&parent.config, spec);
        let mut config = self.new_config(&parent.config.coordinator, &parent.config.task, spec);
        config.variant = parent.config.variant.clone();
        config.options = parent.config.options.clone();
        // A fork tells its agents what the parent's did.
        config.prompts = parent.config.prompts.clone();
        config.seed = parent.config.seed;
        config.parent = Some(ParentRef {
            run_id: parent.config.run_id.clone(),
            fork_call: k,
        });
        self.coordinator.set(config.coordinator.clone());
        self.task.set(config.task.clone());
        config
    }

    /// Starts `coordinator` on `config` with `models`, recording it to
    /// History as it goes; `setup` prepares the context first.
    pub(crate) fn launch(
        self,
        config: RunConfig,
        models: ModelRouter,
        paused: bool,
        coordinator: CoordinatorFn,
        setup: Option<RunSetup>,
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
        let ctx =
            RunCtx::with_controls(config.clone(), models, clock, gate.clone(), cancel.clone());
        ctx.use_prices(self.settings.get_untracked().prices);
        if let Some(setup) = setup {
            setup(&ctx);
        }
        self.inspect.set(None);
        self.notice.set(None);
        self.storage_error.set(None);
        self.lesson.set(None);
        self.presenter.set(false);
        self.playing.set(false);
        self.cursor.set(None);
        self.replace_events(Vec::new());
        self.view.set(RunView::default());
        self.shown.set(Some(Shown {
            // The run's own config (a local model's run takes one call at a time).
            config: ctx.config().sanitized(),
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
        let compare_with = self
            .then_compare
            .try_update_value(Option::take)
            .flatten()
            .filter(|(p, v)| p.config.task == config.task && *v == config.variant)
            .map(|(p, _)| p);
        spawn_local(async move {
            execute(&ctx, coordinator).await;
            live.set_value(None);
            activity.set(Activity::Idle);
            waiting.set(Vec::new());
            if let (Some(parent), Some(child)) = (compare_with, self.doc()) {
                self.open_comparison(vec![parent, child]);
            }
        });
    }

    /// When the run of `ctx` ends: saves what it changed in `stored` (a
    /// failure shows as a storage error), lets other writers in, then
    /// calls `saved`.
    pub(crate) fn save_at_end<K: Keep>(self, ctx: &RunCtx, stored: Rc<Stored<K>>, saved: fn()) {
        ctx.on_event(move |e| {
            if e.event.is_terminal() {
                let stored = stored.clone();
                spawn_local(async move {
                    if let Err(err) = stored.save_new().await {
                        self.storage_error.set(Some(err.user_message()));
                    }
                    stored.release();
                    saved();
                });
            }
        });
    }

    /// Lets a paused run go on.
    pub fn resume(self) {
        if let Some(g) = self.gate() {
            g.resume();
        }
    }

    pub fn pause(self) {
        if let Some(g) = self.gate() {
            g.pause();
        }
    }

    /// Lets exactly one LLM call of a paused run through.
    pub fn step_one(self) {
        if let Some(g) = self.gate() {
            g.step();
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
}

impl Default for AppState {
    fn default() -> Self {
        Self::new()
    }
}

pub fn use_app() -> AppState {
    expect_context::<AppState>()
}
