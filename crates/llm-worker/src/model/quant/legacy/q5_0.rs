//! Q5_0: 32 5-bit values, `x = d * (q - 16)`; activations in Q8_0.

use super::wide::Wide8;
use super::{fives, legacy_kernel, Formula, Legacy};
use crate::model::quant::activation::BlockQ8_0;
use crate::model::quant::bytes::block;
use crate::model::quant::QK;
use half::f16;

block! {
    /// The low four bits are packed as in Q4_0; bit `i` of `qh`
    /// (little-endian u32) is bit 4 of element `i`.
    pub struct BlockQ5_0 {
        pub d: f16, pub qh: [u8; 4], pub qs: [u8; QK / 2]
    } = 22 bytes
}

/// ggml's `ggml_vec_dot_q5_0_q8_0`: per block `(d * yd) * sum((q - 16) *
/// yq)`.
impl Legacy for BlockQ5_0 {
    const FORMULA: Formula = Formula::ScaleFirst;
    const OFFSET: i32 = -16;

    #[inline(always)]
    fn codes(&self, j: usize) -> (i32, i32) {
        fives(&self.qs, self.qh, j)
    }

    #[inline(always)]
    fn dm(&self) -> (f16, f16) {
        (self.d, f16::ZERO)
    }
}

legacy_kernel!(BlockQ5_0: Q5_0, BlockQ8_0, Wide8);
