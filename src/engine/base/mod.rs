//! What every layer above uses: cooperative cancellation, the clock, and
//! counts in words. No other engine module is imported here.

pub mod cancel;
pub mod clock;
pub mod words;
