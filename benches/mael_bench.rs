//! MAEL's figures, natively (release): top-1 retrieval over a 50,000-entry
//! × 384-dim pool (the same query the browser benchmark times in
//! Chromium, `tests/retrieval_wasm.rs`); the wall time of a step whose 4
//! sibling subtasks go to 4 agents when every LLM call takes 300 ms (a
//! real timer), concurrent against one at a time (the run's concurrency
//! limit 4 vs 1), for a team whose sub-solutions all pass their first
//! critique and for the demo team (which refines one: a longer critical
//! path); and a learning phase with the demo
//! model on the built-in training set, in tasks per second. Prints medians.
//! Run with `make bench`.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::run();
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
#[path = "support/slow.rs"]
mod slow;

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::slow::Slow;
    use futures::executor::block_on;
    use roundtable::engine::base::clock::{Clock, SystemClock};
    use roundtable::engine::coordinators::every_script;
    use roundtable::engine::coordinators::mael::contract::{
        MaelOptions, Mode, Scoring, STORE_DECOMPOSITION,
    };
    use roundtable::engine::coordinators::mael::experience::bench_pool;
    use roundtable::engine::coordinators::mael::learn::{learning_jobs, Tag};
    use roundtable::engine::coordinators::mael::memory::Memory;
    use roundtable::engine::coordinators::mael::topology::{Preset, Team};
    use roundtable::engine::coordinators::mael::{self, setup::configure};
    use roundtable::engine::domains::tasks::builtin::{parse_items, tasks, Split, ANSWER_LINE};
    use roundtable::engine::domains::tasks::{Dataset, Gold, Task};
    use roundtable::engine::model::demo::DemoModel;
    use roundtable::engine::model::pricing::PriceTable;
    use roundtable::engine::model::scripted::ScriptedModel;
    use roundtable::engine::model::{ChatModel, ChatResponse};
    use roundtable::engine::run::batch::{self, Batch, Controls, Host, Job};
    use roundtable::engine::run::budget::SpendCap;
    use roundtable::engine::run::{execute, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent};
    use std::rc::Rc;
    use std::time::Instant;

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    }

    fn retrieval() {
        const N: usize = 50_000;
        const DIMS: usize = 384;
        let (pool, queries) = bench_pool(N, DIMS, 51);
        let scoring = Scoring::default();
        let mut times = Vec::new();
        let mut checksum = 0usize;
        for q in &queries {
            let t = Instant::now();
            let hits = pool.rank(q, &scoring, 1, |_| true);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            checksum += hits.first().map_or(0, |h| h.index);
        }
        println!(
            "MAEL retrieval: top-1 over {N} entries × {DIMS} dims, native: median {:.2} ms over {} queries (checksum {checksum})",
            median(times),
            queries.len()
        );
    }

    /// A team whose every sub-solution passes its first critique: each
    /// sibling makes the same calls (solve, critique), so the step's
    /// critical path is one sibling's.
    fn steady() -> Rc<dyn ChatModel> {
        let text = |t: &str| ChatResponse {
            text: t.into(),
            ..ChatResponse::default()
        };
        Rc::new(ScriptedModel::new("steady").otherwise(move |req| {
            match req.step.as_deref().unwrap_or_default() {
                "mael.judge" => text(r#"{"solvable": false, "reason": "four lines"}"#),
                "mael.decompose" => {
                    let task = req
                        .messages
                        .last()
                        .map(|m| m.content.clone())
                        .unwrap_or_default();
                    let lines: Vec<&str> = task
                        .lines()
                        .filter(|l| l.starts_with("- ") && l.contains('$'))
                        .collect();
                    text(&serde_json::json!({ "subtasks": lines }).to_string())
                }
                "mael.critique" => text(r#"{"adequate": true, "feedback": ""}"#),
                _ => text("Answer: 1"),
            }
        }))
    }

    /// Milliseconds from the root's decomposition to the aggregate request
    /// (the 4 subtasks solved, critiqued and refined), with `model` behind
    /// 300 ms per call, and the subtasks made.
    fn siblings_ms(concurrency: u32, task: &Task, model: Rc<dyn ChatModel>) -> (f64, usize) {
        let clock: Rc<dyn Clock> = Rc::new(SystemClock::default());
        let model = Rc::new(Slow {
            inner: model,
            clock: clock.clone(),
            ms: 300,
        });
        let mut config = RunConfig::new(mael::ID, "", ModelSpec::demo());
        configure(&mut config, task.clone(), Mode::None);
        let mut options: MaelOptions =
            serde_json::from_value(config.options.clone()).expect("options");
        options.team = Team::preset(Preset::Star, 5);
        options.learn = false;
        config.options = serde_json::to_value(&options).expect("json");
        config.max_concurrency = concurrency;
        let ctx = RunCtx::new(config, ModelRouter::single(model), clock);
        block_on(execute(&ctx, mael::entry));
        let events = ctx.events();
        let split = events.iter().find_map(|e| match &e.event {
            RunEvent::NoteWritten { store, payload, .. } if store == STORE_DECOMPOSITION => {
                Some((e.t_ms, payload["subtasks"].as_array().map_or(0, Vec::len)))
            }
            _ => None,
        });
        let aggregate = events.iter().find_map(|e| match &e.event {
            RunEvent::LlmRequest { request, .. }
                if request.step.as_deref() == Some("mael.aggregate") =>
            {
                Some(e.t_ms)
            }
            _ => None,
        });
        match (split, aggregate) {
            (Some((a, n)), Some(b)) => (b as f64 - a as f64, n),
            _ => panic!("the run did not split and aggregate"),
        }
    }

    fn parallel() {
        // An order of four lines (the built-in ones have two or three): the
        // root splits it into four subtasks, one per leaf of a 5-star.
        let mut lines: Vec<String> = Vec::new();
        for t in tasks(Split::Test) {
            for l in t.prompt.lines().filter(|l| l.starts_with("- ")) {
                if lines.len() < 4 && !lines.iter().any(|x| x == l) {
                    lines.push(l.to_string());
                }
            }
        }
        let prompt = format!(
            "Find the total cost of this order:\n{}\n{ANSWER_LINE}",
            lines.join("\n")
        );
        let task = Task {
            dataset: Dataset::Builtin,
            id: "bench:4".into(),
            gold: Gold::Number(parse_items(&prompt).iter().map(|i| i.cost()).sum()),
            prompt,
        };
        let demo = || -> Rc<dyn ChatModel> {
            Rc::new(DemoModel::instant(
                Rc::new(SystemClock::default()),
                every_script,
            ))
        };
        for (label, model) in [
            (
                "every sub-solution adequate",
                steady as fn() -> Rc<dyn ChatModel>,
            ),
            ("the demo team (one refined)", demo),
        ] {
            let (seq, n) = siblings_ms(1, &task, model());
            let (par, n2) = siblings_ms(4, &task, model());
            assert_eq!((n, n2), (4, 4), "four siblings");
            println!(
                "MAEL siblings, {label}: 4 subtasks on 4 agents, 300 ms per LLM call: concurrent {:.0} ms, one at a time {:.0} ms, ratio {:.2}",
                par,
                seq,
                par / seq
            );
        }
    }

    /// The demo model on every run, the one pool they learn into.
    struct Learning {
        model: Rc<dyn ChatModel>,
        memory: Rc<Memory>,
        clock: Rc<dyn Clock>,
    }

    impl Host<Tag> for Learning {
        fn context(&self, job: &Job<Tag>, controls: &Controls) -> Result<RunCtx, String> {
            let ctx = controls.one_model(&job.config, self.model.clone(), self.clock.clone());
            ctx.insert_resource(self.memory.clone());
            Ok(ctx)
        }
    }

    fn learning() {
        let clock: Rc<dyn Clock> = Rc::new(SystemClock::default());
        let host = Learning {
            model: Rc::new(DemoModel::instant(clock.clone(), every_script)),
            memory: Rc::new(Memory::lexical("bench")),
            clock,
        };
        let train = tasks(Split::Train);
        let mut base = RunConfig::new(mael::ID, "", ModelSpec::demo());
        base.run_id = "bench".into();
        let jobs = learning_jobs(&base, &train, Mode::None, |t| {
            MaelOptions::for_task(t.clone())
        });
        let mut b = Batch::new(jobs, 1);
        b.halt_lane_on_failure = true;
        let controls = Controls::new(SpendCap::default(), PriceTable::default());
        let t = Instant::now();
        let report = block_on(batch::run(b, &controls, &host));
        let done = report.progress.finished;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "MAEL learning phase, demo model: {done} built-in tasks in {:.2} s = {:.0} tasks/s ({} experiences)",
            secs,
            done as f64 / secs,
            host.memory.pool.borrow().len()
        );
    }

    pub fn run() {
        retrieval();
        parallel();
        learning();
    }
}
