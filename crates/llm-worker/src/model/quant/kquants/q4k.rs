//! Q4_K: 4-bit values in `qs`, 8 sub-blocks of 32 with a 6-bit scale and
//! a 6-bit min each, packed in `scales` as Q5_K's; super-scales `d` and
//! `dmin`. `x = d * scale * q - dmin * min`.

use super::group_kernel;
use super::scale_min::ScaleMin;
use crate::model::quant::bytes::block;
use crate::model::quant::QK_K;
use half::f16;

block! {
    pub struct BlockQ4K {
        pub d: f16, pub dmin: f16, pub scales: [u8; 12], pub qs: [u8; QK_K / 2]
    } = 144 bytes
}

impl ScaleMin for BlockQ4K {
    #[inline(always)]
    fn scales(&self) -> (f16, f16, &[u8; 12]) {
        (self.d, self.dmin, &self.scales)
    }

    fn bits(&self) -> (&[u8; QK_K / 2], Option<&[u8; QK_K / 8]>) {
        (&self.qs, None)
    }
}

group_kernel!(BlockQ4K: Q4K, scale_min, Wide32m, dot32m, vec_dot_q4k_q8k, avx2 = dot_q4k);
