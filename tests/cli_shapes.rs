//! Remote providers are asked for each step's reply shape in their
//! structured-output mode, against the mock LLM server: the request
//! carries the step's JSON Schema; a server that refuses the field still
//! gets the run (asked again in JSON mode, and every reply says so).
#![cfg(not(target_arch = "wasm32"))]

#[path = "support/mock.rs"]
mod mock;

use mock::{cli, on_mock, refuse, requests, script, start_mock, strs, tmp};
use roundtable::engine::model::shape::StructuredMode;
use roundtable::engine::run::{RunDoc, RunEvent};
use std::collections::HashMap;

/// Runs MAEL on the mock; returns each call's step and how its reply was
/// held.
fn mael_run(mock: &mock::Mock, out: &str) -> Vec<(String, Option<StructuredMode>)> {
    let args = on_mock(mock, &["run", "--coordinator", "mael", "--out", out]);
    let (code, _, stderr) = cli(&strs(&args), Some("sk-shapes"));
    assert_eq!(code, 0, "{stderr}");
    let doc = RunDoc::from_json(&std::fs::read_to_string(out).expect("file")).expect("run");
    let mut steps: HashMap<u32, String> = HashMap::new();
    let mut held = Vec::new();
    for e in &doc.events {
        match &e.event {
            RunEvent::LlmRequest { call, request, .. } => {
                steps.insert(*call, request.step.clone().unwrap_or_default());
            }
            RunEvent::LlmResponse { call, response, .. } => {
                held.push((steps[call].clone(), response.structured));
            }
            _ => {}
        }
    }
    held
}

fn shaped(step: &str) -> bool {
    [
        "mael.judge",
        "mael.decompose",
        "mael.critique",
        "mael.evaluate",
    ]
    .contains(&step)
}

#[test]
fn each_step_asks_for_its_shape_and_a_refusing_server_still_gets_the_run() {
    let mock = start_mock();
    let held = mael_run(&mock, &tmp("shapes-schema.json"));
    assert!(held.iter().any(|(s, _)| s == "mael.judge"));
    for (step, mode) in &held {
        let want = shaped(step).then_some(StructuredMode::Schema);
        assert_eq!(*mode, want, "{step}");
    }
    for r in requests(&mock) {
        let body = &r["body"];
        let format = &body["response_format"];
        let prompt = body["messages"][0]["content"].as_str().unwrap_or_default();
        if format.is_null() {
            continue;
        }
        assert_eq!(format["type"], "json_schema", "{prompt}");
        let schema = &format["json_schema"]["schema"];
        assert_eq!(schema["additionalProperties"], false);
        match format["json_schema"]["name"].as_str() {
            Some("mael_judge") => assert_eq!(schema["properties"]["solvable"]["type"], "boolean"),
            Some("mael_critique") => {
                assert_eq!(schema["properties"]["adequate"]["type"], "boolean")
            }
            Some("mael_evaluate") => assert_eq!(schema["properties"]["score"]["maximum"], 10.0),
            Some("mael_decompose") => {
                assert_eq!(
                    schema["properties"]["subtasks"]["items"]["required"],
                    serde_json::json!(["agent", "task"])
                );
                // The decomposer says how its parts relate (§2.1).
                assert_eq!(
                    schema["properties"]["mode"]["enum"],
                    serde_json::json!(["modules", "pipeline"]),
                    "{schema}"
                );
                assert!(schema["required"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|x| x == "mode")));
            }
            other => panic!("unexpected shape {other:?}"),
        }
    }

    // The same run on a server without json_schema.
    script(&mock, "[]");
    refuse(&mock, &["json_schema"]);
    let held = mael_run(&mock, &tmp("shapes-json-mode.json"));
    for (step, mode) in &held {
        let want = shaped(step).then_some(StructuredMode::JsonMode);
        assert_eq!(*mode, want, "{step}: flagged as JSON mode");
    }
    let formats: Vec<String> = requests(&mock)
        .iter()
        .filter_map(|r| {
            r["body"]["response_format"]["type"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(formats[0], "json_schema", "asked with the schema first");
    assert!(
        formats[1..].iter().all(|f| f == "json_object"),
        "then JSON mode, remembered: {formats:?}"
    );
}

/// Every held step's shape is bounded, so the run gives it room for the
/// whole of it: a held reply is never cut short by `--max-tokens`.
#[test]
fn every_held_shape_has_room_for_the_whole_of_it() {
    for s in roundtable::engine::coordinators::every_shape() {
        let room = s.room();
        eprintln!("{:<28} room {room:?}", s.name);
        assert!(
            room.is_some(),
            "{} is unbounded: {}",
            s.name,
            s.decoding_form()
        );
    }
}
