//! Retry policy: exponential backoff with jitter for 429 / 5xx / timeouts,
//! honouring Retry-After.

use super::error::ModelError;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RetryPolicy {
    /// Total attempts, the first one included (1 = never retry).
    pub max_attempts: u32,
    pub base_delay_ms: u64,
    pub max_delay_ms: u64,
    /// 0 = no jitter; 0.25 = delays vary by ±25 %.
    pub jitter: f64,
    /// A Retry-After longer than this is not waited for: the call fails.
    pub max_retry_after_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            base_delay_ms: 1000,
            max_delay_ms: 30_000,
            jitter: 0.25,
            max_retry_after_ms: 120_000,
        }
    }
}

impl RetryPolicy {
    /// The wait before the next attempt after `attempt` (1-based) failed with
    /// `err`, or `None` when the call should fail now. `unit` is a random
    /// number in [0, 1).
    pub fn delay_ms(&self, attempt: u32, err: &ModelError, unit: f64) -> Option<u64> {
        if !err.is_retryable() || attempt >= self.max_attempts {
            return None;
        }
        if let ModelError::RateLimited {
            retry_after_ms: Some(ms),
            ..
        } = err
        {
            return (*ms <= self.max_retry_after_ms).then_some(*ms);
        }
        let exp = attempt.saturating_sub(1).min(30);
        let backoff = self
            .base_delay_ms
            .saturating_mul(1u64 << exp)
            .min(self.max_delay_ms) as f64;
        let factor = 1.0 + self.jitter.clamp(0.0, 1.0) * (2.0 * unit.clamp(0.0, 1.0) - 1.0);
        Some((backoff * factor).round() as u64)
    }
}

/// A small deterministic random source (SplitMix64) for jitter and the demo model.
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> Self {
        SplitMix(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> ModelError {
        ModelError::Server {
            status: 503,
            detail: String::new(),
        }
    }

    #[test]
    fn exponential_backoff_without_jitter() {
        let p = RetryPolicy {
            jitter: 0.0,
            max_attempts: 6,
            ..RetryPolicy::default()
        };
        let d: Vec<_> = (1..=6).map(|a| p.delay_ms(a, &server(), 0.3)).collect();
        assert_eq!(
            d,
            vec![
                Some(1000),
                Some(2000),
                Some(4000),
                Some(8000),
                Some(16000),
                None
            ]
        );
    }

    #[test]
    fn jitter_stays_in_band_and_cap_holds() {
        let p = RetryPolicy {
            max_attempts: 20,
            ..RetryPolicy::default()
        };
        let mut rng = SplitMix::new(7);
        for attempt in 1..20 {
            let d = p.delay_ms(attempt, &server(), rng.unit()).expect("retry") as f64;
            let base = (1000.0 * 2f64.powi(attempt as i32 - 1)).min(30_000.0);
            assert!(
                d >= base * 0.75 - 1.0 && d <= base * 1.25 + 1.0,
                "attempt {attempt}: {d}"
            );
        }
        assert_eq!(p.delay_ms(1, &server(), 0.0), Some(750));
        assert_eq!(p.delay_ms(1, &server(), 0.999_999_9), Some(1250));
    }

    #[test]
    fn retry_after_is_honoured_and_capped() {
        let p = RetryPolicy::default();
        let rl = |ms| ModelError::RateLimited {
            retry_after_ms: ms,
            detail: String::new(),
        };
        assert_eq!(p.delay_ms(1, &rl(Some(2500)), 0.9), Some(2500));
        assert_eq!(p.delay_ms(1, &rl(Some(600_000)), 0.9), None);
        assert!(p.delay_ms(1, &rl(None), 0.5).is_some());
    }

    #[test]
    fn non_retryable_errors_fail_at_once() {
        let p = RetryPolicy::default();
        assert_eq!(
            p.delay_ms(
                1,
                &ModelError::Auth {
                    status: 401,
                    detail: String::new()
                },
                0.5
            ),
            None
        );
        assert_eq!(p.delay_ms(1, &ModelError::Cancelled, 0.5), None);
        assert_eq!(
            p.delay_ms(
                1,
                &ModelError::Malformed {
                    detail: String::new()
                },
                0.5
            ),
            None
        );
    }
}
