//! Helpers shared by the demo-model travel tests: running a variant on a
//! built-in query with the demo model (or a tampered one, or a changed
//! world), and reading the run's log.
#![allow(dead_code)]

use futures::executor::block_on;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::execute;
use roundtable::engine::coordinators::travel::batch::evaluation_of;
use roundtable::engine::coordinators::travel::contract::*;
use roundtable::engine::coordinators::travel::{options_for, query_values};
use roundtable::engine::domains::travel::builtin::BUILTIN_QUERIES_JSONL;
use roundtable::engine::domains::travel::tables::TableLoad;
use roundtable::engine::domains::travel::{Tables, TravelDb};
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::{Call, Completion};
use roundtable::engine::model::{ChatModel, ChatRequest, ChatResponse, Role};
use roundtable::engine::run::{
    LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus,
};
use serde_json::Value;
use std::rc::Rc;

pub fn queries() -> Vec<Value> {
    query_values(BUILTIN_QUERIES_JSONL, "builtin")
        .expect("queries")
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

pub fn query(idx: u32) -> Value {
    queries()
        .into_iter()
        .find(|q| q["idx"] == idx)
        .expect("built-in query")
}

pub fn demo() -> Rc<dyn ChatModel> {
    Rc::new(DemoModel::instant(Rc::new(FakeClock::new()), every_script))
}

pub fn run_on(
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

pub fn run(variant: Variant, query: Value, mode: ToolMode) -> (RunStatus, Vec<LoggedEvent>) {
    run_on(demo(), variant, query, mode, None)
}

pub fn evaluation(events: &[LoggedEvent]) -> RunEvaluation {
    evaluation_of(events).expect("an evaluation")
}

pub fn failed_checks(e: &RunEvaluation) -> Vec<String> {
    e.commonsense
        .iter()
        .chain(&e.hard)
        .filter(|v| v.pass == Some(false))
        .map(|v| format!("{}: {}", v.key, v.message.as_deref().unwrap_or("")))
        .collect()
}

pub fn reflections(events: &[LoggedEvent]) -> Vec<Reflection> {
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

pub fn handoffs_from_orchestrator(events: &[LoggedEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::Handoff { from, to, .. } if from == ORCHESTRATOR => Some(to.clone()),
            _ => None,
        })
        .collect()
}

pub fn tool_calls_by(events: &[LoggedEvent], agent: &str) -> Vec<(String, Value)> {
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

pub fn posts_by(events: &[LoggedEvent], agent: &str) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::MessagePosted { from, text, .. } if from == agent => Some(text.clone()),
            _ => None,
        })
        .collect()
}

pub fn responses(events: &[LoggedEvent]) -> Vec<ChatResponse> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmResponse { response, .. } => Some(response.clone()),
            _ => None,
        })
        .collect()
}

/// Rewrites an answer of the demo model.
pub type Hook = Box<dyn Fn(&ChatRequest, ChatResponse) -> ChatResponse>;

/// The demo model with a hook that may rewrite its answers.
pub struct Tampered {
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
    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a> {
        let r = (self.hook)(call.req, self.inner.answer(call.req));
        Box::pin(async move { Ok(r) })
    }
}

pub fn tampered(
    hook: impl Fn(&ChatRequest, ChatResponse) -> ChatResponse + 'static,
) -> Rc<dyn ChatModel> {
    Rc::new(Tampered {
        inner: DemoModel::instant(Rc::new(FakeClock::new()), every_script),
        hook: Box::new(hook),
    })
}

pub fn first_user(req: &ChatRequest) -> &str {
    req.messages
        .iter()
        .find(|m| m.role == Role::User)
        .map_or("", |m| m.content.as_str())
}

/// The built-in world without any place to stay in `city`.
pub fn world_without_stays_in(city: &str) -> TravelDb {
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
