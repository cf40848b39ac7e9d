#![cfg(not(target_arch = "wasm32"))]
//! The engine end to end, natively: a coordinator in a RunCtx with scripted
//! models and a fake clock; retries, failures, cancellation, the gate, the
//! concurrency limit, and the folds over the resulting log.

use futures::executor::block_on;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::execute;
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::retry::RetryPolicy;
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::{Call, Completion};
use roundtable::engine::model::{ChatRequest, ChatResponse, Message, ModelError, Usage};
use roundtable::engine::run::{
    Audience, LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus,
};
use roundtable::engine::views::graph::AgentStatus;
use roundtable::engine::views::transcript::{EntryKind, NoticeLevel};
use roundtable::engine::views::{Fold, RunView};
use std::rc::Rc;

fn config(task: &str) -> RunConfig {
    let mut c = RunConfig::new("single", task, ModelSpec::demo());
    c.retry = RetryPolicy {
        jitter: 0.0,
        ..RetryPolicy::default()
    };
    c
}

fn run_with(model: ScriptedModel, task: &str) -> (RunStatus, Vec<LoggedEvent>, FakeClock) {
    let clock = FakeClock::new();
    let ctx = RunCtx::new(
        config(task),
        ModelRouter::single(Rc::new(model)),
        Rc::new(clock.clone()),
    );
    let status = block_on(execute(&ctx));
    (status, ctx.events(), clock)
}

fn kinds(events: &[LoggedEvent]) -> Vec<&'static str> {
    events.iter().map(|e| e.event.kind()).collect()
}

#[test]
fn single_agent_run_emits_the_expected_log() {
    let (status, events, _) = run_with(
        ScriptedModel::new("m").then_text("Hello there, friend"),
        "Say hi",
    );
    assert_eq!(status, RunStatus::Finished);
    let k = kinds(&events);
    assert_eq!(k.first(), Some(&"run_started"));
    assert_eq!(k.last(), Some(&"run_finished"));
    for needed in [
        "agent_added",
        "phase_started",
        "message_posted",
        "llm_request",
        "llm_delta",
        "llm_response",
        "phase_ended",
    ] {
        assert!(k.contains(&needed), "missing {needed} in {k:?}");
    }
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (0..events.len() as u64).collect::<Vec<_>>(),
        "dense increasing seq"
    );

    let view = RunView::of(&events);
    assert_eq!(view.status.status, RunStatus::Finished);
    assert_eq!(view.status.llm_calls, 1);
    let answer = view.transcript.entries.iter().find_map(|e| match &e.kind {
        EntryKind::Message {
            from,
            text,
            to,
            streaming,
            ..
        } if from == "assistant" => Some((text.clone(), to.clone(), *streaming)),
        _ => None,
    });
    assert_eq!(
        answer,
        Some((
            "Hello there, friend".into(),
            Some(Audience::To(vec!["user".into()])),
            false
        ))
    );
    assert_eq!(view.graph.nodes.len(), 1);
    assert_eq!(view.graph.nodes[0].status, AgentStatus::Idle);
    assert_eq!(view.usage.total.calls, 1);
    assert_eq!(view.usage.total.output_tokens, 19);
    assert_eq!(view.usage.by_phase[0].0, "answer");
}

#[test]
fn streaming_prefix_shows_speaking_agent_and_partial_text() {
    let (_, events, _) = run_with(
        ScriptedModel::new("m").then_text("one two three four five six"),
        "t",
    );
    let first_delta = events
        .iter()
        .position(|e| e.event.kind() == "llm_delta")
        .expect("delta");
    let request = events
        .iter()
        .position(|e| e.event.kind() == "llm_request")
        .expect("request");
    assert_eq!(
        RunView::of(&events[..=request]).graph.nodes[0].status,
        AgentStatus::Thinking
    );
    let mid = RunView::of(&events[..=first_delta + 1]);
    assert_eq!(mid.graph.nodes[0].status, AgentStatus::Speaking);
    let partial = mid.transcript.entries.iter().find_map(|e| match &e.kind {
        EntryKind::Message {
            call: Some(_),
            text,
            streaming: true,
            ..
        } => Some(text.clone()),
        _ => None,
    });
    assert_eq!(partial.as_deref(), Some("one two three four "));
}

#[test]
fn rate_limit_with_retry_after_is_retried_after_the_asked_delay() {
    let model = ScriptedModel::new("m")
        .then(Err(ModelError::RateLimited {
            retry_after_ms: Some(2000),
            detail: "slow down".into(),
        }))
        .then(Err(ModelError::Server {
            status: 502,
            detail: String::new(),
        }))
        .then_text("finally");
    let (status, events, clock) = run_with(model, "t");
    assert_eq!(status, RunStatus::Finished);
    assert_eq!(
        clock.sleeps(),
        vec![2000, 2000],
        "Retry-After honoured, then backoff 1000*2^1"
    );
    let retries: Vec<(u32, &str, u64)> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmRetry {
                attempt,
                error,
                wait_ms,
                ..
            } => Some((*attempt, error.kind(), *wait_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(
        retries,
        vec![(1, "rate_limited", 2000), (2, "server", 2000)]
    );
    let resp_retries = events.iter().find_map(|e| match &e.event {
        RunEvent::LlmResponse { retries, .. } => Some(*retries),
        _ => None,
    });
    assert_eq!(resp_retries, Some(2));
    let view = RunView::of(&events);
    assert_eq!(view.usage.total.retries, 2);
    let warnings = view
        .transcript
        .entries
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EntryKind::Notice {
                    level: NoticeLevel::Warning,
                    ..
                }
            )
        })
        .count();
    assert_eq!(warnings, 2);
}

#[test]
fn repeated_server_errors_fail_the_run_with_a_clear_reason() {
    let mut model = ScriptedModel::new("m");
    for _ in 0..4 {
        model = model.then(Err(ModelError::Server {
            status: 500,
            detail: "boom".into(),
        }));
    }
    let (status, events, clock) = run_with(model, "t");
    assert_eq!(status, RunStatus::Failed);
    assert_eq!(
        clock.sleeps(),
        vec![1000, 2000, 4000],
        "4 attempts, 3 waits"
    );
    match &events.last().expect("events").event {
        RunEvent::RunFailed { reason } => {
            assert_eq!(reason.kind, "model");
            assert!(
                reason.message.contains("server error"),
                "{}",
                reason.message
            );
            assert_eq!(
                reason.model_error.as_ref().map(|e| e.kind()),
                Some("server")
            );
        }
        other => panic!("expected run_failed, got {other:?}"),
    }
    assert!(kinds(&events).contains(&"llm_failed"));
}

#[test]
fn auth_errors_are_not_retried() {
    let model = ScriptedModel::new("m").then(Err(ModelError::Auth {
        status: 401,
        detail: "bad key".into(),
    }));
    let (status, events, clock) = run_with(model, "t");
    assert_eq!(status, RunStatus::Failed);
    assert!(clock.sleeps().is_empty());
    let view = RunView::of(&events);
    assert!(view
        .status
        .error
        .as_deref()
        .unwrap_or("")
        .contains("Check the API key"));
}

#[test]
fn empty_task_fails_with_guidance() {
    let (status, events, _) = run_with(ScriptedModel::new("m"), "   ");
    assert_eq!(status, RunStatus::Failed);
    assert!(RunView::of(&events)
        .status
        .error
        .unwrap_or_default()
        .contains("task is empty"));
}

#[test]
fn unknown_coordinator_is_a_clear_failure() {
    let mut c = config("t");
    c.coordinator = "nope".into();
    let ctx = RunCtx::new(
        c,
        ModelRouter::single(Rc::new(ScriptedModel::new("m"))),
        Rc::new(FakeClock::new()),
    );
    assert_eq!(block_on(execute(&ctx)), RunStatus::Failed);
    assert!(RunView::of(&ctx.events())
        .status
        .error
        .unwrap_or_default()
        .contains("Unknown coordinator \"nope\""));
}

#[test]
fn cancel_before_start_and_while_paused() {
    let ctx = RunCtx::new(
        config("t"),
        ModelRouter::single(Rc::new(ScriptedModel::new("m").then_text("x"))),
        Rc::new(FakeClock::new()),
    );
    ctx.cancel_token().cancel();
    assert_eq!(block_on(execute(&ctx)), RunStatus::Cancelled);
    assert_eq!(kinds(&ctx.events()), vec!["run_started", "run_cancelled"]);

    // Paused at the gate: nothing is sent; cancelling ends the run cleanly.
    let model = ScriptedModel::new("m").then_text("x");
    let ctx = RunCtx::new(
        config("t"),
        ModelRouter::single(Rc::new(model.clone())),
        Rc::new(FakeClock::new()),
    );
    ctx.gate().pause();
    let mut pool = futures::executor::LocalPool::new();
    let c2 = ctx.clone();
    let status = Rc::new(std::cell::Cell::new(None));
    let s2 = status.clone();
    use futures::task::LocalSpawnExt;
    pool.spawner()
        .spawn_local(async move { s2.set(Some(execute(&c2).await)) })
        .expect("spawn");
    pool.run_until_stalled();
    assert_eq!(ctx.gate().waiting(), 1);
    assert!(model.requests().is_empty(), "paused: no request sent");
    ctx.cancel_token().cancel();
    pool.run_until_stalled();
    assert_eq!(status.get(), Some(RunStatus::Cancelled));
    assert!(!kinds(&ctx.events()).contains(&"llm_request"));
}

/// A coordinator-like driver: several concurrent calls through one ctx.
fn fan_out(ctx: &RunCtx, n: usize) -> Vec<Result<(u32, ChatResponse), ModelError>> {
    ctx.add_agent("a", "worker", "A");
    let calls = (0..n).map(|i| {
        ctx.chat(
            "a",
            ChatRequest::new(vec![Message::user(format!("job {i}"))]),
        )
    });
    block_on(futures::future::join_all(calls))
}

#[test]
fn step_lets_one_call_through_at_a_time() {
    let model = ScriptedModel::new("m").otherwise(|r| ChatResponse {
        text: format!("done {}", r.last_user().unwrap_or("")),
        usage: Usage::default(),
        ..ChatResponse::default()
    });
    let ctx = RunCtx::new(
        config("t"),
        ModelRouter::single(Rc::new(model.clone())),
        Rc::new(FakeClock::new()),
    );
    ctx.add_agent("a", "worker", "A");
    ctx.gate().pause();
    let mut pool = futures::executor::LocalPool::new();
    use futures::task::LocalSpawnExt;
    for i in 0..3 {
        let c = ctx.clone();
        pool.spawner()
            .spawn_local(async move {
                let _ = c
                    .chat(
                        "a",
                        ChatRequest::new(vec![Message::user(format!("job {i}"))]),
                    )
                    .await;
            })
            .expect("spawn");
    }
    pool.run_until_stalled();
    assert_eq!(model.requests().len(), 0);
    assert_eq!(ctx.gate().waiting(), 3);
    ctx.gate().step();
    pool.run_until_stalled();
    assert_eq!(model.requests().len(), 1, "one step = one call");
    ctx.gate().step();
    pool.run_until_stalled();
    assert_eq!(model.requests().len(), 2);
    ctx.gate().resume();
    pool.run_until_stalled();
    assert_eq!(model.requests().len(), 3);
}

/// Runs 6 calls at once on `c` with a model whose calls overlap for 5 ms;
/// returns the most that were ever in flight, and the run.
fn overlapping_calls(c: RunConfig) -> (u32, RunCtx) {
    use roundtable::engine::model::ChatModel;
    use std::cell::Cell;
    struct Slow {
        now: Rc<Cell<u32>>,
        max: Rc<Cell<u32>>,
    }
    impl ChatModel for Slow {
        fn name(&self) -> String {
            "slow".into()
        }
        fn complete<'a>(&'a self, _call: Call<'a>) -> Completion<'a> {
            Box::pin(async move {
                self.now.set(self.now.get() + 1);
                self.max.set(self.max.get().max(self.now.get()));
                futures_timer::Delay::new(std::time::Duration::from_millis(5)).await;
                self.now.set(self.now.get() - 1);
                Ok(ChatResponse::default())
            })
        }
    }
    let max = Rc::new(Cell::new(0));
    let slow = Slow {
        now: Rc::new(Cell::new(0)),
        max: max.clone(),
    };
    let ctx = RunCtx::new(
        c,
        ModelRouter::single(Rc::new(slow)),
        Rc::new(FakeClock::new()),
    );
    let results = fan_out(&ctx, 6);
    assert!(results.iter().all(|r| r.is_ok()));
    (max.get(), ctx)
}

#[test]
fn concurrency_limit_bounds_in_flight_calls() {
    let mut c = config("t");
    c.max_concurrency = 2;
    let (max, ctx) = overlapping_calls(c);
    assert_eq!(max, 2, "never more than the limit, and the limit is used");
    let events = ctx.events();
    let calls: Vec<u32> = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmRequest { call, .. } => Some(*call),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 6);
    // The four calls that found both slots taken waited, and the log says
    // so before each of their requests (the wait is never in a latency).
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e.event.kind())
        .filter(|k| k.starts_with("llm_q") || *k == "llm_request")
        .collect();
    assert_eq!(kinds.iter().filter(|k| **k == "llm_queued").count(), 4);
    assert_eq!(&kinds[..3], ["llm_request", "llm_request", "llm_queued"]);
    let status = roundtable::engine::views::StatusView::of(&events);
    assert_eq!((status.queued(), status.unanswered()), (0, 0));
    assert_eq!(status.calls_line(false), "6 LLM calls");
}

#[test]
fn a_local_model_run_takes_one_call_at_a_time_and_says_so() {
    let mut c = RunConfig::new(
        "single",
        "t",
        ModelSpec {
            provider: roundtable::engine::model::spec::LOCAL_PROVIDER.into(),
            model: "SmolLM2".into(),
            ..ModelSpec::demo()
        },
    );
    c.max_concurrency = 4;
    let (max, ctx) = overlapping_calls(c);
    assert_eq!(max, 1, "the model answers one request at a time");
    assert_eq!(ctx.config().max_concurrency, 1, "and the run records it");
}

#[test]
fn demo_model_runs_the_single_coordinator() {
    let clock = FakeClock::new();
    let ctx = RunCtx::new(
        config("What is 6 * 7?"),
        ModelRouter::single(Rc::new(DemoModel::new(
            Rc::new(clock.clone()),
            every_script,
        ))),
        Rc::new(clock),
    );
    assert_eq!(block_on(execute(&ctx)), RunStatus::Finished);
    let view = RunView::of(&ctx.events());
    assert!(
        view.usage.total.is_estimated(),
        "demo usage is marked estimated"
    );
    let deltas = ctx
        .events()
        .iter()
        .filter(|e| e.event.kind() == "llm_delta")
        .count();
    assert!(deltas > 10, "demo streams in chunks ({deltas})");
    let text = view
        .transcript
        .entries
        .iter()
        .find_map(|e| match &e.kind {
            EntryKind::Message { from, text, .. } if from == "assistant" => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_default();
    assert!(text.contains("**42**"), "{text}");
}

#[test]
fn replay_model_reproduces_a_run_without_a_provider() {
    use roundtable::engine::run::replay::ReplayModel;
    let (_, events, _) = run_with(
        ScriptedModel::new("gpt-x").then_text("recorded answer here"),
        "question",
    );
    let replay = ReplayModel::new(&events, None, None);
    assert_eq!(replay.remaining(), 1);
    let ctx = RunCtx::new(
        config("question"),
        ModelRouter::single(Rc::new(replay)),
        Rc::new(FakeClock::new()),
    );
    assert_eq!(block_on(execute(&ctx)), RunStatus::Finished);
    let strip = |evs: &[LoggedEvent]| {
        evs.iter()
            .filter(|e| e.event.kind() != "run_started")
            .map(|e| e.event.clone())
            .collect::<Vec<_>>()
    };
    let mut original = strip(&events);
    let mut replayed = strip(&ctx.events());
    for list in [&mut original, &mut replayed] {
        for e in list.iter_mut() {
            if let RunEvent::LlmResponse {
                latency_ms,
                response,
                ..
            } = e
            {
                *latency_ms = 0;
                response.replayed = false;
            }
        }
    }
    assert_eq!(replayed, original);

    // A different task is not in the log: replay says so instead of inventing.
    let ctx = RunCtx::new(
        config("another"),
        ModelRouter::single(Rc::new(ReplayModel::new(&events, None, None))),
        Rc::new(FakeClock::new()),
    );
    assert_eq!(block_on(execute(&ctx)), RunStatus::Failed);

    // Fork: first 0 calls from the log, then a live model.
    let live = Rc::new(ScriptedModel::new("live").then_text("live answer"));
    let fork = ReplayModel::new(&events, Some(0), Some(live));
    let ctx = RunCtx::new(
        config("question"),
        ModelRouter::single(Rc::new(fork)),
        Rc::new(FakeClock::new()),
    );
    assert_eq!(block_on(execute(&ctx)), RunStatus::Finished);
    assert!(ctx.events().iter().any(|e| matches!(&e.event, RunEvent::LlmResponse { response, .. } if response.text == "live answer")));
}

#[test]
fn a_step_held_to_its_shape_has_room_for_the_whole_of_it_on_a_model_run_here() {
    let schema = roundtable::engine::coordinators::travel::orchestrator::decision_schema();
    let room = schema.room().expect("a bounded shape");
    assert!(room > 80);
    let asked = |mut spec: ModelSpec, max: Option<u32>, held: bool| -> Option<u32> {
        spec.max_tokens = max;
        let model = ScriptedModel::new("m").otherwise(|_| ChatResponse::default());
        let ctx = RunCtx::new(
            RunConfig::new("single", "t", spec),
            ModelRouter::single(Rc::new(model.clone())),
            Rc::new(FakeClock::new()),
        );
        ctx.add_agent("a", "worker", "A");
        let mut req = ChatRequest::new(vec![Message::user("go")]);
        if held {
            req = req.with_schema(schema.clone());
        }
        let _ = block_on(ctx.chat("a", req));
        model.requests()[0].params.max_tokens
    };
    let local = ModelSpec {
        provider: roundtable::engine::model::spec::LOCAL_PROVIDER.into(),
        model: "SmolLM2".into(),
        ..ModelSpec::demo()
    };
    use roundtable::engine::model::local::LOCAL_MAX_TOKENS;
    assert_eq!(asked(local.clone(), Some(80), true), Some(room));
    assert_eq!(
        asked(local.clone(), None, true),
        Some(room.max(LOCAL_MAX_TOKENS))
    );
    assert_eq!(asked(local.clone(), Some(room + 5), true), Some(room + 5));
    assert_eq!(
        asked(local, Some(80), false),
        Some(80),
        "free text keeps the run's"
    );
    assert_eq!(
        asked(ModelSpec::demo(), Some(80), true),
        Some(80),
        "a provider keeps the run's"
    );
}
