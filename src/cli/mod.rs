//! The native command-line interface: generic commands (`run`, `share`,
//! `lesson`, `rouge`) and each coordinator's own (its row in
//! `coordinators.rs`, its folder).

pub mod act;
pub mod args;
pub mod batch;
pub mod common;
pub mod continued;
pub mod coordinators;
pub mod flags;
pub mod http;
pub mod interrupt;
pub mod lesson_cmd;
pub mod local_model;
pub mod mael;
pub mod paper;
pub mod projects;
pub mod python;
pub mod rouge_cmd;
pub mod run_cmd;
pub mod save;
pub mod serve;
pub mod share_cmd;
pub mod travel;
