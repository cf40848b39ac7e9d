//! A verdict held to agree with its findings: the travel critic's
//! `approved`, ACT's check `ok` and MAEL's critique `adequate` are true
//! exactly when no problem is listed. A provider's schema mode cannot say
//! so (its root must be one object); a model run here is held to it by
//! constrained decoding (`ReplySchema::decoding_form`), checked here
//! through the engine on a vocabulary of one token a byte. A real SmolLM2
//! critic wrote `{"adequate": true, "feedback": "<a problem>"}` until it was.
#![cfg(not(target_arch = "wasm32"))]

use llm_worker::generate::constrain::{Constraint, Vocab};
use roundtable::engine::coordinators::act::contract::{reply_shape, STEP_CHECK};
use roundtable::engine::coordinators::mael::contract::StepKind;
use roundtable::engine::coordinators::mael::read;
use roundtable::engine::coordinators::travel::planning::critic_schema;
use roundtable::engine::model::shape::ReplySchema;

fn writes(vocab: &Vocab, shape: &ReplySchema, text: &str) -> bool {
    Constraint::new(vocab, &shape.decoding_form())
        .expect("the shape can be held")
        .writes(text)
        .expect("a mask")
}

#[test]
fn a_verdict_held_to_its_shape_agrees_with_its_findings() {
    let vocab = Vocab::bytes().expect("a vocabulary");
    let mael = read::schema(StepKind::Critique).expect("a shape");
    let act = reply_shape(STEP_CHECK).expect("a shape");
    let travel = critic_schema();
    // (shape, agreeing replies, disagreeing ones), as the held model
    // writes JSON: on one line, ": " and ", " between.
    let cases: [(&ReplySchema, [&str; 2], [&str; 2]); 3] = [
        (
            &mael,
            [
                r#"{"adequate": true, "feedback": ""}"#,
                r#"{"adequate": false, "feedback": "The total is wrong."}"#,
            ],
            [
                r#"{"adequate": true, "feedback": "The total is wrong."}"#,
                r#"{"adequate": false, "feedback": ""}"#,
            ],
        ),
        (
            &act,
            [
                r#"{"issues": [], "ok": true}"#,
                r#"{"issues": ["Agent C is missing."], "ok": false}"#,
            ],
            [
                r#"{"issues": ["Agent C is missing."], "ok": true}"#,
                r#"{"issues": [], "ok": false}"#,
            ],
        ),
        (
            &travel,
            [
                r#"{"summary": "Checked.", "problems": [], "approved": true}"#,
                r#"{"summary": "Checked.", "problems": ["Day 2 has no dinner."], "approved": false}"#,
            ],
            [
                r#"{"summary": "Checked.", "problems": ["Day 2 has no dinner."], "approved": true}"#,
                r#"{"summary": "Checked.", "problems": [], "approved": false}"#,
            ],
        ),
    ];
    for (shape, agree, disagree) in cases {
        for text in agree {
            assert!(
                writes(&vocab, shape, text),
                "{}: refused {text}",
                shape.name
            );
            // What a provider gets is unchanged: one object, both fit it.
            let v: serde_json::Value = serde_json::from_str(text).expect("JSON");
            assert_eq!(shape.check(&v), Ok(()), "{text}");
        }
        for text in disagree {
            assert!(
                !writes(&vocab, shape, text),
                "{}: written {text}",
                shape.name
            );
        }
        assert_eq!(
            shape.strict()["type"],
            "object",
            "a provider gets one object"
        );
    }
}
