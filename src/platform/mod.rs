//! Browser-only services: fetch transport, clock, localStorage, keys,
//! settings. The UI calls these; the engine never does.

pub mod clock;
pub mod fetch;
pub mod files;
pub mod history;
pub mod keys;
pub mod location;
pub mod perf;
pub mod recorder;
pub mod settings;
pub mod storage;
pub mod travel_store;
