//! A shape a model run here is held to (constrained decoding,
//! `ReplySchema::decoding_form`) admits only replies its step's reader takes
//! as they are, checked through the engine on a vocabulary of one token a
//! byte.
//! - A verdict agrees with its findings: the travel critic's `approved`,
//!   ACT's check `ok` and MAEL's critique `adequate` are true exactly when
//!   no problem is listed. A provider's schema mode cannot say so (its root
//!   must be one object). A real SmolLM2 critic wrote
//!   `{"adequate": true, "feedback": "<a problem>"}` until it was held to it.
//! - An ACT keyword has a word in it: the shape's pattern refuses exactly
//!   the keywords the reader would drop (`**`, `-`, a blank). A SmolLM2
//!   member held to `minLength: 1` alone wrote one the reader could not
//!   read, in the page.
#![cfg(not(target_arch = "wasm32"))]

use llm_worker::generate::constrain::{Constraint, Vocab};
use roundtable::engine::coordinators::act::contract::keyword::{has_word, pattern};
use roundtable::engine::coordinators::act::contract::{
    reply_shape, STEP_ACQUIRE, STEP_CHECK, STEP_EXPERTISE,
};
use roundtable::engine::coordinators::act::memory;
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

#[test]
fn a_keyword_held_to_its_shape_is_one_the_reader_keeps() {
    let vocab = Vocab::bytes().expect("a vocabulary");
    let shape = reply_shape(STEP_EXPERTISE).expect("a shape");
    let kept = [
        "tea",
        "C++",
        "量子力学",
        "2)",
        "(3)",
        "a.",
        "*tea*",
        "- tea",
        "“tea”",
        "x",
    ];
    let dropped = [
        "", " ", "**", "-", "...", "“”", "\u{FEFF}", "#.", "— ·", "\u{3000}", "\u{1}", "_`_",
    ];
    for k in kept.iter().chain(&dropped) {
        let reply = format!(r#"{{"expertise": [{}]}}"#, serde_json::json!(k));
        let held = writes(&vocab, &shape, &reply);
        let (read, repairs) = memory::keywords(Some(&serde_json::json!([k])), 12);
        assert_eq!(held, has_word(k), "{k:?}: the shape and the rule");
        assert_eq!(held, kept.contains(k), "{k:?}");
        // Held, it is read as a keyword; refused, the reader drops it, said.
        assert_eq!(read.len(), usize::from(held), "{k:?}: read {read:?}");
        assert_eq!(repairs.is_empty(), held, "{k:?}: {repairs:?}");
    }
    // Knowledge entries' keywords are the same keywords.
    let acquire = reply_shape(STEP_ACQUIRE).expect("a shape");
    let form = acquire.decoding_form().to_string();
    assert!(
        form.contains(&serde_json::json!(pattern()).to_string()),
        "{form}"
    );
}
