//! Task domains: sandboxes, tools and evaluators that coordinators work
//! against. Pure Rust, like the rest of the engine.

pub mod creative;
pub mod rouge;
pub mod tasks;
pub mod travel;
