//! What every layer above awaits with: cooperative cancellation and the
//! clock. No other engine module is imported here.

pub mod cancel;
pub mod clock;
