//! What every layer above uses: cooperative cancellation, the clock,
//! counts in words, and a run's workspace (its files). No other engine module is imported here.

pub mod cancel;
pub mod clock;
pub mod words;
pub mod workspace;
