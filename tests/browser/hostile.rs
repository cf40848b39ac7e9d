//! Hostile replies in the browser build: the one reply reader and the data
//! sets' answer readers never panic on arbitrary text (a panic in the page
//! kills the app), and a MAEL run whose model answers with chatter, cut-off
//! JSON, odd Unicode and 100 KB replies ends cleanly, each repaired reply
//! recorded once.

#[allow(unused_imports)]
use super::*;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::{self, mael};
use roundtable::engine::domains::tasks::builtin::{tasks, Split};
use roundtable::engine::domains::tasks::{commongen, gsm8k, mmlu};
use roundtable::engine::model::reply::{read_json, read_value};
use roundtable::engine::model::retry::SplitMix;
use roundtable::engine::model::scripted::ScriptedModel;
use roundtable::engine::model::ChatResponse;
use roundtable::engine::run::{ModelRouter, ModelSpec, RunConfig, RunCtx, RunEvent, RunStatus};
use std::collections::HashMap;

const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "'",
    "\\",
    "####",
    "Answer:",
    "score: ",
    "9/10",
    "true",
    "é",
    "İ",
    "ß",
    "ﬁ",
    "😀",
    "\u{301}",
    "\u{202E}",
    "\u{0}",
    "７",
    "```json\n",
    "\n",
    " ",
    "7",
];

fn hostile(rng: &mut SplitMix) -> String {
    let n = (rng.next_u64() % 120) as usize;
    (0..n)
        .map(|_| PIECES[(rng.next_u64() % PIECES.len() as u64) as usize])
        .collect()
}

#[wasm_bindgen_test]
fn readers_never_panic_on_hostile_text_in_the_browser_build() {
    let mut rng = SplitMix::new(24);
    let mut texts: Vec<String> = (0..1500).map(|_| hostile(&mut rng)).collect();
    texts.push(String::new());
    texts.push("[".repeat(100_000));
    texts.push("{\"a\": ".repeat(20_000));
    texts.push("İİ answer: €5 ".repeat(8_000));
    let concepts: Vec<String> = ["dog", "frisbee", "catch"].map(String::from).to_vec();
    let mut read = 0;
    for t in &texts {
        if read_value(t).is_ok() {
            read += 1;
        }
        let _ = read_json::<serde_json::Value>(t);
        let _ = gsm8k::final_number(t);
        assert!(mmlu::answer_letter(t).is_none_or(|l| ["A", "B", "C", "D"].contains(&l.as_str())));
        let c = commongen::coverage(&concepts, t);
        assert!((0.0..=1.0).contains(&c), "{c}");
    }
    assert!(
        read > 10,
        "the generator reaches the reader's repairs ({read} read)"
    );
}

#[wasm_bindgen_test]
async fn a_mael_run_on_hostile_replies_ends_and_records_each_repair_once() {
    let long = "All of this is fine. ".repeat(5_000);
    let replies: Vec<String> = vec![
        "Sure! Here's what I think:".into(),
        r#"{"solvable": "no", "reason": "three"#.into(),
        r#"{"adequate": "false", "feedback": "check it"}"#.into(),
        "In step 3 … 9/10".into(),
        long,
        "ｓｃｏｒｅ：９/１０ \u{202E}ǝnɹʇ \u{0}ß\u{0130}{\"".into(),
        "Answer: 7".into(),
    ];
    let count = std::cell::Cell::new(0usize);
    let model = Rc::new(ScriptedModel::new("hostile").otherwise(move |_| {
        let i = count.get();
        count.set(i + 1);
        ChatResponse {
            text: replies[i % replies.len()].clone(),
            ..ChatResponse::default()
        }
    }));
    let task = tasks(Split::Test)[0].clone();
    let mut config = RunConfig::new(mael::ID, "", ModelSpec::demo());
    mael::setup::configure(&mut config, task, mael::contract::Mode::None);
    let ctx = RunCtx::new(
        config,
        ModelRouter::single(model),
        Rc::new(FakeClock::new()),
    );
    let status = coordinators::execute(&ctx).await;
    assert_eq!(status, RunStatus::Finished);
    let events = ctx.events();
    assert!(events.last().is_some_and(|e| e.event.is_terminal()));
    let mut per_call: HashMap<u32, usize> = HashMap::new();
    for e in &events {
        if let RunEvent::ReplyRepaired { call, .. } = &e.event {
            *per_call.entry(*call).or_default() += 1;
        }
    }
    assert!(!per_call.is_empty(), "hostile replies were repaired");
    assert!(per_call.values().all(|n| *n == 1), "{per_call:?}");
}
