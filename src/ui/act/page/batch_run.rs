//! Starting the ACT batch: ACT's jobs (`coordinators::act::batch`: every
//! variant × every trial of the setup's task source, ACT+'s trials one
//! lane) through the page's batch (`ui::batch`). ACT+'s knowledge bank is
//! opened from IndexedDB before the batch starts and saved back after
//! each of its trials; no other run or batch fills it meanwhile. A batch
//! that runs the paper's prompts beside the user's gives the paper's
//! ACT+ runs a bank of their own ("… (paper's prompts)"), so that neither
//! set learns from the other.

use super::super::launch::open_bank;
use super::super::setup::refresh_stored;
use super::super::state::{act_setup, ActSetup, BUILTIN, FREE, TOOLS};
use super::batch_state::{ActBatch, ActBatchForm};
use crate::engine::coordinators::act::batch::{jobs, Tag};
use crate::engine::coordinators::act::contract::{ActOptions, Variant};
use crate::engine::coordinators::act::{self, demo};
use crate::engine::domains::creative::ComplexTask;
use crate::engine::model::ChatModel;
use crate::engine::run::batch::{for_prompt_sets, Batch, Controls, Finished, Host, Job};
use crate::engine::run::{RunConfig, RunCtx};
use crate::platform::act_store::Banks;
use crate::platform::clock::BrowserClock;
use crate::platform::locks;
use crate::platform::settings::Settings;
use crate::platform::stored::Stored;
use crate::ui::state::{settings_model, AppState};
use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

/// Why the setup gives no task for the batch, and what to do.
fn no_task(setup: &ActSetup, first: u32) -> String {
    match setup.source.as_str() {
        FREE => "Type the task for the team in the setup on the Run page first, or pick a task set below.".into(),
        BUILTIN => "The built-in set gave no task.".into(),
        name => match setup.trials() {
            Some(n) => format!("The set \"{name}\" has {n} task(s), so there is no trial {first}: start at trial {} or lower.", n.saturating_sub(1)),
            None => format!("The set \"{name}\" is still loading or could not be read: pick it again below."),
        },
    }
}

fn source_label(setup: &ActSetup) -> String {
    match setup.source.as_str() {
        BUILTIN if setup.community.is_empty() => "built-in design set".into(),
        BUILTIN => format!("built-in design set ({})", setup.community),
        FREE => "a typed task (not scored)".into(),
        TOOLS => "built-in tool tasks".into(),
        name => format!("set \"{name}\""),
    }
}

/// ACT's runs: the model in Settings; ACT+'s runs with their bank (one
/// per prompt set), saved after each.
struct Runs {
    app: AppState,
    model: Rc<dyn ChatModel>,
    banks: Vec<Rc<Stored<Banks>>>,
    error: RwSignal<Option<String>>,
}

/// The knowledge bank a run of `config` reads and fills (ACT+'s), by name.
fn bank_of(config: &RunConfig) -> Option<String> {
    serde_json::from_value::<ActOptions>(config.options.clone())
        .ok()
        .and_then(|o| o.bank)
}

/// The ACT+ runs of a batch whose prompt sets stand side by side learn
/// apart: the paper's twin of a run fills a bank of its own.
fn bank_apart(config: &mut RunConfig) {
    let Ok(mut o) = serde_json::from_value::<ActOptions>(config.options.clone()) else {
        return;
    };
    if let Some(bank) = &o.bank {
        o.bank = Some(format!("{bank}{PAPER_BANK}"));
        config.options = serde_json::to_value(&o).unwrap_or_default();
    }
}

/// What the bank of ACT+'s runs on the paper's prompts adds to the form's
/// bank name when the batch also runs the user's.
const PAPER_BANK: &str = " (paper's prompts)";

impl Runs {
    fn bank(&self, config: &RunConfig) -> Option<&Rc<Stored<Banks>>> {
        let name = bank_of(config)?;
        self.banks.iter().find(|b| b.name() == name)
    }
}

impl Host<Tag> for Runs {
    fn context(&self, job: &Job<Tag>, controls: &Controls) -> Result<RunCtx, String> {
        let ctx = controls.one_model(&job.config, self.model.clone(), Rc::new(BrowserClock));
        super::super::launch::give_tools(self.app, &job.config, &ctx);
        if let (Variant::ActPlus, Some(bank)) = (job.tag.variant, self.bank(&job.config)) {
            ctx.insert_resource(bank.live());
        }
        Ok(ctx)
    }

    fn ended<'a>(&'a self, run: &'a Finished<Tag>) -> LocalBoxFuture<'a, ()> {
        Box::pin(async move {
            let (Variant::ActPlus, Some(bank)) = (run.tag.variant, self.bank(&run.config)) else {
                return;
            };
            if let Err(e) = bank.save_new().await {
                self.error.set(Some(format!(
                    "The knowledge bank \"{}\" could not be saved after trial {}: {} The next ACT+ trials still carry it over in memory.",
                    bank.name(),
                    run.tag.trial,
                    e.user_message()
                )));
            }
            refresh_stored();
        })
    }
}

/// The batch's name: the model, the task source, the trials, the judge and
/// ACT+'s bank.
fn batch_label(settings: &Settings, setup: &ActSetup, form: &ActBatchForm, last: u32) -> String {
    let first = form.first;
    format!(
        "{} · {} · trial{} {}{}{}",
        settings.label(),
        source_label(setup),
        if first == last { "" } else { "s" },
        if first == last {
            first.to_string()
        } else {
            format!("{first}–{last}")
        },
        if form.judge || setup.is_tool_source() {
            " · LLM judge"
        } else {
            ""
        },
        if form.has_plus() {
            format!(" · ACT+ bank \"{}\"", form.bank.trim())
        } else {
            String::new()
        }
    )
}

/// Opens ACT+'s knowledge bank `name` for the batch (claimed in this tab);
/// if it cannot be, says so and drops the ACT+ runs that fill it from `all`.
async fn open_batch_bank(
    name: &str,
    app: AppState,
    error: RwSignal<Option<String>>,
    all: &mut Vec<Job<Tag>>,
) -> Option<Rc<Stored<Banks>>> {
    let model = act_setup().with_untracked(|s| s.embedding_model.clone());
    let opened = match locks::claim_in_tab(&locks::bank_claim(name)) {
        Some(claim) => open_bank(name, &model, app, claim, false).await,
        None => Err(format!("A run on the Run page is filling the knowledge bank \"{name}\": pick another bank, or run them when it ends.")),
    };
    match opened {
        Ok(b) => b,
        Err(e) => {
            error.set(Some(format!(
                "{e} The ACT+ runs were skipped; the other variants run on."
            )));
            all.retain(|j| {
                j.tag.variant != Variant::ActPlus || bank_of(&j.config).as_deref() != Some(name)
            });
            None
        }
    }
}

impl ActBatch {
    /// Starts the batch the form describes, on the setup's task source and
    /// the model in Settings.
    pub fn start(self, app: AppState) {
        let (form, common) = self.asked();
        let setup = act_setup().get_untracked();
        let settings = app.settings.get_untracked();
        let error = |m: String| self.run.error.set(Some(m));
        if form.variants.is_empty() {
            return error("Pick at least one variant.".into());
        }
        let bank_name = form.bank.trim().to_string();
        if form.has_plus() && bank_name.is_empty() {
            return error(
                "Name the knowledge bank ACT+ reads and fills (for example \"batch\").".into(),
            );
        }
        let tasks: Vec<(u32, ComplexTask)> = (form.first..form.first + form.trials.max(1))
            .map_while(|t| setup.task_at(t).map(|task| (t, task)))
            .collect();
        let Some(last) = tasks.last().map(|(t, _)| *t) else {
            return error(no_task(&setup, form.first));
        };
        // Tool tasks that need the web wait for a search endpoint.
        let web = !settings.search_url.trim().is_empty();
        let (tasks, no_web): (Vec<_>, Vec<_>) = tasks
            .into_iter()
            .partition(|(t, _)| setup.web_refusal(*t, web).is_none());
        if tasks.is_empty() {
            return error(format!(
                "Every task picked needs the web, and no search endpoint is set: {}, or pick trials that need no web.",
                super::super::state::PAGE_FIX
            ));
        }
        let (spec, model) = match settings_model(&settings, 0, demo::answer) {
            Ok(m) => m,
            Err(e) => {
                return error(format!(
                    "{e} Open Settings (top right) to fix the model, then Start again."
                ))
            }
        };
        let label = batch_label(&settings, &setup, &form, last);
        let Some(controls) = self.run.begin(&common, settings.prices.clone(), label) else {
            return;
        };
        let left_out = (!no_web.is_empty()).then(|| {
            let ids: Vec<String> = no_web.iter().map(|(t, _)| t.to_string()).collect();
            format!(
                " Trial{} {} need{} the web and no search endpoint is set: left out.",
                if ids.len() == 1 { "" } else { "s" },
                ids.join(", "),
                if ids.len() == 1 { "s" } else { "" }
            )
        });
        let short = ((tasks.len() + no_web.len()) as u32) < form.trials;
        if short || left_out.is_some() {
            let mut note = match short {
                true => format!(
                    "The set has no trial after {last}: running {} trial(s) per variant, not {}.",
                    tasks.len(),
                    form.trials
                ),
                false => format!("Running {} trial(s) per variant.", tasks.len()),
            };
            note.push_str(&left_out.unwrap_or_default());
            self.run.note.set(Some(note));
        }
        let base = app.new_config(act::ID, "", spec);
        let all = jobs(&base, &form.variants, &tasks, |variant, task| {
            let mut o = setup.options(task.clone());
            // A tool task's one score is its judge's.
            o.judge = form.judge || setup.is_tool_source();
            o.bank = (variant == Variant::ActPlus).then(|| bank_name.clone());
            o
        });
        let mut all = for_prompt_sets(all, common.prompt_sets, bank_apart);
        let run = self.run;
        run.name_prompts(&all);
        spawn_local(async move {
            // Each bank the ACT+ runs fill, in the order they first come.
            let mut names: Vec<String> = Vec::new();
            for name in all.iter().filter_map(|j| bank_of(&j.config)) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            let mut banks = Vec::new();
            for name in &names {
                if let Some(b) = open_batch_bank(name, app, run.error, &mut all).await {
                    banks.push(b);
                }
            }
            // Held until the batch ends (the banks' claims go with them).
            let filling = banks.clone();
            let host = Runs {
                app,
                model,
                banks,
                error: run.error,
            };
            run.run(
                controls,
                Batch::new(all, common.concurrency()),
                host,
                common.save,
            )
            .await;
            for bank in filling {
                bank.release();
            }
        });
    }
}
