//! What the crate's tests share: an engine and greedy parameters
//! (`engine`); for the kernel tests, a deterministic random source, and the
//! generators and independent layout references of each family
//! (`legacy`: Q4_0, Q4_1, Q5_0, Q5_1; `kquants`: Q3_K, Q4_K, Q5_K, Q6_K).
#![allow(dead_code)] // each test file uses its own part

pub mod engine;
pub mod kquants;
pub mod legacy;

use llm_worker::model::quant::Kernel;

/// xorshift64*: deterministic numbers without a crate.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn byte(&mut self) -> u8 {
        (self.next() >> 56) as u8
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// Uniform in [-1, 1).
    pub fn sym(&mut self) -> f32 {
        2.0 * self.unit() - 1.0
    }
    /// `10^u`, `u` uniform in [lo, hi).
    pub fn pow10(&mut self, lo: f32, hi: f32) -> f32 {
        10f32.powf(lo + (hi - lo) * self.unit())
    }
}

/// Activations quantised for `T` by its own quantiser.
pub fn quantize_act<T: Kernel>(xs: &[f32]) -> Vec<T::Act> {
    let mut out = vec![T::ACT_ZERO; xs.len() / T::BLOCK];
    T::quantize_act(xs, &mut out);
    out
}

/// Blocks parsed with `read` from stored bytes.
pub fn blocks_from_bytes<K: Kernel>(bytes: &[u8]) -> Vec<K> {
    assert_eq!(bytes.len() % K::BYTES, 0);
    bytes.chunks_exact(K::BYTES).map(K::read).collect()
}
