//! Spend caps (a classroom's safety net): a run stops cleanly before the
//! call whose estimated cost would pass its cap, keeping everything so far;
//! a model without a price counts tokens; a batch's cap is shared by its
//! runs.

use super::common::*;
use futures::executor::block_on;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::act::contract::{Variant, ID};
use roundtable::engine::coordinators::act::setup::configure;
use roundtable::engine::coordinators::{self};
use roundtable::engine::model::pricing::{Price, PriceTable};
use roundtable::engine::run::budget::{Budget, SpendCap};
use roundtable::engine::run::{ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus};
use std::rc::Rc;

fn ctx(cap: Option<SpendCap>) -> RunCtx {
    let mut config = RunConfig::new(ID, "", ModelSpec::demo());
    configure(&mut config, task(), Variant::Act);
    config.spend_cap = cap;
    RunCtx::new(
        config,
        ModelRouter::single(Rc::new(model(|_| None))),
        Rc::new(FakeClock::new()),
    )
}

fn stopped(ctx: &RunCtx) -> (usize, usize, String, u64) {
    let events = ctx.events();
    let requests = events
        .iter()
        .filter(|e| matches!(e.event, RunEvent::LlmRequest { .. }))
        .count();
    let responses = events
        .iter()
        .filter(|e| matches!(e.event, RunEvent::LlmResponse { .. }))
        .count();
    let tokens: u64 = events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmResponse { response, .. } => {
                Some(response.usage.input_tokens + response.usage.output_tokens)
            }
            _ => None,
        })
        .sum();
    let message = events
        .iter()
        .find_map(|e| match &e.event {
            RunEvent::RunFailed { reason } if reason.kind == "spend_cap" => {
                Some(reason.message.clone())
            }
            _ => None,
        })
        .unwrap_or_default();
    (requests, responses, message, tokens)
}

#[test]
fn a_run_stops_before_the_call_that_would_pass_its_cap_and_keeps_the_rest() {
    // The scripted model has no price: its tokens count against the token cap.
    let full = ctx(None);
    assert_eq!(block_on(coordinators::execute(&full)), RunStatus::Finished);
    let (all, _, _, all_tokens) = stopped(&full);
    let cap = all_tokens / 3;
    let c = ctx(Some(SpendCap {
        usd: Some(0.5),
        tokens: Some(cap),
    }));
    assert_eq!(block_on(coordinators::execute(&c)), RunStatus::Failed);
    let (requests, responses, message, tokens) = stopped(&c);
    assert!(
        requests > 0 && requests < all,
        "{requests} of {all} calls made"
    );
    assert_eq!(requests, responses, "no call was cut off half-way");
    assert!(tokens <= cap, "{tokens} ≤ {cap}");
    assert!(message.starts_with("Stopped before LLM call"), "{message}");
    assert!(
        message.contains(&format!("token cap of {cap}")) && message.contains("no price"),
        "{message}"
    );
    // The config records the cap; the log keeps everything before the stop.
    assert!(
        matches!(&c.events()[0].event, RunEvent::RunStarted { config } if config.spend_cap.is_some_and(|s| s.tokens == Some(cap)))
    );
    assert!(c
        .events()
        .iter()
        .any(|e| matches!(&e.event, RunEvent::NoteWritten { store, .. } if store == "expertise")));

    // Priced by the user's table: the dollar cap applies.
    let priced = ctx(Some(SpendCap {
        usd: Some(0.002),
        tokens: None,
    }));
    priced.use_prices(PriceTable {
        prices: vec![Price {
            model: "scripted".into(),
            input_per_mtok: 10.0,
            output_per_mtok: 10.0,
        }],
    });
    assert_eq!(block_on(coordinators::execute(&priced)), RunStatus::Failed);
    let (requests, _, message, tokens) = stopped(&priced);
    assert!(
        requests < all && message.contains("spend cap of $0.0020"),
        "{message}"
    );
    assert!(tokens as f64 * 10.0 / 1e6 <= 0.002);
}

#[test]
fn a_batch_cap_is_shared_by_its_runs() {
    let full = ctx(None);
    block_on(coordinators::execute(&full));
    let (_, _, _, one_run) = stopped(&full);
    let shared = Rc::new(Budget::new(
        "batch",
        SpendCap {
            usd: None,
            tokens: Some(one_run + one_run / 2),
        },
        PriceTable::default(),
    ));
    let first = ctx(None);
    first.add_budget(shared.clone());
    assert_eq!(block_on(coordinators::execute(&first)), RunStatus::Finished);
    let second = ctx(None);
    second.add_budget(shared.clone());
    assert_eq!(block_on(coordinators::execute(&second)), RunStatus::Failed);
    let (_, _, message, _) = stopped(&second);
    assert!(
        message.contains("this batch past its token cap"),
        "{message}"
    );
    assert!(shared.spent_tokens() <= one_run + one_run / 2);
}
