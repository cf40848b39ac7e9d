//! `roundtable travel-batch`: every chosen variant over a query set, a few
//! runs at a time, then the paper's metric table (one column per variant),
//! average revisits per expert and hallucinated entities per category.

use crate::cli::args::RunArgs;
use crate::cli::run_cmd::{api_key, model_spec, native_platform};
use roundtable::engine::coordinators::travel::batch::{jobs, run_batch, BatchRun};
use roundtable::engine::coordinators::travel::contract::{ToolMode, Variant, EXPERTS};
use roundtable::engine::coordinators::travel::report::comparison::rate_rows;
use roundtable::engine::coordinators::travel::{self, options_for, query_values};
use roundtable::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use roundtable::engine::domains::travel::{
    aggregate, evaluate, Plan, PlanEvaluation, Summary, TravelDb,
};
use roundtable::engine::model::factory::build_model;
use roundtable::engine::model::pricing::PriceTable;
use roundtable::engine::run::clock::{Clock, SystemClock};
use roundtable::engine::run::{ModelRouter, RunConfig, RunCtx, RunDoc};
use std::rc::Rc;

fn variants(a: &RunArgs) -> Result<Vec<Variant>, String> {
    match a.variants.as_deref() {
        None | Some("all") => Ok(Variant::ALL.to_vec()),
        Some(list) => list
            .split(',')
            .map(|v| {
                Variant::parse(v.trim()).ok_or_else(|| {
                    format!("unknown variant \"{}\": use {}", v.trim(), Variant::ids())
                })
            })
            .collect(),
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

pub fn run(a: RunArgs) -> Result<i32, String> {
    let variants = variants(&a)?;
    let (text, file) = match a.queries.as_deref() {
        None | Some("builtin") => (BUILTIN_QUERIES_JSONL.to_string(), "builtin".to_string()),
        Some(path) => (
            std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?,
            path.to_string(),
        ),
    };
    let queries = query_values(&text, &file)?;
    let db = Rc::new(match a.db.as_deref() {
        None | Some("builtin") => TravelDb::builtin(),
        Some(dir) => TravelDb::from_dir(std::path::Path::new(dir)).map_err(|e| e.to_string())?,
    });
    let db_name = a.db.clone().unwrap_or_else(|| "builtin".into());
    let tool_mode = if a.tool_mode.as_deref() == Some("text") {
        ToolMode::Text
    } else {
        ToolMode::Native
    };
    let spec = model_spec(&a)?;
    let clock: Rc<dyn Clock> = Rc::new(SystemClock::default());
    let platform = native_platform(&a, clock.clone(), travel::demo::answer);
    let model = build_model(&spec, api_key(), &platform)?;
    let all = jobs(&variants, &queries);
    let total = all.len();
    let started = clock.now_ms();
    let budget = crate::cli::run_cmd::batch_budget(&a);
    let make_ctx = |i: usize, job: &roundtable::engine::coordinators::travel::batch::BatchJob| {
        let mut config = RunConfig::new(travel::ID, &job.query.query, spec.clone());
        config.variant = Some(job.variant.id().into());
        config.run_id = format!("batch-{i}");
        config.created_ms = clock.epoch_ms().floor();
        let mut options = options_for(job.value.clone(), &db_name, tool_mode);
        if let Some(n) = a.max_steps {
            options.max_steps = n;
        }
        config.options = serde_json::to_value(&options).unwrap_or_default();
        let ctx = RunCtx::new(config, ModelRouter::single(model.clone()), clock.clone());
        ctx.insert_resource(db.clone());
        if let Some(b) = &budget {
            ctx.add_budget(b.clone());
        }
        ctx
    };
    let mut runs: Vec<BatchRun> = Vec::new();
    let prices = PriceTable::default();
    futures::executor::block_on(run_batch(
        &all,
        a.concurrency.unwrap_or(4) as usize,
        travel::entry,
        make_ctx,
        |r| {
            if !a.quiet {
                let final_pass = r.evaluation.as_ref().is_some_and(|e| e.final_pass);
                eprintln!(
                    "[{}/{total}] {} query {}: {}",
                    runs.len() + 1,
                    r.variant.id(),
                    r.query_idx,
                    if final_pass {
                        "final pass"
                    } else if r.evaluation.as_ref().is_some_and(|e| e.delivered) {
                        "delivered"
                    } else {
                        "not delivered"
                    }
                );
            }
            if let Some(dir) = &a.out_dir {
                let doc = RunDoc::new(
                    r.events
                        .first()
                        .and_then(|e| match &e.event {
                            roundtable::engine::run::RunEvent::RunStarted { config } => {
                                Some(config.clone())
                            }
                            _ => None,
                        })
                        .unwrap_or_else(|| RunConfig::new(travel::ID, "", spec.clone()))
                        .sanitized(),
                    r.events.clone(),
                );
                let _ = std::fs::create_dir_all(dir);
                let _ = std::fs::write(
                    format!("{dir}/{}-q{}.json", r.variant.id(), r.query_idx),
                    doc.to_json_pretty(),
                );
            }
            runs.push(r);
        },
    ));
    let secs = (clock.now_ms() - started) / 1000.0;
    // Per variant: the official aggregate over each run's evaluated plan.
    let mut table: Vec<(Variant, Summary, Vec<f64>, usize, f64)> = Vec::new();
    for v in &variants {
        let mine: Vec<&BatchRun> = runs.iter().filter(|r| r.variant == *v).collect();
        let evals: Vec<(usize, PlanEvaluation)> = mine
            .iter()
            .filter_map(|r| {
                let qi = queries.iter().position(|(q, _)| q.idx == r.query_idx)?;
                let plan = r
                    .evaluation
                    .as_ref()
                    .and_then(|e| e.plan.as_ref())
                    .and_then(|p| Plan::from_json(p).ok());
                Some((
                    qi,
                    match plan {
                        Some(p) => evaluate(&db, &queries[qi].0, &p),
                        None => PlanEvaluation::not_delivered("no plan"),
                    },
                ))
            })
            .collect();
        let pairs: Vec<(&roundtable::engine::domains::travel::Query, &PlanEvaluation)> =
            evals.iter().map(|(qi, e)| (&queries[*qi].0, e)).collect();
        let summary = aggregate(&pairs);
        let revisits: Vec<f64> = EXPERTS
            .iter()
            .map(|x| {
                mine.iter()
                    .filter_map(|r| r.evaluation.as_ref())
                    .map(|e| {
                        e.revisits
                            .iter()
                            .find(|(n, _)| n == x)
                            .map_or(0, |(_, c)| *c) as f64
                    })
                    .sum::<f64>()
                    / mine.len().max(1) as f64
            })
            .collect();
        let halluc = mine
            .iter()
            .filter_map(|r| r.evaluation.as_ref())
            .map(|e| e.hallucinations.len())
            .sum();
        let cost: f64 = mine.iter().map(|r| r.usage.total.cost(&prices).0).sum();
        table.push((*v, summary, revisits, halluc, cost));
    }
    if a.json {
        let out: Vec<serde_json::Value> = table
            .iter()
            .map(|(v, s, rv, h, c)| serde_json::json!({"variant": v.id(), "summary": s.to_json(), "avg_revisits": EXPERTS.iter().zip(rv).map(|(e, x)| (e.to_string(), serde_json::json!(x))).collect::<serde_json::Map<_, _>>(), "hallucinated_entities": h, "cost_usd": c}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(0);
    }
    let head = |label: &str| print!("{label:<36}");
    head(&format!(
        "{} queries × {} variants, {:.1} s",
        queries.len(),
        variants.len(),
        secs
    ));
    for (v, ..) in &table {
        print!("{:>16}", v.id());
    }
    println!();
    let labels = table.first().map(|(_, s, ..)| rate_rows(s).map(|r| r.0));
    for (row, label) in labels.into_iter().flatten().enumerate() {
        head(label);
        for (_, s, ..) in &table {
            print!("{:>16}", pct(rate_rows(s)[row].1));
        }
        println!();
    }
    for (i, e) in EXPERTS.iter().enumerate() {
        head(&format!("Avg revisits: {e}"));
        for (_, _, rv, ..) in &table {
            print!("{:>16.2}", rv[i]);
        }
        println!();
    }
    head("Hallucinated entities (total)");
    for (_, _, _, h, _) in &table {
        print!("{h:>16}");
    }
    println!();
    if let Some((_, s, ..)) = table.first() {
        println!("(rates in %; denominators: {})", s.denominators.describe());
    }
    Ok(0)
}
