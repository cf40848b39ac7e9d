//! ACT's batch through the engine's runner, as the ACT page and
//! `act-batch` run it: the jobs (variants × trials, ACT+'s trials one lane
//! in trial order) and the table, which does not depend on how many runs
//! were at once; and the CLI's `--concurrency`, `--out-dir` and `--resume`.

use super::cli::roundtable;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::act::batch::{jobs, table, Tag, PLUS_LANE};
use roundtable::engine::coordinators::act::contract::{ActOptions, Variant, ID};
use roundtable::engine::coordinators::act::plus::{Bank, BankData};
use roundtable::engine::coordinators::act::{self};
use roundtable::engine::domains::creative::builtin;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::embed::LexicalEmbedder;
use roundtable::engine::model::pricing::PriceTable;
use roundtable::engine::run::batch::{self, Batch, Controls, Host, Job, Report};
use roundtable::engine::run::budget::SpendCap;
use roundtable::engine::run::{ModelSpec, RunConfig, RunCtx, RunStatus};
use std::cell::RefCell;
use std::rc::Rc;

struct Demo {
    bank: Rc<Bank>,
    /// ACT+ trials in the order they started.
    plus_started: RefCell<Vec<u32>>,
}

impl Host<Tag> for Demo {
    fn context(&self, job: &Job<Tag>, controls: &Controls) -> Result<RunCtx, String> {
        let model = Rc::new(DemoModel::instant(
            Rc::new(FakeClock::new()),
            act::demo::answer,
        ));
        let ctx = controls.one_model(&job.config, model, Rc::new(FakeClock::new()));
        if job.tag.variant == Variant::ActPlus {
            ctx.insert_resource(self.bank.clone());
            self.plus_started.borrow_mut().push(job.tag.trial);
        }
        Ok(ctx)
    }
}

fn plan(variants: &[Variant], trials: u32) -> Vec<Job<Tag>> {
    let tasks: Vec<_> = (0..trials)
        .map(|t| (t, builtin::task(t, None, 4)))
        .collect();
    let base = RunConfig::new(ID, "", ModelSpec::demo());
    jobs(&base, variants, &tasks, |v, task| {
        let mut o = ActOptions::for_task(task.clone());
        o.bank = (v == Variant::ActPlus).then(|| "b".to_string());
        o
    })
}

fn go(jobs: Vec<Job<Tag>>, concurrency: usize) -> (Report<Tag>, Vec<u32>, usize) {
    let host = Demo {
        bank: Rc::new(Bank {
            data: RefCell::new(BankData::empty("b")),
            embedder: Rc::new(LexicalEmbedder),
        }),
        plus_started: RefCell::new(Vec::new()),
    };
    let controls = Controls::new(SpendCap::default(), PriceTable::default());
    let report =
        futures::executor::block_on(batch::run(Batch::new(jobs, concurrency), &controls, &host));
    let trials = host.bank.data.borrow().trials;
    (report, host.plus_started.into_inner(), trials as usize)
}

#[test]
fn jobs_are_variants_times_trials_with_act_plus_in_one_lane() {
    let all = plan(&[Variant::Act, Variant::ActPlus, Variant::Baseline], 3);
    assert_eq!(all.len(), 9);
    for j in &all {
        assert_eq!(
            j.config.seed,
            u64::from(j.tag.trial),
            "the trial seeds the leader"
        );
        let lane = j.lane.as_deref();
        assert_eq!(lane == Some(PLUS_LANE), j.tag.variant == Variant::ActPlus);
    }
}

#[test]
fn the_table_is_the_same_one_run_at_a_time_or_four_and_act_plus_keeps_its_order() {
    let variants = [Variant::Act, Variant::ActPlus, Variant::Baseline];
    let (one, order_one, banked_one) = go(plan(&variants, 3), 1);
    let (four, order_four, banked_four) = go(plan(&variants, 3), 4);
    assert!(four.runs.iter().all(|r| r.status == RunStatus::Finished));
    assert_eq!(order_four, vec![0, 1, 2], "ACT+ trials in trial order");
    assert_eq!(order_one, order_four);
    assert_eq!(
        (banked_one, banked_four),
        (3, 3),
        "each ACT+ trial added to the bank"
    );
    let (a, b) = (table(&one.runs), table(&four.runs));
    assert_eq!(
        serde_json::to_value(&a).expect("json"),
        serde_json::to_value(&b).expect("json"),
        "the same table whatever the concurrency"
    );
    assert_eq!(
        a.rows
            .iter()
            .map(|r| r.variant.as_str())
            .collect::<Vec<_>>(),
        ["act", "act-plus", "baseline"]
    );
}

#[test]
fn act_batch_prints_the_same_table_at_any_concurrency_and_resumes_from_its_files() {
    let args = [
        "act-batch",
        "--variants",
        "act,baseline",
        "--trials",
        "2",
        "--json",
    ];
    // The table printed, and what the batch said on stderr.
    let batch = |extra: &[&str]| {
        let mut a: Vec<&str> = args.to_vec();
        a.extend_from_slice(extra);
        let (code, out, err) = roundtable(&a);
        assert_eq!(code, 0, "{err}");
        let table = serde_json::from_str::<serde_json::Value>(&out).expect("json");
        (table, err)
    };
    let table = |extra: &[&str]| batch(extra).0;
    let one = table(&["--concurrency", "1"]);
    let rows = one["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["variant"], "act");
    assert_eq!(rows[0]["runs"], 2);
    assert!(rows[0]["rouge_l"].as_f64().is_some());
    let shares = one["shares"][0][1].as_array().expect("shares");
    let total: f64 = shares.iter().filter_map(|s| s["share"].as_f64()).sum();
    assert!((total - 100.0).abs() < 1e-6, "{total}");
    // Four at once give the same table; --out-dir writes each run, and
    // --resume takes them and runs nothing.
    let dir = std::env::temp_dir().join(format!("roundtable-act-batch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_string_lossy().to_string();
    assert_eq!(table(&["--concurrency", "4", "--out-dir", &d]), one);
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().to_string()))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "act-0.json",
            "act-1.json",
            "baseline-0.json",
            "baseline-1.json"
        ]
    );
    let (again, err) = batch(&["--out-dir", &d, "--resume"]);
    assert_eq!(err.matches("taken from --out-dir").count(), 4, "{err}");
    assert_eq!(again, one);
    let (code, _, err) = roundtable(&["act-batch", "--resume"]);
    assert_eq!(code, 2);
    assert!(err.contains("--resume goes with --out-dir"), "{err}");
    let (code, _, err) = roundtable(&["act-batch", "--trails", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("no option --trails"), "{err}");
}
