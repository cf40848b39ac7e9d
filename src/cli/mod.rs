//! The native command-line interface.

pub mod args;
pub mod http;
pub mod mael;
pub mod run_cmd;
pub mod share_cmd;
pub mod travel;
