//! `roundtable mael-learn`: a learning phase over training tasks, the pool
//! saved after every task (so an interrupted phase resumes where it
//! stopped); `roundtable mael-eval`: test tasks in each mode against a
//! pool, with the paper's figures (score, completion tokens, rounds), and
//! optionally the pool-size sweep.

use crate::cli::args::RunArgs;
use crate::cli::run_cmd::{api_key, model_spec, native_platform};
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::mael::contract::{MaelOptions, Mode};
use roundtable::engine::coordinators::mael::learn::{
    evaluation, first_tasks, learning_phase, pending, summarize, sweep_mode, Finished, ModeSummary,
};
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::coordinators::mael::{self, setup::configure};
use roundtable::engine::domains::tasks::builtin::Split;
use roundtable::engine::domains::tasks::Task;
use roundtable::engine::model::factory::build_model;
use roundtable::engine::model::ChatModel;
use roundtable::engine::run::clock::{Clock, SystemClock};
use roundtable::engine::run::{ModelRouter, RunConfig, RunCtx};
use std::cell::RefCell;
use std::rc::Rc;

struct Setup {
    model: Rc<dyn ChatModel>,
    spec: roundtable::engine::run::ModelSpec,
    clock: Rc<dyn Clock>,
    key: Option<String>,
}

fn setup(a: &RunArgs) -> Result<Setup, String> {
    let spec = model_spec(a)?;
    let key = api_key();
    let clock: Rc<dyn Clock> = Rc::new(SystemClock::default());
    let platform = native_platform(a, clock.clone(), every_script);
    let model = build_model(&spec, key.clone(), &platform)?;
    Ok(Setup {
        model,
        spec,
        clock,
        key,
    })
}

/// A run's context for `task` in `mode` on `memory`.
fn context(
    a: &RunArgs,
    s: &Setup,
    memory: &Rc<Memory>,
    i: usize,
    task: &Task,
    mode: Mode,
    learn: bool,
) -> Result<RunCtx, String> {
    let mut config = RunConfig::new(mael::ID, "", s.spec.clone());
    configure(&mut config, task.clone(), mode);
    let mut options: MaelOptions = super::options(a, task.clone())?;
    options.learn = learn;
    config.options = serde_json::to_value(&options).map_err(|e| e.to_string())?;
    config.created_ms = s.clock.epoch_ms().floor();
    config.run_id = format!("cli-{}-{i}", config.created_ms as u64);
    if let Some(n) = a.concurrency {
        config.max_concurrency = n.max(1);
    }
    let ctx = RunCtx::new(
        config,
        ModelRouter::single(s.model.clone()),
        s.clock.clone(),
    );
    ctx.insert_resource(memory.clone());
    Ok(ctx)
}

pub fn learn(a: RunArgs) -> Result<i32, String> {
    let out = a
        .out
        .clone()
        .ok_or("mael-learn needs --out pool.json (the pool it fills)")?;
    let s = setup(&a)?;
    let embedder = super::embedder(&a, &s.spec, s.key.clone())?;
    let memory = super::memory(Some(&out), embedder)?;
    let n = a.train.unwrap_or(30) as usize;
    let all = super::tasks(&a, Split::Train)?;
    // Resume: tasks already in the pool are not learned again.
    let candidates: Vec<Task> = all.into_iter().take(n).collect();
    let todo = pending(&memory.pool.borrow(), &candidates);
    let done = candidates.len() - todo.len();
    // A learning phase retrieves nothing by default (the pool is being built).
    let mode = match a.mode.as_deref() {
        None => Mode::None,
        Some(m) => {
            Mode::parse(m).ok_or_else(|| format!("unknown --mode \"{m}\": use {}", Mode::ids()))?
        }
    };
    if let Some(t) = todo.first() {
        super::options(&a, t.clone())?;
    }
    let started = s.clock.now_ms();
    let learned = RefCell::new(0usize);
    let failure = RefCell::new(None);
    if !a.quiet {
        eprintln!(
            "learning on {} tasks in mode {} ({} already in the pool)",
            todo.len(),
            mode.id(),
            done
        );
    }
    let make = |i: usize, t: &Task, m: Mode| {
        context(&a, &s, &memory, i, t, m, true).expect("options checked")
    };
    futures::executor::block_on(learning_phase(
        &todo,
        mode,
        mael::entry,
        make,
        |run: Finished| {
            if let Err(e) = super::write_pool(&out, &memory) {
                *failure.borrow_mut() = Some(e);
            }
            let score = run.result.as_ref().map_or(0.0, |r| r.score);
            *learned.borrow_mut() += 1;
            if !a.quiet {
                eprintln!(
                    "[{}/{}] {} score {score:.2}, pool {} experiences",
                    learned.borrow(),
                    todo.len(),
                    run.task_id,
                    memory.pool.borrow().len()
                );
            }
            std::future::ready(())
        },
    ));
    if let Some(e) = failure.into_inner() {
        return Err(e);
    }
    let secs = ((s.clock.now_ms() - started) / 1000.0).max(1e-9);
    let n = learned.into_inner();
    println!(
        "learned {n} tasks in {secs:.2} s ({:.1} tasks/s); {} has {} experiences",
        n as f64 / secs,
        out,
        memory.pool.borrow().len()
    );
    Ok(if n == todo.len() { 0 } else { 1 })
}

fn modes(a: &RunArgs) -> Result<Vec<Mode>, String> {
    a.modes
        .as_deref()
        .unwrap_or("none,task,step")
        .split(',')
        .map(|m| {
            Mode::parse(m.trim())
                .ok_or_else(|| format!("unknown mode \"{m}\": use {}", Mode::ids()))
        })
        .collect()
}

fn evaluate_on(
    a: &RunArgs,
    s: &Setup,
    memory: &Rc<Memory>,
    tasks: &[Task],
    modes: &[Mode],
) -> Vec<ModeSummary> {
    let runs = RefCell::new(Vec::new());
    let make = |i: usize, t: &Task, m: Mode| {
        context(a, s, memory, i, t, m, false).expect("options checked")
    };
    futures::executor::block_on(evaluation(
        tasks,
        modes,
        a.concurrency.unwrap_or(4) as usize,
        mael::entry,
        make,
        |r| {
            if !a.quiet {
                eprintln!(
                    "{} {}: {:.2}",
                    r.mode.id(),
                    r.task_id,
                    r.result.as_ref().map_or(0.0, |x| x.score)
                );
            }
            runs.borrow_mut().push(r);
        },
    ));
    summarize(&runs.into_inner(), modes)
}

pub fn eval(a: RunArgs) -> Result<i32, String> {
    let pool = a
        .pool
        .clone()
        .ok_or("mael-eval needs --pool pool.json (from mael-learn)")?;
    let s = setup(&a)?;
    let embedder = super::embedder(&a, &s.spec, s.key.clone())?;
    let memory = super::memory(Some(&pool), embedder)?;
    let modes = modes(&a)?;
    let tasks: Vec<Task> = super::tasks(&a, Split::Test)?
        .into_iter()
        .take(a.test.unwrap_or(20) as usize)
        .collect();
    if let Some(t) = tasks.first() {
        super::options(&a, t.clone())?;
    }
    let rows = evaluate_on(&a, &s, &memory, &tasks, &modes);
    if a.json {
        for r in &rows {
            println!(
                "{}",
                serde_json::json!({"mode": r.mode.id(), "score": r.score, "completion_tokens": r.completion_tokens, "rounds": r.rounds})
            );
        }
    } else {
        println!(
            "{} test tasks, pool of {} experiences",
            tasks.len(),
            memory.pool.borrow().len()
        );
        println!(
            "{:<28} {:>8} {:>18} {:>8}",
            "mode", "score %", "completion tokens", "rounds"
        );
        for r in &rows {
            println!(
                "{:<28} {:>8.1} {:>18.0} {:>8.2}",
                r.mode.label(),
                r.score * 100.0,
                r.completion_tokens,
                r.rounds
            );
        }
    }
    if let Some(sizes) = a.sizes.as_deref() {
        let sweep_mode = sweep_mode(&modes);
        if !a.json {
            println!(
                "pool-size sweep ({}): tasks learned → score %",
                sweep_mode.label()
            );
        }
        for n in sizes
            .split(',')
            .filter_map(|x| x.trim().parse::<usize>().ok())
        {
            let sub = first_tasks(&memory.pool.borrow(), n);
            let m = Rc::new(
                Memory::new("sweep", sub, memory.embedder.clone()).map_err(|e| e.user_message())?,
            );
            let rows = evaluate_on(&a, &s, &m, &tasks, &[sweep_mode]);
            let score = rows.first().map_or(0.0, |r| r.score);
            if a.json {
                println!(
                    "{}",
                    serde_json::json!({"pool_tasks": n, "mode": sweep_mode.id(), "score": score})
                );
            } else {
                println!("  {n:>3} tasks: {:.1}", score * 100.0);
            }
        }
    }
    Ok(0)
}
