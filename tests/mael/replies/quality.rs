//! CommonGen-Hard's composite: coverage computed, the other four criteria
//! judged (one request each, temperature 0, read as ratings), the score
//! their mean; a criterion whose rating cannot be read, even when asked
//! again, is left out and flagged, never scored.

use super::{calls, demo_but, repairs_of};
use crate::common::*;
use roundtable::engine::coordinators::mael::contract::*;
use roundtable::engine::coordinators::mael::quality::{Quality, CRITERIA};
use roundtable::engine::domains::tasks::{parse_jsonl, Dataset, Task};
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::run::RunStatus;

fn concepts_task() -> Task {
    let row = r#"{"id": "c0", "concepts": ["dog", "frisbee", "catch", "throw"]}"#;
    parse_jsonl(Dataset::Commongen, row, "c")
        .expect("task")
        .remove(0)
}

#[test]
fn the_composite_is_coverage_and_four_judged_criteria_at_temperature_zero() {
    let (status, events) = run_with(&concepts_task(), Mode::None, None, demo(), |o| {
        o.learn = false
    });
    assert_eq!(status, RunStatus::Finished);
    let judged: Vec<_> = calls(&events)
        .into_iter()
        .filter(|c| c.1 == STEP_QUALITY)
        .collect();
    assert_eq!(judged.len(), 4, "one request per criterion");
    for (c, (name, _, _)) in judged.iter().zip(CRITERIA) {
        assert_eq!(c.2.params.temperature, Some(0.0));
        assert!(c
            .2
            .messages
            .iter()
            .any(|m| m.content.contains(&format!("{QUALITY_HEADING} {name}"))));
    }
    let q: Vec<Quality> = notes(&events, STORE_QUALITY);
    let r = result(&events);
    let names: Vec<&str> = r.parts.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["coverage", "grammar", "fluency", "relevance", "logic"]
    );
    let mean = r.parts.iter().map(|(_, v)| v).sum::<f64>() / 5.0;
    assert!((r.score - mean).abs() < 1e-12 && (q[0].composite - mean).abs() < 1e-12);
    assert!(r.score > 0.0 && r.score < 1.0, "{r:?}");
}

#[test]
fn an_unread_criterion_is_left_out_and_flagged() {
    // The judge answers fluency in prose with no score, twice.
    let judge = demo_but(STEP_QUALITY, |n| match n {
        1 | 2 => "It reads fine, I suppose.".into(),
        _ => r#"{"score": 8, "reason": "ok"}"#.into(),
    });
    let (status, events) = run_with(&concepts_task(), Mode::None, None, judge, |o| {
        o.learn = false
    });
    assert_eq!(status, RunStatus::Finished);
    let q: Vec<Quality> = notes(&events, STORE_QUALITY);
    let unread: Vec<&str> = (q[0].judged.iter())
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(unread.len(), 1);
    let r = result(&events);
    assert_eq!(r.parts.len(), 4, "coverage and the three read");
    let mean = r.parts.iter().map(|(_, v)| v).sum::<f64>() / 4.0;
    assert!((r.score - mean).abs() < 1e-12);
    let flagged = repairs_of(&events, STEP_QUALITY);
    assert!(flagged.contains(&vec![RepairKind::AskedAgain]));
    assert!(flagged.contains(&vec![RepairKind::Default]));
}

#[test]
fn the_report_shows_each_part_of_the_composite() {
    use roundtable::engine::coordinators::mael::html::report::parts_html;
    use roundtable::engine::coordinators::mael::learn::{label, summarize, Row};
    let (_, events) = run_with(&concepts_task(), Mode::None, None, demo(), |o| {
        o.learn = false
    });
    let summary = summarize(Mode::None, std::iter::once(events.as_slice())).expect("finished");
    let names: Vec<&str> = summary.parts.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["coverage", "grammar", "fluency", "relevance", "logic"]
    );
    let html = parts_html(&[Row {
        label: label(Mode::None).into(),
        summary,
    }]);
    assert!(
        html.contains("<th>coverage</th>") && html.contains("<th>composite</th>"),
        "{html}"
    );
    assert_eq!(parts_html(&[]), "");
}
