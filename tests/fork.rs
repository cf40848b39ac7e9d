//! Fork at call k: calls before k come from the parent's log (no cost, the
//! live model never sees them), call k carries the user's edit, later calls
//! are live; the usage view charges only live calls.
#![cfg(not(target_arch = "wasm32"))]

use futures::executor::block_on;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::spec::{LocalSampling, Sampling, LOCAL_PROVIDER};
use roundtable::engine::model::{ChatModel, ChatRequest, Message};
use roundtable::engine::run::fork::{fork_spec, ForkEdit, ForkModel};
use roundtable::engine::run::{LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent};
use roundtable::engine::views::usage::UsageView;
use roundtable::engine::views::Fold;
use std::rc::Rc;

/// A small multi-call "coordinator": each call's request includes the
/// previous answer, like a conversation.
fn drive(model: Rc<dyn ChatModel>, calls: usize) -> (Vec<String>, Vec<LoggedEvent>) {
    drive_on(model, calls, ModelSpec::demo())
}

fn drive_on(
    model: Rc<dyn ChatModel>,
    calls: usize,
    spec: ModelSpec,
) -> (Vec<String>, Vec<LoggedEvent>) {
    let ctx = RunCtx::new(
        RunConfig::new("single", "t", spec),
        ModelRouter::single(model),
        Rc::new(FakeClock::new()),
    );
    ctx.add_agent("a", "worker", "A");
    let mut answers = Vec::new();
    let mut last = String::from("start");
    for i in 0..calls {
        let req = ChatRequest::new(vec![
            Message::system("sys"),
            Message::user(format!("step {i}, after: {last}")),
        ]);
        match block_on(ctx.chat("a", req)) {
            Ok((_, r)) => {
                last = r.text.clone();
                answers.push(r.text);
            }
            Err(e) => answers.push(format!("error: {}", e.kind())),
        }
    }
    (answers, ctx.events())
}

fn parent() -> Vec<LoggedEvent> {
    let m = ScriptedModel::new("gpt")
        .then_text("one")
        .then_text("two")
        .then_text("three")
        .then_text("four");
    drive(Rc::new(m), 4).1
}

#[test]
fn fork_with_an_edited_response_replays_then_goes_live() {
    let live = ScriptedModel::new("live").otherwise(|r| roundtable::engine::model::ChatResponse {
        text: format!("live<{}>", r.last_user().unwrap_or("")),
        ..Default::default()
    });
    let fork = ForkModel::new(
        &parent(),
        2,
        ForkEdit::Response {
            text: "EDITED".into(),
        },
        Rc::new(live.clone()),
    );
    let (answers, events) = drive(Rc::new(fork), 4);
    assert_eq!(
        answers[..3],
        ["one".to_string(), "two".into(), "EDITED".into()]
    );
    assert_eq!(answers[3], "live<step 3, after: EDITED>");
    assert_eq!(
        live.requests().len(),
        1,
        "only call 3 reached the live model"
    );
    let usage = UsageView::of(&events);
    assert_eq!(
        usage.total.replayed_calls, 3,
        "two from the log + the edited answer"
    );
    assert_eq!(usage.total.calls, 4);
}

#[test]
fn fork_with_edited_request_messages_sends_them_live() {
    let live = ScriptedModel::new("live")
        .then_text("fresh")
        .then_text("later");
    let edited = vec![
        Message::system("sys"),
        Message::user("a different question"),
    ];
    let fork = ForkModel::new(
        &parent(),
        1,
        ForkEdit::Request {
            messages: edited.clone(),
        },
        Rc::new(live.clone()),
    );
    let (answers, _) = drive(Rc::new(fork), 3);
    assert_eq!(answers, vec!["one", "fresh", "later"]);
    let seen = live.requests();
    assert_eq!(
        seen[0].messages, edited,
        "call 1 went out with the edited messages"
    );
    assert_eq!(seen[1].last_user(), Some("step 2, after: fresh"));
}

#[test]
fn fork_without_edit_continues_live_from_k() {
    let live = ScriptedModel::new("live").then_text("L2").then_text("L3");
    let fork = ForkModel::new(&parent(), 2, ForkEdit::None, Rc::new(live.clone()));
    let (answers, events) = drive(Rc::new(fork), 4);
    assert_eq!(answers, vec!["one", "two", "L2", "L3"]);
    let replayed: Vec<bool> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmResponse { response, .. } => Some(response.replayed),
            _ => None,
        })
        .collect();
    assert_eq!(replayed, vec![true, true, false, false]);
    // Cost counts only live tokens.
    let usage = UsageView::of(&events);
    assert_eq!(
        usage.total.output_tokens, 4,
        "L2 + L3 (2 tokens each in the scripted model)"
    );
}

/// A run's sampling goes into every request; a fork keeps the parent's
/// (whatever the model chosen for its live part says), so its first calls
/// still come from the log.
#[test]
fn a_fork_keeps_the_parents_sampling_so_its_first_calls_replay() {
    let mut sampled = ModelSpec::demo();
    sampled.provider = "custom".into();
    sampled.sampling.temperature = Some(0.7);
    sampled.max_tokens = Some(64);
    let m = ScriptedModel::new("gpt").then_text("one").then_text("two");
    let (_, parent) = drive_on(Rc::new(m), 2, sampled.clone());
    let parent_config = RunConfig::new("single", "t", sampled);
    let replayed = |spec: ModelSpec| {
        let live = ScriptedModel::new("live").then_text("L0").then_text("L1");
        let fork = ForkModel::new(&parent, 1, ForkEdit::None, Rc::new(live));
        drive_on(Rc::new(fork), 2, spec).0
    };
    let chosen = ModelSpec::demo();
    assert_eq!(
        replayed(fork_spec(&parent_config, chosen.clone())),
        vec!["one", "L0"],
        "call 0 from the log, call 1 live"
    );
    // Without the parent's sampling, call 0 already misses the log.
    assert_eq!(replayed(chosen), vec!["L0", "L1"]);
}

/// A local model's fork of a local model's run samples as the parent did
/// (its sampler settings, not Settings' current ones); another provider's
/// spec never carries them.
#[test]
fn a_local_fork_keeps_the_parents_sampler_settings() {
    let local = |top_k: Option<u32>| ModelSpec {
        provider: LOCAL_PROVIDER.into(),
        model: "SmolLM2 Q4_1".into(),
        sampling: Sampling {
            temperature: None,
            local: top_k.map_or_else(LocalSampling::default, |k| LocalSampling {
                top_k: Some(k),
                ..LocalSampling::default()
            }),
        },
        ..ModelSpec::demo()
    };
    let parent = RunConfig::new("single", "t", local(Some(7)));
    assert_eq!(
        fork_spec(&parent, local(Some(40))).sampling,
        local(Some(7)).sampling
    );
    assert_eq!(
        fork_spec(&parent, local(None)).sampling,
        local(Some(7)).sampling
    );
    let remote = ModelSpec {
        provider: "custom".into(),
        ..ModelSpec::demo()
    };
    assert_eq!(
        fork_spec(&parent, remote).sampling.local,
        LocalSampling::default()
    );
}
