//! Q4_1: 32 unsigned 4-bit values, `x = d * q + m`; activations in Q8_1.

use super::wide::Wide8m;
use super::{legacy_kernel, nibbles, Formula, Legacy};
use crate::model::quant::activation::BlockQ8_1;
use crate::model::quant::bytes::block;
use crate::model::quant::QK;
use half::f16;

block! {
    /// Packed as Q4_0's: byte `j` of `qs` holds element `j` in its low
    /// nibble and element `j + 16` in its high one.
    pub struct BlockQ4_1 {
        pub d: f16, pub m: f16, pub qs: [u8; QK / 2]
    } = 20 bytes
}

/// ggml's `ggml_vec_dot_q4_1_q8_1`: per block `(d * yd) * sum(q * yq) +
/// m * s`.
impl Legacy for BlockQ4_1 {
    const FORMULA: Formula = Formula::WithMin;
    const OFFSET: i32 = 0;

    #[inline(always)]
    fn codes(&self, j: usize) -> (i32, i32) {
        nibbles(&self.qs, j)
    }

    #[inline(always)]
    fn dm(&self) -> (f16, f16) {
        (self.d, self.m)
    }
}

legacy_kernel!(BlockQ4_1: Q4_1, BlockQ8_1, Wide8m, packed = true);
