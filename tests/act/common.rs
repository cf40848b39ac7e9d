//! A scripted ACT team for the tests, a run helper, and readers of the log.
#![allow(dead_code)]

use futures::executor::block_on;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::coordinators::act::plus::Bank;
use roundtable::engine::coordinators::act::setup::configure;
use roundtable::engine::coordinators::{self};
use roundtable::engine::domains::creative::{ComplexTask, CreativeSet, Part};
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::{ChatRequest, ChatResponse, Usage};
use roundtable::engine::run::{
    LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus,
};
use serde::de::DeserializeOwned;
use std::rc::Rc;

/// A four-part task with references.
pub fn task() -> ComplexTask {
    let part = |s: &str, d: &str, r: &str| Part {
        subject: s.into(),
        details: vec![d.into()],
        references: vec![r.into()],
    };
    ComplexTask {
        set: CreativeSet::Builtin,
        id: "t".into(),
        text: "Design a tea house.".into(),
        deliverable: "service proposal".into(),
        word_limit: Some(450),
        parts: vec![
            part(
                "Pick the teas",
                "DETAIL-ONE about caffeine",
                "oolong and rooibos",
            ),
            part(
                "Plan the room",
                "DETAIL-TWO about light",
                "warm light and wood",
            ),
            part(
                "Set the prices",
                "DETAIL-THREE about budget",
                "a tasting flight",
            ),
            part(
                "Plan the events",
                "DETAIL-FOUR about weekends",
                "tea ceremony workshops",
            ),
        ],
    }
}

pub fn name_of(req: &ChatRequest) -> String {
    section(req.last_user().unwrap_or_default(), H_NAME)
        .unwrap_or("")
        .to_string()
}

/// The scripted team's answer to every step, in the shape the coordinator reads.
pub fn script(req: &ChatRequest) -> String {
    let text = req.last_user().unwrap_or_default();
    let name = name_of(req);
    let step = req.step.clone().unwrap_or_default();
    match step.as_str() {
        STEP_DECOMPOSE => r#"{"tasks": [{"subject": "p1"}, {"subject": "p2"}, {"subject": "p3"}, {"subject": "p4"}]}"#.into(),
        STEP_EXPERTISE => format!(r#"{{"expertise": ["{name} k1", "{name} k2"]}}"#),
        STEP_TEAM_OPINION => format!("OPINION of {name}."),
        STEP_TEAM_ADVICE => format!("ADVICE of {name}."),
        STEP_FUSE => r#"{"subject": "FUSED-G", "detail": "fused detail", "description": "fused description"}"#.into(),
        STEP_EXPLORE => format!(r#"{{"task": "EXPLORED by {name}"}}"#),
        STEP_ACQUIRE => {
            let speakers = section(text, H_SPEAKERS).unwrap_or("");
            let mut episodes = Vec::new();
            let mut knowledge = Vec::new();
            for s in speakers.split(", ").filter(|s| !s.is_empty()) {
                episodes.push(serde_json::json!({"subject": s, "text": format!("{s} spoke")}));
                knowledge.push(serde_json::json!({
                    "subject": s,
                    "summary": format!("NOTE-BY-{name} about {s} is useful."),
                    "keywords": ["alpha", "beta"],
                    "importance": 5
                }));
            }
            serde_json::json!({"episodes": episodes, "knowledge": knowledge}).to_string()
        }
        STEP_REFLECT => format!(r#"{{"reflection": "r", "deepen": "DEEPEN-{name}", "questions": ["FIRST QUESTION of {name}"]}}"#),
        STEP_FOLLOWUP => r#"{"done": true}"#.into(),
        STEP_ANSWER => "EXPERT ANSWER.".into(),
        STEP_PROD_OPINION => format!("PRODUCTION OPINION of {name}."),
        STEP_INSTRUCT => r#"{"subtasks": []}"#.into(),
        STEP_DRAFT => "A short draft.".into(),
        STEP_CHECK => r#"{"ok": true, "issues": []}"#.into(),
        STEP_REASSERT => format!("REASSERTED by {name}."),
        STEP_RESCORE => r#"{"scores": {}}"#.into(),
        STEP_JUDGE => "Score: 2".into(),
        _ => "Final answer: a story.".into(),
    }
}

fn response(text: String) -> ChatResponse {
    ChatResponse {
        usage: Usage::counted(10, text.len() as u64),
        text,
        finish_reason: Some("stop".into()),
        ..ChatResponse::default()
    }
}

/// A model answering with the script, except where `over` answers.
pub fn model(over: impl Fn(&ChatRequest) -> Option<String> + 'static) -> ScriptedModel {
    ScriptedModel::new("scripted")
        .otherwise(move |req| response(over(req).unwrap_or_else(|| script(req))))
}

pub struct Run {
    pub status: RunStatus,
    pub events: Vec<LoggedEvent>,
    pub requests: Vec<ChatRequest>,
}

impl Run {
    /// Requests of `step`, with the agent who sent each.
    pub fn asked(&self, step: &str) -> Vec<(String, String)> {
        self.events
            .iter()
            .filter_map(|e| match &e.event {
                RunEvent::LlmRequest { agent, request, .. }
                    if request.step.as_deref() == Some(step) =>
                {
                    Some((
                        agent.clone(),
                        request.last_user().unwrap_or_default().to_string(),
                    ))
                }
                _ => None,
            })
            .collect()
    }

    pub fn steps(&self) -> Vec<String> {
        self.requests
            .iter()
            .filter_map(|r| r.step.clone())
            .collect()
    }

    pub fn notes<T: DeserializeOwned>(&self, store: &str) -> Vec<(String, T)> {
        self.events
            .iter()
            .filter_map(|e| match &e.event {
                RunEvent::NoteWritten {
                    agent,
                    store: s,
                    payload,
                    ..
                } if s == store => serde_json::from_value(payload.clone())
                    .ok()
                    .map(|t| (agent.clone(), t)),
                _ => None,
            })
            .collect()
    }

    pub fn result(&self) -> ResultRecord {
        self.notes::<ResultRecord>(STORE_RESULT)
            .pop()
            .map(|(_, r)| r)
            .unwrap_or_else(|| {
                panic!(
                    "no result; status {:?}, failure {:?}",
                    self.status,
                    self.failure()
                )
            })
    }

    pub fn failure(&self) -> Option<String> {
        self.events.iter().find_map(|e| match &e.event {
            RunEvent::RunFailed { reason } => Some(reason.message.clone()),
            _ => None,
        })
    }

    pub fn phases(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| match &e.event {
                RunEvent::PhaseStarted { phase, .. } => Some(phase.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn score(&self, name: &str) -> Option<f64> {
        self.events.iter().find_map(|e| match &e.event {
            RunEvent::ScoreComputed { name: n, value, .. } if n == name => Some(*value),
            _ => None,
        })
    }
}

/// Runs `task` as `variant` with `model`; `tweak` adjusts the options and
/// the config; `bank` is the ACT+ bank.
pub fn run_full(
    task: ComplexTask,
    variant: Variant,
    model: ScriptedModel,
    bank: Option<Rc<Bank>>,
    tweak: impl FnOnce(&mut ActOptions, &mut RunConfig),
) -> Run {
    let mut config = RunConfig::new(ID, "", ModelSpec::demo());
    configure(&mut config, task, variant);
    config.run_id = format!("act-{}", variant.id());
    let mut options: ActOptions = serde_json::from_value(config.options.clone()).expect("options");
    tweak(&mut options, &mut config);
    config.options = serde_json::to_value(&options).expect("json");
    let ctx = RunCtx::new(
        config,
        ModelRouter::single(Rc::new(model.clone())),
        Rc::new(FakeClock::new()),
    );
    if let Some(b) = bank {
        ctx.insert_resource(b);
    }
    let status = block_on(coordinators::execute(&ctx));
    Run {
        status,
        events: ctx.events(),
        requests: model.requests(),
    }
}

pub fn run(variant: Variant, model: ScriptedModel) -> Run {
    run_full(task(), variant, model, None, |_, _| {})
}

pub fn run_with(
    variant: Variant,
    model: ScriptedModel,
    tweak: impl FnOnce(&mut ActOptions, &mut RunConfig),
) -> Run {
    run_full(task(), variant, model, None, tweak)
}
