//! Folds over hand-written logs: the agent graph (statuses, edges, counts,
//! active edge), usage and cost per agent / phase / model, the transcript's
//! merging of streamed calls with posted messages, event summaries, and
//! the replies repaired per run in a comparison.
#![cfg(not(target_arch = "wasm32"))]

#[path = "support/repaired_log.rs"]
mod repaired_log;

use roundtable::engine::model::pricing::PriceTable;
use roundtable::engine::model::{ChatRequest, ChatResponse, Message, Usage};
use roundtable::engine::run::{Audience, LoggedEvent, RunEvent};
use roundtable::engine::views::events::summarize;
use roundtable::engine::views::graph::{AgentGraph, AgentStatus, EdgeKind, PUBLIC};
use roundtable::engine::views::html::graph as graph_svg;
use roundtable::engine::views::transcript::{EntryKind, Transcript};
use roundtable::engine::views::usage::UsageView;
use roundtable::engine::views::Fold;

fn log(events: Vec<RunEvent>) -> Vec<LoggedEvent> {
    events
        .into_iter()
        .enumerate()
        .map(|(i, event)| LoggedEvent {
            seq: i as u64,
            t_ms: i as u64 * 10,
            event,
        })
        .collect()
}

fn agent(id: &str, role: &str) -> RunEvent {
    RunEvent::AgentAdded {
        agent: id.into(),
        role: role.into(),
        name: id.to_uppercase(),
        model: "m".into(),
    }
}

fn request(call: u32, agent: &str, model: &str) -> RunEvent {
    RunEvent::LlmRequest {
        call,
        agent: agent.into(),
        model: model.into(),
        request: ChatRequest::new(vec![Message::user("q")]),
    }
}

fn response(call: u32, i: u64, o: u64, estimated: bool) -> RunEvent {
    RunEvent::LlmResponse {
        call,
        response: ChatResponse {
            text: "a".into(),
            usage: Usage {
                input_tokens: i,
                output_tokens: o,
                estimated,
            },
            ..ChatResponse::default()
        },
        latency_ms: 5,
        retries: 0,
    }
}

fn delta(call: u32, t: &str) -> RunEvent {
    RunEvent::LlmDelta {
        call,
        text: t.into(),
    }
}

fn post(from: &str, to: Audience, text: &str, call: Option<u32>) -> RunEvent {
    RunEvent::MessagePosted {
        from: from.into(),
        to,
        text: text.into(),
        call,
    }
}

fn sample() -> Vec<LoggedEvent> {
    log(vec![
        agent("lead", "orchestrator"),
        agent("hotel", "expert"),
        agent("food", "expert"),
        RunEvent::PhaseStarted {
            phase: "plan".into(),
            label: "Planning".into(),
        },
        RunEvent::Handoff {
            from: "lead".into(),
            to: "hotel".into(),
            reason: "needs rooms".into(),
        },
        request(0, "hotel", "gpt-4o-mini"),
        delta(0, "rooms "),
        RunEvent::ToolCalled {
            id: "t1".into(),
            agent: "hotel".into(),
            tool: "AccommodationSearch".into(),
            args: serde_json::json!({"city": "Austin"}),
            call: Some(0),
        },
        RunEvent::ToolReturned {
            id: "t1".into(),
            agent: "hotel".into(),
            ok: true,
            output: "3 rows".into(),
        },
        response(0, 1000, 200, false),
        post("hotel", Audience::Public, "Found rooms.", Some(0)),
        RunEvent::PhaseEnded {
            phase: "plan".into(),
        },
        RunEvent::PhaseStarted {
            phase: "write".into(),
            label: "Writing".into(),
        },
        RunEvent::Handoff {
            from: "lead".into(),
            to: "hotel".into(),
            reason: "again".into(),
        },
        request(1, "food", "local-llm"),
        response(1, 400, 100, true),
        post("food", Audience::To(vec!["lead".into()]), "Tacos.", None),
    ])
}

#[test]
fn graph_statuses_follow_the_log() {
    let events = sample();
    let status_at = |n: usize, id: &str| AgentGraph::of(&events[..n]).node(id).map(|x| x.status);
    assert_eq!(
        status_at(6, "hotel"),
        Some(AgentStatus::Thinking),
        "request sent, no tokens"
    );
    assert_eq!(
        status_at(7, "hotel"),
        Some(AgentStatus::Speaking),
        "tokens streaming"
    );
    let mut g = AgentGraph::default();
    for e in &events[..6] {
        g.apply(e);
    }
    g.apply(&LoggedEvent {
        seq: 99,
        t_ms: 0,
        event: RunEvent::ToolCalled {
            id: "x".into(),
            agent: "hotel".into(),
            tool: "T".into(),
            args: serde_json::Value::Null,
            call: None,
        },
    });
    assert_eq!(
        g.node("hotel").map(|n| n.status),
        Some(AgentStatus::Waiting),
        "waiting for a tool"
    );
    assert_eq!(
        status_at(10, "hotel"),
        Some(AgentStatus::Idle),
        "response done"
    );
}

/// An agent whose call waits for a free slot is shown waiting (not idle,
/// not thinking) until its request goes out; a run that ends clears it.
#[test]
fn graph_shows_an_agent_waiting_for_a_slot() {
    let queued = RunEvent::LlmQueued {
        agent: "food".into(),
    };
    let events = log(vec![
        agent("hotel", "expert"),
        agent("food", "expert"),
        request(0, "hotel", "m"),
        queued.clone(),
        response(0, 10, 5, false),
        request(1, "food", "m"),
        response(1, 10, 5, false),
        queued,
        RunEvent::RunCancelled { interrupted: None },
    ]);
    let status_at = |n: usize| AgentGraph::of(&events[..n]).node("food").map(|x| x.status);
    assert_eq!(status_at(3), Some(AgentStatus::Idle));
    assert_eq!(
        status_at(4),
        Some(AgentStatus::Queued),
        "waiting for a slot"
    );
    assert_eq!(status_at(5), Some(AgentStatus::Queued), "still waiting");
    assert_eq!(
        status_at(6),
        Some(AgentStatus::Thinking),
        "its request went out"
    );
    assert_eq!(status_at(8), Some(AgentStatus::Queued));
    assert_eq!(
        status_at(9),
        Some(AgentStatus::Idle),
        "the run ended: nobody waits"
    );
    let svg = graph_svg::render(&AgentGraph::of(&events[..4]), false);
    assert!(svg.contains("data-status=\"queued\""), "{svg}");
}

#[test]
fn graph_edges_count_messages_and_handoffs_separately() {
    let g = AgentGraph::of(&sample());
    let edge = |from: &str, to: &str, kind| {
        g.edges()
            .find(|e| e.from == from && e.to == to && e.kind == kind)
            .map(|e| e.count)
    };
    assert_eq!(edge("lead", "hotel", EdgeKind::Handoff), Some(2));
    assert_eq!(
        edge("hotel", PUBLIC, EdgeKind::Message),
        Some(1),
        "a public post goes to the shared conversation"
    );
    assert_eq!(edge("hotel", "food", EdgeKind::Message), None);
    assert!(g.has_public());
    assert_eq!(
        edge("hotel", "hotel", EdgeKind::Message),
        None,
        "no self edges"
    );
    assert_eq!(edge("food", "lead", EdgeKind::Message), Some(1));
    assert_eq!(
        g.active,
        Some(("food".into(), "lead".into(), EdgeKind::Message))
    );
    assert_eq!(
        g.node("hotel").map(|n| (n.calls, n.messages, n.tool_calls)),
        Some((1, 1, 1))
    );
    let mut ended = sample();
    ended.push(LoggedEvent {
        seq: 100,
        t_ms: 0,
        event: RunEvent::RunFinished { output: None },
    });
    assert_eq!(AgentGraph::of(&ended).active, None);
}

#[test]
fn revisits_count_turns_that_started_and_tool_calls_make_a_loop() {
    let mut events = sample();
    let hotel = |g: &AgentGraph| g.node("hotel").map(|n| (n.turns, n.revisits, n.tool_calls));
    // The second hand-off to the hotel expert has not started a turn yet.
    assert_eq!(hotel(&AgentGraph::of(&events)), Some((1, 0, 1)));
    let svg = graph_svg::render(&AgentGraph::of(&events), false);
    assert!(
        svg.contains("tool-loop"),
        "the expert's own tool loop is drawn"
    );
    assert!(!svg.contains("node-badge"), "no revisit yet");
    let n = events.len() as u64;
    events.push(LoggedEvent {
        seq: n,
        t_ms: 0,
        event: request(2, "hotel", "gpt-4o-mini"),
    });
    events.push(LoggedEvent {
        seq: n + 1,
        t_ms: 0,
        event: request(3, "hotel", "gpt-4o-mini"),
    });
    let g = AgentGraph::of(&events);
    assert_eq!(
        hotel(&g),
        Some((2, 1, 1)),
        "one revisit, counted once per turn"
    );
    assert!(graph_svg::render(&g, false).contains("↻1"));
    assert_eq!(
        g.node("food").map(|n| n.revisits),
        Some(0),
        "no hand-off, no turn"
    );
}

#[test]
fn usage_by_agent_phase_model_and_cost() {
    let u = UsageView::of(&sample());
    assert_eq!(
        (u.total.calls, u.total.input_tokens, u.total.output_tokens),
        (2, 1400, 300)
    );
    assert_eq!(u.total.estimated_calls, 1);
    let phases: Vec<(&str, u64)> = u
        .by_phase
        .iter()
        .map(|(p, t)| (u.phase_label(p), t.input_tokens))
        .collect();
    assert_eq!(phases, vec![("Planning", 1000), ("Writing", 400)]);
    let agents: Vec<&str> = u.by_agent.iter().map(|(a, _)| a.as_str()).collect();
    assert_eq!(agents, vec!["hotel", "food"]);
    let prices = PriceTable::default();
    let (cost, complete) = u.by_model[0].1.cost(&prices);
    assert!((cost - (1000.0 * 0.15 + 200.0 * 0.60) / 1e6).abs() < 1e-12);
    assert!(complete);
    let (_, complete) = u.total.cost(&prices);
    assert!(!complete, "local-llm has no price");
    assert!(!u.by_model[0].1.is_estimated() && u.by_model[1].1.is_estimated());
}

/// A call that waited for a free slot: the wait is counted apart (from
/// `llm_queued` to its request), never in the model's latency.
#[test]
fn usage_counts_the_wait_for_a_slot_apart() {
    let events = log(vec![
        request(0, "hotel", "m"),
        RunEvent::LlmQueued {
            agent: "food".into(),
        },
        RunEvent::LlmQueued {
            agent: "lead".into(),
        },
        response(0, 10, 5, false),
        request(1, "food", "m"),
        response(1, 10, 5, false),
        request(2, "lead", "m"),
        response(2, 10, 5, false),
        request(3, "hotel", "m"),
    ]);
    // Ten ms per event: food waited 40-10, lead 60-20.
    assert_eq!(UsageView::of(&events).queued, (2, 30 + 40));
    assert_eq!(UsageView::of(&sample()).queued, (0, 0));
}

#[test]
fn transcript_merges_streamed_calls_with_their_posts() {
    let t = Transcript::of(&sample());
    let messages: Vec<(String, Option<Audience>, String)> = t
        .entries
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Message { from, to, text, .. } => {
                Some((from.clone(), to.clone(), text.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        messages,
        vec![
            (
                "hotel".into(),
                Some(Audience::Public),
                "Found rooms.".into()
            ),
            ("food".into(), None, "a".into()),
            (
                "food".into(),
                Some(Audience::To(vec!["lead".into()])),
                "Tacos.".into()
            ),
        ]
    );
    let tool = t.entries.iter().find_map(|e| match &e.kind {
        EntryKind::Tool { tool, output, .. } => Some((tool.clone(), output.clone())),
        _ => None,
    });
    assert_eq!(
        tool,
        Some(("AccommodationSearch".into(), Some((true, "3 rows".into()))))
    );
    assert_eq!(
        t.entries
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::Handoff { .. }))
            .count(),
        2
    );
    assert_eq!(t.name_of("hotel"), "HOTEL");
    assert_eq!(t.name_of("user"), "You");
}

#[test]
fn summaries_are_one_line_and_informative() {
    for e in sample() {
        let s = summarize(&e.event);
        assert!(!s.is_empty() && !s.contains('\n'), "{s}");
    }
    assert_eq!(summarize(&request(3, "a", "m")), "call 3: a → m, 1 message");
    assert_eq!(
        summarize(&response(3, 10, 2, true)),
        "call 3: 10 in / 2 out tokens (estimated), 5 ms"
    );
}

#[test]
fn a_comparison_shows_each_runs_replies_repaired_once_per_call() {
    use roundtable::engine::run::{ModelSpec, RunConfig, RunDoc};
    use roundtable::engine::views::compare::figures;
    use roundtable::engine::views::compare_report::markdown;
    let doc = |variant: &str, steps: &[&str], repaired: &[u32]| {
        let mut c = RunConfig::new("travel", "a trip", ModelSpec::demo());
        c.variant = Some(variant.into());
        let mut events = vec![RunEvent::RunStarted { config: c.clone() }];
        events.extend(repaired_log::calls(steps, repaired));
        events.push(repaired_log::done());
        RunDoc::new(c, repaired_log::logged(events))
    };
    // A: call 1 repaired twice (one reply), call 4 once; B: none repaired.
    let a = doc("fixed", &["x", "x", "y", "y", "z"], &[1, 1, 4]);
    let b = doc("orchestrator", &["x", "y", "y"], &[]);
    let prices = PriceTable::default();
    let (fa, fb) = (figures(&a.events, &prices), figures(&b.events, &prices));
    let (ra, rb) = (fa.repairs.expect("recorded"), fb.repairs.expect("recorded"));
    assert_eq!((ra.replies, ra.repaired), (5, 2));
    assert_eq!(ra.label(), "2 of 5");
    assert_eq!(rb.label(), "0 of 3");
    let md = markdown("", &[a, b], &prices);
    assert!(
        md.contains("| | run | outcome | calls | tokens | cost (USD) | replies repaired |\n|---|---|---|---|---|---|---|\n"),
        "{md}"
    );
    let row = |letter: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| {letter} | travel")))
            .unwrap_or("")
            .to_string()
    };
    assert!(row("A").ends_with(" | 2 of 5 |"), "{md}");
    assert!(row("B").ends_with(" | 0 of 3 |"), "{md}");
}
