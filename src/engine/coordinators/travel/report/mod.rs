//! Many travel runs compared as in the paper (`comparison`: the rates,
//! revisits and failed constraints per expert, hallucinations), and the
//! files a user takes away: a batch's CSV / JSON (`comparison_export`) and
//! one run's plan and metrics as CSV (`run_export`).

pub mod comparison;
pub mod comparison_export;
pub mod run_export;
