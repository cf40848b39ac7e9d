//! The offline demo model plays every role of the travel coordinator: on
//! every built-in query and every variant it delivers a plan the evaluator
//! scores, with real tool calls in both protocols; the orchestrator variant
//! passes the final check on most queries; malformed requests get clear
//! answers. (Revisits and the critic: `travel_demo_revisits.rs`.)

use crate::common::*;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::travel::contract::*;
use roundtable::engine::coordinators::travel::orchestrator::parse_decision;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::{ChatRequest, Message, Role};
use roundtable::engine::run::{RunEvent, RunStatus};
use std::rc::Rc;

/// The orchestrator variant must pass the final check on at least this many
/// of the twelve built-in queries.
const ORCHESTRATOR_MIN_FINAL: usize = 10;

/// Runs every built-in query with every variant; checks each run and
/// returns the final-pass count per variant.
fn all_runs(mode: ToolMode) -> Vec<(Variant, usize, usize)> {
    let qs = queries();
    assert_eq!(qs.len(), 12, "twelve built-in queries");
    let mut table = Vec::new();
    for variant in Variant::ALL {
        let mut passes = 0;
        for q in &qs {
            let idx = q["idx"].clone();
            let (status, events) = run(variant, q.clone(), mode);
            let label = format!("{} query {idx} ({mode:?})", variant.id());
            assert_eq!(status, RunStatus::Finished, "{label}");
            let e = evaluation(&events);
            assert!(e.delivered, "{label}: {:?}", e.not_delivered);
            assert!(
                e.hallucinations.is_empty(),
                "{label}: {:?}",
                e.hallucinations
            );
            // Agents really query the sandbox, in the protocol of the run.
            let callers: Vec<&str> = match variant {
                Variant::Solo => vec![SOLO],
                _ => EXPERTS.to_vec(),
            };
            for agent in callers {
                assert!(
                    !tool_calls_by(&events, agent).is_empty(),
                    "{label}: {agent} called no tool"
                );
            }
            for r in responses(&events) {
                assert!(r.usage.estimated, "{label}: demo usage is estimated");
                if mode == ToolMode::Text {
                    assert!(
                        r.tool_calls.is_empty(),
                        "{label}: no native calls in text mode"
                    );
                }
            }
            if variant == Variant::Orchestrator {
                // Every reflection was the demo's own JSON decision.
                let refl = reflections(&events);
                assert!(refl.len() >= 5, "{label}");
                assert!(
                    refl.iter().all(|r| r.fallback.is_none()),
                    "{label}: {refl:?}"
                );
                assert!(
                    !posts_by(&events, CRITIC).is_empty(),
                    "{label}: the critic reviewed"
                );
            }
            if e.final_pass {
                passes += 1;
            } else {
                println!("{label}: not a final pass: {:?}", failed_checks(&e));
            }
        }
        table.push((variant, passes, qs.len()));
    }
    for (v, p, n) in &table {
        println!("{mode:?} {:<15} final pass {p}/{n}", v.id());
    }
    table
}

fn orchestrator_passes(table: &[(Variant, usize, usize)]) -> usize {
    table
        .iter()
        .find(|(v, _, _)| *v == Variant::Orchestrator)
        .map_or(0, |t| t.1)
}

#[test]
fn every_variant_delivers_on_every_builtin_query_with_native_tools() {
    let table = all_runs(ToolMode::Native);
    let passes = orchestrator_passes(&table);
    println!("orchestrator final pass (native): {passes}/12");
    assert!(
        passes >= ORCHESTRATOR_MIN_FINAL,
        "orchestrator final pass {passes}/12"
    );
}

#[test]
fn the_text_tool_protocol_works_for_every_variant() {
    let table = all_runs(ToolMode::Text);
    let passes = orchestrator_passes(&table);
    println!("orchestrator final pass (text): {passes}/12");
    assert!(
        passes >= ORCHESTRATOR_MIN_FINAL,
        "orchestrator final pass {passes}/12"
    );
    // The calls really travelled as text: `Tool[args]` lines, no tools offered.
    let (_, events) = run(Variant::Orchestrator, query(5), ToolMode::Text);
    let requests: Vec<ChatRequest> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmRequest { agent, request, .. } if agent == HOTEL => Some(request.clone()),
            _ => None,
        })
        .collect();
    assert!(requests.iter().all(|r| r.tools.is_empty()));
    assert!(requests.iter().any(|r| r
        .messages
        .iter()
        .any(|m| m.role == Role::User && m.content.starts_with(OBSERVATION_PREFIX))));
    assert!(requests.iter().any(|r| {
        r.messages.iter().any(|m| {
            m.role == Role::Assistant && m.content.contains("AccommodationSearch[Fernhill]")
        })
    }));
}

#[test]
fn malformed_requests_get_clear_answers() {
    let m = DemoModel::instant(Rc::new(FakeClock::new()), every_script);
    let ask = |step: &str, text: &str| {
        m.answer(&ChatRequest::new(vec![Message::user(text)]).with_step(step))
    };
    for step in [
        expert_step(TRANSPORTATION),
        expert_step(HOTEL),
        STEP_COMPILER.to_string(),
        STEP_CRITIC.to_string(),
        STEP_SOLO.to_string(),
    ] {
        for text in [
            "",
            "# Trip facts\n```json\n{\"org\": 3}\n```",
            "# Trip facts\n```json\n{oops",
        ] {
            let r = ask(&step, text);
            assert!(r.text.contains("trip facts"), "{step}: {}", r.text);
            assert!(r.tool_calls.is_empty());
        }
    }
    let r = ask(&expert_step("pilot"), "hello");
    assert!(r.text.contains("no \"pilot\" expert"), "{}", r.text);
    let r = ask(STEP_ORCHESTRATOR, "no facts, no conversation");
    let d = parse_decision(&r.text).expect("still a JSON decision");
    assert_eq!(d.next, TRANSPORTATION);
    let r = ask("travel.nonsense", "hello");
    assert!(r.text.contains("no script for the step"), "{}", r.text);
}
