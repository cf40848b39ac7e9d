//! Q5_K: 5-bit values (4 low bits in `qs`, the high bit in `qh`), 8
//! sub-blocks of 32 with a 6-bit scale and a 6-bit min each, packed in
//! `scales`; super-scales `d` and `dmin`.

use super::group_kernel;
use super::scale_min::ScaleMin;
use crate::model::quant::bytes::block;
use crate::model::quant::QK_K;
use half::f16;

block! {
    pub struct BlockQ5K {
        pub d: f16, pub dmin: f16, pub scales: [u8; 12], pub qh: [u8; QK_K / 8],
        pub qs: [u8; QK_K / 2]
    } = 176 bytes
}

impl ScaleMin for BlockQ5K {
    #[inline(always)]
    fn scales(&self) -> (f16, f16, &[u8; 12]) {
        (self.d, self.dmin, &self.scales)
    }

    fn bits(&self) -> (&[u8; QK_K / 2], Option<&[u8; QK_K / 8]>) {
        (&self.qs, Some(&self.qh))
    }
}

group_kernel!(BlockQ5K: Q5K, scale_min, Wide32m, dot32m, vec_dot_q5k_q8k, avx2 = dot_q5k);
