//! The batch runner, natively, with a fake clock and test models: lane
//! order, the concurrency bound, failures, stop, caps, pause, resume.

use super::*;
use crate::engine::base::clock::{Clock, FakeClock};
use crate::engine::model::pricing::PriceTable;
use crate::engine::model::{Call, Completion};
use crate::engine::model::{ChatModel, ChatRequest, ChatResponse, Message, ModelError, Usage};
use crate::engine::run::budget::SpendCap;
use crate::engine::run::{ModelRouter, ModelSpec, Outcome, RunError};
use futures::future::LocalBoxFuture;
use std::cell::{Cell, RefCell};
use std::future::{poll_fn, Future};
use std::rc::Rc;
use std::task::Poll;

/// What the runs did, in order: ("start" | "call" | "end" | "saved", job).
#[derive(Default)]
struct Trace {
    steps: RefCell<Vec<(&'static str, usize)>>,
    running: Cell<usize>,
    most: Cell<usize>,
}

impl Trace {
    fn push(&self, what: &'static str, job: usize) {
        self.steps.borrow_mut().push((what, job));
    }
    fn index(&self, what: &str, job: usize) -> usize {
        self.steps
            .borrow()
            .iter()
            .position(|(w, j)| *w == what && *j == job)
            .unwrap_or_else(|| panic!("no {what} of job {job}"))
    }
    fn count(&self, what: &str) -> usize {
        self.steps
            .borrow()
            .iter()
            .filter(|(w, _)| *w == what)
            .count()
    }
}

/// Lets the other futures run: pending once, woken at once.
async fn yield_now() {
    let mut first = true;
    poll_fn(|cx| {
        if first {
            first = false;
            cx.waker().wake_by_ref();
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await
}

/// Answers every call after a few yields with 100 tokens; fails the calls
/// of the job it is told to; can stop the batch at a given call.
struct TestModel {
    job: usize,
    trace: Rc<Trace>,
    fail: bool,
    stop_at_call: Option<(usize, Controls)>,
    calls: Rc<Cell<usize>>,
}

impl ChatModel for TestModel {
    fn name(&self) -> String {
        "m".into()
    }
    fn complete<'a>(&'a self, _call: Call<'a>) -> Completion<'a> {
        Box::pin(async move {
            self.trace.push("call", self.job);
            let n = self.calls.get() + 1;
            self.calls.set(n);
            if let Some((at, c)) = &self.stop_at_call {
                if n == *at {
                    c.stop();
                    self.trace.push("stop", self.job);
                }
            }
            for _ in 0..3 {
                yield_now().await;
            }
            if self.fail {
                return Err(ModelError::BadRequest {
                    status: 400,
                    detail: "no such model".into(),
                });
            }
            Ok(ChatResponse {
                text: "ok".into(),
                usage: Usage::counted(60, 40),
                ..ChatResponse::default()
            })
        })
    }
}

/// A coordinator that makes three calls, one after another.
fn three_calls(ctx: &RunCtx) -> LocalBoxFuture<'_, Result<Outcome, RunError>> {
    Box::pin(async move {
        ctx.add_agent("a", "worker", "Agent");
        for _ in 0..3 {
            let mut req = ChatRequest::new(vec![Message::user("go")]);
            req.params.max_tokens = Some(40);
            ctx.chat("a", req).await?;
        }
        Ok(Outcome::default())
    })
}

struct TestHost {
    trace: Rc<Trace>,
    failing: Vec<usize>,
    stop_at_call: Option<(usize, Controls)>,
    calls: Rc<Cell<usize>>,
}

impl TestHost {
    fn new() -> TestHost {
        TestHost {
            trace: Rc::new(Trace::default()),
            failing: Vec::new(),
            stop_at_call: None,
            calls: Rc::new(Cell::new(0)),
        }
    }
}

impl Host<usize> for TestHost {
    fn context(&self, job: &Job<usize>, controls: &Controls) -> Result<RunCtx, String> {
        if job.tag == 99 {
            return Err("the task set could not be read".into());
        }
        let model = TestModel {
            job: job.tag,
            trace: self.trace.clone(),
            fail: self.failing.contains(&job.tag),
            stop_at_call: self.stop_at_call.clone(),
            calls: self.calls.clone(),
        };
        let ctx = controls.context(
            job.config.clone(),
            ModelRouter::single(Rc::new(model)),
            Rc::new(FakeClock::new()),
        );
        let (trace, tag) = (self.trace.clone(), job.tag);
        ctx.on_event(move |e| match e.event {
            RunEvent::RunStarted { .. } => {
                trace.push("start", tag);
                trace.running.set(trace.running.get() + 1);
                trace.most.set(trace.most.get().max(trace.running.get()));
            }
            RunEvent::RunFinished { .. }
            | RunEvent::RunFailed { .. }
            | RunEvent::RunCancelled { .. } => {
                trace.push("end", tag);
                trace.running.set(trace.running.get() - 1);
            }
            _ => {}
        });
        Ok(ctx)
    }

    fn ended<'a>(&'a self, run: &'a Finished<usize>) -> LocalBoxFuture<'a, ()> {
        Box::pin(async move {
            // Saving takes a while; the lane waits for it.
            yield_now().await;
            yield_now().await;
            self.trace.push("saved", run.tag);
        })
    }
}

fn job(tag: usize, lane: Option<&str>) -> Job<usize> {
    let mut config = RunConfig::new("test", "a task", ModelSpec::demo());
    config.run_id = format!("run-{tag}");
    config.max_concurrency = 1;
    Job {
        config,
        coordinator: three_calls,
        lane: lane.map(str::to_string),
        tag,
    }
}

fn no_cap() -> Controls {
    Controls::new(SpendCap::default(), PriceTable::default())
}

fn go(batch: Batch<usize>, controls: &Controls, host: &TestHost) -> Report<usize> {
    futures::executor::block_on(run(batch, controls, host))
}

#[test]
fn a_lane_runs_in_order_while_other_jobs_run_beside_it() {
    let host = TestHost::new();
    let jobs = vec![
        job(0, Some("bank")),
        job(1, None),
        job(2, Some("bank")),
        job(3, None),
        job(4, Some("bank")),
        job(5, None),
    ];
    let c = no_cap();
    let report = go(Batch::new(jobs, 3), &c, &host);
    let t = &host.trace;
    // The lane: each job starts only after the one before ended and was saved.
    for (a, b) in [(0, 2), (2, 4)] {
        assert!(
            t.index("saved", a) < t.index("start", b),
            "job {b} started before job {a} was saved: {:?}",
            t.steps.borrow()
        );
    }
    // Meanwhile the others ran: job 5 started before the lane's last job ended.
    assert!(
        t.index("start", 5) < t.index("end", 4),
        "{:?}",
        t.steps.borrow()
    );
    assert_eq!(
        report.runs.iter().map(|r| r.job).collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4, 5]
    );
    assert_eq!(report.progress.finished, 6);
    assert_eq!(report.progress.ended, Some(Ended::Completed));
}

#[test]
fn runs_at_once_never_exceed_the_concurrency() {
    for concurrency in [1, 3] {
        let host = TestHost::new();
        let jobs = (0..8).map(|i| job(i, None)).collect();
        let c = no_cap();
        let most = Rc::new(Cell::new(0));
        let m = most.clone();
        c.on_progress(move |p| m.set(m.get().max(p.running)));
        let report = go(Batch::new(jobs, concurrency), &c, &host);
        assert_eq!(host.trace.most.get(), concurrency, "runs at once");
        assert_eq!(most.get(), concurrency, "the progress agrees");
        assert_eq!(report.progress.finished, 8);
        assert_eq!(host.trace.count("call"), 24);
    }
}

#[test]
fn a_failure_does_not_stop_the_others_and_can_end_its_lane() {
    let mut host = TestHost::new();
    host.failing = vec![1];
    let jobs = vec![
        job(0, Some("l")),
        job(1, Some("l")),
        job(2, Some("l")),
        job(3, None),
        job(99, None),
        job(5, None),
    ];
    let c = no_cap();
    let mut batch = Batch::new(jobs.clone(), 2);
    batch.halt_lane_on_failure = true;
    let report = go(batch, &c, &host);
    let status = |j: usize| report.runs.iter().find(|r| r.job == j).map(|r| r.status);
    assert_eq!(status(1), Some(RunStatus::Failed));
    assert_eq!(status(2), None, "the lane ended at its failure");
    assert_eq!(status(3), Some(RunStatus::Finished));
    assert_eq!(status(5), Some(RunStatus::Finished));
    // A job whose run cannot be set up fails with the reason, the rest goes on.
    let setup = report.runs.iter().find(|r| r.job == 4).expect("job 4");
    assert_eq!(setup.status, RunStatus::Failed);
    assert_eq!(setup.failure(), Some("the task set could not be read"));
    let p = &report.progress;
    assert_eq!((p.finished, p.failed, p.skipped, p.left()), (3, 2, 1, 0));
    // Without halting, the lane goes on after the failure.
    let host = TestHost {
        failing: vec![1],
        ..TestHost::new()
    };
    let report = go(Batch::new(jobs, 2), &no_cap(), &host);
    assert_eq!(report.progress.finished, 4);
    assert!(report
        .runs
        .iter()
        .any(|r| r.job == 2 && r.status == RunStatus::Finished));
}

#[test]
fn stop_ends_every_run_before_its_next_call_and_starts_no_job() {
    let c = no_cap();
    let host = TestHost {
        stop_at_call: Some((4, c.clone())),
        ..TestHost::new()
    };
    let jobs = (0..6).map(|i| job(i, None)).collect();
    let report = go(Batch::new(jobs, 2), &c, &host);
    // Two runs at once, three calls each: the 4th call stops the batch;
    // no call is made after it, and the calls in flight are abandoned.
    let steps = host.trace.steps.borrow().clone();
    let stop = steps
        .iter()
        .position(|(w, _)| *w == "stop")
        .expect("stopped");
    assert!(
        !steps[stop..].iter().any(|(w, _)| *w == "call"),
        "a call after the stop: {steps:?}"
    );
    assert_eq!(host.calls.get(), 4);
    let p = &report.progress;
    assert_eq!(p.ended, Some(Ended::Stopped));
    assert_eq!(p.stopped, 2, "the two runs under way ended cancelled");
    assert_eq!(p.skipped, 4, "the others never started");
    assert_eq!(report.runs.len(), 2);
    for r in &report.runs {
        assert_eq!(r.status, RunStatus::Cancelled);
        let count = |f: fn(&RunEvent) -> bool| r.events.iter().filter(|e| f(&e.event)).count();
        let requests = count(|e| matches!(e, RunEvent::LlmRequest { .. }));
        let ended = count(|e| {
            matches!(
                e,
                RunEvent::LlmResponse { .. }
                    | RunEvent::LlmFailed {
                        error: ModelError::Cancelled,
                        ..
                    }
            )
        });
        assert_eq!(requests, ended, "every call answered or abandoned");
    }
    assert_eq!(host.trace.count("start"), 2);
}

#[test]
fn a_cap_ends_the_batch_cleanly() {
    // Each call is estimated at 2 + 40 = 42 tokens and uses 100; a run
    // makes three. 500 tokens: the first runs finish, then a call is refused.
    let c = Controls::new(
        SpendCap {
            usd: None,
            tokens: Some(500),
        },
        PriceTable::default(),
    );
    let host = TestHost::new();
    let jobs = (0..6).map(|i| job(i, None)).collect();
    let report = go(Batch::new(jobs, 1), &c, &host);
    let p = &report.progress;
    let Some(Ended::Capped(message)) = &p.ended else {
        panic!("{:?}", p.ended)
    };
    assert!(
        message.contains("this batch past its token cap of 500"),
        "{message}"
    );
    assert_eq!(p.finished, 1, "{p:?}");
    assert_eq!(p.failed, 1, "the run whose call was refused");
    assert_eq!(p.skipped, 4, "no job started after the cap");
    let capped = report
        .runs
        .iter()
        .find(|r| r.status == RunStatus::Failed)
        .expect("failed");
    assert!(capped.failure().is_some_and(|m| m.contains("token cap")));
    let requests = capped
        .events
        .iter()
        .filter(|e| matches!(e.event, RunEvent::LlmRequest { .. }))
        .count();
    assert_eq!(requests, 2, "the refused call was never sent");
}

#[test]
fn a_paused_batch_makes_no_call_until_it_resumes() {
    let host = TestHost::new();
    let c = no_cap();
    c.pause();
    let jobs = (0..3).map(|i| job(i, None)).collect();
    let fut = run(Batch::new(jobs, 3), &c, &host);
    futures::pin_mut!(fut);
    let waker = futures::task::noop_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    for _ in 0..20 {
        assert!(fut.as_mut().poll(&mut cx).is_pending());
    }
    assert_eq!(host.trace.count("call"), 0, "paused: no call");
    assert_eq!(c.progress().running, 3, "started, waiting at the gate");
    assert!(c.progress().paused);
    c.resume();
    let report = futures::executor::block_on(fut);
    assert_eq!(report.progress.finished, 3);
    assert_eq!(host.trace.count("call"), 9);
}

/// Runs `jobs` with job `failing` failing, then again from what the first
/// batch recorded: both reports and the second batch's host.
fn twice(
    jobs: Vec<Job<usize>>,
    failing: usize,
    concurrency: usize,
) -> (Report<usize>, Report<usize>, TestHost) {
    let host = TestHost {
        failing: vec![failing],
        ..TestHost::new()
    };
    let first = go(Batch::new(jobs.clone(), concurrency), &no_cap(), &host);
    let host = TestHost::new();
    let mut again = Batch::new(jobs, concurrency);
    again.recorded = first
        .runs
        .iter()
        .map(|r| (r.job, r.events.clone()))
        .collect();
    let report = go(again, &no_cap(), &host);
    (first, report, host)
}

#[test]
fn a_resumed_batch_runs_only_what_did_not_finish() {
    let jobs: Vec<Job<usize>> = (0..4).map(|i| job(i, None)).collect();
    let (first, report, host) = twice(jobs, 2, 2);
    assert_eq!(first.progress.failed, 1);
    assert_eq!(
        host.trace.count("start"),
        1,
        "only the failed job ran again"
    );
    host.trace.index("start", 2);
    let p = &report.progress;
    assert_eq!((p.finished, p.resumed, p.failed), (4, 3, 0));
    assert_eq!(report.runs.iter().filter(|r| r.resumed).count(), 3);
    assert_eq!(report.runs.len(), 4);
}

#[test]
fn cost_so_far_counts_every_response_at_the_batchs_prices() {
    let prices = PriceTable {
        prices: vec![crate::engine::model::pricing::Price {
            model: "m".into(),
            input_per_mtok: 1_000_000.0,
            output_per_mtok: 0.0,
        }],
    };
    let c = Controls::new(SpendCap::default(), prices);
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    c.on_progress(move |p| s.borrow_mut().push(p.cost_usd));
    let report = go(
        Batch::new(vec![job(0, None), job(1, None)], 2),
        &c,
        &TestHost::new(),
    );
    // 6 responses × 60 input tokens × $1.
    assert_eq!(report.progress.cost_usd, 360.0);
    assert_eq!(report.runs.iter().map(|r| r.cost_usd).sum::<f64>(), 360.0);
    let steps: Vec<f64> = seen.borrow().iter().copied().filter(|x| *x > 0.0).collect();
    assert!(
        steps.windows(2).all(|w| w[0] <= w[1]) && steps.len() >= 6,
        "{steps:?}"
    );
}

#[test]
fn a_resumed_lane_goes_on_from_its_first_run_that_did_not_finish() {
    // Job 1 failed; job 2 of the same lane had finished after it (on a
    // bank without job 1's work): resuming runs 1 and 2 again, in order.
    let lane = |i| job(i, Some("bank"));
    let jobs: Vec<Job<usize>> = (0..3).map(lane).collect();
    let (first, report, host) = twice(jobs, 1, 1);
    assert_eq!(first.progress.finished, 2);
    assert_eq!(
        host.trace.count("start"),
        2,
        "{:?}",
        host.trace.steps.borrow()
    );
    assert!(host.trace.index("saved", 1) < host.trace.index("start", 2));
    let p = &report.progress;
    assert_eq!((p.finished, p.resumed), (3, 1));
}

#[test]
fn each_job_has_its_own_run_id_and_seed_and_is_dated_when_it_starts() {
    let mut base = RunConfig::new("test", "t", ModelSpec::demo());
    base.run_id = "batch".into();
    base.seed = 7;
    let a = Job::numbered(&base, 0, ("test", three_calls), 0);
    let b = Job::numbered(&base, 1, ("test", three_calls), 1);
    assert_eq!(
        (a.config.run_id.as_str(), b.config.run_id.as_str()),
        ("batch-b0", "batch-b1")
    );
    assert_ne!(a.config.seed, b.config.seed);
    let clock = FakeClock::new();
    futures::executor::block_on(clock.sleep(5_000));
    let ctx = no_cap().context(a.config, ModelRouter::default(), Rc::new(clock.clone()));
    assert_eq!(ctx.config().created_ms, clock.epoch_ms());
}
