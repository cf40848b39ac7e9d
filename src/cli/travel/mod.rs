//! The travel planner's commands: `run --coordinator travel` (its options,
//! `run`), `travel-batch` (variants × queries, the paper's tables, `batch`)
//! and `travel-eval` (the official evaluator's verdicts on plan files, `eval`).

pub mod batch;
pub mod eval;
pub mod run;

pub use roundtable::engine::coordinators::travel::ID;
