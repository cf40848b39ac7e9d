//! MAEL's views over real logs: the call tree, the retrieval inspector, the
//! experiences, the team graph and the pool inspector, hostile text
//! escaped, and the view at every replay position folded without a panic.

use crate::common::*;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::html::{memory, pool, report, team, tree};
use roundtable::engine::coordinators::mael::learn::ModeSummary;
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::coordinators::mael::view::{MaelView, Motion};
use roundtable::engine::domains::tasks::builtin::{tasks, Split};
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::{ChatRequest, ChatResponse};
use roundtable::engine::views::Fold;
use std::rc::Rc;

#[test]
fn the_tree_retrievals_and_experiences_render_from_a_real_log() {
    let memory = Rc::new(Memory::lexical("v"));
    for t in tasks(Split::Train).iter().take(5) {
        run(t, Mode::None, Some(memory.clone()));
    }
    let (_, events) = run(&tasks(Split::Test)[0], Mode::Step, Some(memory.clone()));
    let view = MaelView::of(&events);
    assert_eq!(view.mode, Some(Mode::Step));
    let html = tree::tree_html(&view, &[]);
    for t in &view.tasks {
        assert!(
            html.contains(&format!("data-task=\"{}\"", t.record.id)),
            "{}",
            t.record.id
        );
    }
    assert!(html.contains("Critique, round 1") && html.contains("rated"));
    assert!(html.contains("ml-result"), "the score heads the tree");
    assert!(!view.retrievals.is_empty());
    let tab = memory::experience_tab_html(&view);
    assert!(tab.contains("✓ used") && tab.contains("similarity"));
    assert_eq!(
        tab.matches("<article class=\"ml-retrieval\"").count(),
        view.retrievals.len()
    );
    let a2 = memory::agent_retrievals_html(&view, "a2");
    assert!(a2.contains("Retrieved experience"));
    assert_eq!(
        memory::agent_retrievals_html(&view, "evaluator"),
        "",
        "not a team agent"
    );
    let svg = team::team_svg(&view);
    assert!(svg.contains("ml-crown") && svg.contains("c 1.00"));
    // The backward pass ended on a reward.
    assert!(matches!(view.motion, Some((_, Motion::Reward { .. }))));
    // Every reward is kept in order for the panel to play back, one per
    // stored experience, and each highlights its own agent and step.
    assert_eq!(view.rewards.len(), view.experiences.len());
    let (_, first) = &view.rewards[0];
    let Motion::Reward { agent, step, value } = first else {
        panic!("a reward motion")
    };
    let played = team::team_svg_with(&view, Some(first));
    let node = played
        .split("<g class=\"ml-node")
        .find(|g| g.contains(&format!("data-agent=\"{agent}\"")))
        .expect("the rewarded agent's node");
    assert!(node.contains("ml-reward-pulse") && node.contains(&format!("{step} {value:.2}")));
    assert_eq!(played.matches("ml-reward-pulse").count(), 1);
    // A collapsed task is rendered closed, the others open.
    let root_id = view.tasks[0].record.id.clone();
    let closed = tree::tree_html(&view, std::slice::from_ref(&root_id));
    assert!(closed.contains(&format!(
        "<details class=\"ml-task\" data-task=\"{root_id}\""
    )));
    assert!(html.contains(&format!(
        "<details class=\"ml-task\" open data-task=\"{root_id}\""
    )));
    // Every prefix folds (the replay cursor anywhere).
    for k in 0..events.len() {
        let v = MaelView::of(&events[..k]);
        tree::tree_html(&v, &[]);
        team::team_svg(&v);
        memory::experience_tab_html(&v);
    }
    let p = memory.pool.borrow();
    let summary = pool::summary_html(&p);
    assert!(summary.contains("a1") && summary.contains("solve"));
    let proj = pool::projection_svg(&p, "a2", Some(StepKind::Solve));
    assert!(proj.matches("<circle").count() >= 3);
    let rewards: Vec<f64> = p.entries.iter().map(|e| e.reward).collect();
    assert_eq!(pool::histogram_svg(&rewards).matches("<rect").count(), 10);
}

#[test]
fn model_text_and_names_are_escaped() {
    let hostile = "<img src=x onerror=alert(1)>";
    let model = Rc::new(
        ScriptedModel::new("hostile").otherwise(move |req: &ChatRequest| ChatResponse {
            text: match req.step.as_deref() {
                Some(STEP_JUDGE) => {
                    "{\"solvable\": false, \"reason\": \"<script>x</script>\"}".into()
                }
                Some(STEP_DECOMPOSE) => format!("{{\"subtasks\": [\"{hostile}\", \"b\"]}}"),
                Some(STEP_CRITIQUE) => {
                    format!("{{\"adequate\": false, \"feedback\": \"{hostile}\"}}")
                }
                _ => format!("{hostile} Answer: 3"),
            },
            ..ChatResponse::default()
        }),
    );
    let (_, events) = run_with(&tasks(Split::Test)[0], Mode::None, None, model, |o| {
        o.team.agents[1].name = "<b>Bob</b>".into();
    });
    let view = MaelView::of(&events);
    for html in [
        tree::tree_html(&view, &[]),
        memory::experience_tab_html(&view),
        team::team_svg(&view),
    ] {
        assert!(
            !html.contains("<img") && !html.contains("<script") && !html.contains("<b>Bob"),
            "{html}"
        );
    }
    assert!(tree::tree_html(&view, &[]).contains("&lt;script&gt;"));
}

#[test]
fn reports_render_tables_charts_and_files() {
    let rows: Vec<roundtable::engine::coordinators::mael::learn::Row> =
        [(Mode::None, 0.1), (Mode::Task, 0.8), (Mode::Step, 0.55)]
            .into_iter()
            .map(
                |(mode, score)| roundtable::engine::coordinators::mael::learn::Row {
                    label: roundtable::engine::coordinators::mael::learn::label(mode).into(),
                    summary: ModeSummary {
                        mode,
                        score,
                        completion_tokens: 150.0,
                        rounds: 1.2,
                        tasks: 20,
                        task_ids: Vec::new(),
                        parts: Vec::new(),
                        repairs: Default::default(),
                    },
                },
            )
            .collect();
    let t = report::table_html(&rows, "accuracy");
    assert!(t.contains("<strong>80.0</strong>"), "the best is bold");
    assert_eq!(
        report::bars_svg(&rows, "score", |s| s.score * 100.0, "%", true)
            .matches("<rect")
            .count(),
        3
    );
    let sweep = [(0, 0.1), (10, 0.55), (20, 0.4), (30, 0.6)];
    assert_eq!(
        report::sweep_svg(&sweep, false).matches("<circle").count(),
        4
    );
    let csv = report::csv(&rows, &sweep);
    assert!(csv.starts_with(
        "mode,score,completion_tokens,rounds,tasks,replies,repaired,unreadable\nMAEL-ØExp,0.1,"
    ));
    assert!(csv.contains("pool_tasks,score\n0,0.1\n10,0.55"));
    assert_eq!(report::json(&rows, &sweep, &[])["modes"][2]["mode"], "step");
    // No SRDD row: no Table 2 or 3; no curve: no Fig. 4.
    assert_eq!(report::srdd_html(&rows), "");
    assert!(report::curves_svg(&[], false).is_empty());
}

#[test]
fn srdd_reports_show_tables_two_and_three_and_the_figures() {
    use roundtable::engine::coordinators::mael::learn::{
        label, relative_to_none, QualityCurve, Row,
    };
    let parts = |q: f64, lines: f64| -> Vec<(String, f64)> {
        [
            ("completeness", 1.0),
            ("executability", 1.0),
            ("consistency", q),
            ("quality", q),
            ("complexity", 10.0),
            ("lines", lines),
            ("tokens", 160.0),
            ("functions", 4.0),
            ("files", 2.0),
        ]
        .into_iter()
        .map(|(n, v)| (n.to_string(), v))
        .collect()
    };
    let rows: Vec<Row> = [(Mode::None, 0.3, 800.0, 2.0), (Mode::Step, 0.4, 600.0, 1.0)]
        .into_iter()
        .map(|(mode, q, tokens, rounds)| Row {
            label: label(mode).into(),
            summary: ModeSummary {
                mode,
                score: q,
                completion_tokens: tokens,
                rounds,
                tasks: 4,
                task_ids: Vec::new(),
                parts: parts(q, 26.0 + rounds),
                repairs: Default::default(),
            },
        })
        .collect();
    let html = report::srdd_html(&rows);
    assert!(html.contains("Table 2"), "{html}");
    assert!(
        html.contains("<td class=\"num\">30.00</td>"),
        "quality in %: {html}"
    );
    assert!(html.contains("Table 3"), "{html}");
    assert!(
        html.contains("<td class=\"num\">28.0</td>"),
        "lines as they are: {html}"
    );
    assert_eq!(report::parts_html(&rows), "", "not CommonGen's composite");
    let rel = relative_to_none(&rows);
    assert_eq!(rel[0].rounds, Some(1.0));
    assert_eq!(rel[1].rounds, Some(0.5));
    assert_eq!(rel[1].completion_tokens, Some(0.75));
    assert!(report::relative_html(&rel).contains("<td class=\"num\">0.75</td>"));
    let curves = vec![
        QualityCurve {
            task_id: "srdd:A".into(),
            label: "MAEL-ØExp".into(),
            quality: vec![0.2, 0.0, 0.3],
        },
        QualityCurve {
            task_id: "srdd:A".into(),
            label: "MAEL-Step".into(),
            quality: vec![0.2, 0.3],
        },
    ];
    let charts = report::curves_svg(&curves, true);
    assert_eq!(charts.len(), 1, "one chart per case");
    assert_eq!(
        charts[0].1.matches("<polyline").count(),
        2,
        "a line per row"
    );
    assert_eq!(charts[0].1.matches("<circle").count(), 5);
    assert!(charts[0].1.contains("MAEL-Step · iteration 2: 30.0%"));
    let json = report::json(&rows, &[], &curves);
    assert_eq!(json["modes"][1]["relative_to_none"]["rounds"], 0.5);
    assert_eq!(json["modes"][1]["parts"]["lines"], 27.0);
    assert_eq!(json["quality_per_iteration"][0]["quality"][1], 0.0);
}

/// A MAEL run shared as a link opens to the same run, and so to the same
/// view (team, tree, retrievals, rewards) at every replay position; the
/// link format it is made in (3) knows MAEL's vocabulary, so its links are
/// shorter than in format 2.
#[test]
fn a_shared_mael_run_opens_to_the_same_views() {
    use roundtable::engine::run::RunDoc;
    use roundtable::engine::share::{decode, encode, encode_as};
    let memory = Rc::new(Memory::lexical("share"));
    for t in tasks(Split::Train).iter().skip(20).take(4) {
        run(t, Mode::None, Some(memory.clone()));
    }
    let (_, events) = run(&tasks(Split::Test)[7], Mode::Step, Some(memory));
    let config = match &events[0].event {
        roundtable::engine::run::RunEvent::RunStarted { config } => config.clone(),
        e => panic!("starts with {e:?}"),
    };
    let doc = RunDoc::new(config, events);
    let link = encode(&doc).expect("encode");
    let back = decode(&link).expect("decode");
    assert_eq!(back, doc);
    for k in [doc.events.len() / 3, doc.events.len()] {
        assert_eq!(
            MaelView::of(&back.events[..k]),
            MaelView::of(&doc.events[..k])
        );
    }
    assert!(link.starts_with("5."), "new links are made in format 5");
    // Format 3 (deflate, a dictionary with MAEL's sample run) was MAEL's before.
    let older = encode_as(&doc, 3).expect("older format");
    assert!(
        (link.len() as f64) < 0.8 * older.len() as f64,
        "format 5: {} chars, format 3: {}",
        link.len(),
        older.len()
    );
}
