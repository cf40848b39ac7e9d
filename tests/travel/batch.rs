//! The travel planner's batch: its jobs (every variant × query, variants
//! outermost) run through the engine's batch runner with the demo model,
//! and the finished runs fold into the paper's table: one column per
//! variant, whatever order the runs ended in. (The runner itself — lanes,
//! the concurrency bound, pause, stop, caps, resume — is tested in
//! `engine::run::batch`.)

use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::travel::batch::{entries, jobs, table, Setup, Tag};
use roundtable::engine::coordinators::travel::contract::{ToolMode, Variant, ID};
use roundtable::engine::coordinators::travel::query_values;
use roundtable::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::pricing::PriceTable;
use roundtable::engine::run::batch::{self, Batch, Controls, Host, Job, Report};
use roundtable::engine::run::budget::SpendCap;
use roundtable::engine::run::{ModelSpec, RunConfig, RunCtx, RunStatus};
use std::rc::Rc;

struct Demo;

impl Host<Tag> for Demo {
    fn context(&self, job: &Job<Tag>, controls: &Controls) -> Result<RunCtx, String> {
        let model = Rc::new(DemoModel::instant(Rc::new(FakeClock::new()), every_script));
        Ok(controls.one_model(&job.config, model, Rc::new(FakeClock::new())))
    }
}

fn plan(n: usize, variants: &[Variant]) -> Vec<Job<Tag>> {
    let queries = query_values(BUILTIN_QUERIES_JSONL, "builtin").expect("queries");
    let base = RunConfig::new(ID, "", ModelSpec::demo());
    let setup = Setup {
        db: "builtin".into(),
        tool_mode: ToolMode::Native,
        max_steps: None,
    };
    jobs(&base, variants, &queries[..n], &setup)
}

fn go(jobs: Vec<Job<Tag>>, concurrency: usize) -> Report<Tag> {
    let controls = Controls::new(SpendCap::default(), PriceTable::default());
    futures::executor::block_on(batch::run(Batch::new(jobs, concurrency), &controls, &Demo))
}

#[test]
fn jobs_are_every_variant_times_every_query_each_an_ordinary_run() {
    let all = plan(3, &[Variant::Solo, Variant::Orchestrator]);
    assert_eq!(all.len(), 6);
    let tags: Vec<(Variant, u32)> = all
        .iter()
        .map(|j| (j.tag.variant, j.tag.query_idx))
        .collect();
    let queries = query_values(BUILTIN_QUERIES_JSONL, "builtin").expect("queries");
    let idx: Vec<u32> = queries[..3].iter().map(|(q, _)| q.idx).collect();
    let mut want = Vec::new();
    for v in [Variant::Solo, Variant::Orchestrator] {
        for i in &idx {
            want.push((v, *i));
        }
    }
    assert_eq!(tags, want, "variants outermost");
    for j in &all {
        assert!(j.lane.is_none(), "travel runs are independent");
        assert_eq!(j.config.variant.as_deref(), Some(j.tag.variant.id()));
        assert!(!j.config.task.is_empty());
    }
    let ids: std::collections::HashSet<&str> =
        all.iter().map(|j| j.config.run_id.as_str()).collect();
    assert_eq!(ids.len(), 6, "a run id each");
}

#[test]
fn the_runs_fold_into_the_papers_table_whatever_the_concurrency() {
    let one = go(plan(3, &[Variant::Solo, Variant::Orchestrator]), 1);
    let four = go(plan(3, &[Variant::Solo, Variant::Orchestrator]), 4);
    assert!(four.runs.iter().all(|r| r.status == RunStatus::Finished));
    let groups = table(&four.runs);
    assert_eq!(
        groups.iter().map(|g| g.group.as_str()).collect::<Vec<_>>(),
        [Variant::Solo.label(), Variant::Orchestrator.label()]
    );
    assert!(groups.iter().all(|g| g.runs == 3));
    assert!(groups.iter().all(|g| g.summary.delivery_rate() == 1.0));
    assert_eq!(
        table(&one.runs),
        groups,
        "the same table, one run at a time or four"
    );
    assert_eq!(entries(&four.runs).len(), 6);
}

#[test]
fn a_batch_stopped_before_any_call_lists_and_scores_no_run() {
    let controls = Controls::new(SpendCap::default(), PriceTable::default());
    controls.pause();
    let all = plan(2, &[Variant::Orchestrator]);
    let fut = batch::run(Batch::new(all, 2), &controls, &Demo);
    futures::pin_mut!(fut);
    let waker = futures::task::noop_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(std::future::Future::poll(fut.as_mut(), &mut cx).is_pending());
    controls.stop();
    let report = futures::executor::block_on(fut);
    // Both had started (each waited at the gate for its first call), neither called.
    assert_eq!(report.progress.skipped, 2, "{:?}", report.progress);
    assert!(report.runs.is_empty());
    assert!(table(&report.runs).is_empty());
}

fn cli(args: &[&str]) -> (i32, String, String) {
    crate::mock::cli(args, None)
}

#[test]
fn travel_batch_prints_the_pages_table_and_writes_and_resumes_its_runs() {
    let path = std::env::temp_dir().join(format!(
        "roundtable-travel-batch-{}.jsonl",
        std::process::id()
    ));
    let two: Vec<String> = BUILTIN_QUERIES_JSONL
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(2)
        .map(str::to_string)
        .collect();
    std::fs::write(&path, two.join("\n")).expect("write");
    let q = path.to_string_lossy().to_string();
    let dir = std::env::temp_dir().join(format!("roundtable-travel-batch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_string_lossy().to_string();
    let batch = |more: &[&str]| {
        let mut args = vec![
            "travel-batch",
            "--variants",
            "single,orchestrator",
            "--queries",
            &q,
            "--json",
            "--out-dir",
            &d,
        ];
        args.extend_from_slice(more);
        cli(&args)
    };
    let (code, out, err) = batch(&[]);
    assert_eq!(code, 0, "{err}");
    let groups: Vec<serde_json::Value> = serde_json::from_str(&out).expect("json");
    let names: Vec<&str> = groups
        .iter()
        .map(|g| g["group"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        [Variant::Solo.label(), Variant::Orchestrator.label()]
    );
    let ids: Vec<&str> = groups
        .iter()
        .map(|g| g["variant"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(ids, ["single", "orchestrator"]);
    // The same figures as the page's fold over the same runs.
    let page = go(plan(2, &[Variant::Solo, Variant::Orchestrator]), 2);
    for (g, want) in groups.iter().zip(table(&page.runs)) {
        assert_eq!(g["runs"], 2);
        assert_eq!(g["summary"], want.summary.to_json(), "{}", want.group);
    }
    assert_eq!(
        err.matches("] single query").count() + err.matches("] orchestrator query").count(),
        4,
        "{err}"
    );
    let files = std::fs::read_dir(&dir).expect("dir").count();
    assert_eq!(files, 4);
    let (code, again, err) = batch(&["--resume"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("taken from --out-dir").count(), 4, "{err}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&again).expect("json"),
        serde_json::from_str::<serde_json::Value>(&out).expect("json")
    );
    let (code, text, _) = cli(&[
        "travel-batch",
        "--variants",
        "single",
        "--queries",
        &q,
        "--quiet",
    ]);
    assert_eq!(code, 0);
    assert!(
        text.contains("Final Pass Rate") && text.contains("Avg revisits"),
        "{text}"
    );
    let (code, _, err) = cli(&["travel-batch", "--variants", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown variant \"nope\""), "{err}");
}
