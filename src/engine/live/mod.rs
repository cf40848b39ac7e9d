//! Live classes: a teacher's page drives a class whose students follow it
//! on their own devices through a relay (`roundtable serve`). This is the
//! relay's protocol and its rules, pure Rust: the frames (`protocol`) and
//! the classes as state machines (`class`, and the relay's set of them,
//! `relay`); and what a class is shown, as
//! the pages write and read it (`show`). The server (`src/cli/serve`)
//! only moves frames between WebSockets and these.
//!
//! A class holds in memory, never on disk: what is shown, the run's event
//! log, the current step, the open question and its answers. Runs carry
//! no API keys, so neither does the relay.

pub mod bucket;
pub mod class;
pub mod protocol;
pub mod relay;
pub mod show;

#[cfg(test)]
mod limit_tests;
#[cfg(test)]
mod show_tests;
#[cfg(test)]
mod tests;
