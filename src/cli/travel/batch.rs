//! `roundtable travel-batch`: every chosen variant over a query set, a few
//! runs at a time (the engine's batch runner, as the Batch page), then the
//! paper's table (one column per variant), average revisits per expert,
//! hallucinated entities and the replies its steps had to repair, from the
//! same fold the page shows.

use super::super::batch::{self as cli_batch, BatchArgs, Lines};
use super::super::common::Common;
use super::super::flags::Flags;
use roundtable::engine::coordinators::travel::batch::{jobs, table, Setup, Tag};
use roundtable::engine::coordinators::travel::contract::{Variant, EXPERTS};
use roundtable::engine::coordinators::travel::report::comparison::{rate_rows, GroupStats};
use roundtable::engine::coordinators::travel::{self};
use roundtable::engine::domains::travel::TravelDb;
use roundtable::engine::model::ChatModel;
use roundtable::engine::run::batch::prompt_sets::split_group_name;
use roundtable::engine::run::batch::{Controls, Finished, Host, Job};
use roundtable::engine::run::RunCtx;
use std::ffi::OsString;
use std::rc::Rc;

fn variants(f: &Flags) -> Result<Vec<Variant>, String> {
    if f.text("variants")?.as_deref() == Some("all") {
        return Ok(Variant::ALL.to_vec());
    }
    let given = f.list("variants", |v| {
        Variant::parse(v).ok_or_else(|| format!("unknown variant \"{v}\": use {}", Variant::ids()))
    })?;
    Ok(given.unwrap_or_else(|| Variant::ALL.to_vec()))
}

struct TravelHost<'a> {
    common: &'a Common,
    model: Rc<dyn ChatModel>,
    db: Option<Rc<TravelDb>>,
}

impl Host<Tag> for TravelHost<'_> {
    fn context(&self, job: &Job<Tag>, controls: &Controls) -> Result<RunCtx, String> {
        let ctx = controls.one_model(&job.config, self.model.clone(), self.common.clock.clone());
        if let Some(db) = &self.db {
            ctx.insert_resource(db.clone());
        }
        Ok(ctx)
    }
}

fn describe(r: &Finished<Tag>) -> String {
    let e = travel::batch::evaluation_of(&r.events);
    let outcome = match (&e, r.failure()) {
        (Some(e), _) if e.final_pass => "final pass".to_string(),
        (Some(e), _) if e.delivered => "delivered".to_string(),
        (_, Some(why)) => format!("failed: {why}"),
        _ => "not delivered".to_string(),
    };
    format!(
        "{} query {}: {outcome}",
        r.tag.variant.id(),
        r.tag.query_idx
    )
}

pub fn run(args: Vec<OsString>) -> Result<i32, String> {
    let f = Flags::parse("travel-batch", args)?;
    let common = Common::read(&f)?;
    let batch = BatchArgs::read(&f, 4)?;
    let variants = variants(&f)?;
    let (queries, _) = super::queries(&f)?;
    let (db, db_name) = super::database(&f)?;
    let setup = Setup {
        db: db_name,
        tool_mode: super::tool_mode(&f, &common.spec)?,
        max_steps: f.number("max-steps")?,
    };
    f.finish()?;
    let model = common.model(travel::demo::answer)?;
    let base = common.config(travel::ID, "", "travel-batch")?;
    let all = jobs(&base, &variants, &queries, &setup);
    let started = common.clock.now_ms();
    let host = TravelHost {
        common: &common,
        model,
        db,
    };
    let lines = Lines {
        file: |t: &Tag| format!("{}-q{}", t.variant.id(), t.query_idx),
        describe,
    };
    let report = cli_batch::run(all, false, &batch, &common, &host, &lines)?;
    let secs = (common.clock.now_ms() - started) / 1000.0;
    let groups = table(&report.runs);
    if common.json {
        let out: Vec<serde_json::Value> = groups.iter().map(group_json).collect();
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        print_table(&groups, queries.len(), variants.len(), secs);
    }
    // The table is the command's result: failed runs count in it as not
    // delivered, and the command succeeds (as it always has) unless a
    // signal stopped it.
    Ok(crate::cli::interrupt::stopped_by().map_or(0, crate::cli::interrupt::exit_code))
}

/// A column's variant id (the table's groups are the variants' labels,
/// with the prompts when edited) and whether its runs were told edited
/// prompts.
fn variant_id(group: &str) -> (&str, bool) {
    let (label, prompts) = split_group_name(group);
    let id = Variant::ALL
        .iter()
        .find(|v| v.label() == label)
        .map_or(label, |v| v.id());
    (id, !prompts.is_empty())
}

fn group_json(g: &GroupStats) -> serde_json::Value {
    let revisits: serde_json::Map<String, serde_json::Value> = g
        .revisits
        .iter()
        .map(|(e, x)| (e.clone(), serde_json::json!(x)))
        .collect();
    let hallucinated: usize = g.hallucinations.iter().map(|(_, n)| n).sum();
    serde_json::json!({
        "variant": variant_id(&g.group).0,
        "prompts": if variant_id(&g.group).1 { "edited" } else { "paper" },
        "group": g.group,
        "runs": g.runs,
        "summary": g.summary.to_json(),
        "avg_revisits": revisits,
        "hallucinated_entities": hallucinated,
        "mean_cost_usd": g.mean_cost_usd,
        "mean_tokens": g.mean_tokens,
        "replies": g.repairs.replies,
        "repaired": g.repairs.repaired,
        "unreadable": g.repairs.unreadable,
    })
}

fn print_table(groups: &[GroupStats], queries: usize, variants: usize, secs: f64) {
    let head = |label: &str| print!("{label:<36}");
    head(&format!(
        "{queries} queries × {variants} variants, {secs:.1} s"
    ));
    for g in groups {
        match variant_id(&g.group) {
            (id, false) => print!("{id:>16}"),
            (id, true) => print!("{:>16}", format!("{id}·edited")),
        }
    }
    println!();
    let labels = groups.first().map(|g| rate_rows(&g.summary).map(|r| r.0));
    for (row, label) in labels.into_iter().flatten().enumerate() {
        head(label);
        for g in groups {
            print!("{:>16.1}", rate_rows(&g.summary)[row].1 * 100.0);
        }
        println!();
    }
    for (i, e) in EXPERTS.iter().enumerate() {
        head(&format!("Avg revisits: {e}"));
        for g in groups {
            print!("{:>16.2}", g.revisits.get(i).map_or(0.0, |r| r.1));
        }
        println!();
    }
    head("Hallucinated entities (total)");
    for g in groups {
        print!(
            "{:>16}",
            g.hallucinations.iter().map(|(_, n)| n).sum::<usize>()
        );
    }
    println!();
    head("Replies repaired");
    for g in groups {
        print!("{:>16}", g.repairs.label());
    }
    println!();
    if let Some(g) = groups.first() {
        println!(
            "(rates in %; denominators: {})",
            g.summary.denominators.describe()
        );
    }
}
