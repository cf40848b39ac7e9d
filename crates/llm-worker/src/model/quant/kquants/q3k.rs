//! Q3_K: 3-bit values (2 low bits in `qs`, the high bit in `hmask`), 16
//! sub-blocks of 16 with 6-bit scales packed in `scales`, super-scale `d`.

use super::group_kernel;
use super::scale16::Scale16;
use crate::model::quant::bytes::block;
use crate::model::quant::QK_K;
use half::f16;

block! {
    pub struct BlockQ3K {
        pub hmask: [u8; QK_K / 8], pub qs: [u8; QK_K / 4], pub scales: [u8; 12], pub d: f16
    } = 110 bytes
}

impl Scale16 for BlockQ3K {
    #[inline(always)]
    fn scales(&self) -> (f16, [i8; 16]) {
        (self.d, q3k_scales(&self.scales))
    }

    /// Value `i` as a signed 3-bit integer in -4..=3: `(q2 | hbit << 2) - 4`.
    #[inline]
    fn q(&self, i: usize) -> i32 {
        let (half, r) = (i / 128, i % 128);
        let (shift, l) = (r / 32, r % 32);
        let q2 = (self.qs[32 * half + l] >> (2 * shift)) & 3;
        let h = (self.hmask[l] >> (4 * half + shift)) & 1;
        (q2 | (h << 2)) as i32 - 4
    }
}

group_kernel!(BlockQ3K: Q3K, scale16, Wide16, dot16, vec_dot_q3k_q8k);

/// Q3_K's 16 sub-block scales, unpacked from 12 bytes (the low 4 bits of
/// each in bytes 0..8, the high 2 bits in bytes 8..12) and re-centred
/// (`- 32`), as ggml's kmask trick does.
pub fn q3k_scales(scales: &[u8; 12]) -> [i8; 16] {
    const KMASK1: u32 = 0x0303_0303;
    const KMASK2: u32 = 0x0f0f_0f0f;
    let word =
        |k: usize| u32::from_le_bytes([scales[k], scales[k + 1], scales[k + 2], scales[k + 3]]);
    let (a0, a1, tmp) = (word(0), word(4), word(8));
    let aux = [
        (a0 & KMASK2) | ((tmp & KMASK1) << 4),
        (a1 & KMASK2) | (((tmp >> 2) & KMASK1) << 4),
        ((a0 >> 4) & KMASK2) | (((tmp >> 4) & KMASK1) << 4),
        ((a1 >> 4) & KMASK2) | (((tmp >> 6) & KMASK1) << 4),
    ];
    let mut out = [0i8; 16];
    for (o, s) in out.iter_mut().zip(aux.iter().flat_map(|a| a.to_le_bytes())) {
        *o = s as i8 - 32;
    }
    out
}
