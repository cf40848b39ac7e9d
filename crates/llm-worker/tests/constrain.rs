//! Constrained decoding through the production path (GGUF bytes → the
//! engine → llguidance's masks), natively and in wasm (Node's V8, as the
//! worker runs it): a model of noise held to a schema writes that schema's
//! JSON. In wasm this also checks that the mask engine's clock works there
//! (std's `Instant` panics on wasm32).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use candle_core::quantized::GgmlDType;
use llm_worker::generate::{Engine, Finish};
use llm_worker::protocol::{ChatTurn, GenParams, Sampling};
use llm_worker::tiny::{random_model, Shape};
mod support;
use support::engine::{greedy, load};

fn conversation() -> Vec<ChatTurn> {
    ["You are the critic.", "Check the plan."]
        .iter()
        .zip(["system", "user"])
        .map(|(content, role)| ChatTurn {
            role: role.into(),
            content: (*content).into(),
        })
        .collect()
}

fn run(engine: &mut Engine, params: &GenParams) -> String {
    let (job, _) = engine
        .generate(&conversation(), params, &mut |_| {})
        .expect("generates");
    engine.text(&job)
}

/// A critique's shape, as the app sends it.
fn critique_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "adequate": {"type": "boolean"},
            "feedback": {"type": "string", "maxLength": 40}
        },
        "required": ["adequate", "feedback"],
        "additionalProperties": false
    })
}

#[test]
fn a_model_of_noise_held_to_a_schema_writes_a_reply_of_that_shape() {
    // A model of random weights writes noise; held to the schema, greedy
    // or sampled, every answer is the schema's JSON, and says it was held.
    let bytes = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 3).expect("writes");
    let mut engine = load(&bytes).expect("loads");
    let free = run(&mut engine, &greedy(48));
    assert!(
        serde_json::from_str::<serde_json::Value>(&free).is_err(),
        "unheld, the noise is no JSON: {free:?}"
    );
    for temperature in [None, Some(0.9)] {
        let params = GenParams {
            sampling: Sampling {
                temperature,
                ..Sampling::default()
            },
            schema: Some(critique_schema()),
            ..greedy(200)
        };
        let mut streamed = String::new();
        let (job, finish) = engine
            .generate(&conversation(), &params, &mut |d| streamed.push_str(d))
            .expect("generates");
        let text = engine.text(&job);
        assert_eq!(streamed, text, "the reply still streams");
        assert_eq!(
            finish,
            Finish::Stop,
            "{temperature:?}: ends at the end of its JSON: {text:?}"
        );
        assert!(job.held(), "{:?}", job.let_go());
        let v: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{temperature:?}: {text:?} is not JSON: {e}"));
        assert!(v["adequate"].is_boolean(), "{text}");
        assert!(
            v["feedback"]
                .as_str()
                .is_some_and(|f| f.chars().count() <= 40),
            "{text}"
        );
        assert_eq!(v.as_object().map(|o| o.len()), Some(2), "{text}");
    }
    // A free-text request is never held.
    let (job, _) = engine
        .generate(&conversation(), &greedy(8), &mut |_| {})
        .expect("generates");
    assert!(!job.held() && job.let_go().is_none());
    // A schema the engine cannot hold is said, and the answer goes on.
    let params = GenParams {
        schema: Some(
            serde_json::json!({"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}, "required": ["a"]}),
        ),
        ..greedy(8)
    };
    let (job, _) = engine
        .generate(&conversation(), &params, &mut |_| {})
        .expect("generates");
    assert!(!job.held());
    assert!(
        job.let_go().is_some_and(|w| w.contains("schema")),
        "{:?}",
        job.let_go()
    );
}
