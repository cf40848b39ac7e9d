//! An allowance that refills at a steady pace up to a burst (a token
//! bucket): a class's events a second, and the relay's wrong join codes.
//! Pure: the caller passes the time (ms).

#[derive(Clone, Copy, Debug)]
pub struct Bucket {
    /// What may be taken now.
    pub left: f64,
    /// When `left` was counted (ms).
    at: u64,
}

impl Bucket {
    /// A whole allowance of `burst` at `now`.
    pub fn full(burst: f64, now: u64) -> Bucket {
        Bucket {
            left: burst,
            at: now,
        }
    }

    /// Counted again at `now`: one more every `every_ms`, up to `burst`.
    pub fn refill(&mut self, now: u64, every_ms: f64, burst: f64) {
        let gained = now.saturating_sub(self.at) as f64 / every_ms;
        self.left = (self.left + gained).min(burst);
        self.at = now;
    }

    /// Whole seconds until one is back (at least 1).
    pub fn wait_s(&self, every_ms: f64) -> u64 {
        (((1.0 - self.left).max(0.0) * every_ms) / 1000.0)
            .ceil()
            .max(1.0) as u64
    }
}
