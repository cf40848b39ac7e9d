//! A batch of travel runs in the browser: what the form asks (variants ×
//! the chosen queries, tool mode; runs at once, caps, History) and the
//! batch itself (`ui::batch::BatchRun` over the engine's runner, with the
//! travel planner's jobs and fold from `coordinators::travel::batch`).
//! Kept while the page lives (`part_state`), so a batch keeps running
//! while the user looks at one of its runs on the Run page.

use crate::engine::coordinators::travel::batch::{jobs, Setup, Tag};
use crate::engine::coordinators::travel::contract::{ToolMode, Variant};
use crate::engine::coordinators::travel::{self};
use crate::engine::domains::travel::{Query, TravelDb};
use crate::engine::model::ChatModel;
use crate::engine::run::batch::{for_prompt_sets, Batch, Controls, Host, Job};
use crate::engine::run::RunCtx;
use crate::platform::clock::BrowserClock;
use crate::platform::travel_store;
use crate::ui::batch::{BatchCommon, BatchPage};
use crate::ui::part_state::part_state;
use crate::ui::state::{settings_model, AppState};
use crate::ui::travel::state::{travel_setup, QueryItem, BUILTIN};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

/// What the form asks for besides the common fields.
#[derive(Clone, Debug, PartialEq)]
pub struct TravelForm {
    pub variants: Vec<Variant>,
    /// Levels to include (easy / medium / hard).
    pub levels: Vec<&'static str>,
    /// At most this many queries (0 = all).
    pub limit: u32,
    pub tool_mode: ToolMode,
}

impl Default for TravelForm {
    fn default() -> Self {
        TravelForm {
            variants: Variant::ALL.to_vec(),
            levels: LEVELS.to_vec(),
            limit: 0,
            tool_mode: ToolMode::Native,
        }
    }
}

pub const LEVELS: [&str; 3] = ["easy", "medium", "hard"];

impl TravelForm {
    /// The queries of `all` the form selects, in order.
    pub fn queries<'a>(&self, all: &'a [QueryItem]) -> Vec<&'a QueryItem> {
        let mut out: Vec<&QueryItem> = all
            .iter()
            .filter(|q| self.levels.iter().any(|l| *l == q.level))
            .collect();
        if self.limit > 0 {
            out.truncate(self.limit as usize);
        }
        out
    }
}

/// The page's form and batch.
pub type TravelBatch = BatchPage<TravelForm, Tag>;

/// The travel planner's runs: the model in Settings, the database chosen.
struct Runs {
    model: Rc<dyn ChatModel>,
    db: Option<Rc<TravelDb>>,
}

impl Host<Tag> for Runs {
    fn context(&self, job: &Job<Tag>, controls: &Controls) -> Result<RunCtx, String> {
        let ctx = controls.one_model(&job.config, self.model.clone(), Rc::new(BrowserClock));
        if let Some(db) = &self.db {
            ctx.insert_resource(db.clone());
        }
        Ok(ctx)
    }
}

fn label(settings: &str, db: &str, queries: &str) -> String {
    let name = |x: &str, builtin: &'static str| {
        if x == BUILTIN {
            builtin.to_string()
        } else {
            x.to_string()
        }
    };
    format!(
        "{settings} · {} · {}",
        name(db, "built-in sandbox"),
        name(queries, "built-in queries")
    )
}

impl TravelBatch {
    /// Starts the batch the form describes, on the app's query set,
    /// database and model.
    pub fn start(self, app: AppState) {
        let (form, common) = self.asked();
        let setup = travel_setup().get_untracked();
        let settings = app.settings.get_untracked();
        let chosen: Vec<(Query, serde_json::Value)> = form
            .queries(&setup.queries)
            .into_iter()
            .filter_map(|q| {
                Query::from_json(&q.value, q.idx)
                    .ok()
                    .map(|query| (query, q.value.clone()))
            })
            .collect();
        let problem = if form.variants.is_empty() {
            Some("Pick at least one variant.".to_string())
        } else if chosen.is_empty() {
            Some("No query matches: include more levels or raise the limit.".to_string())
        } else {
            None
        };
        let model = settings_model(&settings, 0, travel::demo::answer);
        let (spec, model) = match (problem, model) {
            (Some(p), _) | (None, Err(p)) => {
                self.run.error.set(Some(p));
                return;
            }
            (None, Ok(m)) => m,
        };
        let name = label(&settings.label(), &setup.db, &setup.query_set);
        let Some(controls) = self.run.begin(&common, settings.prices.clone(), name) else {
            return;
        };
        let base = app.new_config(travel::ID, "", spec.clone());
        let plan = Setup {
            db: setup.db.clone(),
            tool_mode: form.tool_mode.for_model(&spec),
            max_steps: None,
        };
        let all = for_prompt_sets(
            jobs(&base, &form.variants, &chosen, &plan),
            common.prompt_sets,
            |_| {},
        );
        let run = self.run;
        run.name_prompts(&all);
        spawn_local(async move {
            let db = if setup.db == BUILTIN {
                None
            } else {
                match travel_store::load_db(&setup.db).await {
                    Ok(db) => Some(db),
                    Err(e) => return run.fail(e),
                }
            };
            let batch = Batch::new(all, common.concurrency());
            run.run(controls, batch, Runs { model, db }, common.save)
                .await;
        });
    }
}

/// The batch, kept while the page lives (it runs on while one of its runs
/// is shown on the Run page).
pub fn use_batch() -> TravelBatch {
    part_state(|| BatchPage::new(TravelForm::default(), BatchCommon::new(4, true)))
}
