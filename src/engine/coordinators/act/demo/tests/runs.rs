//! Whole runs of the demo team on the built-in set, a typed task and a
//! trivia row: every variant finishes, and ACT beats the baseline.

use super::super::answer;
use crate::engine::base::clock::FakeClock;
use crate::engine::coordinators::act::contract::*;
use crate::engine::coordinators::act::{entry, setup};
use crate::engine::domains::creative::{builtin, ComplexTask};
use crate::engine::model::demo::DemoModel;
use crate::engine::run::{ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent};
use std::rc::Rc;

/// A whole run of builtin trial `n` as `variant`: the result and the
/// ROUGE-1 / ROUGE-L recalls.
fn run(n: u32, variant: Variant) -> (ResultRecord, f64, f64, Vec<RunEvent>) {
    run_task(builtin::task(n, None, 4), variant)
}

fn run_task(task: ComplexTask, variant: Variant) -> (ResultRecord, f64, f64, Vec<RunEvent>) {
    let n = task.id.clone();
    let mut config = RunConfig::new("act", "", ModelSpec::demo());
    setup::configure(&mut config, task, variant);
    let clock = Rc::new(FakeClock::new());
    let ctx = RunCtx::new(
        config,
        ModelRouter::single(Rc::new(DemoModel::instant(clock.clone(), answer))),
        clock,
    );
    futures::executor::block_on(crate::engine::run::execute(&ctx, entry));
    let events: Vec<RunEvent> = ctx.events().into_iter().map(|e| e.event).collect();
    if let Some(reason) = events.iter().find_map(|e| match e {
        RunEvent::RunFailed { reason } => Some(reason.message.clone()),
        _ => None,
    }) {
        panic!("{n} {variant:?} failed: {reason}");
    }
    let result =
        crate::engine::coordinators::act::batch::result_of(&ctx.events()).expect("a result");
    let score = |name: &str| {
        events
            .iter()
            .find_map(|e| match e {
                RunEvent::ScoreComputed { name: n, value, .. } if n == name => Some(*value),
                _ => None,
            })
            .unwrap_or(0.0)
    };
    (result, score("rouge1"), score("rougeL"), events)
}

/// How many of `events` are `is`.
fn count(events: &[RunEvent], is: impl Fn(&RunEvent) -> bool) -> usize {
    events.iter().filter(|e| is(e)).count()
}

#[test]
fn break_time_knowledge_reaches_the_output_and_act_beats_the_baseline() {
    let (result, _, _, events) = run(0, Variant::Act);
    assert!(
        !result.output.is_empty() && result.words <= 450,
        "{}",
        result.output
    );
    let experts = count(
        &events,
        |e| matches!(e, RunEvent::AgentAdded { role, .. } if role == ROLE_EXPERT),
    );
    assert_eq!(experts, 4);
    // What the experts said in break time is in the deliverable, and only
    // in ACT's.
    let said: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::MessagePosted { from, text, .. } if from.contains(".x") => Some(text.clone()),
            _ => None,
        })
        .collect();
    let used = said
        .iter()
        .filter(|s| result.output.contains(s.as_str()))
        .count();
    assert!(used >= 4, "{used} of {} expert answers used", said.len());
    let (base, _, _, _) = run(0, Variant::Baseline);
    assert!(!said.iter().any(|s| base.output.contains(s.as_str())));
    let mut sums = [0.0f64; 5];
    let mut wins = 0;
    println!("trial  act R-1  base R-1  act R-L  base R-L  no-break R-1  words act/base");
    for n in 0..10 {
        let (a, a1, al, _) = run(n, Variant::Act);
        let (b, b1, bl, _) = run(n, Variant::Baseline);
        let (_, nb1, _, _) = run(n, Variant::NoBreakTime);
        assert!(a.words <= 450 && b.words <= 450);
        // Compared at a similar length: the gain is content, not words.
        assert!(
            b.words * 10 >= a.words * 8,
            "{} vs {} words",
            a.words,
            b.words
        );
        println!(
            "{n:>5}  {a1:>7.3}  {b1:>8.3}  {al:>7.3}  {bl:>8.3}  {nb1:>12.3}  {:>5}/{}",
            a.words, b.words
        );
        for (s, v) in sums.iter_mut().zip([a1, b1, al, bl, nb1]) {
            *s += v / 10.0;
        }
        wins += usize::from(a1 > b1);
    }
    println!(
        "mean   {:>7.3}  {:>8.3}  {:>7.3}  {:>8.3}  {:>12.3}",
        sums[0], sums[1], sums[2], sums[3], sums[4]
    );
    assert!(sums[0] > sums[4], "break time adds nothing");
    assert!(
        sums[0] >= sums[1],
        "ROUGE-1: ACT {} < baseline {}",
        sums[0],
        sums[1]
    );
    assert!(wins >= 6, "ACT won {wins} of 10 trials");
}

#[test]
fn every_variant_finishes_on_every_kind_of_task() {
    for v in Variant::ALL {
        let (r, _, _, events) = run(1, v);
        assert!(
            !r.output.trim().is_empty() && r.words <= 450,
            "{v:?}: {}",
            r.output
        );
        let breaks = count(
            &events,
            |e| matches!(e, RunEvent::NoteWritten { store, .. } if store == STORE_BREAK),
        );
        assert_eq!(breaks > 0, v.features().break_time, "{v:?}");
    }
    // A typed task: the facilitator splits it.
    let (r, _, _, events) = run_task(
        ComplexTask::free(crate::engine::coordinators::act::EXAMPLE_TASK),
        Variant::Act,
    );
    assert!(r.accepted, "{}", r.output);
    if std::env::var("SHOW").is_ok() {
        println!("==== free\n{}", r.output);
    }
    let parts = events.iter().find_map(|e| match e {
        RunEvent::NoteWritten { store, payload, .. } if store == STORE_PARTS => {
            payload["parts"].as_array().map(Vec::len)
        }
        _ => None,
    });
    assert_eq!(parts, Some(4));
    // Trivia: a story that asks every question (the demo knows no answers).
    let row = r#"{"topic": "a lighthouse", "questions": ["Which planet is known as the Red Planet?", "Who painted the Mona Lisa?", "What is the capital of Japan?", "Which metal has the symbol Fe?", "How many legs does a spider have?"], "answers": [["Mars"], ["Leonardo da Vinci"], ["Tokyo"], ["Iron"], ["8", "eight"]]}"#;
    let trivia = crate::engine::domains::creative::trivia::parse(row, "t").unwrap_or_default();
    for v in [
        Variant::Act,
        Variant::Standard,
        Variant::Spp,
        Variant::SelfRefine,
    ] {
        let (r, _, _, _) = run_task(trivia[0].clone(), v);
        assert!(
            r.output.contains("lighthouse") && r.output.contains("Mona Lisa"),
            "{v:?}: {}",
            r.output
        );
        assert!(
            !r.output.contains("Tokyo"),
            "the demo knows no trivia answers"
        );
        if std::env::var("SHOW").is_ok() {
            println!("==== trivia {v:?}\n{}", r.output);
        }
    }
}
