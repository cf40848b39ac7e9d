//! `roundtable mael-learn`: a learning phase over training tasks, the pool
//! saved after every task (so an interrupted phase resumes where it
//! stopped); `roundtable mael-eval`: test tasks in each mode against a
//! pool, with the paper's figures (score, completion tokens, rounds), and
//! optionally the pool-size sweep. Both report the replies their steps had
//! to repair (per mode, and per step kind). Both go through the engine's
//! batch runner with the jobs and folds the MAEL page uses.

use super::super::batch::{self as cli_batch, BatchArgs, Lines};
use super::super::common::{with_repairs, Common};
use super::super::flags::Flags;
use super::MaelArgs;
use futures::future::LocalBoxFuture;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::mael::contract::{MaelOptions, Mode};
use roundtable::engine::coordinators::mael::learn::{
    evaluation_jobs, first_tasks, groups, learning_jobs, learning_repairs, pending, quality_curves,
    refuse_trained, relative_to_none, result_of, rows, sweep, sweep_mode, ModeSummary,
    QualityCurve, Relative, Row, Tag, LEARNING,
};
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::coordinators::mael::software::SCALE_PARTS;
use roundtable::engine::coordinators::mael::{self};
use roundtable::engine::domains::srdd;
use roundtable::engine::domains::tasks::builtin::Split;
use roundtable::engine::domains::tasks::{humaneval, Task};
use roundtable::engine::model::ChatModel;
use roundtable::engine::run::batch::{Controls, Finished, Host, Job};
use roundtable::engine::run::{RunCtx, RunStatus};
use roundtable::engine::views::repairs::{by_step_table, RepairSum};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::OsString;
use std::rc::Rc;

/// A run of MAEL's on the pool its tag names.
struct MaelHost<'a> {
    common: &'a Common,
    model: Rc<dyn ChatModel>,
    memory: Rc<Memory>,
    /// The sweep's pools, by learned tasks.
    sweep: HashMap<usize, Rc<Memory>>,
    /// Learning: where the pool is written after each task.
    save_to: Option<String>,
    /// HumanEval's runner, one Node process for every run.
    python: Rc<humaneval::Runner>,
    /// SRDD's project runner, when the runs are SRDD's.
    projects: Option<Rc<srdd::run::Runner>>,
    error: RefCell<Option<String>>,
}

impl<'a> MaelHost<'a> {
    /// Runs on `memory` with the model the options name; no sweep, no saving.
    fn new(common: &'a Common, memory: Rc<Memory>, a: &MaelArgs) -> Result<MaelHost<'a>, String> {
        Ok(MaelHost {
            common,
            model: common.model(every_script)?,
            memory,
            sweep: HashMap::new(),
            save_to: None,
            python: super::python(),
            projects: a.projects()?,
            error: RefCell::new(None),
        })
    }
}

impl Host<Tag> for MaelHost<'_> {
    fn context(&self, job: &Job<Tag>, controls: &Controls) -> Result<RunCtx, String> {
        let ctx = controls.one_model(&job.config, self.model.clone(), self.common.clock.clone());
        let memory = match job.tag.pool_tasks {
            Some(n) => self.sweep.get(&n).cloned().ok_or("no such pool size")?,
            None => self.memory.clone(),
        };
        ctx.insert_resource(memory);
        ctx.insert_resource(self.python.clone());
        if let Some(p) = &self.projects {
            ctx.insert_resource(p.clone());
        }
        Ok(ctx)
    }

    fn ended<'b>(&'b self, run: &'b Finished<Tag>) -> LocalBoxFuture<'b, ()> {
        Box::pin(async move {
            // A resumed run's work is in the pool file already.
            if let (Some(path), RunStatus::Finished, false) =
                (&self.save_to, run.status, run.resumed)
            {
                if let Err(e) = super::write_pool(path, &self.memory) {
                    self.error.borrow_mut().get_or_insert(e);
                }
            }
        })
    }
}

fn describe(r: &Finished<Tag>) -> String {
    let outcome = match (result_of(&r.events), r.failure()) {
        (Some(res), _) => format!("score {:.2}", res.score),
        (None, Some(why)) => format!("failed: {why}"),
        (None, None) => format!("{:?}", r.status).to_lowercase(),
    };
    format!(
        "{} {} ({}): {outcome}",
        r.tag.row,
        r.tag.task_id,
        r.tag.mode.id()
    )
}

fn file(t: &Tag) -> String {
    let safe: String = t
        .task_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    match t.pool_tasks {
        Some(n) => format!("sweep{n}-{}-{safe}", t.mode.id()),
        None => format!(
            "{}-{safe}",
            t.row
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect::<String>()
        ),
    }
}

const LINES: Lines<Tag> = Lines { file, describe };

/// An evaluation row as a JSON line (`tasks`: the ids it scored;
/// `parts`: a composite score's parts, only for tasks scored so).
fn row_json(r: &Row) -> serde_json::Value {
    let s = &r.summary;
    let mut row = serde_json::json!({"mode": s.mode.id(), "label": r.label, "score": s.score, "completion_tokens": s.completion_tokens, "rounds": s.rounds, "tasks": s.task_ids});
    if !s.parts.is_empty() {
        row["parts"] = s
            .parts
            .iter()
            .map(|(n, v)| (n.clone(), serde_json::Value::from(*v)))
            .collect::<serde_json::Map<String, serde_json::Value>>()
            .into();
    }
    with_repairs(row, &s.repairs)
}

/// The breakdown by step kind, when some run got a reply.
fn print_by_step(columns: &[(&str, &RepairSum)]) {
    let table = by_step_table(columns);
    if !table.is_empty() {
        print!("\n{table}");
    }
}

pub fn learn(args: Vec<OsString>) -> Result<i32, String> {
    let f = Flags::parse("mael-learn", args)?;
    let common = Common::read(&f)?;
    let batch = BatchArgs::read(&f, 1)?;
    let a = MaelArgs::read(&f)?;
    let out = f
        .text("out")?
        .ok_or("mael-learn needs --out pool.json (the pool it fills)")?;
    let n = f.number::<usize>("train")?.unwrap_or(30);
    // A learning phase retrieves nothing by default (the pool is being built).
    let mode = super::mode(&f, None, Mode::None)?;
    f.finish()?;
    let memory = super::memory(Some(&out), common.embedder()?)?;
    // Resume: tasks already in the pool are not learned again.
    let candidates: Vec<Task> = a.tasks(Split::Train)?.into_iter().take(n).collect();
    let todo = pending(&memory.pool.borrow(), &candidates);
    let template = match todo.first() {
        Some(t) => Some(a.options(t.clone())?),
        None => None,
    };
    if !common.quiet {
        eprintln!(
            "learning on {} tasks in mode {} ({} already in the pool)",
            todo.len(),
            mode.id(),
            candidates.len() - todo.len()
        );
    }
    let base = common.config(mael::ID, "", "mael-learn")?;
    let jobs = match template {
        Some(o) => learning_jobs(&base, &todo, mode, |t| MaelOptions {
            task: t.clone(),
            ..o.clone()
        }),
        None => Vec::new(),
    };
    let mut host = MaelHost::new(&common, memory.clone(), &a)?;
    host.save_to = Some(out.clone());
    let started = common.clock.now_ms();
    let report = cli_batch::run(jobs, true, &batch, &common, &host, &LINES)?;
    if let Some(e) = host.error.into_inner() {
        return Err(e);
    }
    let secs = ((common.clock.now_ms() - started) / 1000.0).max(1e-9);
    let learned = report.progress.finished;
    let experiences = memory.pool.borrow().len();
    let repairs = learning_repairs(&report.runs);
    if common.json {
        let line = serde_json::json!({"row": LEARNING, "mode": mode.id(), "learned": learned, "experiences": experiences, "seconds": secs});
        println!("{}", with_repairs(line, &repairs));
    } else {
        println!(
            "learned {learned} tasks in {secs:.2} s ({:.1} tasks/s); {out} has {experiences} experiences",
            learned as f64 / secs,
        );
        println!("replies repaired: {}", repairs.label());
        print_by_step(&[(LEARNING, &repairs)]);
    }
    Ok(cli_batch::exit_code(&report))
}

fn modes(f: &Flags) -> Result<Vec<Mode>, String> {
    let given = f.list("modes", |m| {
        Mode::parse(m).ok_or_else(|| format!("unknown mode \"{m}\": use {}", Mode::ids()))
    })?;
    Ok(given.unwrap_or_else(|| Mode::ALL.to_vec()))
}

pub fn eval(args: Vec<OsString>) -> Result<i32, String> {
    let f = Flags::parse("mael-eval", args)?;
    let common = Common::read(&f)?;
    let batch = BatchArgs::read(&f, 4)?;
    let a = MaelArgs::read(&f)?;
    let pool = f
        .text("pool")?
        .ok_or("mael-eval needs --pool pool.json (from mael-learn)")?;
    let modes = modes(&f)?;
    let test = f.number::<usize>("test")?.unwrap_or(30);
    let sizes = pool_sizes(&f)?;
    f.finish()?;
    let memory = super::memory(Some(&pool), common.embedder()?)?;
    let tasks: Vec<Task> = a.tasks(Split::Test)?.into_iter().take(test).collect();
    let Some(first) = tasks.first() else {
        return Err("the test set has no task".into());
    };
    refuse_trained(&memory.pool.borrow(), &pool, &tasks)?;
    let template = a.options(first.clone())?;
    let sweep_pools = sweep_pools(&memory, &sizes)?;
    let base = common.config(mael::ID, "", "mael-eval")?;
    let rows_asked = groups(&modes, &[], template.scoring);
    let jobs = evaluation_jobs(&base, &tasks, &rows_asked, &sizes, |t| MaelOptions {
        task: t.clone(),
        ..template.clone()
    });
    let mut host = MaelHost::new(&common, memory.clone(), &a)?;
    host.sweep = sweep_pools;
    let report = cli_batch::run(jobs, false, &batch, &common, &host, &LINES)?;
    let table = rows(&report.runs);
    let figures = EvalFigures {
        relative: relative_to_none(&table),
        curves: quality_curves(&report.runs, FIG4_CASES),
        table,
        points: sweep(&report.runs),
        sizes,
        sweep_in: sweep_mode(&modes),
    };
    if common.json {
        figures.print_json();
    } else {
        println!(
            "{} test tasks, pool of {} experiences",
            tasks.len(),
            memory.pool.borrow().len()
        );
        figures.print_table();
        figures.print_sweep();
    }
    // The figures are the command's result (runs that did not finish are
    // left out of them), and the command succeeds (as it always has)
    // unless a signal stopped it.
    Ok(crate::cli::interrupt::stopped_by().map_or(0, crate::cli::interrupt::exit_code))
}

fn label_none() -> &'static str {
    roundtable::engine::coordinators::mael::learn::label(Mode::None)
}

/// SRDD's Tables 2 (quality, in %) and 3 (scale and complexity, means).
fn print_srdd_tables(rows: &[&Row]) {
    let part = |r: &Row, name: &str| {
        (r.summary.parts.iter())
            .find(|(n, _)| n == name)
            .map_or(f64::NAN, |(_, v)| *v)
    };
    let w = rows
        .iter()
        .map(|r| r.label.chars().count())
        .fold(10, usize::max);
    println!("\nTable 2 (SRDD, %)");
    println!(
        "  {:<w$} {:>12} {:>13} {:>11} {:>8}",
        "method", "completeness", "executability", "consistency", "quality"
    );
    for r in rows {
        println!(
            "  {:<w$} {:>12.2} {:>13.2} {:>11.2} {:>8.2}",
            r.label,
            100.0 * part(r, "completeness"),
            100.0 * part(r, "executability"),
            100.0 * part(r, "consistency"),
            100.0 * part(r, "quality")
        );
    }
    println!("Table 3 (SRDD, means per project)");
    println!(
        "  {:<w$} {:>10} {:>8} {:>8} {:>9} {:>6}",
        "method", "complexity", "lines", "tokens", "functions", "files"
    );
    for r in rows {
        println!(
            "  {:<w$} {:>10.1} {:>8.1} {:>8.1} {:>9.1} {:>6.1}",
            r.label,
            part(r, "complexity"),
            part(r, "lines"),
            part(r, "tokens"),
            part(r, "functions"),
            part(r, "files")
        );
    }
}

/// The pool sizes of the sweep: Fig. 3's by default; `--sizes none` runs
/// none.
fn pool_sizes(f: &Flags) -> Result<Vec<usize>, String> {
    Ok(match f.text("sizes")?.as_deref() {
        Some("none") => Vec::new(),
        None => vec![0, 10, 20, 30],
        Some(list) => (list.split(','))
            .map(|x| {
                x.trim()
                    .parse()
                    .map_err(|_| format!("--sizes: \"{x}\" is not a whole number (or say none)"))
            })
            .collect::<Result<_, _>>()?,
    })
}

/// The sweep's pools: the experiences of the first `n` tasks learned, for
/// each size `n`.
fn sweep_pools(memory: &Memory, sizes: &[usize]) -> Result<HashMap<usize, Rc<Memory>>, String> {
    let mut pools = HashMap::new();
    for &n in sizes {
        let sub = first_tasks(&memory.pool.borrow(), n);
        let m = Memory::new("sweep", sub, memory.embedder.clone()).map_err(|e| e.user_message())?;
        pools.insert(n, Rc::new(m));
    }
    Ok(pools)
}

/// Fig. 4's cases: the first five test tasks, as the paper's five.
const FIG4_CASES: usize = 5;

/// What `mael-eval` reports: a row per mode (with Fig. 2's tokens and
/// rounds relative to no experience), SRDD's quality per iteration (Fig.
/// 4), and the sweep's score per pool size (in `sweep_in`'s mode).
struct EvalFigures {
    table: Vec<Row>,
    relative: Vec<Relative>,
    curves: Vec<QualityCurve>,
    points: Vec<(usize, ModeSummary)>,
    sizes: Vec<usize>,
    sweep_in: Mode,
}

impl EvalFigures {
    /// One JSON line per row, then one per pool size.
    fn print_json(&self) {
        for (r, rel) in self.table.iter().zip(&self.relative) {
            let mut row = row_json(r);
            row["relative_to_none"] = serde_json::json!({"completion_tokens": rel.completion_tokens, "rounds": rel.rounds});
            println!("{row}");
        }
        for c in &self.curves {
            println!(
                "{}",
                serde_json::json!({"figure": 4, "task": c.task_id, "label": c.label, "quality": c.quality})
            );
        }
        for n in &self.sizes {
            // A pool size none of whose runs finished has no score (null).
            let point = self.points.iter().find(|(p, _)| p == n).map(|(_, s)| s);
            let (score, ids) = match point {
                Some(s) => (Some(s.score), s.task_ids.clone()),
                None => (None, Vec::new()),
            };
            println!(
                "{}",
                serde_json::json!({"pool_tasks": n, "mode": self.sweep_in.id(), "score": score, "tasks": ids})
            );
        }
    }

    /// The modes' figures as a table, the composite's parts, and the
    /// replies repaired per step kind.
    fn print_table(&self) {
        let table = &self.table;
        // The first column as wide as its longest name (so the rest align).
        let w = (table.iter())
            .map(|r| r.summary.mode.label().chars().count())
            .fold(28, usize::max);
        println!(
            "{:<w$} {:>8} {:>18} {:>8} {:>16}",
            "mode", "score %", "completion tokens", "rounds", "replies repaired"
        );
        for r in table {
            println!(
                "{:<w$} {:>8.1} {:>18.0} {:>8.2} {:>16}",
                r.summary.mode.label(),
                r.summary.score * 100.0,
                r.summary.completion_tokens,
                r.summary.rounds,
                r.summary.repairs.label()
            );
        }
        let software = |r: &Row| r.summary.parts.iter().any(|(n, _)| n == SCALE_PARTS[0]);
        for r in table
            .iter()
            .filter(|r| !r.summary.parts.is_empty() && !software(r))
        {
            let parts: Vec<String> = (r.summary.parts.iter())
                .map(|(n, v)| format!("{n} {:.1}", v * 100.0))
                .collect();
            println!("  {} · composite's parts %: {}", r.label, parts.join(", "));
        }
        let srdd: Vec<&Row> = table.iter().filter(|r| software(r)).collect();
        if !srdd.is_empty() {
            print_srdd_tables(&srdd);
        }
        if self.relative.iter().any(|r| r.completion_tokens.is_some()) {
            println!(
                "\nFig. 2 (relative to {}): completion tokens, rounds",
                label_none()
            );
            for r in &self.relative {
                let f = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.2}"));
                println!(
                    "  {:<w$} {:>6} {:>6}",
                    r.label,
                    f(r.completion_tokens),
                    f(r.rounds)
                );
            }
        }
        if !self.curves.is_empty() {
            println!("\nFig. 4 (quality % after each step that wrote files):");
            for c in &self.curves {
                let q: Vec<String> = c
                    .quality
                    .iter()
                    .map(|q| format!("{:.0}", q * 100.0))
                    .collect();
                println!("  {} · {}: {}", c.task_id, c.label, q.join(" → "));
            }
        }
        let columns: Vec<(&str, &RepairSum)> = table
            .iter()
            .map(|r| (r.label.as_str(), &r.summary.repairs))
            .collect();
        print_by_step(&columns);
    }

    /// The pool-size sweep's scores, when there is a sweep.
    fn print_sweep(&self) {
        if !self.sizes.is_empty() {
            println!(
                "pool-size sweep ({}): tasks learned → score %",
                self.sweep_in.label()
            );
            for n in &self.sizes {
                match self.points.iter().find(|(p, _)| p == n) {
                    Some((_, s)) => println!("  {n:>3} tasks: {:.1}", s.score * 100.0),
                    None => println!("  {n:>3} tasks: no run finished"),
                }
            }
        }
    }
}
