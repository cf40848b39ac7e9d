//! The command line's side of a batch (`travel-batch`, `act-batch`,
//! `mael-learn`, `mael-eval`): the engine's batch runner with the batch's
//! cap, a line on stderr per run that ends, every run written to
//! `--out-dir`, and `--resume` taking the runs already written there.

use super::common::Common;
use super::flags::Flags;
use futures::future::LocalBoxFuture;
use roundtable::engine::model::pricing::PriceTable;
use roundtable::engine::run::batch::{self, Batch, Controls, Ended, Finished, Host, Job, Report};
use roundtable::engine::run::{RunCtx, RunDoc};
use std::collections::BTreeMap;

/// The batch options every batch command takes.
pub struct BatchArgs {
    /// Runs at once.
    pub concurrency: usize,
    pub out_dir: Option<String>,
    pub resume: bool,
}

pub const USAGE: &str = "\
BATCH OPTIONS (travel-batch, act-batch, mael-learn, mael-eval):
  --concurrency N        runs at once (a run's own calls: --parallel-calls)
  --out-dir DIR          write every run's file there as it ends
  --resume               with --out-dir: take the runs already finished there, run the rest";

impl BatchArgs {
    pub fn read(f: &Flags, default_concurrency: usize) -> Result<BatchArgs, String> {
        let a = BatchArgs {
            concurrency: f
                .number::<usize>("concurrency")?
                .unwrap_or(default_concurrency)
                .clamp(1, 64),
            out_dir: f.text("out-dir")?,
            resume: f.switch("resume")?,
        };
        if a.resume && a.out_dir.is_none() {
            return Err("--resume goes with --out-dir DIR (the runs it takes)".into());
        }
        Ok(a)
    }
}

/// What a paper's command brings to the driver besides its host: each
/// run's file name (in `--out-dir`) and its line on stderr.
pub struct Lines<T> {
    pub file: fn(&T) -> String,
    pub describe: fn(&Finished<T>) -> String,
}

struct Cli<'a, T, H> {
    inner: &'a H,
    args: &'a BatchArgs,
    common: &'a Common,
    lines: &'a Lines<T>,
    total: usize,
    ended: std::cell::Cell<usize>,
    error: std::cell::RefCell<Option<String>>,
}

impl<T: Clone, H: Host<T>> Host<T> for Cli<'_, T, H> {
    fn context(&self, job: &Job<T>, controls: &Controls) -> Result<RunCtx, String> {
        self.inner.context(job, controls)
    }

    fn ended<'b>(&'b self, run: &'b Finished<T>) -> LocalBoxFuture<'b, ()> {
        Box::pin(async move {
            self.inner.ended(run).await;
            if let (Some(dir), false) = (&self.args.out_dir, run.resumed) {
                let path = format!("{dir}/{}.json", (self.lines.file)(&run.tag));
                if let Err(e) = super::save::write_whole(&path, &run.doc().to_json_pretty()) {
                    self.error.borrow_mut().get_or_insert(e);
                }
            }
            let n = self.ended.get() + 1;
            self.ended.set(n);
            if !self.common.quiet {
                let how = if run.resumed {
                    " (taken from --out-dir)"
                } else {
                    ""
                };
                eprintln!("[{n}/{}] {}{how}", self.total, (self.lines.describe)(run));
            }
        })
    }
}

/// Runs `jobs` with `host`, at most `args.concurrency` at once, under the
/// batch cap of `common`. The runs already finished in `--out-dir` are
/// taken as they are with `--resume`.
pub fn run<T: Clone, H: Host<T>>(
    jobs: Vec<Job<T>>,
    halt_lane_on_failure: bool,
    args: &BatchArgs,
    common: &Common,
    host: &H,
    lines: &Lines<T>,
) -> Result<Report<T>, String> {
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {dir}: {e}"))?;
    }
    let recorded = match (&args.out_dir, args.resume) {
        (Some(dir), true) => recorded(dir, &jobs, lines),
        _ => BTreeMap::new(),
    };
    let controls = Controls::new(common.cap, PriceTable::default());
    let cli = Cli {
        inner: host,
        args,
        common,
        lines,
        total: jobs.len(),
        ended: std::cell::Cell::new(0),
        error: std::cell::RefCell::new(None),
    };
    let mut b = Batch::new(jobs, args.concurrency);
    b.halt_lane_on_failure = halt_lane_on_failure;
    b.recorded = recorded;
    let (report, signal) = super::interrupt::run_to_end(
        batch::run(b, &controls, &cli),
        || {},
        |signal| {
            eprintln!("\n{signal}: stopping the batch (runs under way end cancelled; every run that finished is kept). Again to quit at once.");
            controls.stop();
        },
    );
    if let Some(e) = cli.error.into_inner() {
        return Err(e);
    }
    if let Some(signal) = signal {
        match &args.out_dir {
            Some(dir) => eprintln!("{signal}: the batch stopped; run the same command with --resume to finish it from {dir}"),
            None => eprintln!("{signal}: the batch stopped (give --out-dir DIR to keep its runs and --resume them)"),
        }
    }
    if !common.quiet {
        if let Some(Ended::Capped(why)) = &report.progress.ended {
            eprintln!("the batch stopped at its cap: {why}");
        }
    }
    Ok(report)
}

/// The runs of `jobs` already in `dir` (any whose file reads).
fn recorded<T>(
    dir: &str,
    jobs: &[Job<T>],
    lines: &Lines<T>,
) -> BTreeMap<usize, Vec<roundtable::engine::run::LoggedEvent>> {
    jobs.iter()
        .enumerate()
        .filter_map(|(i, j)| {
            let path = format!("{dir}/{}.json", (lines.file)(&j.tag));
            let doc = RunDoc::from_json(&std::fs::read_to_string(path).ok()?).ok()?;
            Some((i, doc.events))
        })
        .collect()
}

/// The exit code of a batch: 0 when every job ran and finished, 128 + n
/// when signal n stopped it, else 1.
pub fn exit_code<T>(report: &Report<T>) -> i32 {
    if let Some(signal) = super::interrupt::stopped_by() {
        return super::interrupt::exit_code(signal);
    }
    let p = &report.progress;
    // Every job finished (resumed ones count as finished).
    if p.ended == Some(Ended::Completed) && p.finished == p.total {
        0
    } else {
        1
    }
}
