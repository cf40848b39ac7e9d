//! A batch of travel runs in the browser: what to run (variants × the
//! chosen queries), the shared pause gate and stop token, progress, cost
//! so far, and every finished run (kept as a document to open or export).
//! Kept while the page lives (`part_state`), so a batch keeps running while
//! the user looks at one of its runs on the Run page.

use crate::engine::coordinators::travel::batch::{jobs, run_batch, BatchJob, BatchRun};
use crate::engine::coordinators::travel::contract::{ToolMode, Variant};
use crate::engine::coordinators::travel::report::comparison::BatchEntry;
use crate::engine::coordinators::travel::{self, options_for};
use crate::engine::domains::travel::{Query, TravelDb};
use crate::engine::run::budget::{Budget, SpendCap};
use crate::engine::run::{ModelRouter, RunCtx, RunDoc, RunEvent, RunStatus};
use crate::platform::clock::BrowserClock;
use crate::platform::{recorder, travel_store};
pub use crate::ui::batch_controls::BatchActivity;
use crate::ui::batch_controls::BatchControls;
use crate::ui::part_state::part_state;
use crate::ui::state::{settings_model, AppState};
use crate::ui::travel::state::{travel_setup, QueryItem, BUILTIN};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

/// One finished run of the batch.
#[derive(Clone, Debug)]
pub struct BatchItem {
    pub job: usize,
    pub variant: Variant,
    pub query_idx: u32,
    pub level: String,
    pub status: RunStatus,
    pub cost_usd: f64,
    /// Recorded in History as it ran.
    pub saved: bool,
    pub entry: Option<BatchEntry>,
    pub doc: std::sync::Arc<RunDoc>,
}

impl BatchItem {
    pub fn delivered(&self) -> bool {
        self.entry
            .as_ref()
            .and_then(|e| e.evaluation.as_ref())
            .is_some_and(|e| e.delivered)
    }

    pub fn final_pass(&self) -> bool {
        self.entry
            .as_ref()
            .and_then(|e| e.evaluation.as_ref())
            .is_some_and(|e| e.final_pass)
    }
}

/// What the form asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchForm {
    pub variants: Vec<Variant>,
    /// Levels to include (easy / medium / hard).
    pub levels: Vec<String>,
    /// At most this many queries (0 = all).
    pub limit: u32,
    pub concurrency: u32,
    pub tool_mode: ToolMode,
    /// Record each run in History.
    pub save: bool,
    /// The batch's spend cap in US dollars and its token cap (shared by
    /// its runs; each run also has the Settings' caps).
    pub cap_usd: Option<f64>,
    pub cap_tokens: Option<u64>,
}

impl Default for BatchForm {
    fn default() -> Self {
        BatchForm {
            variants: Variant::ALL.to_vec(),
            levels: vec!["easy".into(), "medium".into(), "hard".into()],
            limit: 0,
            concurrency: 4,
            tool_mode: ToolMode::Native,
            save: true,
            cap_usd: None,
            cap_tokens: None,
        }
    }
}

impl BatchForm {
    /// The queries of `all` the form selects, in order.
    pub fn queries<'a>(&self, all: &'a [QueryItem]) -> Vec<&'a QueryItem> {
        let mut out: Vec<&QueryItem> = all
            .iter()
            .filter(|q| self.levels.iter().any(|l| l == &q.level))
            .collect();
        if self.limit > 0 {
            out.truncate(self.limit as usize);
        }
        out
    }
}

#[derive(Clone, Copy)]
pub struct BatchState {
    pub form: RwSignal<BatchForm>,
    pub activity: RwSignal<BatchActivity>,
    run: BatchControls,
    pub total: RwSignal<usize>,
    /// Runs started so far (finished ones included).
    pub started: RwSignal<usize>,
    pub items: RwSignal<Vec<BatchItem>>,
    /// Cost of every LLM response so far, including runs still going.
    pub cost_usd: RwSignal<f64>,
    pub started_ms: RwSignal<f64>,
    pub elapsed_ms: RwSignal<f64>,
    /// The model and sandbox of the current / last batch.
    pub label: RwSignal<String>,
    pub error: RwSignal<Option<String>>,
}

impl BatchState {
    pub fn new() -> Self {
        let run = BatchControls::new();
        BatchState {
            form: RwSignal::new(BatchForm::default()),
            activity: run.activity,
            run,
            total: RwSignal::new(0),
            started: RwSignal::new(0),
            items: RwSignal::new(Vec::new()),
            cost_usd: RwSignal::new(0.0),
            started_ms: RwSignal::new(0.0),
            elapsed_ms: RwSignal::new(0.0),
            label: RwSignal::new(String::new()),
            error: RwSignal::new(None),
        }
    }

    /// Starts the batch the form describes, on the app's query set,
    /// database and model.
    pub fn start(self, app: AppState) {
        if self.activity.get_untracked() != BatchActivity::Idle {
            return;
        }
        self.error.set(None);
        let form = self.form.get_untracked();
        let setup = travel_setup().get_untracked();
        let settings = app.settings.get_untracked();
        let chosen: Vec<(Query, serde_json::Value, String)> = form
            .queries(&setup.queries)
            .into_iter()
            .filter_map(|q| {
                Query::from_json(&q.value, q.idx)
                    .ok()
                    .map(|query| (query, q.value.clone(), q.level.clone()))
            })
            .collect();
        if form.variants.is_empty() {
            self.error.set(Some("Pick at least one variant.".into()));
            return;
        }
        if chosen.is_empty() {
            self.error.set(Some(
                "No query matches: include more levels or raise the limit.".into(),
            ));
            return;
        }
        let (spec, model) = match settings_model(&settings, 0, travel::demo::answer) {
            Ok(m) => m,
            Err(e) => {
                self.error.set(Some(e));
                return;
            }
        };
        let pairs: Vec<(Query, serde_json::Value)> = chosen
            .iter()
            .map(|(q, v, _)| (q.clone(), v.clone()))
            .collect();
        let levels: Vec<(u32, String)> =
            chosen.iter().map(|(q, _, l)| (q.idx, l.clone())).collect();
        let all = jobs(&form.variants, &pairs);
        self.items.set(Vec::new());
        self.total.set(all.len());
        self.started.set(0);
        self.cost_usd.set(0.0);
        let now = js_sys::Date::now();
        self.started_ms.set(now);
        self.elapsed_ms.set(0.0);
        self.label.set(format!(
            "{} · {} · {}",
            settings.label(),
            if setup.db == BUILTIN {
                "built-in sandbox"
            } else {
                setup.db.as_str()
            },
            if setup.query_set == BUILTIN {
                "built-in queries"
            } else {
                setup.query_set.as_str()
            },
        ));
        let (gate, cancel) = self.run.begin();
        let this = self;
        let db_name = setup.db.clone();
        spawn_local(async move {
            let db: Option<Rc<TravelDb>> = if db_name == BUILTIN {
                None
            } else {
                match travel_store::load_db(&db_name).await {
                    Ok(db) => Some(db),
                    Err(e) => {
                        this.error.set(Some(e));
                        this.finish();
                        return;
                    }
                }
            };
            let prices = settings.prices.clone();
            let cap = SpendCap {
                usd: form.cap_usd,
                tokens: form.cap_tokens,
            };
            let batch_budget = cap
                .is_set()
                .then(|| Rc::new(Budget::new("batch", cap, prices.clone())));
            let make_ctx = |i: usize, job: &BatchJob| {
                let mut config = app.new_config(travel::ID, &job.query.query, spec.clone());
                config.run_id = format!("{}-b{i}", config.run_id);
                config.variant = Some(job.variant.id().into());
                config.options = serde_json::to_value(options_for(
                    job.value.clone(),
                    &db_name,
                    form.tool_mode.for_model(&spec),
                ))
                .unwrap_or_default();
                let ctx = RunCtx::with_controls(
                    config,
                    ModelRouter::single(model.clone()),
                    Rc::new(BrowserClock),
                    gate.clone(),
                    cancel.child(),
                );
                if let Some(db) = &db {
                    ctx.insert_resource(db.clone());
                }
                ctx.use_prices(prices.clone());
                if let Some(b) = &batch_budget {
                    ctx.add_budget(b.clone());
                }
                if cancel.is_cancelled() {
                    // Stopped: the jobs not started yet run as no-ops and are dropped.
                    return ctx;
                }
                if form.save {
                    recorder::record(&ctx, prices.clone(), move |msg| this.error.set(Some(msg)));
                }
                let (prices, model_name) = (prices.clone(), spec.model.clone());
                ctx.on_event(move |e| match &e.event {
                    RunEvent::RunStarted { .. } => this.started.update(|n| *n += 1),
                    RunEvent::LlmResponse { response, .. } => {
                        if let Some(c) = prices.cost(&model_name, &response.usage) {
                            this.cost_usd.update(|x| *x += c);
                        }
                        this.elapsed_ms.set(js_sys::Date::now() - now);
                    }
                    _ => {}
                });
                ctx
            };
            let concurrency = form.concurrency.clamp(1, 16) as usize;
            let on_done = |r: BatchRun| this.push(r, &levels, &settings.prices, form.save);
            run_batch(&all, concurrency, travel::entry, make_ctx, on_done).await;
            this.finish();
        });
    }

    fn push(
        self,
        r: BatchRun,
        levels: &[(u32, String)],
        prices: &crate::engine::model::pricing::PriceTable,
        saved: bool,
    ) {
        let config = r.events.iter().find_map(|e| match &e.event {
            RunEvent::RunStarted { config } => Some(config.clone()),
            _ => None,
        });
        let Some(config) = config else {
            return;
        };
        let never_started = !r
            .events
            .iter()
            .any(|e| matches!(e.event, RunEvent::LlmRequest { .. }));
        if r.status == RunStatus::Cancelled && never_started {
            return;
        }
        let (cost, _) = r.usage.total.cost(prices);
        let entry = BatchEntry::from_run(&config, &r.events).map(|mut e| {
            e.cost_usd = Some(cost);
            e
        });
        let level = levels
            .iter()
            .find(|(i, _)| *i == r.query_idx)
            .map(|(_, l)| l.clone())
            .unwrap_or_default();
        let item = BatchItem {
            job: r.job,
            variant: r.variant,
            query_idx: r.query_idx,
            level,
            status: r.status,
            cost_usd: cost,
            saved,
            entry,
            doc: std::sync::Arc::new(RunDoc::new(config, r.events)),
        };
        self.items.update(|v| v.push(item));
        self.elapsed_ms
            .set(js_sys::Date::now() - self.started_ms.get_untracked());
    }

    fn finish(self) {
        self.run.end();
        self.elapsed_ms
            .set(js_sys::Date::now() - self.started_ms.get_untracked());
    }

    pub fn pause(self) {
        self.run.pause();
    }

    pub fn resume(self) {
        self.run.resume();
    }

    pub fn stop(self) {
        self.run.stop();
    }

    /// The entries of the runs that ended on their own (the tables read
    /// these): a run the user stopped is not a failure of its variant.
    pub fn entries(self) -> Vec<BatchEntry> {
        self.items.with(|v| {
            v.iter()
                .filter(|i| i.status != RunStatus::Cancelled)
                .filter_map(|i| i.entry.clone())
                .collect()
        })
    }

    /// Runs stopped by the user (listed, not scored).
    pub fn stopped(self) -> usize {
        self.items.with(|v| {
            v.iter()
                .filter(|i| i.status == RunStatus::Cancelled)
                .count()
        })
    }
}

impl Default for BatchState {
    fn default() -> Self {
        Self::new()
    }
}

/// The batch, kept while the page lives (it runs on while one of its runs
/// is shown on the Run page).
pub fn use_batch() -> BatchState {
    part_state(BatchState::new)
}
