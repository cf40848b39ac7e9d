//! `roundtable act-batch`: every variant asked for over K trials of a task
//! set (or AgentVerse's tool tasks, each with its team and every tool,
//! judged by the sub-tasks done), through the engine's batch runner as the ACT page runs it (ACT+'s
//! trials one after another, carrying its bank; the rest concurrently,
//! `--concurrency` at once), then the paper's tables (ROUGE-L / ROUGE-1
//! recall, words, judge, trivia recall, replies repaired per variant;
//! token share per phase; replies repaired per step kind) from the same
//! fold the page shows.

use super::super::batch::{self as cli_batch, BatchArgs, Lines};
use super::super::common::Common;
use super::super::flags::Flags;
use super::ActArgs;
use futures::future::LocalBoxFuture;
use roundtable::engine::coordinators::act::batch::{headline, jobs, table, Tag};
use roundtable::engine::coordinators::act::contract::Variant;
use roundtable::engine::coordinators::act::plus::Bank;
use roundtable::engine::coordinators::act::{self};
use roundtable::engine::domains::agentverse::tasks::ToolTask;
use roundtable::engine::model::ChatModel;
use roundtable::engine::run::batch::{Controls, Finished, Host, Job};
use roundtable::engine::run::RunCtx;
use std::cell::RefCell;
use std::ffi::OsString;
use std::rc::Rc;

struct ActHost<'a> {
    common: &'a Common,
    model: Rc<dyn ChatModel>,
    /// ACT+'s bank and where it is written after each of its trials.
    bank: Option<(Rc<Bank>, Option<String>)>,
    /// The notebook's Python and the web, for tool tasks.
    tools: super::ToolKit,
    error: RefCell<Option<String>>,
}

/// The tool tasks from `first` (all the rest, or `trials` of them), as
/// (index in the file, task); those that need the web are left out without
/// `--search-url`, saying so, and none left is an error.
fn tool_trials(
    a: &ActArgs,
    first: u32,
    trials: Option<u32>,
) -> Result<Vec<(u32, ToolTask)>, String> {
    let all = a.tool_tasks()?;
    let n = all.len() as u32;
    if first >= n {
        return Err(format!(
            "--task-idx {first}: the file has {n} tasks (0 to {})",
            n - 1
        ));
    }
    let last = trials.map_or(n, |k| (first + k.max(1)).min(n));
    let (mut kept, mut left_out) = (Vec::new(), Vec::new());
    for (i, t) in (first..last).zip(all.into_iter().skip(first as usize)) {
        match a.web_refusal(&t) {
            Some(why) => left_out.push((t.id, why)),
            None => kept.push((i, t)),
        }
    }
    if !left_out.is_empty() {
        let ids: Vec<&str> = left_out.iter().map(|(id, _)| id.as_str()).collect();
        eprintln!(
            "act-batch: {} of {} tasks left out, they need the web and no --search-url is given: {}",
            left_out.len(),
            last - first,
            ids.join(", ")
        );
    }
    match (kept.is_empty(), left_out.into_iter().next()) {
        (true, Some((_, why))) => Err(why),
        _ => Ok(kept),
    }
}

impl Host<Tag> for ActHost<'_> {
    fn context(&self, job: &Job<Tag>, controls: &Controls) -> Result<RunCtx, String> {
        let ctx = controls.one_model(&job.config, self.model.clone(), self.common.clock.clone());
        self.tools.attach(&ctx);
        if let (Variant::ActPlus, Some((bank, _))) = (job.tag.variant, &self.bank) {
            ctx.insert_resource(bank.clone());
        }
        Ok(ctx)
    }

    fn ended<'a>(&'a self, run: &'a Finished<Tag>) -> LocalBoxFuture<'a, ()> {
        Box::pin(async move {
            if run.resumed {
                return; // its work is in the bank file already
            }
            if let (Variant::ActPlus, Some((bank, Some(path)))) = (run.tag.variant, &self.bank) {
                if let Err(e) = super::write_bank(path, bank) {
                    self.error.borrow_mut().get_or_insert(e);
                }
            }
        })
    }
}

fn describe(r: &Finished<Tag>) -> String {
    let score = headline(&r.events)
        .map(|(x, name)| match name {
            "trivia" => format!("trivia {x:.0}%"),
            "sub-tasks done %" => format!("sub-tasks done {x:.0}%"),
            _ => format!("{name} {x:.1}"),
        })
        .or_else(|| r.failure().map(|w| format!("failed: {w}")))
        .unwrap_or_else(|| format!("{:?}", r.status).to_lowercase());
    format!("{} trial {}: {score}", r.tag.variant.id(), r.tag.trial)
}

pub fn run(args: Vec<OsString>) -> Result<i32, String> {
    let f = Flags::parse("act-batch", args)?;
    let common = Common::read(&f)?;
    let batch = BatchArgs::read(&f, 2)?;
    let a = ActArgs::read(&f)?;
    let variants: Vec<Variant> = (f.list("variants", |v| super::variant(Some(v)))?)
        .unwrap_or_else(|| vec![Variant::Act, Variant::Baseline]);
    let trials = f.number::<u32>("trials")?;
    let first = f.number::<u32>("task-idx")?.unwrap_or(0);
    let bank = match variants.contains(&Variant::ActPlus) {
        true => Some((
            Rc::new(super::read_bank(a.bank.as_deref(), common.embedder()?)?),
            a.bank.clone(),
        )),
        false => None,
    };
    let team_size = f.has("team-size");
    f.finish()?;
    // A tool task's team is its own (AgentVerse's), unless --team-size says.
    let mut teams: Vec<(String, usize)> = Vec::new();
    let tasks = match a.is_tool_tasks() {
        true => {
            let picked = tool_trials(&a, first, trials)?;
            teams = (picked.iter())
                .map(|(_, t)| (t.complex_task().id, t.agents))
                .collect();
            (picked.into_iter())
                .map(|(i, t)| (i, t.complex_task()))
                .collect()
        }
        false => (first..first + trials.unwrap_or(5).max(1))
            .map(|t| a.task(t).map(|task| (t, task)))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let base = common.config(act::ID, "", "act-batch")?;
    let all = jobs(&base, &variants, &tasks, |v, task| {
        let mut o = a.options(task.clone());
        if v != Variant::ActPlus {
            o.bank = None;
        }
        if let (Some((_, n)), false) = (teams.iter().find(|(id, _)| *id == task.id), team_size) {
            o.team_size = *n;
        }
        o
    });
    let host = ActHost {
        common: &common,
        model: common.model(act::demo::answer)?,
        bank,
        tools: a.tool_kit()?,
        error: RefCell::new(None),
    };
    let lines = Lines {
        file: |t: &Tag| format!("{}-{}", t.variant.id(), t.trial),
        describe,
    };
    let report = cli_batch::run(all, false, &batch, &common, &host, &lines)?;
    if let Some(e) = host.error.into_inner() {
        return Err(e);
    }
    let rep = table(&report.runs);
    if common.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rep).map_err(|e| e.to_string())?
        );
    } else {
        println!("{}\n{}", rep.table(), rep.share_table());
        let repairs = rep.repairs_table();
        if !repairs.is_empty() {
            println!("{repairs}");
        }
    }
    Ok(cli_batch::exit_code(&report))
}
