//! The offline demo model plays every role of the travel coordinator: on
//! every built-in query and every variant it delivers a plan the evaluator
//! scores, with real tool calls in both protocols; the orchestrator variant
//! passes the final check on most queries; the orchestrator revisits an
//! expert whose part is missing and sends the route back when a city has no
//! suitable stay; the critic catches a broken plan and the compiler fixes
//! it; malformed requests get clear answers.
#![cfg(not(target_arch = "wasm32"))]

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use roundtable::engine::coordinators::travel::contract::*;
use roundtable::engine::coordinators::travel::orchestrator::parse_decision;
use roundtable::engine::coordinators::travel::{options_for, query_values};
use roundtable::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use roundtable::engine::domains::travel::tables::TableLoad;
use roundtable::engine::domains::travel::{Tables, TravelDb};
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::{
    ChatModel, ChatRequest, ChatResponse, DeltaSink, Message, ModelError, Role,
};
use roundtable::engine::run::cancel::CancelToken;
use roundtable::engine::run::clock::FakeClock;
use roundtable::engine::run::{
    execute, LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus,
};
use serde_json::Value;
use std::rc::Rc;

/// The orchestrator variant must pass the final check on at least this many
/// of the twelve built-in queries.
const ORCHESTRATOR_MIN_FINAL: usize = 10;

fn queries() -> Vec<Value> {
    query_values(BUILTIN_QUERIES_JSONL, "builtin")
        .expect("queries")
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

fn query(idx: u32) -> Value {
    queries()
        .into_iter()
        .find(|q| q["idx"] == idx)
        .expect("built-in query")
}

fn demo() -> Rc<dyn ChatModel> {
    Rc::new(DemoModel::instant(Rc::new(FakeClock::new())))
}

fn run_on(
    model: Rc<dyn ChatModel>,
    variant: Variant,
    query: Value,
    mode: ToolMode,
    db: Option<TravelDb>,
) -> (RunStatus, Vec<LoggedEvent>) {
    let mut config = RunConfig::new(ID, "trip", ModelSpec::demo());
    config.variant = Some(variant.id().into());
    config.options = serde_json::to_value(options_for(query, "builtin", mode)).expect("options");
    let ctx = RunCtx::new(
        config,
        ModelRouter::single(model),
        Rc::new(FakeClock::new()),
    );
    if let Some(db) = db {
        ctx.insert_resource(Rc::new(db));
    }
    let status = block_on(execute(&ctx));
    (status, ctx.events())
}

fn run(variant: Variant, query: Value, mode: ToolMode) -> (RunStatus, Vec<LoggedEvent>) {
    run_on(demo(), variant, query, mode, None)
}

fn evaluation(events: &[LoggedEvent]) -> RunEvaluation {
    events
        .iter()
        .find_map(|e| match &e.event {
            RunEvent::NoteWritten { store, payload, .. } if store == STORE_EVALUATION => {
                serde_json::from_value(payload.clone()).ok()
            }
            _ => None,
        })
        .expect("an evaluation")
}

fn failed_checks(e: &RunEvaluation) -> Vec<String> {
    e.commonsense
        .iter()
        .chain(&e.hard)
        .filter(|v| v.pass == Some(false))
        .map(|v| format!("{}: {}", v.key, v.message.as_deref().unwrap_or("")))
        .collect()
}

fn reflections(events: &[LoggedEvent]) -> Vec<Reflection> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::NoteWritten { store, payload, .. } if store == STORE_REFLECTION => {
                serde_json::from_value(payload.clone()).ok()
            }
            _ => None,
        })
        .collect()
}

fn handoffs_from_orchestrator(events: &[LoggedEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::Handoff { from, to, .. } if from == ORCHESTRATOR => Some(to.clone()),
            _ => None,
        })
        .collect()
}

fn tool_calls_by(events: &[LoggedEvent], agent: &str) -> Vec<(String, Value)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::ToolCalled {
                agent: a,
                tool,
                args,
                ..
            } if a == agent => Some((tool.clone(), args.clone())),
            _ => None,
        })
        .collect()
}

fn posts_by(events: &[LoggedEvent], agent: &str) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::MessagePosted { from, text, .. } if from == agent => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn responses(events: &[LoggedEvent]) -> Vec<ChatResponse> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmResponse { response, .. } => Some(response.clone()),
            _ => None,
        })
        .collect()
}

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
                Variant::Single => vec![SOLO],
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

/// Rewrites an answer of the demo model.
type Hook = Box<dyn Fn(&ChatRequest, ChatResponse) -> ChatResponse>;

/// The demo model with a hook that may rewrite its answers.
struct Tampered {
    inner: DemoModel,
    hook: Hook,
}

impl ChatModel for Tampered {
    fn name(&self) -> String {
        "demo-tampered".into()
    }
    fn reports_usage(&self) -> bool {
        false
    }
    fn complete<'a>(
        &'a self,
        req: &'a ChatRequest,
        _sink: DeltaSink<'a>,
        _cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<ChatResponse, ModelError>> {
        let r = (self.hook)(req, self.inner.answer(req));
        Box::pin(async move { Ok(r) })
    }
}

fn tampered(
    hook: impl Fn(&ChatRequest, ChatResponse) -> ChatResponse + 'static,
) -> Rc<dyn ChatModel> {
    Rc::new(Tampered {
        inner: DemoModel::instant(Rc::new(FakeClock::new())),
        hook: Box::new(hook),
    })
}

fn first_user(req: &ChatRequest) -> &str {
    req.messages
        .iter()
        .find(|m| m.role == Role::User)
        .map_or("", |m| m.content.as_str())
}

#[test]
fn the_orchestrator_revisits_an_expert_whose_part_is_missing() {
    // The hotel expert's first post loses its choices.
    let model = tampered(|req, mut r| {
        let first_hotel_post = req.step.as_deref() == Some(&expert_step(HOTEL))
            && r.tool_calls.is_empty()
            && !parse_conversation(first_user(req))
                .iter()
                .any(|(id, _)| id == HOTEL);
        if first_hotel_post {
            r.text = "I looked at the listings and will share my picks later.".into();
        }
        r
    });
    let (status, events) = run_on(
        model,
        Variant::Orchestrator,
        query(5),
        ToolMode::Native,
        None,
    );
    assert_eq!(status, RunStatus::Finished);
    assert_eq!(
        handoffs_from_orchestrator(&events),
        vec![
            TRANSPORTATION,
            HOTEL,
            HOTEL,
            RESTAURANT,
            ATTRACTION,
            SUMMARIZER
        ],
        "the hotel expert is sent back right after its empty post"
    );
    let refl = reflections(&events);
    assert!(
        refl[2].decision.conflicts.contains("hotel") && refl[2].decision.next == HOTEL,
        "the reflection names the missing part: {:?}",
        refl[2].decision
    );
    let e = evaluation(&events);
    assert_eq!(
        e.revisits,
        vec![
            (TRANSPORTATION.into(), 0),
            (HOTEL.into(), 1),
            (RESTAURANT.into(), 0),
            (ATTRACTION.into(), 0)
        ]
    );
    assert!(
        posts_by(&events, HOTEL)[1].contains("```json"),
        "the second post has the choices"
    );
    assert!(e.final_pass, "{:?}", failed_checks(&e));
}

#[test]
fn a_transportation_expert_that_found_nothing_is_asked_again() {
    // As when a user forks a run at the transportation expert's first call
    // and edits its answer (the browser test does this through the UI).
    let model = tampered(|req, mut r| {
        let first_call = req.step.as_deref() == Some(&expert_step(TRANSPORTATION))
            && !req.messages.iter().any(|m| m.role == Role::Tool)
            && !parse_conversation(first_user(req))
                .iter()
                .any(|(id, _)| id == TRANSPORTATION);
        if first_call {
            r.text = "No tools this time: I could not find a route, please ask me again.".into();
            r.tool_calls.clear();
        }
        r
    });
    let (status, events) = run_on(
        model,
        Variant::Orchestrator,
        query(2),
        ToolMode::Native,
        None,
    );
    assert_eq!(status, RunStatus::Finished);
    assert_eq!(
        handoffs_from_orchestrator(&events),
        vec![
            TRANSPORTATION,
            TRANSPORTATION,
            HOTEL,
            RESTAURANT,
            ATTRACTION,
            SUMMARIZER
        ]
    );
    let e = evaluation(&events);
    assert_eq!(e.revisits[0], (TRANSPORTATION.into(), 1));
    assert!(e.final_pass, "{:?}", failed_checks(&e));
}

/// The built-in world without any place to stay in `city`.
fn world_without_stays_in(city: &str) -> TravelDb {
    let base = TravelDb::builtin();
    fn full<T>(rows: Vec<T>) -> TableLoad<T> {
        TableLoad {
            read: rows.len(),
            rows,
            dropped: 0,
        }
    }
    TravelDb::from_tables(Tables {
        accommodations: full(
            base.accommodations
                .iter()
                .filter(|a| a.city != city)
                .cloned()
                .collect(),
        ),
        attractions: full(base.attractions.clone()),
        restaurants: full(base.restaurants.clone()),
        flights: full(base.flights.clone()),
        distances: full(base.roads.clone()),
        cities: full(base.cities.clone()),
    })
}

#[test]
fn a_city_without_a_suitable_stay_sends_the_route_back() {
    // Query 4 (Juniper Flats → 2 cities of Aurelia) first goes through
    // Brightwater; here Brightwater has nowhere to stay.
    let (_, plain) = run(Variant::Orchestrator, query(4), ToolMode::Native);
    let first_route = posts_by(&plain, TRANSPORTATION).join("\n");
    assert!(first_route.contains("Brightwater"), "{first_route}");
    let (status, events) = run_on(
        demo(),
        Variant::Orchestrator,
        query(4),
        ToolMode::Native,
        Some(world_without_stays_in("Brightwater")),
    );
    assert_eq!(status, RunStatus::Finished);
    assert_eq!(
        handoffs_from_orchestrator(&events),
        vec![
            TRANSPORTATION,
            HOTEL,
            TRANSPORTATION,
            HOTEL,
            RESTAURANT,
            ATTRACTION,
            SUMMARIZER
        ]
    );
    let refl = reflections(&events);
    assert!(
        refl[2]
            .decision
            .instruction
            .contains("(avoid: Brightwater)"),
        "{:?}",
        refl[2]
    );
    let routes = posts_by(&events, TRANSPORTATION);
    assert!(routes[1].contains("leave out Brightwater"), "{}", routes[1]);
    let e = evaluation(&events);
    assert_eq!(e.revisits[0], (TRANSPORTATION.into(), 1));
    assert_eq!(e.revisits[1], (HOTEL.into(), 1));
    assert!(
        !e.plan
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default()
            .contains("Brightwater"),
        "the new route avoids Brightwater"
    );
    assert!(e.final_pass, "{:?}", failed_checks(&e));
}

#[test]
fn the_critic_catches_a_broken_plan_and_the_compiler_fixes_it() {
    // The compiler's first plan eats the same breakfast twice.
    let model = tampered(|req, mut r| {
        let first_plan = req.step.as_deref() == Some(STEP_COMPILER)
            && !parse_conversation(first_user(req))
                .iter()
                .any(|(id, _)| id == COMPILER);
        if first_plan {
            if let Some(day2) = r.text.find("\"days\": 2") {
                let rest = &r.text[day2..];
                let lunch = rest.find("\"lunch\": \"").map(|i| day2 + i + 10);
                let breakfast = rest
                    .find("\"breakfast\": \"")
                    .map(|i| day2 + i + 14)
                    .and_then(|s| r.text[s..].find('"').map(|e| r.text[s..s + e].to_string()));
                if let (Some(at), Some(b)) = (lunch, breakfast) {
                    let end = at + r.text[at..].find('"').unwrap_or(0);
                    r.text.replace_range(at..end, &b);
                }
            }
        }
        r
    });
    let (status, events) = run_on(
        model,
        Variant::Orchestrator,
        query(2),
        ToolMode::Native,
        None,
    );
    assert_eq!(status, RunStatus::Finished);
    let reviews = posts_by(&events, CRITIC);
    assert!(reviews.len() >= 2, "{reviews:?}");
    assert!(!reviews[0].contains(APPROVED), "{}", reviews[0]);
    assert!(
        reviews[0].contains("Day 2, lunch") && reviews[0].contains("used twice"),
        "{}",
        reviews[0]
    );
    assert!(reviews[1].contains(APPROVED), "{}", reviews[1]);
    let plans: Vec<PlanRecord> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::NoteWritten { store, payload, .. } if store == STORE_PLAN => {
                serde_json::from_value(payload.clone()).ok()
            }
            _ => None,
        })
        .collect();
    assert_eq!(plans.len(), 2);
    assert_ne!(
        plans[0].plan, plans[1].plan,
        "the revision changed the plan"
    );
    let e = evaluation(&events);
    assert_eq!(e.plan, plans[1].plan, "the revised plan is delivered");
    assert!(e.final_pass, "{:?}", failed_checks(&e));
}

#[test]
fn malformed_requests_get_clear_answers() {
    let m = DemoModel::instant(Rc::new(FakeClock::new()));
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

/// Built-in query 11 wants a stay that allows children under 10 in two
/// cities of Aurelia; nowhere in Brightwater does, but the cheapest route
/// goes through it. The orchestrator sends the route back (a revisit of
/// the transportation and hotel experts) and passes; the single agent and
/// the fixed workflow do not go back and fail, as in the paper's comparison.
#[test]
fn on_the_builtin_world_only_the_orchestrator_recovers_from_a_city_without_stays() {
    let (_, orch) = run(Variant::Orchestrator, query(11), ToolMode::Native);
    let e = evaluation(&orch);
    let revisits = |x: &str| {
        e.revisits
            .iter()
            .find(|(n, _)| n == x)
            .map_or(0, |(_, c)| *c)
    };
    assert!(e.final_pass, "the orchestrator recovers: {:?}", e.hard);
    assert!(revisits(TRANSPORTATION) >= 1 && revisits(HOTEL) >= 1);
    let plan = serde_json::to_string(&e.plan).unwrap_or_default();
    assert!(
        !plan.contains("Brightwater"),
        "the new route avoids Brightwater"
    );
    for variant in [Variant::Single, Variant::Fixed, Variant::FixedNotebook] {
        let (_, events) = run(variant, query(11), ToolMode::Native);
        let e = evaluation(&events);
        assert!(e.delivered && !e.final_pass, "{variant:?} cannot go back");
    }
}
