//! The travel coordinator with a scripted model: the paper's visibility
//! rules (the orchestrator sees only G and c; experts see only their own
//! tool returns; only the summarizer and compiler read the notebook), the
//! step limit, revisit counting, hallucination counting, the orchestrator's
//! fallback on unusable answers, and both tool-call protocols.

use futures::executor::block_on;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::execute;
use roundtable::engine::coordinators::travel::batch::evaluation_of;
use roundtable::engine::coordinators::travel::contract::*;
use roundtable::engine::coordinators::travel::{options_for, query_values};
use roundtable::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::{ChatRequest, ChatResponse, Role, ToolCall};
use roundtable::engine::run::{
    LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus,
};
use serde_json::{json, Value};
use std::rc::Rc;

fn gold_plan(idx: u32) -> Value {
    BUILTIN_QUERIES_JSONL
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["idx"] == idx)
        .map(|v| v["annotated_plan"].clone())
        .expect("built-in query")
}

fn all_text(req: &ChatRequest) -> String {
    req.messages
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn has_tool_results(req: &ChatRequest) -> bool {
    req.messages
        .iter()
        .any(|m| m.role == Role::Tool || m.content.starts_with(OBSERVATION_PREFIX))
}

/// A rule-based stand-in: experts make one tool call then post; the
/// orchestrator goes through the experts, sends the hotel expert back once,
/// then plans; the compiler answers with `plan`; the critic objects once.
fn team(plan: Value, text_mode: bool) -> ScriptedModel {
    ScriptedModel::new("scripted").otherwise(move |req| {
        let step = req.step.clone().unwrap_or_default();
        let text = all_text(req);
        let facts = trip_facts_in(&text);
        let dest = facts.as_ref().map(|f| f.dest.clone()).unwrap_or_default();
        let reply = |t: String| ChatResponse { text: t, ..ChatResponse::default() };
        if let Some(expert) = step.strip_prefix(STEP_EXPERT_PREFIX) {
            if !has_tool_results(req) && !text.contains("used all your tool calls") {
                let (tool, args) = match expert {
                    TRANSPORTATION => ("GoogleDistanceMatrix", json!({"origin": facts.as_ref().map(|f| f.org.clone()), "destination": dest, "mode": "self-driving"})),
                    HOTEL => ("AccommodationSearch", json!({"city": dest})),
                    RESTAURANT => ("RestaurantSearch", json!({"city": dest})),
                    _ => ("AttractionSearch", json!({"city": dest})),
                };
                if text_mode {
                    let positional: Vec<String> = args.as_object().map(|o| o.values().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default();
                    return reply(format!("Let me look.\n{tool}[{}]", positional.join(", ")));
                }
                return ChatResponse { tool_calls: vec![ToolCall { id: format!("c-{expert}"), name: tool.into(), arguments: args.to_string() }], ..ChatResponse::default() };
            }
            return reply(format!("{expert} part done.\n```json\n{{\"estimated_cost\": 10}}\n```"));
        }
        match step.as_str() {
            STEP_ORCHESTRATOR => {
                let posted: Vec<String> = parse_conversation(&text).into_iter().map(|(id, _)| id).collect();
                let next = EXPERTS
                    .iter()
                    .find(|e| !posted.iter().any(|p| p == *e))
                    .map(|e| e.to_string())
                    .unwrap_or_else(|| if posted.iter().filter(|p| *p == HOTEL).count() < 2 { HOTEL.into() } else { PLAN.into() });
                reply(json!({"done": posted.join(", "), "missing": "", "conflicts": "", "next": next, "instruction": format!("please do {next}")}).to_string())
            }
            STEP_COMPILER => reply(format!("Here is the plan.\n```json\n{plan}\n```")),
            STEP_CRITIC => {
                if text.matches("Here is the plan").count() >= 2 { reply(format!("Looks right.\n{APPROVED}")) } else { reply("Day 2: dinner should be cheaper.".into()) }
            }
            _ => reply("?".into()),
        }
    })
}

fn run(
    variant: &str,
    model: ScriptedModel,
    tweak: impl FnOnce(&mut TravelOptions),
) -> (RunStatus, Vec<LoggedEvent>) {
    let (_, q) = query_values(BUILTIN_QUERIES_JSONL, "builtin")
        .expect("queries")
        .into_iter()
        .next()
        .expect("one");
    let mut options = options_for(q, "builtin", ToolMode::Native);
    tweak(&mut options);
    let mut config = RunConfig::new(ID, "trip", ModelSpec::demo());
    config.variant = Some(variant.into());
    config.options = serde_json::to_value(&options).expect("options");
    let ctx = RunCtx::new(
        config,
        ModelRouter::single(Rc::new(model)),
        Rc::new(FakeClock::new()),
    );
    let status = block_on(execute(&ctx));
    (status, ctx.events())
}

fn evaluation(events: &[LoggedEvent]) -> RunEvaluation {
    evaluation_of(events).expect("an evaluation")
}

fn requests_by(events: &[LoggedEvent], agent: &str) -> Vec<ChatRequest> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmRequest {
                agent: a, request, ..
            } if a == agent => Some(request.clone()),
            _ => None,
        })
        .collect()
}

/// Each expert's raw tool outputs.
fn tool_outputs(events: &[LoggedEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::ToolReturned { agent, output, .. } => Some((agent.clone(), output.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn orchestrated_run_respects_the_visibility_rules() {
    let (status, events) = run("orchestrator", team(gold_plan(1), false), |_| {});
    assert_eq!(status, RunStatus::Finished);
    let outputs = tool_outputs(&events);
    assert_eq!(
        outputs.len(),
        5,
        "one call per expert turn, the hotel twice"
    );
    for (_, out) in &outputs {
        assert!(
            out.len() > 60,
            "tool outputs are distinctive enough to search for"
        );
    }
    // D reads only G and c: no tool returns, no notebook.
    let d = requests_by(&events, ORCHESTRATOR);
    assert!(d.len() >= 6);
    for r in &d {
        let t = all_text(r);
        assert!(!t.contains(NOTEBOOK_HEADING));
        assert!(
            outputs.iter().all(|(_, o)| !t.contains(o.as_str())),
            "the orchestrator saw a tool return"
        );
    }
    // No expert sees another expert's raw tool returns.
    for expert in EXPERTS {
        for r in requests_by(&events, expert) {
            let t = all_text(&r);
            assert!(!t.contains(NOTEBOOK_HEADING));
            for (owner, o) in &outputs {
                if owner != expert {
                    assert!(
                        !t.contains(o.as_str()),
                        "{expert} saw {owner}'s tool return"
                    );
                }
            }
        }
    }
    // Only the compiler (via the summarizer's brief) reads N; the critic does not.
    let compiler = requests_by(&events, COMPILER);
    assert_eq!(compiler.len(), 2, "first plan + one revision");
    for r in &compiler {
        let t = all_text(r);
        assert!(t.contains(NOTEBOOK_HEADING));
        assert!(
            outputs.iter().all(|(_, o)| t.contains(o.as_str())),
            "the brief holds every notebook entry"
        );
    }
    for r in requests_by(&events, CRITIC) {
        let t = all_text(&r);
        assert!(
            !t.contains(NOTEBOOK_HEADING) && outputs.iter().all(|(_, o)| !t.contains(o.as_str()))
        );
    }
    assert!(
        requests_by(&events, SUMMARIZER).is_empty(),
        "the summarizer is not an LLM"
    );
    // The orchestrator never posts to c; experts post publicly.
    let posters: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::MessagePosted { from, .. } => Some(from.clone()),
            _ => None,
        })
        .collect();
    assert!(!posters.iter().any(|p| p == ORCHESTRATOR));
    assert!(EXPERTS.iter().all(|e| posters.iter().any(|p| p == e)));
    // Notebook entries are written automatically, one per tool return.
    let notes = events
        .iter()
        .filter(
            |e| matches!(&e.event, RunEvent::NoteWritten { store, .. } if store == STORE_NOTEBOOK),
        )
        .count();
    assert_eq!(notes, outputs.len());
    // Revisits, reflections, hand-offs, and a passing evaluation of the gold plan.
    let eval = evaluation(&events);
    assert_eq!(
        eval.revisits,
        vec![
            (TRANSPORTATION.into(), 0),
            (HOTEL.into(), 1),
            (RESTAURANT.into(), 0),
            (ATTRACTION.into(), 0)
        ]
    );
    assert!(eval.delivered && eval.final_pass, "{eval:?}");
    assert!(eval.hallucinations.is_empty());
    let reflections = events.iter().filter(|e| matches!(&e.event, RunEvent::NoteWritten { store, .. } if store == STORE_REFLECTION)).count();
    assert_eq!(reflections, d.len());
    let handoffs: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::Handoff { from, to, .. } if from == ORCHESTRATOR => Some(to.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        handoffs,
        vec![
            TRANSPORTATION,
            HOTEL,
            RESTAURANT,
            ATTRACTION,
            HOTEL,
            SUMMARIZER
        ]
    );
}

#[test]
fn fixed_workflow_without_notebook_keeps_tool_returns_from_the_compiler() {
    let (status, events) = run("fixed", team(gold_plan(1), false), |_| {});
    assert_eq!(status, RunStatus::Finished);
    let order: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmRequest { agent, .. } => Some(agent.clone()),
            _ => None,
        })
        .collect();
    let mut dedup = order.clone();
    dedup.dedup();
    assert_eq!(
        dedup,
        vec![TRANSPORTATION, HOTEL, RESTAURANT, ATTRACTION, COMPILER]
    );
    let outputs = tool_outputs(&events);
    for r in requests_by(&events, COMPILER) {
        let t = all_text(&r);
        assert!(!t.contains(NOTEBOOK_HEADING));
        assert!(outputs.iter().all(|(_, o)| !t.contains(o.as_str())));
    }
    assert_eq!(events.iter().filter(|e| matches!(&e.event, RunEvent::NoteWritten { store, .. } if store == STORE_NOTEBOOK)).count(), 0);
    // With the notebook, the same order, and the compiler reads N.
    let (_, events) = run("fixed-notebook", team(gold_plan(1), false), |_| {});
    let outputs = tool_outputs(&events);
    let t = all_text(&requests_by(&events, COMPILER)[0]);
    assert!(t.contains(NOTEBOOK_HEADING) && outputs.iter().all(|(_, o)| t.contains(o.as_str())));
}

#[test]
fn step_limit_without_a_plan_means_not_delivered() {
    let (status, events) = run("orchestrator", team(gold_plan(1), false), |o| {
        o.max_steps = 5
    });
    assert_eq!(status, RunStatus::Finished);
    let eval = evaluation(&events);
    assert!(!eval.delivered);
    assert!(
        eval.not_delivered
            .as_deref()
            .unwrap_or("")
            .contains("step limit (5)"),
        "{eval:?}"
    );
    assert!(requests_by(&events, COMPILER).is_empty());
    assert_eq!(eval.steps, 5);
}

#[test]
fn the_step_limit_during_critic_rounds_keeps_the_plan() {
    // The conversation takes 11 steps, the first plan the 12th; the critic
    // objects in the 13th; its revision would be the 14th.
    for (max_steps, critic_calls) in [(12, 0), (13, 1)] {
        let (status, events) = run("orchestrator", team(gold_plan(1), false), |o| {
            o.max_steps = max_steps
        });
        assert_eq!(status, RunStatus::Finished);
        let eval = evaluation(&events);
        assert!(eval.delivered, "{max_steps}: {eval:?}");
        assert_eq!(eval.steps, max_steps);
        assert_eq!(requests_by(&events, CRITIC).len(), critic_calls);
        assert_eq!(requests_by(&events, COMPILER).len(), 1, "no revision");
        assert!(
            events
                .iter()
                .any(|e| matches!(&e.event, RunEvent::PhaseEnded { phase } if phase == "compile")),
            "the planning phase ends normally"
        );
    }
    // With room for the revision, the critic's second look approves it.
    let (_, events) = run("orchestrator", team(gold_plan(1), false), |_| {});
    assert_eq!(requests_by(&events, COMPILER).len(), 2);
    assert_eq!(evaluation(&events).steps, 15);
}

#[test]
fn the_single_agent_stops_at_the_step_limit_without_a_plan() {
    let always_searching = ScriptedModel::new("scripted").otherwise(|_| ChatResponse {
        tool_calls: vec![ToolCall {
            id: "c".into(),
            name: "AttractionSearch".into(),
            arguments: json!({"city": "Glenrock"}).to_string(),
        }],
        ..ChatResponse::default()
    });
    let (status, events) = run("single", always_searching, |o| o.max_steps = 3);
    assert_eq!(status, RunStatus::Finished);
    assert_eq!(requests_by(&events, SOLO).len(), 3);
    let eval = evaluation(&events);
    assert!(!eval.delivered);
    assert!(
        eval.not_delivered
            .as_deref()
            .unwrap_or("")
            .contains("step limit (3)"),
        "{eval:?}"
    );
    assert!(events
        .iter()
        .any(|e| matches!(&e.event, RunEvent::PhaseEnded { phase } if phase == "solo")));
}

#[test]
fn hallucinated_entities_are_counted_by_category() {
    let mut plan = gold_plan(1);
    plan[1]["lunch"] = json!("The Imaginary Diner, Glenrock");
    plan[1]["attraction"] = json!("Castle of Nowhere, Glenrock;");
    let (_, events) = run("fixed-notebook", team(plan, false), |_| {});
    let eval = evaluation(&events);
    assert!(eval.delivered);
    let cats: Vec<(&str, &str)> = eval
        .hallucinations
        .iter()
        .map(|h| (h.category.as_str(), h.entity.as_str()))
        .collect();
    assert!(
        cats.contains(&("restaurant", "The Imaginary Diner, Glenrock")),
        "{cats:?}"
    );
    assert!(
        cats.iter()
            .any(|(c, e)| *c == "attraction" && e.contains("Castle of Nowhere")),
        "{cats:?}"
    );
    let sandbox = eval
        .commonsense
        .iter()
        .find(|v| v.key == "is_valid_information_in_sandbox")
        .expect("check");
    assert_eq!(sandbox.pass, Some(false));
    assert!(!eval.final_pass);
}

#[test]
fn text_protocol_tool_calls_work() {
    let (status, events) = run("orchestrator", team(gold_plan(1), true), |o| {
        o.tool_mode = ToolMode::Text
    });
    assert_eq!(status, RunStatus::Finished);
    assert_eq!(tool_outputs(&events).len(), 5);
    for r in requests_by(&events, HOTEL) {
        assert!(r.tools.is_empty(), "no native tools offered in text mode");
    }
    assert!(evaluation(&events).final_pass);
}

#[test]
fn orchestrator_falls_back_when_its_answer_is_unusable() {
    let model = ScriptedModel::new("m")
        .then_text("I would pick the hotel person maybe")
        .then(Ok(ChatResponse {
            text: "{\"next\": \"pilot\"}".into(),
            ..ChatResponse::default()
        }))
        .otherwise(|_| ChatResponse {
            text: "{\"next\": \"plan\"}".into(),
            ..ChatResponse::default()
        });
    let (status, events) = run("orchestrator", model, |o| o.max_steps = 3);
    assert_eq!(status, RunStatus::Finished);
    let reflections: Vec<Reflection> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::NoteWritten { store, payload, .. } if store == STORE_REFLECTION => {
                serde_json::from_value(payload.clone()).ok()
            }
            _ => None,
        })
        .collect();
    assert!(reflections[0]
        .fallback
        .as_deref()
        .unwrap_or("")
        .contains("not a JSON decision"));
    let first_handoff = events.iter().find_map(|e| match &e.event {
        RunEvent::Handoff { to, .. } => Some(to.clone()),
        _ => None,
    });
    assert_eq!(
        first_handoff.as_deref(),
        Some(TRANSPORTATION),
        "falls back to the first expert who has not spoken"
    );
}

/// A query set without "idx" is numbered by line, and the number travels
/// with the stored query, so the batch tables and exports read it back.
#[test]
fn queries_without_idx_keep_their_line_number() {
    use roundtable::engine::coordinators::travel::query_values;
    use roundtable::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
    use roundtable::engine::domains::travel::Query;
    let stripped: String = BUILTIN_QUERIES_JSONL
        .lines()
        .take(3)
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("json");
            v.as_object_mut().expect("object").remove("idx");
            format!("{v}\n")
        })
        .collect();
    let parsed = query_values(&stripped, "no-idx.jsonl").expect("queries");
    for (q, value) in &parsed {
        assert_eq!(value["idx"], q.idx, "stored with its number");
        assert_eq!(Query::from_json(value, 999).expect("query").idx, q.idx);
    }
    let ids: Vec<u32> = parsed.iter().map(|(q, _)| q.idx).collect();
    assert_eq!(ids.len(), 3);
    assert!(
        ids[0] != ids[1] && ids[1] != ids[2],
        "distinct numbers: {ids:?}"
    );
}
