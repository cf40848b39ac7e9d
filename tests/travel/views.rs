//! The travel planner's views over a real log: the orchestrator variant
//! run with a scripted model on the built-in world, folded into
//! `TravelView` (and the generic inspector) and rendered to HTML, hostile
//! payloads included. (The tool-table reader: `tool_tables.rs`; CSV
//! exports: `run_export.rs`.)

use futures::executor::block_on;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::execute;
use roundtable::engine::coordinators::travel::contract::*;
use roundtable::engine::coordinators::travel::html::plan::plan_record_html;
use roundtable::engine::coordinators::travel::html::{
    metrics_html, notebook_html, plan_html, reflections_html,
};
use roundtable::engine::coordinators::travel::view::TravelView;
use roundtable::engine::coordinators::travel::{options_for, query_values};
use roundtable::engine::domains::travel::builtin::{builtin_queries, BUILTIN_QUERIES_JSONL};
use roundtable::engine::domains::travel::{Check, Query, TravelDb};
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::{ChatRequest, ChatResponse, Role, ToolCall, Usage};
use roundtable::engine::run::{LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent};
use roundtable::engine::views::html::{esc, handoffs_html, inspector_html};
use roundtable::engine::views::inspector::InspectorView;
use roundtable::engine::views::Fold;
use serde_json::json;
use std::cell::Cell;
use std::rc::Rc;

const DECISIONS: [&str; 7] = [
    TRANSPORTATION,
    HOTEL,
    RESTAURANT,
    HOTEL,
    ATTRACTION,
    TRANSPORTATION,
    PLAN,
];
const HOSTILE: &str = "<img src=x onerror=alert(1)>";

fn text(t: &str) -> ChatResponse {
    ChatResponse {
        text: t.into(),
        usage: Usage::counted(10, 10),
        ..ChatResponse::default()
    }
}

fn tools(calls: Vec<(&str, serde_json::Value)>, next: &Cell<usize>) -> ChatResponse {
    let tool_calls = calls
        .into_iter()
        .map(|(name, args)| {
            next.set(next.get() + 1);
            ToolCall {
                id: format!("tc{}", next.get()),
                name: name.into(),
                arguments: args.to_string(),
            }
        })
        .collect();
    ChatResponse {
        tool_calls,
        ..text("")
    }
}

/// The reference plan of query 1 with day 2's lunch replaced by a restaurant
/// that is not in the sandbox.
fn mutated_plan(q: &Query) -> String {
    let mut plan = q.annotated_plan.as_ref().expect("reference plan").to_json();
    plan[1]["lunch"] = json!(format!("Nowhere Diner, {}", q.dest));
    format!("Here is the plan:\n```json\n{plan}\n```")
}

fn scripted(db: Rc<TravelDb>, q: Query) -> ScriptedModel {
    let (decision, critic, ids) = (
        Rc::new(Cell::new(0usize)),
        Rc::new(Cell::new(0usize)),
        Rc::new(Cell::new(0usize)),
    );
    let plan = mutated_plan(&q);
    ScriptedModel::new("scripted").otherwise(move |req: &ChatRequest| {
        let step = req.step.clone().unwrap_or_default();
        if step == STEP_ORCHESTRATOR {
            let i = decision.get().min(DECISIONS.len() - 1);
            decision.set(i + 1);
            let next = DECISIONS[i];
            return text(&json!({"done": format!("step {i}"), "missing": "the rest", "conflicts": "", "next": next, "instruction": format!("Work on {next} {HOSTILE}")}).to_string());
        }
        if let Some(expert) = step.strip_prefix(STEP_EXPERT_PREFIX) {
            if req.messages.iter().any(|m| m.role == Role::Tool) {
                return text(&format!("Done: the {expert} part is settled."));
            }
            let city = json!({"city": q.dest});
            let calls = match expert {
                TRANSPORTATION => vec![
                    ("FlightSearch", json!({"origin": q.org, "destination": q.dest, "date": q.date[0]})),
                    ("GoogleDistanceMatrix", json!({"origin": q.org, "destination": q.dest, "mode": "self-driving"})),
                    ("CitySearch", json!({"state": db.state_of(&q.dest).unwrap_or("Nowhere")})),
                ],
                HOTEL => vec![("AccommodationSearch", city)],
                RESTAURANT => vec![("RestaurantSearch", json!({"city": "Atlantis"}))],
                _ => vec![("AttractionSearch", city)],
            };
            return tools(calls, &ids);
        }
        if step == STEP_CRITIC {
            critic.set(critic.get() + 1);
            return text(if critic.get() == 1 { "Day 2 lunch looks wrong." } else { APPROVED });
        }
        text(&plan)
    })
}

fn orchestrated_run() -> (Vec<LoggedEvent>, Rc<TravelDb>, Query) {
    let db = Rc::new(TravelDb::builtin());
    let (_, value) = query_values(BUILTIN_QUERIES_JSONL, "builtin")
        .expect("queries")
        .remove(0);
    let q = builtin_queries().remove(0);
    let mut config = RunConfig::new(ID, &q.query, ModelSpec::demo());
    config.variant = Some("orchestrator".into());
    let mut options = options_for(value, "builtin", ToolMode::Native);
    options.max_steps = 40;
    config.options = serde_json::to_value(&options).expect("options");
    let ctx = RunCtx::new(
        config,
        ModelRouter::single(Rc::new(scripted(db.clone(), q.clone()))),
        Rc::new(FakeClock::new()),
    );
    block_on(execute(&ctx));
    (ctx.events(), db, q)
}

fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

#[test]
fn the_orchestrated_run_folds_into_every_travel_view() {
    let (events, db, q) = orchestrated_run();
    assert_eq!(
        events.last().map(|e| e.event.kind()),
        Some("run_finished"),
        "{:?}",
        events.last()
    );
    let view = TravelView::of(&events);
    let agents = InspectorView::of(&events);
    let eval = view.evaluation.clone().expect("evaluation recorded");

    // Notebook: every expert tool call, linked to its tool_called event.
    assert_eq!(view.notebook.len(), 3 * 2 + 2 + 1 + 1);
    for (i, card) in view.notebook.iter().enumerate() {
        assert_eq!(card.key, format!("N{}", i + 1));
        let src = card.source_seq.expect("source") as usize;
        match &events[src].event {
            RunEvent::ToolCalled {
                id, agent, tool, ..
            } => {
                assert_eq!(
                    (id, agent, tool),
                    (&card.entry.call_id, &card.entry.author, &card.entry.tool)
                );
            }
            other => panic!("source is {other:?}"),
        }
        if card.entry.ok {
            assert!(
                card.table.is_some(),
                "{} did not parse: {}",
                card.key,
                card.entry.content
            );
        }
    }
    let hotel = view
        .notebook
        .iter()
        .find(|c| c.entry.tool == "AccommodationSearch")
        .expect("hotel entry");
    let table = hotel.table.as_ref().expect("table");
    let rows: Vec<_> = db.accommodations_in(&q.dest).collect();
    assert_eq!(table.header[0], "NAME");
    assert_eq!(table.rows.len(), rows.len());
    assert_eq!(table.rows[0][0], rows[0].name);
    assert!(table.rows.iter().all(|r| r[7] == q.dest));
    let cities = view
        .notebook
        .iter()
        .find(|c| c.entry.tool == "CitySearch")
        .and_then(|c| c.table.as_ref())
        .expect("cities");
    assert_eq!(
        cities.rows.len(),
        db.cities_in_state(db.state_of(&q.dest).expect("state"))
            .expect("cities")
            .len()
    );
    let bad = view
        .notebook
        .iter()
        .find(|c| c.entry.tool == "RestaurantSearch")
        .expect("restaurant entry");
    assert!(!bad.entry.ok && bad.table.is_none());

    let nb = notebook_html(&view);
    let plain = strip_tags(&nb);
    let k = view
        .notebook
        .iter()
        .position(|c| c.key == hotel.key)
        .expect("pos")
        + 1;
    assert!(
        plain.contains(&format!(
            "N{k} · Hotel expert · AccommodationSearch[{}]",
            q.dest
        )),
        "{plain}"
    );
    assert!(nb.contains(&format!(
        "data-action=\"show-event\" data-seq=\"{}\"",
        hotel.source_seq.expect("seq")
    )));
    assert!(
        nb.contains("<table class=\"tp-table tp-tool-table\">")
            && nb.contains("<pre class=\"tp-raw\">")
    );
    assert!(notebook_html(&TravelView::default())
        .contains("The experts' tool results appear here, as the notebook fills."));

    // Revisits: live counters, equal to the evaluation's at the end.
    let expected = vec![
        (TRANSPORTATION.to_string(), 1),
        (HOTEL.to_string(), 1),
        (RESTAURANT.to_string(), 0),
        (ATTRACTION.to_string(), 0),
    ];
    assert_eq!(eval.revisits, expected);
    assert_eq!(view.revisits(), expected);
    let mut live = TravelView::default();
    let mut changes = Vec::new();
    for e in &events {
        let before = live.revisits();
        live.apply(e);
        if live.revisits() != before {
            match &e.event {
                RunEvent::LlmRequest { agent, .. } => changes.push(agent.clone()),
                other => panic!("revisits changed on {other:?}"),
            }
        }
    }
    assert_eq!(changes, [HOTEL, TRANSPORTATION]);

    // Reflections and hand-offs, in order.
    let nexts: Vec<&str> = view
        .reflections
        .iter()
        .map(|r| r.reflection.decision.next.as_str())
        .collect();
    assert_eq!(nexts, DECISIONS);
    assert!(view
        .reflections
        .windows(2)
        .all(|w| w[0].reflection.step < w[1].reflection.step));
    let from_orch: Vec<&str> = agents
        .handoffs
        .items
        .iter()
        .filter(|h| h.from == ORCHESTRATOR)
        .map(|h| h.to.as_str())
        .collect();
    assert_eq!(
        from_orch,
        [
            TRANSPORTATION,
            HOTEL,
            RESTAURANT,
            HOTEL,
            ATTRACTION,
            TRANSPORTATION,
            SUMMARIZER
        ]
    );

    // Plans: the first and the one after the critic's round.
    let rounds: Vec<u32> = view.plans.iter().map(|p| p.record.round).collect();
    assert_eq!(rounds, [0, 1]);
    let critic_round = plan_record_html(&view.plans[0].record);
    assert!(
        critic_round.contains("tp-plan")
            && !critic_round.contains("cell-pass")
            && !critic_round.contains("cell-fail")
    );

    // Inspectors (the generic view): private activity only.
    let h = agents.inspector(HOTEL).expect("hotel inspector");
    assert_eq!(h.llm_calls.len(), 4);
    assert!(h.llm_calls.iter().all(
        |c| c.step.as_deref() == Some("travel.expert.hotel") && c.prompt.contains(GOAL_HEADING)
    ));
    assert!(h
        .tool_calls
        .iter()
        .all(|t| t.tool == "AccommodationSearch" && t.result.as_ref().is_some_and(|r| r.0)));
    // The orchestrator's calls show the shape they asked for; an
    // expert's (free text and tools) ask none.
    let o = agents
        .inspector(ORCHESTRATOR)
        .expect("orchestrator inspector");
    assert!(!o.llm_calls.is_empty());
    assert!(o.llm_calls.iter().all(|c| c
        .schema
        .as_deref()
        .is_some_and(|s| s.contains("\"next\"") && s.contains("\"attraction\""))));
    assert!(inspector_html(&agents, ORCHESTRATOR).contains("Reply shape asked for (JSON Schema)"));
    assert!(h.llm_calls.iter().all(|c| c.schema.is_none()));
    let html = inspector_html(&agents, HOTEL);
    assert!(
        html.contains("AccommodationSearch[")
            && !html.contains("FlightSearch")
            && !html.contains("Atlantis")
    );
    for (agent, insp) in &agents.inspectors {
        if agent != HOTEL {
            for t in insp.tool_calls.iter().filter_map(|t| t.result.as_ref()) {
                assert!(
                    !html.contains(&esc(&t.1)),
                    "{agent}'s tool result is in the hotel's inspector"
                );
            }
        }
    }
    // The orchestrator's reflections: the travel section of its inspector.
    let orch = reflections_html(&view, ORCHESTRATOR);
    assert_eq!(
        orch.matches("class=\"tp-reflection\"").count(),
        DECISIONS.len()
    );
    assert!(
        orch.contains("<dt>Instruction</dt>") && !orch.contains("<img") && orch.contains("&lt;img")
    );
    assert_eq!(
        reflections_html(&view, HOTEL),
        "",
        "experts have no reflections"
    );
    assert!(agents
        .inspector(ORCHESTRATOR)
        .is_some_and(|i| i.tool_calls.is_empty()));
    // Hand-offs the hotel expert received, in its inspector.
    assert_eq!(
        html.matches("<li data-seq=").count(),
        agents.handoffs_of(HOTEL).count()
    );
    assert!(agents.handoffs_of(HOTEL).count() >= 2);

    // The evaluated plan: cell classes and titles from the verdicts.
    let plan = plan_html(eval.plan.as_ref().expect("plan"), Some(&eval));
    let sandbox = eval
        .commonsense
        .iter()
        .find(|v| v.key == Check::InformationInSandbox.key())
        .expect("verdict");
    assert_eq!(sandbox.pass, Some(false));
    assert_eq!(sandbox.cells, vec![(1, "lunch".to_string())]);
    let row = &plan[plan.find("<tr data-day=\"1\">").expect("day 2")..];
    let row = &row[..row.find("</tr>").expect("end")];
    let title = format!(
        "Within Sandbox: {}",
        sandbox.message.as_deref().expect("message")
    );
    assert!(
        row.contains(&format!(
            "<td data-field=\"lunch\" class=\"cell-fail\" title=\"{}\">",
            esc(&title)
        )),
        "{row}"
    );
    let failing_cells: usize = eval
        .commonsense
        .iter()
        .chain(&eval.hard)
        .filter(|v| v.pass == Some(false))
        .flat_map(|v| v.cells.iter())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    assert_eq!(plan.matches("cell-fail").count(), failing_cells);
    assert_eq!(
        plan.matches("cell-pass").count(),
        8 * q.days as usize - failing_cells
    );

    // Metrics: every check by its paper name; hard checks skipped.
    let m = metrics_html(&eval, view.budget());
    for c in Check::COMMONSENSE.iter().chain(Check::HARD.iter()) {
        assert!(m.contains(c.display_name()), "{}", c.display_name());
    }
    let row = &m[m
        .find("data-check=\"is_valid_information_in_sandbox\"")
        .expect("row")..];
    assert!(row[..row.find("</tr>").expect("end")].contains("tp-fail"));
    assert_eq!(m.matches("not run").count(), 5);
    assert!(!eval.hard_pass && !eval.final_pass);
    assert!(strip_tags(&m).contains("Transportation1"));
    assert_eq!(view.budget(), Some(q.budget));
}

#[test]
fn hostile_and_malformed_payloads_are_escaped_or_skipped() {
    let script = "<script>alert(1)</script>";
    let ev = |seq: u64, event: RunEvent| LoggedEvent {
        seq,
        t_ms: seq,
        event,
    };
    let entry = NotebookEntry {
        author: HOTEL.into(),
        tool: "<b>Tool</b>".into(),
        args: vec![script.into()],
        call_id: "c1".into(),
        ok: true,
        content: format!("</pre>{script}"),
    };
    let reflection = Reflection {
        step: 1,
        decision: Decision {
            done: script.into(),
            missing: String::new(),
            conflicts: script.into(),
            next: script.into(),
            instruction: script.into(),
        },
        fallback: Some(script.into()),
    };
    let note = |store: &str, payload: serde_json::Value| RunEvent::NoteWritten {
        agent: ORCHESTRATOR.into(),
        store: store.into(),
        key: None,
        payload,
    };
    let events = vec![
        ev(
            0,
            RunEvent::AgentAdded {
                agent: HOTEL.into(),
                role: HOTEL.into(),
                name: script.into(),
                model: String::new(),
            },
        ),
        ev(
            1,
            RunEvent::LlmRequest {
                call: 0,
                agent: HOTEL.into(),
                model: "m".into(),
                request: ChatRequest::new(vec![roundtable::engine::model::Message::user(script)]),
            },
        ),
        ev(
            2,
            RunEvent::LlmDelta {
                call: 0,
                text: script.into(),
            },
        ),
        ev(
            3,
            RunEvent::ToolCalled {
                id: "c1".into(),
                agent: HOTEL.into(),
                tool: "<b>Tool</b>".into(),
                args: json!([script]),
                call: Some(0),
            },
        ),
        ev(
            4,
            RunEvent::ToolReturned {
                id: "c1".into(),
                agent: HOTEL.into(),
                ok: true,
                output: script.into(),
            },
        ),
        ev(
            5,
            RunEvent::NoteWritten {
                agent: HOTEL.into(),
                store: STORE_NOTEBOOK.into(),
                key: Some(script.into()),
                payload: serde_json::to_value(&entry).expect("json"),
            },
        ),
        ev(6, note(STORE_NOTEBOOK, json!({"bogus": 1}))),
        ev(
            7,
            note(
                STORE_REFLECTION,
                serde_json::to_value(&reflection).expect("json"),
            ),
        ),
        ev(8, note(STORE_REFLECTION, json!("not a reflection"))),
        ev(9, note(STORE_EVALUATION, json!({"variant": "nope"}))),
        ev(10, note(STORE_PLAN, json!([1, 2]))),
        ev(
            11,
            RunEvent::Handoff {
                from: ORCHESTRATOR.into(),
                to: HOTEL.into(),
                reason: script.into(),
            },
        ),
    ];
    let view = TravelView::of(&events);
    assert_eq!(
        (
            view.notebook.len(),
            view.reflections.len(),
            view.plans.len()
        ),
        (1, 1, 0)
    );
    assert!(view.evaluation.is_none());
    assert_eq!(view.notebook[0].source_seq, Some(3));
    let agents = InspectorView::of(&events);
    for html in [
        notebook_html(&view),
        reflections_html(&view, ORCHESTRATOR),
        inspector_html(&agents, HOTEL),
        inspector_html(&agents, ORCHESTRATOR),
        inspector_html(&agents, script),
        handoffs_html(&agents.handoffs),
    ] {
        assert!(
            !html.contains("<script") && !html.contains("<b>Tool"),
            "{html}"
        );
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }
    // A plan that is not a list of days still renders, as text.
    let odd = plan_html(&json!({"x": script}), None);
    assert!(!odd.contains("<script") && odd.contains("tp-raw"));
}
