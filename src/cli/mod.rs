//! The native command-line interface.

pub mod act;
pub mod args;
pub mod http;
pub mod lesson_cmd;
pub mod mael;
pub mod rouge_cmd;
pub mod run_cmd;
pub mod share_cmd;
pub mod travel;
