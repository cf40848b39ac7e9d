//! Batch runs of the travel planner: every variant × query runs once, at
//! most `concurrency` at a time; one shared gate pauses them all before
//! their next LLM call and resumes them; one shared cancel token stops the
//! batch; the finished runs fold into the paper's table.

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::travel::batch::{jobs, run_batch, BatchJob, BatchRun};
use roundtable::engine::coordinators::travel::contract::{ToolMode, Variant, ID};
use roundtable::engine::coordinators::travel::report::comparison::{batch_groups, BatchEntry};
use roundtable::engine::coordinators::travel::{options_for, query_values};
use roundtable::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::run::clock::FakeClock;
use roundtable::engine::run::gate::Gate;
use roundtable::engine::run::{
    CancelToken, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus,
};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

struct Probe {
    running: Cell<usize>,
    max_running: Cell<usize>,
    responses: Cell<usize>,
}

fn batch_jobs(n: usize, variants: &[Variant]) -> Vec<BatchJob> {
    let queries = query_values(BUILTIN_QUERIES_JSONL, "builtin").expect("queries");
    jobs(variants, &queries[..n])
}

/// Runs `all` on a local pool with a shared gate and cancel token; returns
/// the finished runs (shared, so a test can look while the pool stalls).
fn spawn_batch(
    pool: &LocalPool,
    all: Vec<BatchJob>,
    concurrency: usize,
    gate: Gate,
    cancel: CancelToken,
    probe: Rc<Probe>,
    stop_after: Option<usize>,
) -> Rc<RefCell<Vec<BatchRun>>> {
    let done: Rc<RefCell<Vec<BatchRun>>> = Rc::default();
    let out = done.clone();
    let model = Rc::new(DemoModel::instant(Rc::new(FakeClock::new()), every_script));
    pool.spawner()
        .spawn_local(async move {
            let make_ctx = |i: usize, job: &BatchJob| {
                let mut config = RunConfig::new(ID, &job.query.query, ModelSpec::demo());
                config.run_id = format!("b{i}");
                config.variant = Some(job.variant.id().into());
                config.options = serde_json::to_value(options_for(
                    job.value.clone(),
                    "builtin",
                    ToolMode::Native,
                ))
                .expect("options");
                let ctx = RunCtx::with_controls(
                    config,
                    ModelRouter::single(model.clone()),
                    Rc::new(FakeClock::new()),
                    gate.clone(),
                    cancel.child(),
                );
                let p = probe.clone();
                ctx.on_event(move |e| match &e.event {
                    RunEvent::RunStarted { .. } => {
                        p.running.set(p.running.get() + 1);
                        p.max_running.set(p.max_running.get().max(p.running.get()));
                    }
                    RunEvent::LlmResponse { .. } => p.responses.set(p.responses.get() + 1),
                    e if e.is_terminal() => p.running.set(p.running.get() - 1),
                    _ => {}
                });
                ctx
            };
            let stop = cancel.clone();
            run_batch(
                &all,
                concurrency,
                roundtable::engine::coordinators::travel::entry,
                make_ctx,
                |r| {
                    out.borrow_mut().push(r);
                    if stop_after == Some(out.borrow().len()) {
                        stop.cancel();
                    }
                },
            )
            .await;
        })
        .expect("spawn");
    done
}

fn probe() -> Rc<Probe> {
    Rc::new(Probe {
        running: Cell::new(0),
        max_running: Cell::new(0),
        responses: Cell::new(0),
    })
}

#[test]
fn every_job_runs_once_within_the_concurrency_limit_and_folds_into_the_table() {
    let mut pool = LocalPool::new();
    let p = probe();
    let all = batch_jobs(3, &[Variant::Solo, Variant::Orchestrator]);
    // Held at the gate, the batch shows how many runs it started at once.
    let gate = Gate::new();
    gate.pause();
    let done = spawn_batch(
        &pool,
        all,
        2,
        gate.clone(),
        CancelToken::new(),
        p.clone(),
        None,
    );
    pool.run_until_stalled();
    assert_eq!(p.running.get(), 2, "two runs started, the other four wait");
    gate.resume();
    pool.run();
    let runs = done.borrow();
    let mut seen: Vec<usize> = runs.iter().map(|r| r.job).collect();
    seen.sort();
    assert_eq!(seen, vec![0, 1, 2, 3, 4, 5], "each job exactly once");
    assert_eq!(p.max_running.get(), 2, "two runs at a time, never more");
    assert!(runs.iter().all(|r| r.status == RunStatus::Finished));
    // The runs fold into the paper's table: one column per variant.
    let entries: Vec<BatchEntry> = runs
        .iter()
        .filter_map(|r| {
            let config = r.events.iter().find_map(|e| match &e.event {
                RunEvent::RunStarted { config } => Some(config.clone()),
                _ => None,
            })?;
            BatchEntry::from_run(&config, &r.events)
        })
        .collect();
    let groups = batch_groups(&entries);
    assert_eq!(groups.len(), 2);
    assert!(groups.iter().all(|g| g.runs == 3));
    assert!(groups.iter().all(|g| g.summary.delivery_rate() == 1.0));
}

#[test]
fn the_shared_gate_pauses_every_run_and_resumes_them() {
    let mut pool = LocalPool::new();
    let p = probe();
    let gate = Gate::new();
    gate.pause();
    let all = batch_jobs(2, &[Variant::Orchestrator]);
    let done = spawn_batch(
        &pool,
        all,
        2,
        gate.clone(),
        CancelToken::new(),
        p.clone(),
        None,
    );
    pool.run_until_stalled();
    assert_eq!(p.running.get(), 2, "both runs started");
    assert_eq!(p.responses.get(), 0, "no LLM call passes a paused gate");
    assert_eq!(gate.waiting(), 2, "each run waits at the gate");
    gate.step();
    pool.run_until_stalled();
    assert_eq!(p.responses.get(), 1, "a step lets exactly one call through");
    gate.resume();
    pool.run();
    assert_eq!(done.borrow().len(), 2);
    assert!(done
        .borrow()
        .iter()
        .all(|r| r.status == RunStatus::Finished));
}

#[test]
fn the_shared_cancel_token_stops_the_batch() {
    let mut pool = LocalPool::new();
    let p = probe();
    let all = batch_jobs(4, &[Variant::Solo, Variant::Orchestrator]);
    let done = spawn_batch(
        &pool,
        all,
        1,
        Gate::new(),
        CancelToken::new(),
        p.clone(),
        Some(1),
    );
    pool.run();
    let runs = done.borrow();
    assert_eq!(runs.len(), 8, "every job reports back, stopped or not");
    assert_eq!(runs[0].status, RunStatus::Finished);
    assert!(
        runs[1..].iter().all(|r| r.status == RunStatus::Cancelled),
        "every run after the stop is cancelled: {:?}",
        runs.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    let calls = runs[1..]
        .iter()
        .flat_map(|r| &r.events)
        .filter(|e| matches!(e.event, RunEvent::LlmRequest { .. }))
        .count();
    assert_eq!(calls, 0, "no LLM call after the stop");
}
