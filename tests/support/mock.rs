//! Helpers for tests that drive the built CLI, against the mock LLM server
//! (Node, 127.0.0.1 only). Included by `tests/cli.rs` and `tests/mael/`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

pub struct Mock {
    child: Child,
    pub url: String,
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn start_mock() -> Mock {
    let mut child = Command::new("node")
        .args(["e2e/mock-llm.mjs", "--port", "0", "--delay", "2"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("node must be installed to run the mock LLM server (make test installs what is missing)");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("stdout");
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("mock prints its URL");
    let url = line
        .trim()
        .strip_prefix("MOCK_LLM_URL=")
        .expect("MOCK_LLM_URL line")
        .to_string();
    Mock { child, url }
}

pub fn script(mock: &Mock, steps: &str) {
    let agent = ureq::Agent::new_with_defaults();
    agent
        .post(&format!("{}/__reset", mock.url))
        .send("")
        .expect("reset");
    agent
        .post(&format!("{}/__script", mock.url))
        .header("content-type", "application/json")
        .send(format!(r#"{{"steps":{steps}}}"#))
        .expect("script");
}

/// From now on (until the next script) the mock refuses requests asking
/// for these structured-output fields (`json_schema`, `json_object`,
/// `tool_choice`), as a server without them does.
pub fn refuse(mock: &Mock, fields: &[&str]) {
    ureq::Agent::new_with_defaults()
        .post(&format!("{}/__refuse", mock.url))
        .header("content-type", "application/json")
        .send(serde_json::json!({ "fields": fields }).to_string())
        .expect("refuse");
}

/// `args`, then the model options that point the CLI at the mock's
/// OpenAI-compatible API.
pub fn on_mock(mock: &Mock, args: &[&str]) -> Vec<String> {
    let base = format!("{}/v1", mock.url);
    let model = [
        "--provider",
        "openai-compatible",
        "--base-url",
        &base,
        "--model",
        "mock-model",
    ];
    args.iter()
        .chain(model.iter())
        .map(|a| a.to_string())
        .collect()
}

/// The arguments as `cli` takes them.
pub fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

pub fn cli(args: &[&str], key: Option<&str>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_roundtable"));
    cmd.args(args).env_remove("ROUNDTABLE_API_KEY");
    if let Some(k) = key {
        cmd.env("ROUNDTABLE_API_KEY", k);
    }
    let out = cmd.output().expect("run the CLI");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub fn tmp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("roundtable-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir.join(name).to_string_lossy().into_owned()
}

/// Every request the mock server received, as it logged them (path,
/// headers, body).
#[allow(dead_code)]
pub fn requests(mock: &Mock) -> Vec<serde_json::Value> {
    let text = ureq::get(&format!("{}/__log", mock.url))
        .call()
        .expect("log")
        .body_mut()
        .read_to_string()
        .expect("text");
    serde_json::from_str(&text).expect("json")
}
