//! MAEL's tests, one binary: the workflow on the graph (the call path, the
//! neighbours, round-robin, the critique round limit, concurrency), the
//! backward pass (rewards by formula, experiences into the pool), the
//! retrieval modes (none never reads the pool, task mode follows one
//! trace, step mode retrieves per step), the paper's effect with the
//! demo model on the built-in set, and real models' replies (`replies`).
//! Tests named `shared_*` read `../shared/datasets`.
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
mod cli;
mod common;
mod datasets;
mod humaneval;
mod learning;
mod replies;
mod software;
mod views;
mod workflow;
