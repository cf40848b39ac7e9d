//! Q4_0: 32 4-bit values and one scale, `x = d * (q - 8)`; activations
//! in Q8_0. candle has a simd128 kernel for it, but ours also takes two
//! rows at a time and batches on unpacked rows.

use super::wide::Wide8;
use super::{legacy_kernel, nibbles, Formula, Legacy};
use crate::model::quant::activation::BlockQ8_0;
use crate::model::quant::bytes::block;
use crate::model::quant::QK;
use half::f16;

block! {
    /// Byte `j` of `qs` holds element `j` in its low nibble and element
    /// `j + 16` in its high one.
    pub struct BlockQ4_0 {
        pub d: f16, pub qs: [u8; QK / 2]
    } = 18 bytes
}

/// ggml's `ggml_vec_dot_q4_0_q8_0`: per block `sum((q - 8) * yq) * d * yd`.
impl Legacy for BlockQ4_0 {
    const FORMULA: Formula = Formula::SumFirst;
    const OFFSET: i32 = -8;

    #[inline(always)]
    fn codes(&self, j: usize) -> (i32, i32) {
        nibbles(&self.qs, j)
    }

    #[inline(always)]
    fn dm(&self) -> (f16, f16) {
        (self.d, f16::ZERO)
    }
}

legacy_kernel!(BlockQ4_0: Q4_0, BlockQ8_0, Wide8, packed = true);
