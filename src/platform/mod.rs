//! Browser-only services: fetch transport, clock, localStorage, keys,
//! settings, IndexedDB (`idb`, its stores declared by their users). The UI calls these; the engine never does.

pub mod act_store;
pub mod clock;
pub mod experience_store;
pub mod fetch;
pub mod files;
pub mod history;
pub mod idb;
pub mod keys;
pub mod lessons;
pub mod local_model;
pub mod location;
pub mod locks;
pub mod model_facts;
pub mod model_ledger;
pub mod module_worker;
pub mod perf;
pub mod project;
pub mod prompt_edits;
pub mod python;
pub mod recorder;
pub mod settings;
pub mod socket;
pub mod storage;
pub mod stored;
pub mod task_sets;
pub mod travel_store;
