//! Q5_1: 32 unsigned 5-bit values, `x = d * q + m`; activations in Q8_1.

use super::wide::Wide8m;
use super::{fives, legacy_kernel, Formula, Legacy};
use crate::model::quant::activation::BlockQ8_1;
use crate::model::quant::bytes::block;
use crate::model::quant::QK;
use half::f16;

block! {
    /// Bits packed as in Q5_0.
    pub struct BlockQ5_1 {
        pub d: f16, pub m: f16, pub qh: [u8; 4], pub qs: [u8; QK / 2]
    } = 24 bytes
}

/// ggml's `ggml_vec_dot_q5_1_q8_1`: per block `(d * yd) * sum(q * yq) +
/// m * s`.
impl Legacy for BlockQ5_1 {
    const FORMULA: Formula = Formula::WithMin;
    const OFFSET: i32 = 0;

    #[inline(always)]
    fn codes(&self, j: usize) -> (i32, i32) {
        fives(&self.qs, self.qh, j)
    }

    #[inline(always)]
    fn dm(&self) -> (f16, f16) {
        (self.d, self.m)
    }
}

legacy_kernel!(BlockQ5_1: Q5_1, BlockQ8_1, Wide8m);
