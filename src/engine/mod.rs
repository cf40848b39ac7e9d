//! The engine: pure Rust, no browser APIs. Runs, events, models, views and
//! coordinators; compiled and tested natively, and run unchanged in the browser.

pub mod base;
pub mod coordinators;
pub mod domains;
pub mod lesson;
pub mod live;
pub mod model;
pub mod prompts;
pub mod run;
pub mod share;
pub mod views;
