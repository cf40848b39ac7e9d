//! Replies as real models write them: the orchestrator's decision and the
//! compiler's plan go through the lenient reader, a tool call to an
//! unknown tool or with arguments that cannot be read is answered as a
//! tool error the agent sees (in both tool protocols) and the run goes on,
//! and every reply that needed a repair (or could not be read) is recorded
//! once, as a `reply_repaired` event of its call. The demo team writes
//! exactly what is asked: none.

use super::repaired_log::repaired;
use crate::common::*;
use roundtable::engine::coordinators::travel::contract::*;
use roundtable::engine::model::reply::{first_json_block, Repair, RepairKind};
use roundtable::engine::model::{ChatRequest, ChatResponse, Role, ToolCall};
use roundtable::engine::run::{LoggedEvent, RunEvent, RunStatus};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// Each call's agent, step and request.
pub(crate) fn calls(events: &[LoggedEvent]) -> HashMap<u32, (String, String, ChatRequest)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmRequest {
                call,
                agent,
                request,
                ..
            } => Some((
                *call,
                (
                    agent.clone(),
                    request.step.clone().unwrap_or_default(),
                    request.clone(),
                ),
            )),
            _ => None,
        })
        .collect()
}

/// The calls of `agent`, in order.
pub(crate) fn calls_of(events: &[LoggedEvent], agent: &str) -> Vec<u32> {
    let mut out: Vec<u32> = calls(events)
        .into_iter()
        .filter(|(_, (a, _, _))| a == agent)
        .map(|(c, _)| c)
        .collect();
    out.sort();
    out
}

pub(crate) fn repairs_for(events: &[LoggedEvent], call: u32) -> Vec<Vec<Repair>> {
    repaired(events)
        .into_iter()
        .filter(|(c, _)| *c == call)
        .map(|(_, r)| r)
        .collect()
}

/// Whether the request already holds tool results (a later ReAct round).
fn has_results(req: &ChatRequest) -> bool {
    req.messages
        .iter()
        .any(|m| m.role == Role::Tool || m.content.starts_with(OBSERVATION_PREFIX))
}

#[test]
fn demo_runs_record_no_repaired_reply() {
    for mode in [ToolMode::Native, ToolMode::Text] {
        for variant in Variant::ALL {
            for q in queries() {
                let label = format!("{} query {} ({mode:?})", variant.id(), q["idx"]);
                let (status, events) = run(variant, q, mode);
                assert_eq!(status, RunStatus::Finished, "{label}");
                // The steps whose replies are read ran.
                let steps: Vec<String> = calls(&events).into_values().map(|(_, s, _)| s).collect();
                assert!(
                    steps.iter().any(|s| s == STEP_COMPILER || s == STEP_SOLO),
                    "{label}: no plan was read"
                );
                assert!(
                    events
                        .iter()
                        .any(|e| matches!(e.event, RunEvent::ToolCalled { .. })),
                    "{label}: no tool was called"
                );
                if variant == Variant::Orchestrator {
                    assert!(
                        steps.iter().any(|s| s == STEP_ORCHESTRATOR),
                        "{label}: no decision was read"
                    );
                }
                let found = repaired(&events);
                assert!(found.is_empty(), "{label}: {found:?}");
            }
        }
    }
}

#[test]
fn unknown_tools_and_unreadable_arguments_are_tool_errors_in_native_mode() {
    let first = Rc::new(Cell::new(true));
    let hook_first = first.clone();
    let model = tampered(move |req, mut r| {
        if req.step.as_deref() == Some(expert_step(HOTEL).as_str())
            && !has_results(req)
            && hook_first.get()
        {
            hook_first.set(false);
            let bad = |id: &str, name: &str, arguments: &str| ToolCall {
                id: id.into(),
                name: name.into(),
                arguments: arguments.into(),
            };
            let mut calls = vec![
                bad("bad-1", "Teleport", r#"{"city": "Paris"}"#),
                bad("bad-2", "AccommodationSearch", "city is Paris, please"),
                bad("bad-3", "AccommodationSearch", "[1, 2]"),
                bad("bad-4", "AccommodationSearch", r#"{"town": "Paris"}"#),
                // Repairable arguments run, flagged by what reading them took.
                bad("fixed-5", "AccommodationSearch", r#"{"city": "Paris",}"#),
            ];
            calls.append(&mut r.tool_calls);
            r.tool_calls = calls;
        }
        r
    });
    let (status, events) = run_on(
        model,
        Variant::Orchestrator,
        query(1),
        ToolMode::Native,
        None,
    );
    assert_eq!(status, RunStatus::Finished);
    assert!(!first.get(), "the hook ran");
    assert!(evaluation(&events).delivered, "the run goes on");
    // The hotel expert sees each refusal as the result of its call.
    let hotel = calls_of(&events, HOTEL);
    let asked = &calls(&events)[&hotel[1]].2;
    let result = |id: &str| -> String {
        asked
            .messages
            .iter()
            .find(|m| m.role == Role::Tool && m.tool_call_id.as_deref() == Some(id))
            .map(|m| m.content.clone())
            .unwrap_or_default()
    };
    assert!(result("bad-1").contains("there is no tool named \"Teleport\""));
    assert!(result("bad-2").contains("the arguments could not be read"));
    assert!(result("bad-3").contains("not a JSON object"));
    assert!(result("bad-4").contains("lack \"city\""));
    assert!(result("bad-4").contains("AccommodationSearch[city]"));
    // The calls are recorded, refused.
    let refused: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::ToolReturned { id, ok: false, .. } if id.starts_with("bad-") => {
                Some(id.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(refused.len(), 4);
    // One event for the reply, one tool error per bad call, and the
    // reader's repair of the fixed one.
    let found = repairs_for(&events, hotel[0]);
    assert_eq!(found.len(), 1, "{found:?}");
    let kinds: Vec<RepairKind> = found[0].iter().map(|x| x.kind.clone()).collect();
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == RepairKind::ToolError)
            .count(),
        4,
        "{found:?}"
    );
    assert!(kinds.contains(&RepairKind::TrailingComma), "{found:?}");
}

#[test]
fn unknown_tools_and_unreadable_calls_are_tool_errors_in_text_mode() {
    let done = Rc::new(Cell::new(false));
    let hook_done = done.clone();
    let model = tampered(move |req, mut r| {
        if req.step.as_deref() == Some(expert_step(HOTEL).as_str())
            && !has_results(req)
            && !hook_done.get()
        {
            hook_done.set(true);
            r.text = format!(
                "Let me look around.\nAction 1: Teleport[Paris]\n**AccommodationSearch[Fernhill**\n{}",
                r.text
            );
        }
        r
    });
    let (status, events) = run_on(model, Variant::Orchestrator, query(5), ToolMode::Text, None);
    assert_eq!(status, RunStatus::Finished);
    assert!(done.get(), "the hook ran");
    assert!(evaluation(&events).delivered, "the run goes on");
    let hotel = calls_of(&events, HOTEL);
    let asked = &calls(&events)[&hotel[1]].2;
    let observation = asked
        .messages
        .iter()
        .find(|m| m.role == Role::User && m.content.starts_with(OBSERVATION_PREFIX))
        .map(|m| m.content.clone())
        .unwrap_or_default();
    assert!(
        observation.contains("there is no tool named \"Teleport\""),
        "{observation}"
    );
    assert!(
        observation.contains("write it on one line as AccommodationSearch[city]"),
        "{observation}"
    );
    // The hotel's good calls ran too: a listing came back.
    assert!(observation.contains("AccommodationSearch[Fernhill]"));
    let found = repairs_for(&events, hotel[0]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 2, "{found:?}");
    assert!(found[0].iter().all(|x| x.kind == RepairKind::ToolError));

    // A reply that only calls an unknown tool is not the expert's part.
    let once = Rc::new(Cell::new(false));
    let hook_once = once.clone();
    let model = tampered(move |req, mut r| {
        if req.step.as_deref() == Some(expert_step(HOTEL).as_str()) && !hook_once.get() {
            hook_once.set(true);
            r.text = "I will book it directly.\nBookHotel[Fernhill, 2 nights]".into();
        }
        r
    });
    let (status, events) = run_on(model, Variant::Orchestrator, query(5), ToolMode::Text, None);
    assert_eq!(status, RunStatus::Finished);
    assert!(once.get(), "the hook ran");
    let posts = posts_by(&events, HOTEL);
    assert!(!posts.is_empty(), "the hotel expert posted");
    assert!(posts.iter().all(|p| !p.contains("BookHotel[")));
    let hotel = calls_of(&events, HOTEL);
    assert!(repairs_for(&events, hotel[0])[0]
        .iter()
        .any(|x| x.kind == RepairKind::ToolError && x.detail.contains("BookHotel")));
    assert!(evaluation(&events).delivered);
}

/// The text the hotel expert's second request shows for its calls: the
/// tool results (native) or the observation (text protocol).
fn shown_to_hotel(events: &[LoggedEvent]) -> String {
    let hotel = calls_of(events, HOTEL);
    assert!(hotel.len() > 1, "the hotel expert was asked again");
    calls(events)[&hotel[1]]
        .2
        .messages
        .iter()
        .filter(|m| {
            m.role == Role::Tool
                || (m.role == Role::User && m.content.starts_with(OBSERVATION_PREFIX))
        })
        .map(|m| m.content.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_refused_call_names_the_agents_own_tools_never_the_official_actions() {
    for mode in [ToolMode::Text, ToolMode::Native] {
        let done = Rc::new(Cell::new(false));
        let hook_done = done.clone();
        let model = tampered(move |req, mut r| {
            if req.step.as_deref() == Some(expert_step(HOTEL).as_str())
                && !has_results(req)
                && !hook_done.get()
            {
                hook_done.set(true);
                match mode {
                    ToolMode::Text => {
                        r.text = format!(
                            "FlightSearch[Fernhill, Lakemont, 2022-03-16]\nAccommodationSearch[]\n{}",
                            r.text
                        );
                    }
                    ToolMode::Native => {
                        let call = |id: &str, name: &str, arguments: &str| ToolCall {
                            id: id.into(),
                            name: name.into(),
                            arguments: arguments.into(),
                        };
                        let mut calls = vec![
                            call(
                                "bad-1",
                                "FlightSearch",
                                r#"{"origin": "Fernhill", "destination": "Lakemont", "date": "2022-03-16"}"#,
                            ),
                            call("bad-2", "AccommodationSearch", r#"{"city": ""}"#),
                        ];
                        calls.append(&mut r.tool_calls);
                        r.tool_calls = calls;
                    }
                }
            }
            r
        });
        let (status, events) = run_on(model, Variant::Orchestrator, query(5), mode, None);
        assert_eq!(status, RunStatus::Finished, "{mode:?}");
        assert!(done.get(), "{mode:?}: the hook ran");
        let shown = shown_to_hotel(&events);
        assert!(
            shown.contains(
                "FlightSearch is not one of your tools. Your tools: AccommodationSearch[city]."
            ),
            "{mode:?}: {shown}"
        );
        assert!(
            shown.contains("the call has no arguments. Call it as AccommodationSearch[city]."),
            "{mode:?}: {shown}"
        );
        // Not the official agent's list: NotebookWrite and Planner are no
        // tools here ("there is no tool named" them).
        for official in ["Invalid Action", "NotebookWrite", "Planner["] {
            assert!(!shown.contains(official), "{mode:?}: {shown}");
        }
        let found = repairs_for(&events, calls_of(&events, HOTEL)[0]);
        assert_eq!(found.len(), 1, "{mode:?}: {found:?}");
        assert_eq!(
            found[0]
                .iter()
                .filter(|x| x.kind == RepairKind::ToolError)
                .count(),
            2,
            "{mode:?}: {found:?}"
        );
        assert!(evaluation(&events).delivered, "{mode:?}: the run goes on");
    }
}

#[test]
fn a_wrapped_decision_is_unwrapped_and_flagged() {
    for wrap in [
        |d: &str| format!("{{\"decision\": {d}}}"),
        |d: &str| format!("Sure:\n[{d}]"),
    ] {
        let first = Rc::new(Cell::new(true));
        let hook_first = first.clone();
        let model = tampered(move |req, mut r| {
            if req.step.as_deref() == Some(STEP_ORCHESTRATOR) && hook_first.get() {
                hook_first.set(false);
                r.text = wrap(&r.text);
            }
            r
        });
        let (status, events) = run_on(
            model,
            Variant::Orchestrator,
            query(1),
            ToolMode::Native,
            None,
        );
        assert_eq!(status, RunStatus::Finished);
        let refl = reflections(&events);
        assert!(refl[0].fallback.is_none(), "{:?}", refl[0]);
        let d = calls_of(&events, ORCHESTRATOR);
        let found = repairs_for(&events, d[0]);
        assert_eq!(found.len(), 1);
        assert!(found[0].iter().any(|x| x.kind == RepairKind::Shape));
        assert!(repairs_for(&events, d[1]).is_empty());
    }
    // Nothing to read: the stated fallback, flagged.
    let model = tampered(|req, mut r| {
        if req.step.as_deref() == Some(STEP_ORCHESTRATOR) {
            r.text = "Let the hotel expert go next, I think.".into();
        }
        r
    });
    let (status, events) = run_on(
        model,
        Variant::Orchestrator,
        query(1),
        ToolMode::Native,
        None,
    );
    assert_eq!(status, RunStatus::Finished);
    let decisions = calls_of(&events, ORCHESTRATOR);
    assert!(!decisions.is_empty(), "the orchestrator was asked");
    for c in decisions {
        let found = repairs_for(&events, c);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0][0].kind, RepairKind::Default);
    }
}

#[test]
fn an_unreadable_revision_keeps_the_plan_flagged() {
    let compiled = Rc::new(Cell::new(0));
    let hook_compiled = compiled.clone();
    let model = tampered(move |req, mut r| {
        match req.step.as_deref() {
            Some(STEP_CRITIC) => r.text = "Day 2: dinner should be cheaper.".into(),
            Some(STEP_COMPILER) => {
                hook_compiled.set(hook_compiled.get() + 1);
                if hook_compiled.get() > 1 {
                    r.text = "Sure! Here's the revised plan:".into();
                }
            }
            _ => {}
        }
        r
    });
    let (status, events) = run_on(
        model,
        Variant::Orchestrator,
        query(1),
        ToolMode::Native,
        None,
    );
    assert_eq!(status, RunStatus::Finished);
    let compiler = calls_of(&events, COMPILER);
    assert!(compiler.len() >= 2);
    assert!(repairs_for(&events, compiler[0]).is_empty());
    for c in &compiler[1..] {
        let found = repairs_for(&events, *c);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0][0].kind, RepairKind::Default);
        assert!(found[0][0].detail.contains("the previous plan is kept"));
    }
    assert!(evaluation(&events).delivered);
}

/// Orchestrator replies, given the demo's decision: chatter, half of it,
/// wrapped, 100 KB of junk before it, odd Unicode, JSON of no known shape,
/// nothing, the decision and 100 KB after it.
fn hostile_decision(kind: usize, good: &str) -> String {
    match kind % 8 {
        0 => "Sure! Here's my decision:".into(),
        1 => good.chars().take(good.chars().count() / 2).collect(),
        2 => format!("{{\"result\": [{good}]}}"),
        3 => format!("{}{good}", "{[ junk ".repeat(13_000)),
        4 => "🙂\u{202e} ｛“next”： “hotel”｝ \u{0}\u{feff}".into(),
        5 => r#"{"next": 7, "plan": [1, 2]}"#.into(),
        6 => String::new(),
        _ => format!("{good}\n{}", "and {so} on ".repeat(9_000)),
    }
}

/// Compiler replies, given the demo's: chatter, half of it, its plan
/// wrapped in an object, odd Unicode, nothing.
fn hostile_plan(kind: usize, good: &str) -> String {
    match kind % 5 {
        0 => "Sure! Here's the plan:".into(),
        1 => good.chars().take(good.chars().count() / 2).collect(),
        2 => match first_json_block(good) {
            Some(plan) => serde_json::json!({ "plan": plan }).to_string(),
            None => "{\"plan\": 3}".into(),
        },
        3 => "📅\u{202e} Ｄａｙ １ \u{0}".into(),
        _ => String::new(),
    }
}

#[test]
fn hostile_replies_never_crash_a_run_and_each_is_flagged_once() {
    let mut kinds: HashMap<&'static str, usize> = HashMap::new();
    for mode in [ToolMode::Native, ToolMode::Text] {
        for variant in Variant::ALL {
            // Replies made hostile over the offsets (an odd offset may
            // leave the single agent's one reply as it is).
            let mut made_hostile = 0;
            for offset in 0..8 {
                let counts: Rc<RefCell<HashMap<String, usize>>> = Default::default();
                // Calls whose replies were made hostile, by request text.
                let hostile: Rc<RefCell<Vec<ChatRequest>>> = Default::default();
                let (c, h) = (counts.clone(), hostile.clone());
                let model = tampered(move |req, mut r: ChatResponse| {
                    let step = req.step.clone().unwrap_or_default();
                    let n = {
                        let mut c = c.borrow_mut();
                        let n = c.entry(step.clone()).or_default();
                        *n += 1;
                        *n - 1 + offset
                    };
                    let expert = step.starts_with(STEP_EXPERT_PREFIX) || step == STEP_SOLO;
                    if step == STEP_ORCHESTRATOR {
                        r.text = hostile_decision(n, &r.text);
                        h.borrow_mut().push(req.clone());
                    } else if step == STEP_COMPILER {
                        r.text = hostile_plan(n, &r.text);
                        h.borrow_mut().push(req.clone());
                    } else if step == STEP_CRITIC && n % 3 == 0 {
                        r.text = String::new();
                        h.borrow_mut().push(req.clone());
                    } else if expert && !has_results(req) && n % 2 == 0 {
                        match mode {
                            ToolMode::Native => r.tool_calls.push(ToolCall {
                                id: format!("bad-{n}"),
                                name: "Teleport".into(),
                                arguments: "{oops".into(),
                            }),
                            ToolMode::Text => {
                                r.text = format!("Teleport[Paris]\n{}", r.text);
                            }
                        }
                        h.borrow_mut().push(req.clone());
                    }
                    r
                });
                let label = format!("{} {mode:?} offset {offset}", variant.id());
                let (status, events) = run_on(model, variant, query(1), mode, None);
                assert_eq!(status, RunStatus::Finished, "{label}");
                assert!(
                    matches!(
                        events.last().map(|e| &e.event),
                        Some(RunEvent::RunFinished { .. })
                    ),
                    "{label}: no terminal event last"
                );
                let calls = calls(&events);
                let mut flagged: HashMap<u32, usize> = HashMap::new();
                for (call, repairs) in repaired(&events) {
                    assert!(!repairs.is_empty(), "{label}");
                    for x in &repairs {
                        *kinds.entry(x.kind.label()).or_default() += 1;
                    }
                    assert!(calls.contains_key(&call), "{label}: unknown call {call}");
                    *flagged.entry(call).or_default() += 1;
                }
                let hostile = hostile.borrow();
                made_hostile += hostile.len();
                assert!(
                    hostile
                        .iter()
                        .all(|h| calls.values().any(|(_, _, req)| req == h)),
                    "{label}: a hostile reply's call is not in the log"
                );
                for (call, (agent, step, req)) in &calls {
                    let n = flagged.get(call).copied().unwrap_or(0);
                    if hostile.contains(req) {
                        assert_eq!(n, 1, "{label}: call {call} of {agent} ({step})");
                    } else {
                        assert_eq!(n, 0, "{label}: call {call} of {agent} ({step})");
                    }
                }
                assert!(
                    evaluation(&events).steps > 0,
                    "{label}: the run was evaluated"
                );
            }
            assert!(
                made_hostile > 0,
                "{} {mode:?}: no reply was made hostile",
                variant.id()
            );
        }
    }
    let mut kinds: Vec<(&str, usize)> = kinds.into_iter().collect();
    kinds.sort();
    println!("repairs by kind: {kinds:?}");
    for kind in [
        RepairKind::Shape,
        RepairKind::Default,
        RepairKind::ToolError,
        RepairKind::AroundText,
    ] {
        assert!(
            kinds.iter().any(|(k, _)| *k == kind.label()),
            "no {kind:?}: {kinds:?}"
        );
    }
}
