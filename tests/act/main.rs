//! ACT's tests, one binary: the mechanism tests of the paper's method
//! (generation, team meeting and fusion, task exploration, knowledge
//! acquisition, top-c retrieval, break time, production meeting, ACT+),
//! the variants removing what they name, the metrics, the demo team and
//! the CLI. A scripted team (`common::script`) answers every step in the
//! right shape; a test overrides the steps it is about.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../support/mock.rs"]
mod mock;

#[path = "../support/repaired_log.rs"]
mod repaired_log;

#[path = "../support/run_scan.rs"]
mod run_scan;

#[path = "../support/step_counts.rs"]
mod step_counts;

mod batch;
mod break_talk;
mod cli;
mod common;
mod mechanisms;
mod plus;
mod replies;
mod rounds;
mod share;
mod spend;
mod tools_cli;
mod variants;
