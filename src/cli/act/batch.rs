//! `roundtable act-batch`: every variant asked for over K trials of a task
//! set, then the paper's tables (ROUGE-L / ROUGE-1 recall, words, judge,
//! trivia recall per variant; token share per phase). Trials of a variant
//! run one after another (ACT+ carries its bank from each to the next);
//! `--concurrency` bounds the calls inside a run.

use crate::cli::args::RunArgs;
use crate::cli::run_cmd::{api_key, model_spec, native_platform};
use roundtable::engine::coordinators::act::{self, contract::Variant, report};
use roundtable::engine::model::factory::build_model;
use roundtable::engine::run::clock::{Clock, SystemClock};
use roundtable::engine::run::{LoggedEvent, ModelRouter, RunConfig, RunCtx, RunDoc, RunStatus};
use std::rc::Rc;

pub fn run(a: RunArgs) -> Result<i32, String> {
    let variants: Vec<Variant> = match a.variants.as_deref() {
        None => vec![Variant::Act, Variant::Baseline],
        Some(list) => list
            .split(',')
            .map(|v| super::variant(Some(v.trim())))
            .collect::<Result<_, _>>()?,
    };
    let trials = a.trials.unwrap_or(5).max(1);
    let first = a.task_idx.unwrap_or(0);
    let spec = model_spec(&a)?;
    let clock: Rc<dyn Clock> = Rc::new(SystemClock::default());
    let platform = native_platform(&a, clock.clone(), act::demo::answer);
    let model = build_model(&spec, api_key(), &platform)?;
    if let Some(dir) = &a.out_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {dir}: {e}"))?;
    }
    let budget = crate::cli::run_cmd::batch_budget(&a);
    let mut runs: Vec<(String, Vec<LoggedEvent>)> = Vec::new();
    let mut failed = 0;
    for v in &variants {
        let bank = (*v == Variant::ActPlus)
            .then(|| {
                let embedder = crate::cli::run_cmd::embedder(&a, &spec, api_key())?;
                super::read_bank(a.bank.as_deref(), embedder).map(Rc::new)
            })
            .transpose()?;
        for t in first..first + trials {
            let task = super::task(&a, t)?;
            let mut config = RunConfig::new(act::ID, &task.text, spec.clone());
            config.variant = Some(v.id().into());
            config.run_id = format!("act-batch-{}-{t}", v.id());
            config.created_ms = clock.epoch_ms().floor();
            config.seed = u64::from(t);
            if let Some(n) = a.concurrency {
                config.max_concurrency = n.max(1);
            }
            config.options =
                serde_json::to_value(super::options(&a, task)).map_err(|e| e.to_string())?;
            let ctx = RunCtx::new(
                config.clone(),
                ModelRouter::single(model.clone()),
                clock.clone(),
            );
            if let Some(b) = &bank {
                ctx.insert_resource(b.clone());
            }
            if let Some(b) = &budget {
                ctx.add_budget(b.clone());
            }
            let status =
                futures::executor::block_on(roundtable::engine::run::execute(&ctx, act::entry));
            if status != RunStatus::Finished {
                failed += 1;
            }
            let events = ctx.events();
            if !a.quiet {
                let view = <act::view::ActView as roundtable::engine::views::Fold>::of(&events);
                let score = view
                    .result
                    .as_ref()
                    .and_then(|r| {
                        r.scores
                            .rouge
                            .map(|x| format!("ROUGE-L {:.1}", 100.0 * x.rouge_l.recall))
                            .or(r
                                .scores
                                .trivia_recall
                                .map(|x| format!("trivia {:.0}%", 100.0 * x)))
                    })
                    .unwrap_or_else(|| format!("{status:?}"));
                eprintln!("{} trial {t}: {score}", v.id());
            }
            if let Some(dir) = &a.out_dir {
                let doc = RunDoc::new(config.sanitized(), events.clone());
                let path = format!("{dir}/{}-{t}.json", v.id());
                std::fs::write(&path, doc.to_json_pretty())
                    .map_err(|e| format!("cannot write {path}: {e}"))?;
            }
            runs.push((v.id().to_string(), events));
        }
        if let (Some(b), Some(path)) = (&bank, a.bank.as_deref()) {
            super::write_bank(path, b)?;
        }
    }
    let rep = report::report(runs.iter().map(|(v, e)| (v.as_str(), e.as_slice())));
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rep).map_err(|e| e.to_string())?
        );
    } else {
        println!("{}\n{}", rep.table(), rep.share_table());
    }
    Ok(if failed > 0 { 1 } else { 0 })
}
