//! MAEL's batch folds count the replies repaired: per evaluation row (its
//! runs the user did not stop, once per call) in all and per step kind,
//! and a learning phase's; in the table, the breakdown, the CSV and JSON
//! exports. A demo evaluation repairs nothing: "0 of" its replies.

use crate::common::demo;
use crate::repaired_log::{calls, done, failed, finished, replies};
use crate::run_scan::told;
use futures::executor::block_on;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::html::report;
use roundtable::engine::coordinators::mael::learn::{
    evaluation_jobs, groups, learning_repairs, rows, Tag, LEARNING,
};
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::domains::tasks::builtin::{tasks, Split};
use roundtable::engine::model::pricing::PriceTable;
use roundtable::engine::run::batch::{self, Batch, Controls, Finished, Host, Job};
use roundtable::engine::run::budget::SpendCap;
use roundtable::engine::run::{ModelSpec, RunConfig, RunCtx, RunEvent};
use roundtable::engine::views::repairs::RepairCount;
use serde_json::json;
use std::rc::Rc;

/// A result note, so the run counts in its row's figures.
fn result(task_id: &str, mode: Mode) -> RunEvent {
    let record = ResultRecord {
        task_id: task_id.into(),
        dataset: "builtin".into(),
        answer: "7".into(),
        score: 1.0,
        gold: "7".into(),
        rounds: 1,
        steps: 3,
        mode,
        learned: 0,
        parts: Vec::new(),
        scored_by: None,
    };
    RunEvent::NoteWritten {
        agent: "evaluator".into(),
        store: STORE_RESULT.into(),
        key: None,
        payload: serde_json::to_value(record).expect("json"),
    }
}

#[test]
fn rows_count_repaired_replies_per_mode_and_step_kind_once_per_call() {
    let config = RunConfig::new(ID, "", ModelSpec::demo());
    let asked = groups(&[Mode::None, Mode::Step], &[], Scoring::default());
    let tag = |row: &str, mode: Mode, task: &str, pool_tasks: Option<usize>| Tag {
        row: row.into(),
        task_id: task.into(),
        mode,
        scoring: Scoring::default(),
        pool_tasks,
    };
    let (none, step) = (asked[0].label.as_str(), asked[1].label.as_str());
    let (s, c, a, j, e) = (
        STEP_SOLVE,
        STEP_CRITIQUE,
        STEP_AGGREGATE,
        STEP_JUDGE,
        STEP_EVALUATE,
    );
    let with = |steps: &[&str], repaired: &[u32], end: Vec<RunEvent>| {
        let mut events = calls(steps, repaired);
        events.extend(end);
        events
    };
    let ok = |task: &str, mode| vec![result(task, mode), done()];
    let runs: Vec<Finished<Tag>> = [
        // Learning: not an evaluation row.
        (
            tag(LEARNING, Mode::None, "l1", None),
            with(&[s, c], &[1], ok("l1", Mode::None)),
        ),
        // Call 1 repaired twice is one repaired reply.
        (
            tag(none, Mode::None, "t1", None),
            with(&[s, c, c, a], &[1, 1, 2], ok("t1", Mode::None)),
        ),
        // Failed: not in the figures, but its replies count.
        (
            tag(none, Mode::None, "t2", None),
            with(&[s, c], &[1], vec![failed()]),
        ),
        // Stopped by the user: not counted.
        (
            tag(none, Mode::None, "t3", None),
            with(
                &[c],
                &[0],
                vec![RunEvent::RunCancelled { interrupted: None }],
            ),
        ),
        (
            tag(step, Mode::Step, "t1", None),
            with(&[j, s, e], &[], ok("t1", Mode::Step)),
        ),
        // A sweep point: not a row.
        (
            tag("sweep: 0 tasks", Mode::Step, "t1", Some(0)),
            with(&[s], &[0], ok("t1", Mode::Step)),
        ),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (tag, events))| finished(i, tag, config.clone(), events))
    .collect();

    let table = rows(&runs);
    let got: Vec<(&str, usize, String)> = table
        .iter()
        .map(|r| (r.label.as_str(), r.summary.tasks, r.summary.repairs.label()))
        .collect();
    assert_eq!(
        got,
        [
            (none, 1, "3 of 6".to_string()),
            (step, 1, "0 of 3".to_string())
        ]
    );
    let by_step = &table[0].summary.repairs.by_step;
    let count = |replies, repaired| RepairCount {
        replies,
        repaired,
        unreadable: 0,
    };
    assert_eq!(by_step.get(STEP_CRITIQUE), Some(&count(3, 3)));
    assert_eq!(by_step.get(STEP_SOLVE), Some(&count(2, 0)));
    assert_eq!(by_step.get(STEP_AGGREGATE), Some(&count(1, 0)));
    assert_eq!(by_step.len(), 3);
    assert_eq!(learning_repairs(&runs).label(), "1 of 2");

    // A row's JSON (as `mael-eval --json` and the export write it).
    let summary = serde_json::to_value(&table[0].summary).expect("json");
    assert_eq!(
        (summary["replies"].clone(), summary["repaired"].clone()),
        (json!(6), json!(3))
    );
    let exported = report::json(&table, &[], &[]);
    let want = json!({
        "mael.aggregate": {"replies": 1, "repaired": 0, "unreadable": 0},
        "mael.critique": {"replies": 3, "repaired": 3, "unreadable": 0},
        "mael.solve": {"replies": 2, "repaired": 0, "unreadable": 0},
    });
    assert_eq!(summary["repaired_by_step"], want);
    assert_eq!(exported["modes"][0]["repaired_by_step"], want);
    assert_eq!(exported["modes"][0]["replies"], 6);
    assert_eq!(exported["modes"][0]["repaired"], 3);
    assert_eq!(exported["modes"][1]["repaired"], 0);
    let csv = report::csv(&table, &[]);
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].ends_with(",tasks,replies,repaired,unreadable"),
        "{csv}"
    );
    assert!(
        lines[1].ends_with(",1,6,3,0") && lines[2].ends_with(",1,3,0,0"),
        "{csv}"
    );

    // HTML: the column, and the breakdown (rows step kinds, columns rows).
    let html = report::table_html(&table, "accuracy");
    assert!(
        html.contains("<th scope=\"col\">replies repaired</th>"),
        "{html}"
    );
    assert!(html.contains("repaired-count\" title=\"replies repaired of replies received, and those that could not be read\">3 of 6</td>"), "{html}");
    assert!(html.contains("\">0 of 3</td>"), "{html}");
    let details = report::repairs_html(&table);
    assert!(
        details.starts_with("<details")
            && details.contains("<summary>Replies repaired by step kind</summary>")
    );
    assert!(
        details.contains(&format!(
            "<th scope=\"col\">{none}</th><th scope=\"col\">{step}</th>"
        )),
        "{details}"
    );
    assert!(
        details.contains("<code>mael.critique</code></th><td class=\"num repaired-count\">3 of 3</td><td class=\"num\">—</td>"),
        "{details}"
    );
    assert!(
        details.contains(
            "<code>mael.judge</code></th><td class=\"num\">—</td><td class=\"num\">0 of 1</td>"
        ),
        "{details}"
    );
}

struct Demo(Rc<Memory>);

impl Host<Tag> for Demo {
    fn context(&self, job: &Job<Tag>, controls: &Controls) -> Result<RunCtx, String> {
        let ctx = controls.one_model(
            &job.config,
            demo(),
            Rc::new(roundtable::engine::base::clock::FakeClock::new()),
        );
        ctx.insert_resource(self.0.clone());
        Ok(ctx)
    }
}

#[test]
fn a_demo_evaluation_repairs_no_reply_and_says_0_of_its_replies() {
    let base = RunConfig::new(ID, "", ModelSpec::demo());
    let test = &tasks(Split::Test)[..2];
    let asked = groups(&[Mode::None, Mode::Task], &[], Scoring::default());
    let jobs = evaluation_jobs(&base, test, &asked, &[], |t| {
        let mut o = MaelOptions::for_task(t.clone());
        o.learn = false;
        o
    });
    let controls = Controls::new(SpendCap::default(), PriceTable::default());
    let host = Demo(Rc::new(Memory::lexical("eval")));
    let report = block_on(batch::run(Batch::new(jobs, 2), &controls, &host));
    let table = rows(&report.runs);
    assert_eq!(table.len(), 2);
    let html = report::table_html(&table, "accuracy");
    for r in &table {
        let n: u32 = (report.runs.iter())
            .filter(|f| f.tag.row == r.label)
            .map(|f| replies(&f.events))
            .sum();
        assert!(n > 0, "{}", r.label);
        assert_eq!(
            r.summary.repairs.label(),
            format!("0 of {n}"),
            "{}",
            r.label
        );
        assert!(html.contains(&format!(">0 of {n}</td>")), "{html}");
        let steps: u32 = r.summary.repairs.by_step.values().map(|c| c.replies).sum();
        assert_eq!(steps, n);
    }
}

#[test]
fn a_prompt_set_is_a_row_the_papers_and_the_edited_side_by_side() {
    const EXTRA: &str = " Check the units of every number.";
    let defaults = roundtable::engine::coordinators::mael::prompts::of_run(&Default::default())
        .expect("the defaults");
    let name = "mael.solve.system";
    let edited = format!("{}{EXTRA}", defaults.text(name).expect("default"));
    let mut base = RunConfig::new(ID, "", ModelSpec::demo());
    base.prompts.insert(name.into(), edited);
    let test = &tasks(Split::Test)[..2];
    let asked = groups(&[Mode::None], &[], Scoring::default());
    let jobs = evaluation_jobs(&base, test, &asked, &[], |t| {
        let mut o = MaelOptions::for_task(t.clone());
        o.learn = false;
        o
    });
    let jobs = batch::for_prompt_sets(jobs, batch::PromptSets::Both, |_| {});
    assert_eq!(jobs.len(), 4);
    let controls = Controls::new(SpendCap::default(), PriceTable::default());
    let host = Demo(Rc::new(Memory::lexical("eval")));
    let report = block_on(batch::run(Batch::new(jobs, 2), &controls, &host));
    let table = rows(&report.runs);
    let labels: Vec<&str> = table.iter().map(|r| r.label.as_str()).collect();
    let row = &asked[0].label;
    assert_eq!(labels, [row.clone(), format!("{row} · edited prompts")]);
    for r in &report.runs {
        let edited = !r.config.prompts.is_empty();
        assert_eq!(told(&r.events, EXTRA), edited, "{}", r.config.run_id);
    }
}
