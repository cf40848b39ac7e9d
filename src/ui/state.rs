//! App-wide state (signals only, so it can live in context) and the run
//! controls: start, pause, step, resume, stop.

use crate::engine::model::factory::{build_model, Platform};
use crate::engine::run::gate::Gate;
use crate::engine::run::gate::GateMode;
use crate::engine::run::{execute, CancelToken, LoggedEvent, ModelRouter, RunConfig, RunCtx};
use crate::engine::views::{Fold, RunView};
use crate::platform::clock::BrowserClock;
use crate::platform::fetch::FetchTransport;
use crate::platform::keys;
use crate::platform::settings::Settings;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    Idle,
    Running,
    Paused,
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
    pub events: RwSignal<Vec<LoggedEvent>>,
    pub view: RwSignal<RunView>,
    pub activity: RwSignal<Activity>,
    /// Agents whose LLM calls are held at the gate while paused.
    pub waiting: RwSignal<Vec<String>>,
    pub notice: RwSignal<Option<Notice>>,
    pub settings_open: RwSignal<bool>,
    live: StoredValue<Option<Live>, LocalStorage>,
}

/// Pause between the demo model's chunks in the app (it should look live).
const DEMO_CHUNK_DELAY_MS: u64 = 35;

fn new_run_id() -> String {
    let r = (js_sys::Math::random() * 1e9) as u64;
    format!("run-{}-{r:x}", js_sys::Date::now() as u64)
}

impl AppState {
    pub fn new() -> Self {
        AppState {
            settings: RwSignal::new(Settings::load()),
            coordinator: RwSignal::new("single".into()),
            task: RwSignal::new(String::new()),
            events: RwSignal::new(Vec::new()),
            view: RwSignal::new(RunView::default()),
            activity: RwSignal::new(Activity::Idle),
            waiting: RwSignal::new(Vec::new()),
            notice: RwSignal::new(None),
            settings_open: RwSignal::new(false),
            live: StoredValue::new_local(None),
        }
    }

    fn gate(&self) -> Option<Gate> {
        self.live.with_value(|l| l.as_ref().map(|l| l.gate.clone()))
    }

    /// Starts a run of the chosen coordinator on the task. With `paused`, the
    /// run waits at the gate before its first LLM call.
    pub fn start(self, paused: bool) {
        if self.activity.get_untracked() != Activity::Idle {
            return;
        }
        let settings = self.settings.get_untracked();
        let spec = settings.model_spec();
        let key = if settings.is_demo() {
            None
        } else {
            keys::get(&settings.provider)
        };
        let clock = Rc::new(BrowserClock);
        let platform = Platform {
            transport: Rc::new(FetchTransport),
            clock: clock.clone(),
            demo_chunk_delay_ms: DEMO_CHUNK_DELAY_MS,
        };
        let model = match build_model(&spec, key, &platform) {
            Ok(m) => m,
            Err(text) => {
                self.notice.set(Some(Notice {
                    text,
                    settings: true,
                }));
                return;
            }
        };
        let task = self.task.get_untracked();
        if task.trim().is_empty() {
            self.notice.set(Some(Notice {
                text: "Write a task first: what should the agents do?".into(),
                settings: false,
            }));
            return;
        }
        let mut config = RunConfig::new(&self.coordinator.get_untracked(), &task, spec);
        config.created_ms = js_sys::Date::now();
        config.run_id = new_run_id();
        config.max_concurrency = settings.max_concurrency.max(1);
        config.retry.max_attempts = settings.max_attempts.clamp(1, 10);
        config.seed = (js_sys::Math::random() * u32::MAX as f64) as u64;

        let gate = Gate::new();
        if paused {
            gate.pause();
        }
        let cancel = CancelToken::new();
        let ctx = RunCtx::with_controls(
            config,
            ModelRouter::single(model),
            clock,
            gate.clone(),
            cancel.clone(),
        );
        self.notice.set(None);
        self.events.set(Vec::new());
        self.view.set(RunView::default());
        let (events, view) = (self.events, self.view);
        ctx.on_event(move |e| {
            events.update(|v| v.push(e.clone()));
            view.update(|v| v.apply(e));
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
}

impl Default for AppState {
    fn default() -> Self {
        Self::new()
    }
}

pub fn use_app() -> AppState {
    expect_context::<AppState>()
}
