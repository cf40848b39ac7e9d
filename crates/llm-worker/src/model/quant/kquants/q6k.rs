//! Q6_K: 6-bit values (4 low bits in `ql`, 2 high bits in `qh`), 16
//! sub-blocks of 16 with signed 8-bit scales, super-scale `d`;
//! `x = d * scales[i / 16] * (q - 32)`.

use super::group_kernel;
use super::scale16::Scale16;
use crate::model::quant::bytes::block;
use crate::model::quant::QK_K;
use half::f16;

block! {
    pub struct BlockQ6K {
        pub ql: [u8; QK_K / 2], pub qh: [u8; QK_K / 4], pub scales: [i8; QK_K / 16], pub d: f16
    } = 210 bytes
}

impl Scale16 for BlockQ6K {
    #[inline(always)]
    fn scales(&self) -> (f16, [i8; 16]) {
        (self.d, self.scales)
    }

    /// Value `i`, signed (q - 32). Of each half of 128 values, groups of 32
    /// take the low nibbles of `ql[0..32]`, of `ql[32..64]`, then their
    /// high nibbles, and bits 0-1, 2-3, 4-5, 6-7 of `qh[0..32]`.
    #[inline]
    fn q(&self, i: usize) -> i32 {
        let (half, r) = (i / 128, i % 128);
        let (group, l) = (r / 32, r % 32);
        let byte = self.ql[64 * half + l + 32 * (group & 1)];
        let low = if group >= 2 { byte >> 4 } else { byte & 0xF };
        let high = (self.qh[32 * half + l] >> (2 * group)) & 3;
        (low | (high << 4)) as i32 - 32
    }
}

group_kernel!(BlockQ6K: Q6K, scale16, Wide16, dot16, vec_dot_q6k_q8k, avx2 = dot_q6k);
