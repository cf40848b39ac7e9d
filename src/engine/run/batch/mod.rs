//! The batch runner: many runs, each an ordinary run (own context and
//! log), for every "many runs" job of the app and the CLI (the travel
//! planner's variants × queries, ACT's variants × trials, MAEL's learning
//! phase and evaluation). A paper brings only its jobs and the fold from
//! finished runs to its table; this runner owns the rest:
//!
//! - **lanes**: jobs in the same lane run one after another in list order
//!   (ACT+'s knowledge bank, a pool being learned), each waiting for the
//!   host's `ended` of the one before; other jobs run concurrently, at
//!   most `concurrency` at once;
//! - **controls**: pause / resume / stop and the batch's spend and token
//!   caps ([`Controls`]); a stop or a cap starts no job after it;
//! - **progress**: done / running / failed / left and cost so far;
//! - **resume**: a job whose run is already recorded as finished is not
//!   run again;
//! - each finished run handed to the host, and all of them returned in
//!   job order.
//!
//! A job that fails (its model, its own cap, a setup error) does not stop
//! the others; with `halt_lane_on_failure` it ends its own lane.

mod controls;
mod progress;
pub mod prompt_sets;
#[cfg(test)]
mod tests;

pub use controls::Controls;
pub use progress::{Ended, Progress};
pub use prompt_sets::{for_prompt_sets, group_name, PromptSets};

use super::event::{FailReason, LoggedEvent, RunEvent};
use super::log::{status_of, RunDoc, RunStatus};
use super::runner::{execute, CoordinatorFn};
use super::{RunConfig, RunCtx};
use crate::engine::model::pricing::PriceTable;
use futures::future::LocalBoxFuture;
use futures::stream::{FuturesUnordered, StreamExt};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The failure kind of a job whose run could not be set up.
pub const SETUP_FAILED: &str = "setup";

/// One run to make.
#[derive(Clone)]
pub struct Job<T> {
    pub config: RunConfig,
    pub coordinator: CoordinatorFn,
    /// Jobs that share a lane run one after another, in list order; `None`
    /// is a lane of its own.
    pub lane: Option<String>,
    /// What the paper's fold needs to know of it (its variant, trial, mode…).
    pub tag: T,
}

impl<T> Job<T> {
    /// Job `i` of a batch of `coordinator`'s runs (`id`, `entry`): `base`'s
    /// config with its coordinator and a run id of its own, in no lane.
    pub fn numbered(
        base: &RunConfig,
        i: usize,
        (id, entry): (&str, CoordinatorFn),
        tag: T,
    ) -> Job<T> {
        let mut config = base.clone();
        config.coordinator = id.into();
        config.run_id = format!("{}-b{i}", base.run_id);
        // Each run its own retry jitter (a paper may seed by its trial).
        config.seed = base.seed.wrapping_add(i as u64);
        Job {
            config,
            coordinator: entry,
            lane: None,
            tag,
        }
    }
}

/// Every `(a, b)` of `outer` × `inner`, `outer` outermost (a paper's
/// variants × its tasks).
pub fn grid<'a, A: Copy, B>(
    outer: &'a [A],
    inner: &'a [B],
) -> impl Iterator<Item = (A, &'a B)> + 'a {
    outer
        .iter()
        .flat_map(move |a| inner.iter().map(move |b| (*a, b)))
}

/// A run of the batch that ended.
#[derive(Clone, Debug)]
pub struct Finished<T> {
    /// Its place in the job list.
    pub job: usize,
    pub tag: T,
    pub status: RunStatus,
    /// Its config as recorded (no secrets).
    pub config: RunConfig,
    pub events: Vec<LoggedEvent>,
    /// Its LLM responses at the batch's prices.
    pub cost_usd: f64,
    /// Taken from what was recorded before (a resumed batch), not run now.
    pub resumed: bool,
}

impl<T> Finished<T> {
    /// Whether it made an LLM call (a stopped run that never did is only
    /// a job that did not start).
    pub fn started(&self) -> bool {
        self.events
            .iter()
            .any(|e| matches!(e.event, RunEvent::LlmRequest { .. }))
    }

    /// Why it failed, as the run said.
    pub fn failure(&self) -> Option<&str> {
        self.events.iter().rev().find_map(|e| match &e.event {
            RunEvent::RunFailed { reason } => Some(reason.message.as_str()),
            _ => None,
        })
    }

    /// Whether its run could not be set up (no context was made for it).
    pub fn not_set_up(&self) -> bool {
        self.events.iter().any(
            |e| matches!(&e.event, RunEvent::RunFailed { reason } if reason.kind == SETUP_FAILED),
        )
    }

    pub fn doc(&self) -> RunDoc {
        RunDoc::new(self.config.clone(), self.events.clone())
    }
}

/// What the caller of a batch provides: each run's context (models,
/// resources, recording, observers) and what happens when a run ends.
pub trait Host<T> {
    /// The context of `job`'s run, made with `controls.context(…)` so that
    /// the batch's gate, stop token and budget hold for it. An error ends
    /// the job as failed, with the message.
    fn context(&self, job: &Job<T>, controls: &Controls) -> Result<RunCtx, String>;

    /// A run ended (also a resumed one, `run.resumed`); awaited before the
    /// next job of its lane starts (save a pool or a bank here).
    fn ended<'a>(&'a self, run: &'a Finished<T>) -> LocalBoxFuture<'a, ()> {
        let _ = run;
        Box::pin(async {})
    }
}

/// A batch to run.
pub struct Batch<T> {
    pub jobs: Vec<Job<T>>,
    /// Runs at once (at least 1).
    pub concurrency: usize,
    /// A job that does not finish ends its lane: its later jobs are skipped.
    pub halt_lane_on_failure: bool,
    /// Logs recorded earlier, by job: a finished one is taken as the job's
    /// run (resume); any other is run again.
    pub recorded: BTreeMap<usize, Vec<LoggedEvent>>,
}

impl<T> Batch<T> {
    pub fn new(jobs: Vec<Job<T>>, concurrency: usize) -> Batch<T> {
        Batch {
            jobs,
            concurrency,
            halt_lane_on_failure: false,
            recorded: BTreeMap::new(),
        }
    }
}

/// What a batch made: every run that ended, in job order (jobs that did
/// not run are not listed), and how it ended.
pub struct Report<T> {
    pub runs: Vec<Finished<T>>,
    pub progress: Progress,
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    Waiting,
    Running,
    Done,
    Skipped,
}

/// Runs `batch` under `controls`, with `host` making each run's context.
pub async fn run<T: Clone>(batch: Batch<T>, controls: &Controls, host: &impl Host<T>) -> Report<T> {
    let Batch {
        jobs,
        concurrency,
        halt_lane_on_failure,
        mut recorded,
    } = batch;
    let n = jobs.len();
    let mut state = vec![State::Waiting; n];
    let mut runs: BTreeMap<usize, Finished<T>> = BTreeMap::new();
    controls.changed(|p| {
        *p = Progress {
            total: n,
            paused: p.paused,
            stopping: p.stopping,
            ..Progress::default()
        }
    });
    resume_recorded(&jobs, &mut recorded, &mut state, &mut runs, controls, host).await;
    // A job without a lane is a lane of its own.
    let lanes: Vec<String> = (jobs.iter().enumerate())
        .map(|(i, j)| j.lane.clone().unwrap_or_else(|| format!("#{i}")))
        .collect();
    let halted = || controls.is_stopped() || controls.capped().is_some();
    let mut busy: HashSet<&str> = HashSet::new();
    let mut under_way: FuturesUnordered<LocalBoxFuture<'_, Finished<T>>> = FuturesUnordered::new();
    loop {
        while !halted() && under_way.len() < concurrency.max(1) {
            let Some(i) =
                (0..n).find(|&i| state[i] == State::Waiting && !busy.contains(&*lanes[i]))
            else {
                break;
            };
            state[i] = State::Running;
            busy.insert(&lanes[i]);
            controls.changed(|p| p.running += 1);
            under_way.push(start(i, &jobs[i], controls, host));
        }
        let Some(done) = under_way.next().await else {
            break;
        };
        let i = done.job;
        state[i] = State::Done;
        busy.remove(&*lanes[i]);
        let status = done.status;
        let lane_halts = halt_lane_on_failure && status != RunStatus::Finished;
        let skipped = if lane_halts {
            skip_rest_of_lane(&jobs, &mut state, i)
        } else {
            0
        };
        let never_started = status == RunStatus::Cancelled && !done.started();
        count_ended(controls, status, never_started, skipped);
        if !never_started {
            runs.insert(i, done);
        }
    }
    end_batch(controls, &state);
    Report {
        runs: runs.into_values().collect(),
        progress: controls.progress(),
    }
}

/// Takes the runs recorded as finished (a resumed batch) as their jobs'
/// runs, each handed to the host. A lane goes on from its first job that
/// did not finish: a later one's record is not taken (it ran on a bank or
/// a pool that did not have the earlier job's work yet), so the lane runs
/// again from there, in order.
async fn resume_recorded<T: Clone>(
    jobs: &[Job<T>],
    recorded: &mut BTreeMap<usize, Vec<LoggedEvent>>,
    state: &mut [State],
    runs: &mut BTreeMap<usize, Finished<T>>,
    controls: &Controls,
    host: &impl Host<T>,
) {
    let mut broken: HashSet<&str> = HashSet::new();
    for (i, job) in jobs.iter().enumerate() {
        let events = recorded
            .remove(&i)
            .filter(|e| status_of(e) == RunStatus::Finished);
        let lane = job.lane.as_deref();
        let Some(events) = events.filter(|_| !lane.is_some_and(|l| broken.contains(l))) else {
            if let Some(l) = lane {
                broken.insert(l);
            }
            continue;
        };
        let done = finished(i, job, events, true, controls);
        host.ended(&done).await;
        controls.changed(|p| {
            p.finished += 1;
            p.resumed += 1;
            p.cost_usd += done.cost_usd;
        });
        state[i] = State::Done;
        runs.insert(i, done);
    }
}

/// Job `i` did not finish and ends its lane (when it has one): the lane's
/// later jobs still waiting are skipped. Returns how many.
fn skip_rest_of_lane<T>(jobs: &[Job<T>], state: &mut [State], i: usize) -> usize {
    let mut skipped = 0;
    if jobs[i].lane.is_some() {
        for k in (i + 1..jobs.len()).filter(|&k| jobs[k].lane == jobs[i].lane) {
            if state[k] == State::Waiting {
                state[k] = State::Skipped;
                skipped += 1;
            }
        }
    }
    skipped
}

/// A run ended: counted by how (a stopped run that never made a call is a
/// skipped job), with the jobs its lane skipped.
fn count_ended(controls: &Controls, status: RunStatus, never_started: bool, skipped: usize) {
    controls.changed(|p| {
        p.running -= 1;
        p.skipped += skipped;
        match status {
            RunStatus::Finished => p.finished += 1,
            RunStatus::Failed => p.failed += 1,
            _ if never_started => p.skipped += 1,
            _ => p.stopped += 1,
        }
    });
}

/// The batch is over: the jobs never started are skipped, and it ended by
/// a cap, a stop, or having run every job.
fn end_batch(controls: &Controls, state: &[State]) {
    let left = state.iter().filter(|s| **s == State::Waiting).count();
    controls.changed(|p| p.skipped += left);
    let how = match (controls.capped(), controls.is_stopped()) {
        (Some(message), _) => Ended::Capped(message),
        (None, true) => Ended::Stopped,
        (None, false) => Ended::Completed,
    };
    controls.ended(how);
}

/// Starts job `i`: its run, then the host's `ended`.
fn start<'a, T: Clone>(
    i: usize,
    job: &'a Job<T>,
    controls: &'a Controls,
    host: &'a impl Host<T>,
) -> LocalBoxFuture<'a, Finished<T>> {
    Box::pin(async move {
        let events = match host.context(job, controls) {
            Ok(ctx) => {
                count_cost(&ctx, controls);
                execute(&ctx, job.coordinator).await;
                ctx.events()
            }
            Err(message) => not_started(&job.config, message),
        };
        let done = finished(i, job, events, false, controls);
        host.ended(&done).await;
        done
    })
}

/// Prices a run's responses as they come, each at its request's model.
#[derive(Default)]
struct Meter(HashMap<u32, String>);

impl Meter {
    fn cost(&mut self, event: &RunEvent, prices: &PriceTable) -> f64 {
        match event {
            RunEvent::LlmRequest { call, model, .. } => {
                self.0.insert(*call, model.clone());
                0.0
            }
            RunEvent::LlmResponse { call, response, .. } => (self.0.get(call))
                .and_then(|m| prices.cost(m, &response.usage))
                .unwrap_or(0.0),
            _ => 0.0,
        }
    }
}

/// Adds each response's cost to the batch's progress as it arrives.
fn count_cost(ctx: &RunCtx, controls: &Controls) {
    let meter = RefCell::new(Meter::default());
    let c = controls.clone();
    ctx.on_event(move |e| {
        let cost = meter.borrow_mut().cost(&e.event, c.prices());
        if cost > 0.0 {
            c.changed(|p| p.cost_usd += cost);
        }
    });
}

fn finished<T: Clone>(
    i: usize,
    job: &Job<T>,
    events: Vec<LoggedEvent>,
    resumed: bool,
    controls: &Controls,
) -> Finished<T> {
    let config = events
        .iter()
        .find_map(|e| match &e.event {
            RunEvent::RunStarted { config } => Some(config.clone()),
            _ => None,
        })
        .unwrap_or_else(|| job.config.sanitized());
    Finished {
        job: i,
        tag: job.tag.clone(),
        status: status_of(&events),
        config,
        cost_usd: cost_of(&events, controls),
        events,
        resumed,
    }
}

fn cost_of(events: &[LoggedEvent], controls: &Controls) -> f64 {
    let mut meter = Meter::default();
    (events.iter())
        .map(|e| meter.cost(&e.event, controls.prices()))
        .sum()
}

/// The log of a job whose run could not be set up: it started and failed,
/// saying why.
fn not_started(config: &RunConfig, message: String) -> Vec<LoggedEvent> {
    let logged = |seq: u64, event| LoggedEvent {
        seq,
        t_ms: 0,
        event,
    };
    vec![
        logged(
            0,
            RunEvent::RunStarted {
                config: config.sanitized(),
            },
        ),
        logged(
            1,
            RunEvent::RunFailed {
                reason: FailReason {
                    kind: SETUP_FAILED.into(),
                    message,
                    model_error: None,
                },
            },
        ),
    ]
}

/// The runs the tables count: all but those the user stopped (a stopped
/// run is not a failure of its variant).
pub fn scored<'a, T: 'a>(
    runs: impl IntoIterator<Item = &'a Finished<T>>,
) -> impl Iterator<Item = &'a Finished<T>> {
    runs.into_iter()
        .filter(|r| r.status != RunStatus::Cancelled)
}
