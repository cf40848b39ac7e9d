//! What a class is shown, read back as a student's page reads it.

use super::show::*;
use crate::engine::lesson::Bundle;
use crate::engine::run::RunDoc;
use serde_json::json;

fn lesson() -> Bundle {
    Bundle::from_json(include_str!(
        "../../../public/lessons/travel-orchestrator.lesson.json"
    ))
    .expect("the built-in lesson reads")
}

#[test]
fn a_run_a_lesson_and_a_comparison_read_back_as_sent() {
    let b = lesson();
    let run: RunDoc = b.runs[0].clone();
    let mut config = run.config.clone();
    config.run_id = "run-live".into();
    for shown in [
        Shown::Run(config.sanitized()),
        Shown::Lesson(b.clone()),
        Shown::Compare(Bundle::comparison("two", vec![run.clone(), run.clone()])),
    ] {
        let v = shown.to_value();
        // Through the wire as text, as the relay forwards it.
        let text = serde_json::to_string(&v).expect("serializes");
        let back: serde_json::Value = serde_json::from_str(&text).expect("parses");
        assert_eq!(
            Shown::read(&back),
            Ok(Some(shown.clone())),
            "{}",
            shown.label()
        );
        // The relay's digest of what it got is the teacher's of what it sent.
        assert_eq!(
            crate::engine::live::protocol::digest(&back),
            crate::engine::live::protocol::digest(&v)
        );
    }
    assert_eq!(Shown::read(&serde_json::Value::Null), Ok(None));
}

#[test]
fn what_cannot_be_shown_says_why() {
    let err = |v| Shown::read(&v).expect_err("refused");
    assert!(err(json!({"kind": "movie"})).contains("\"movie\" is not something"));
    assert!(err(json!({"kind": "run", "config": 7})).contains("setup is damaged"));
    assert!(err(json!({"kind": "lesson", "bundle": {"format": "x"}}))
        .contains("not a Roundtable lesson"));
    // A comparison's bundle labelled a lesson.
    let b = Bundle::comparison(
        "two",
        vec![lesson().runs[0].clone(), lesson().runs[0].clone()],
    );
    let mut v = Shown::Compare(b).to_value();
    v["kind"] = json!("lesson");
    assert!(err(v).contains("holds something else"));
}

#[test]
fn the_log_must_be_run_events_in_order() {
    let events = lesson().runs[0].events.clone();
    let values: Vec<_> = events
        .iter()
        .map(|e| serde_json::to_value(e).expect("to json"))
        .collect();
    assert_eq!(read_events(&values, 0, None), Ok(events.clone()));
    // The second batch continues after the first's last sequence number.
    let (a, b) = values.split_at(3);
    let first = read_events(a, 0, None).expect("reads");
    assert_eq!(
        read_events(b, 3, first.last().map(|e| e.seq)),
        Ok(events[3..].to_vec())
    );
    // Resent or reordered, a batch is refused with where.
    let e = read_events(a, 0, Some(events[5].seq)).expect_err("out of order");
    assert!(e.contains("event 0") && e.contains("out of order"), "{e}");
    let mut bad = values.clone();
    bad[4] = json!({"seq": 99, "kind": "nonsense"});
    let e = read_events(&bad, 10, None).expect_err("damaged");
    assert!(
        e.starts_with("event 14 of the class's run is damaged"),
        "{e}"
    );
}

#[test]
fn a_lesson_question_is_asked_with_its_steps_id_and_revealed_at_its_event() {
    let b = lesson();
    let steps = &b.lesson.as_ref().expect("a lesson").steps;
    let qi = steps
        .iter()
        .position(|s| s.question().is_some())
        .expect("a question step");
    let ni = steps
        .iter()
        .position(|s| s.question().is_none())
        .expect("a note step");
    let q = steps[qi].question().expect("question").clone();
    let (asked, answer, explain) = lesson_question(&b, qi).expect("asked");
    assert_eq!(asked.id, question_id(qi));
    assert_eq!(step_of(&asked.id), Some(qi));
    assert_eq!(
        (asked.prompt, asked.choices),
        (q.prompt.clone(), q.choices.clone())
    );
    assert_eq!((answer, explain), (q.answer, q.explain.clone()));
    assert_eq!(lesson_question(&b, ni), None, "a note asks nothing");
    assert_eq!(lesson_question(&b, steps.len()), None);
    assert_eq!(lesson_target(&b, qi, false), Some((q.run, q.at)));
    assert_eq!(lesson_target(&b, qi, true), Some((q.run, q.reveal)));
    assert_eq!(step_of("step-x"), None);
}

#[test]
fn a_comparisons_positions_travel_as_one_step() {
    let lens = [40, 70_000, 12, 9];
    assert_eq!(
        unpack(pack(&[3, 65_000, 0, 9]), &lens),
        vec![3, 65_000, 0, 9]
    );
    // A position past 16 bits shows its run whole; none goes past its run.
    assert_eq!(
        unpack(pack(&[40, 69_999, 12, 9]), &lens),
        vec![40, 70_000, 12, 9]
    );
    assert_eq!(unpack(pack(&[1, 2]), &[0, 1]), vec![0, 1]);
    assert_eq!(unpack(FOLLOW, &lens), lens.to_vec());
}
