//! TravelPlanner (Xie et al., 2024) as a Roundtable domain: the sandbox
//! database and its loader, the six tools, queries and plans, and an
//! evaluator whose verdicts match the official code's, quirks included.
//!
//! ```text
//! files ──► tables (parse_* per file) ──► TravelDb ──► tools::execute ─► text + rows
//! query JSONL ──► Query           LLM text ──► plan_parse ──► Plan ──► eval::evaluate ─► verdicts
//!                                                         many verdicts ──► eval::aggregate ─► rates
//! ```

pub mod builtin;
pub mod csv;
pub mod db;
pub mod error;
pub mod eval;
pub mod greedy;
pub mod plan;
pub mod plan_parse;
pub mod pylit;
pub mod pyops;
pub mod query;
pub mod sandbox;
pub mod table_read;
pub mod table_text;
pub mod tables;
pub mod tools;
pub mod zip;

pub use db::{DbStats, Tables, TravelDb};
pub use error::DataError;
pub use eval::{
    aggregate, evaluate, evaluate_outcome, hallucinations, CellRef, Check, Hallucination,
    HallucinationCategory, HallucinationCounts, PlanEvaluation, Summary, Verdict,
};
pub use plan::{Cell, Field, Plan, PlanDay};
pub use plan_parse::{parse_plan_text, plan_field, plan_from_value, NotDelivered};
pub use query::{parse_queries_jsonl, Level, LocalConstraint, Query};
pub use tools::{execute, execute_json, execute_text, tool_specs, ToolResult, ToolRows};
