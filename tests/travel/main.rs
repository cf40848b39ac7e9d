//! The travel planner's tests, one binary (one link instead of fourteen):
//! the TravelPlanner domain (tools, built-in world, the evaluator's quirks
//! and parity with the official one), the coordinator with a scripted
//! model, the demo team, views, exports, batches and the CLI. Tests that
//! need `../shared` are named `shared_*` (`make test` skips them loudly
//! when it is absent). Helpers: `common` (demo-model runs), `world` (a
//! small hand-made sandbox for the evaluator tests).
#![cfg(not(target_arch = "wasm32"))]

#[path = "../support/mock.rs"]
mod mock;

mod common;
#[path = "../support/repaired_log.rs"]
mod repaired_log;
#[path = "../support/run_scan.rs"]
mod run_scan;
mod world;

mod aggregate;
mod batch;
mod builtin;
mod cli;
mod coordinator;
mod demo;
mod demo_revisits;
mod parity;
mod quirks;
mod replies;
mod run_export;
mod shapes;
mod tool_tables;
mod tools;
mod views;
