//! ACT's batch through the engine's runner, as the ACT page and
//! `act-batch` run it: the jobs (variants × trials, ACT+'s trials one lane
//! in trial order) and the table, which does not depend on how many runs
//! were at once; the replies repaired per variant and per step kind (once
//! per call, stopped runs left out); and the CLI's `--concurrency`,
//! `--out-dir` and `--resume`.

use super::cli::roundtable;
use super::repaired_log::{calls, done, failed, finished, replies};
use super::run_scan::told;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::act::batch::{jobs, table, Tag, PLUS_LANE};
use roundtable::engine::coordinators::act::contract::{
    ActOptions, Variant, ID, STEP_ACQUIRE, STEP_DECOMPOSE, STEP_EXPERTISE, STEP_JUDGE,
};
use roundtable::engine::coordinators::act::html::report::{repairs_html, table_html};
use roundtable::engine::coordinators::act::plus::{Bank, BankData};
use roundtable::engine::coordinators::act::{self};
use roundtable::engine::domains::creative::builtin;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::embed::LexicalEmbedder;
use roundtable::engine::model::pricing::PriceTable;
use roundtable::engine::run::batch::{self, Batch, Controls, Host, Job, Report};
use roundtable::engine::run::budget::SpendCap;
use roundtable::engine::run::{ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus};
use roundtable::engine::views::repairs::RepairCount;
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
fn the_table_counts_repaired_replies_per_variant_and_step_kind_once_per_call() {
    let config = RunConfig::new(ID, "", ModelSpec::demo());
    let run = |job, variant, trial, steps: &[&str], repaired: &[u32], end| {
        let mut events = calls(steps, repaired);
        events.push(end);
        finished(job, Tag { variant, trial }, config.clone(), events)
    };
    let (d, e, a, j) = (STEP_DECOMPOSE, STEP_EXPERTISE, STEP_ACQUIRE, STEP_JUDGE);
    let runs = vec![
        // Call 1 repaired twice is one repaired reply; call 3 once.
        run(0, Variant::Act, 0, &[d, e, e, a, a], &[1, 1, 3], done()),
        // A run that failed counts (an unreadable reply may be why).
        run(1, Variant::Act, 1, &[d, a, a, j], &[2], failed()),
        // A run the user stopped does not.
        run(
            2,
            Variant::Act,
            2,
            &[a],
            &[0],
            RunEvent::RunCancelled { interrupted: None },
        ),
        // No step tag: "other".
        run(3, Variant::Baseline, 0, &[j, ""], &[], done()),
    ];
    let rep = table(&runs);
    let act = &rep.rows[0];
    assert_eq!((act.variant.as_str(), act.runs), ("act", 2));
    assert_eq!(
        act.repairs.total,
        RepairCount {
            replies: 9,
            repaired: 3,
            unreadable: 0
        }
    );
    assert_eq!(act.repairs.label(), "3 of 9");
    assert_eq!(rep.rows[1].repairs.label(), "0 of 2");

    // JSON: the numbers beside the other figures, and per step kind.
    let json = serde_json::to_value(&rep).expect("json");
    let row = &json["rows"][0];
    assert_eq!(
        (row["replies"].clone(), row["repaired"].clone()),
        (9.into(), 3.into())
    );
    assert_eq!(
        row["repaired_by_step"],
        serde_json::json!({
            "act.acquire": {"replies": 4, "repaired": 2, "unreadable": 0},
            "act.decompose": {"replies": 2, "repaired": 0, "unreadable": 0},
            "act.expertise": {"replies": 2, "repaired": 1, "unreadable": 0},
            "act.judge": {"replies": 1, "repaired": 0, "unreadable": 0},
        })
    );
    assert_eq!(
        json["rows"][1]["repaired_by_step"],
        serde_json::json!({
            "act.judge": {"replies": 1, "repaired": 0, "unreadable": 0},
            "other": {"replies": 1, "repaired": 0, "unreadable": 0},
        })
    );

    // Text: the column, aligned; the breakdown, rows step kinds.
    let text = rep.table();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with("    repaired"), "{text}");
    assert!(
        lines[1].starts_with("act ") && lines[1].ends_with(" 3 of 9"),
        "{text}"
    );
    assert!(lines[2].ends_with(" 0 of 2"), "{text}");
    let width = lines[0].chars().count();
    assert!(lines.iter().all(|l| l.chars().count() == width), "{text}");
    assert_eq!(
        rep.repairs_table(),
        [
            "Replies repaired by step kind     act  baseline",
            "act.acquire                    2 of 4         —",
            "act.decompose                  0 of 2         —",
            "act.expertise                  1 of 2         —",
            "act.judge                      0 of 1    0 of 1",
            "other                               —    0 of 1",
            "",
        ]
        .join("\n")
    );
    // CSV: replies, repaired, unreadable last.
    let csv = rep.csv();
    assert!(csv
        .lines()
        .next()
        .is_some_and(|h| h.ends_with(",tokens,replies,repaired,unreadable")));
    assert!(
        csv.lines()
            .any(|l| l.starts_with("act,") && l.ends_with(",9,3,0")),
        "{csv}"
    );
    assert!(
        csv.lines()
            .any(|l| l.starts_with("baseline,") && l.ends_with(",2,0,0")),
        "{csv}"
    );

    // HTML: the column (marked where some reply was repaired), and the
    // breakdown folded away under the table.
    let html = table_html(&rep);
    assert!(
        html.contains("<th scope=\"col\">replies repaired</th>"),
        "{html}"
    );
    assert!(html.contains("<td class=\"num repaired-count\" title=\"replies repaired of replies received, and those that could not be read\">3 of 9</td>"), "{html}");
    assert!(html.contains("<td class=\"num\" title=\"replies repaired of replies received, and those that could not be read\">0 of 2</td>"), "{html}");
    let details = repairs_html(&rep);
    assert!(details.starts_with("<details"), "{details}");
    assert!(details.contains("<summary>Replies repaired by step kind</summary>"));
    assert!(
        details.contains(
            "<th scope=\"col\">ACT</th><th scope=\"col\">Baseline (all five removed)</th>"
        ),
        "{details}"
    );
    assert!(details.contains("<tr><th scope=\"row\"><code>act.acquire</code></th><td class=\"num repaired-count\">2 of 4</td><td class=\"num\">—</td></tr>"), "{details}");
    assert_eq!(
        details.matches("<tr>").count(),
        1 + 5,
        "a head and five step kinds"
    );
}

#[test]
fn a_demo_batch_repairs_no_reply_and_says_0_of_its_replies() {
    let (report, _, _) = go(plan(&[Variant::Act, Variant::Baseline], 2), 2);
    let rep = table(&report.runs);
    let html = table_html(&rep);
    for row in &rep.rows {
        let n: u32 = (report.runs.iter())
            .filter(|r| r.tag.variant.id() == row.variant)
            .map(|r| replies(&r.events))
            .sum();
        assert!(n > 0, "{}", row.variant);
        assert_eq!(row.repairs.label(), format!("0 of {n}"), "{}", row.variant);
        let by_step: u32 = row.repairs.by_step.values().map(|c| c.replies).sum();
        assert_eq!(by_step, n, "every reply has a step kind");
        assert!(row.repairs.by_step.values().all(|c| c.repaired == 0));
        assert!(html.contains(&format!(">0 of {n}</td>")), "{html}");
    }
    assert!(rep
        .repairs_table()
        .starts_with("Replies repaired by step kind"));
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
    // The demo team's replies need no repair: 0 of them, per step kind too.
    for row in rows {
        let replies = row["replies"].as_u64().unwrap_or(0);
        assert!(replies > 0 && row["repaired"] == 0, "{row}");
        let steps = row["repaired_by_step"].as_object().expect("by step");
        let sum: u64 = steps.values().filter_map(|c| c["replies"].as_u64()).sum();
        assert_eq!(sum, replies, "{row}");
        assert!(steps.values().all(|c| c["repaired"] == 0), "{row}");
    }
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

#[test]
fn a_prompt_set_is_a_row_the_papers_and_the_edited_side_by_side() {
    const EXTRA: &str = " Name one risk of your part.";
    let defaults = act::prompts::of_run(&Default::default()).expect("the defaults");
    let name = "act.member.system";
    let edited = format!("{}{EXTRA}", defaults.text(name).expect("default"));
    let mut all = plan(&[Variant::Act, Variant::Baseline], 2);
    for j in &mut all {
        j.config.prompts.insert(name.into(), edited.clone());
    }
    let both = batch::for_prompt_sets(all, batch::PromptSets::Both, |_| {});
    assert_eq!(both.len(), 8);
    let (report, _, _) = go(both, 3);
    assert!(report.runs.iter().all(|r| r.status == RunStatus::Finished));
    let t = table(&report.runs);
    let rows: Vec<&str> = t.rows.iter().map(|r| r.variant.as_str()).collect();
    assert_eq!(
        rows,
        [
            "act",
            "act · edited prompts",
            "baseline",
            "baseline · edited prompts"
        ]
    );
    assert!(t.rows.iter().all(|r| r.runs == 2));
    for r in &report.runs {
        let edited = !r.config.prompts.is_empty();
        assert_eq!(told(&r.events, EXTRA), edited, "{}", r.config.run_id);
    }
    // The page's table names each row as the paper does, with its prompts.
    let html = table_html(&t);
    let label = Variant::Act.label();
    assert!(
        html.contains(&format!(">{label} · edited prompts</th>")),
        "{html}"
    );
    assert!(html.contains(&format!(">{label}</th>")), "{html}");
}

/// A tool task's score is its judge's completion rate: the table's
/// "sub-tasks done" is the mean over the runs that have one, a judgement
/// that could not be read is counted apart (not as 0), and a run's
/// headline is its rate when it has no ROUGE or trivia score.
#[test]
fn the_table_holds_the_sub_tasks_done_and_counts_unread_judgements_apart() {
    use roundtable::engine::coordinators::act::batch::headline;
    use roundtable::engine::coordinators::act::contract::STORE_TOOL_JUDGE;
    let config = RunConfig::new(ID, "", ModelSpec::demo());
    let judged = |job, trial, rate: Option<f64>| {
        let note = RunEvent::NoteWritten {
            agent: "judge".into(),
            store: STORE_TOOL_JUDGE.into(),
            key: None,
            payload: serde_json::json!({"subtasks": [], "rate": rate}),
        };
        let tag = Tag {
            variant: Variant::Act,
            trial,
        };
        finished(job, tag, config.clone(), vec![note, done()])
    };
    let runs = vec![
        judged(0, 0, Some(0.5)),
        judged(1, 1, Some(1.0)),
        judged(2, 2, None),
    ];
    let rep = table(&runs);
    let row = &rep.rows[0];
    assert_eq!(row.runs, 3);
    assert_eq!(row.completion, Some(75.0));
    assert_eq!(row.completion_unmeasured, 1);
    // Line `n` of a table holds `what`.
    let holds = |text: String, n: usize, what: &str| {
        assert!(
            text.lines().nth(n).is_some_and(|l| l.contains(what)),
            "{what} in line {n} of\n{text}"
        );
    };
    holds(rep.table(), 0, "done%");
    holds(rep.table(), 1, " 75.00 ");
    holds(rep.csv(), 1, ",75.0000,1,");
    let html = table_html(&rep);
    assert!(
        html.contains("sub-tasks done %")
            && html.contains("75.00 <span class=\"small muted\">(1 unreadable)</span>"),
        "{html}"
    );
    assert_eq!(headline(&runs[0].events), Some((50.0, "sub-tasks done %")));
    assert_eq!(headline(&runs[2].events), None);
}
