//! The travel planner's batch: its jobs (every variant × query, variants
//! outermost) run through the engine's batch runner with the demo model,
//! and the finished runs fold into the paper's table: one column per
//! variant, whatever order the runs ended in, with the replies repaired
//! per variant (once per call, stopped runs left out) in the table, the
//! exports and `travel-batch`'s output. (The runner itself — lanes,
//! the concurrency bound, pause, stop, caps, resume — is tested in
//! `engine::run::batch`.)

use super::repaired_log::{calls, done, failed, finished, replies};
use super::run_scan::told;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::travel::batch::{entries, jobs, table, Setup, Tag};
use roundtable::engine::coordinators::travel::contract::{
    ToolMode, Variant, ID, STEP_COMPILER, STEP_CRITIC, STEP_ORCHESTRATOR, STEP_SOLO,
};
use roundtable::engine::coordinators::travel::html::batch_table_html;
use roundtable::engine::coordinators::travel::query_values;
use roundtable::engine::coordinators::travel::report::comparison_export::{
    batch_csv, batch_json, batch_summary_csv,
};
use roundtable::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::pricing::PriceTable;
use roundtable::engine::run::batch::{self, Batch, Controls, Host, Job, Report};
use roundtable::engine::run::budget::SpendCap;
use roundtable::engine::run::{ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus};
use roundtable::engine::views::repairs::RepairCount;
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
    // The demo model's replies need no repair: "0 of" each variant's replies.
    let html = batch_table_html(&entries(&four.runs));
    for g in &groups {
        let n: u32 = (four.runs.iter())
            .filter(|r| r.tag.variant.label() == g.group)
            .map(|r| replies(&r.events))
            .sum();
        assert!(n > 0, "{}", g.group);
        assert_eq!(
            g.repairs,
            RepairCount {
                replies: n,
                repaired: 0,
                unreadable: 0
            }
        );
        assert!(html.contains(&format!("<td>0 of {n}</td>")), "{html}");
    }
}

#[test]
fn the_table_and_exports_count_repaired_replies_per_variant_once_per_call() {
    let jobs = plan(3, &[Variant::Solo, Variant::Orchestrator]);
    let (s, o, x, c) = (STEP_SOLO, STEP_ORCHESTRATOR, STEP_COMPILER, STEP_CRITIC);
    let shape: [(&[&str], &[u32], RunEvent); 6] = [
        // Call 0 repaired twice is one repaired reply.
        (&[s, s, s], &[0, 0, 2], done()),
        // A failed run counts.
        (&[s, s], &[], failed()),
        // A run the user stopped does not.
        (&[s], &[0], RunEvent::RunCancelled { interrupted: None }),
        (&[o, "travel.expert.hotel", x, c], &[3], done()),
        (&[o, x], &[1, 1], done()),
        (&[o, o, x], &[], done()),
    ];
    let runs: Vec<_> = jobs
        .into_iter()
        .zip(shape)
        .enumerate()
        .map(|(i, (job, (steps, repaired, end)))| {
            let mut events = calls(steps, repaired);
            events.push(end);
            finished(i, job.tag, job.config, events)
        })
        .collect();
    let groups = table(&runs);
    let counts: Vec<(usize, String)> = groups.iter().map(|g| (g.runs, g.repairs.label())).collect();
    assert_eq!(
        counts,
        [(2, "2 of 5".to_string()), (3, "2 of 9".to_string())]
    );

    let list = entries(&runs);
    let html = batch_table_html(&list);
    assert!(
        html.contains("Replies repaired</th><td class=\"repaired-count\">2 of 5</td><td class=\"repaired-count\">2 of 9</td></tr>"),
        "{html}"
    );
    // JSON: per group and per run.
    let json = batch_json(&list);
    let pair = |v: &serde_json::Value| (v["replies"].as_u64(), v["repaired"].as_u64());
    let per_group: Vec<_> = json["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(pair)
        .collect();
    assert_eq!(per_group, [(Some(5), Some(2)), (Some(9), Some(2))]);
    let per_run: Vec<_> = json["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(pair)
        .collect();
    assert_eq!(
        per_run,
        [(3, 2), (2, 0), (4, 1), (2, 1), (3, 0)].map(|(a, b)| (Some(a), Some(b)))
    );
    // CSV: a run's replies and repaired ones, and a group's.
    let csv = batch_csv(&list);
    let head: Vec<&str> = csv.lines().next().expect("head").split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).expect(name);
    let (r, k) = (col("replies"), col("repaired"));
    let cells: Vec<(String, String)> = (csv.lines().skip(1))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), head.len(), "{l}");
            (f[r].to_string(), f[k].to_string())
        })
        .collect();
    assert_eq!(
        cells,
        [("3", "2"), ("2", "0"), ("4", "1"), ("2", "1"), ("3", "0")]
            .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    let summary = batch_summary_csv(&list);
    let lines: Vec<&str> = summary.lines().collect();
    assert!(
        lines[0].ends_with(",replies,repaired,unreadable"),
        "{summary}"
    );
    assert!(
        lines[1].ends_with(",5,2,0") && lines[2].ends_with(",9,2,0"),
        "{summary}"
    );
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
        // Replies repaired: the demo's need none.
        assert!(want.repairs.replies > 0);
        assert_eq!(g["replies"], want.repairs.replies, "{}", want.group);
        assert_eq!(g["repaired"], 0, "{}", want.group);
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
    // The column, as wide as the others.
    let line = |start: &str| text.lines().find(|l| l.starts_with(start)).unwrap_or("");
    let row = line("Replies repaired");
    assert!(row.contains(" 0 of "), "{text}");
    assert_eq!(
        row.chars().count(),
        line("Hallucinated entities").chars().count(),
        "{text}"
    );
    let (code, _, err) = cli(&["travel-batch", "--variants", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown variant \"nope\""), "{err}");
}

#[test]
fn a_prompt_set_is_a_variant_the_papers_and_the_edited_side_by_side() {
    const EXTRA: &str = " Prefer the cheapest option that meets every constraint.";
    let defaults = roundtable::engine::coordinators::travel::prompts::of_run(&Default::default())
        .expect("the defaults");
    let name = "travel.orchestrator.system";
    let edited = format!("{}{EXTRA}", defaults.text(name).expect("default"));
    let mut all = plan(2, &[Variant::Solo, Variant::Orchestrator]);
    for j in &mut all {
        // As the page's new_config does with the user's edits.
        j.config.prompts.insert(name.into(), edited.clone());
    }
    let both = batch::for_prompt_sets(all, batch::PromptSets::Both, |_| {});
    assert_eq!(both.len(), 8, "each job twice");
    let report = go(both, 3);
    assert!(report.runs.iter().all(|r| r.status == RunStatus::Finished));
    let groups = table(&report.runs);
    let names: Vec<&str> = groups.iter().map(|g| g.group.as_str()).collect();
    let (solo, orch) = (Variant::Solo.label(), Variant::Orchestrator.label());
    assert_eq!(
        names,
        [
            solo.to_string(),
            format!("{solo} · edited prompts"),
            orch.to_string(),
            format!("{orch} · edited prompts")
        ]
    );
    assert!(groups.iter().all(|g| g.runs == 2), "the same queries each");
    // The edited runs were told the edit; the paper's twins were not.
    for r in report
        .runs
        .iter()
        .filter(|r| r.tag.variant == Variant::Orchestrator)
    {
        assert_eq!(
            told(&r.events, EXTRA),
            !r.config.prompts.is_empty(),
            "{}",
            r.config.run_id
        );
    }
    let csv = batch_summary_csv(&entries(&report.runs));
    assert!(csv.contains(&format!("{orch} · edited prompts")), "{csv}");
}
