//! Q2_K: 256 2-bit values in 16 sub-blocks of 16, each sub-block with a
//! 4-bit scale (low nibble of `scales[j]`) and a 4-bit minimum (high
//! nibble), `x = d·sc·q − dmin·m`; activations in Q8_K.
//!
//! Value `i` lives in byte `32·(i / 128) + i % 32` of `qs`, bits
//! `2·(i % 128 / 32)`. The product is ggml's: per block `(yd·d)·Σ_j sc_j
//! Σ q·yq − (yd·dmin)·Σ_j m_j·bsum_j`, the sums exact integers. A row is
//! unpacked to bytes (`Wide16m`) for batches; writing a token unpacks
//! each block as it goes, with SIMD shifts.

use super::wide::{self, Wide16m};
use crate::model::quant::activation::BlockQ8K;
use crate::model::quant::bytes::block;
use crate::model::quant::{Kernel, QK_K};
use candle_core::quantized::GgmlDType;
use half::f16;

block! {
    pub struct BlockQ2K {
        pub scales: [u8; QK_K / 16], pub qs: [u8; QK_K / 4], pub d: f16, pub dmin: f16
    } = 84 bytes
}

impl BlockQ2K {
    /// Value `i` (0..4).
    pub fn q(&self, i: usize) -> u8 {
        let (half, r) = (i / 128, i % 128);
        (self.qs[32 * half + r % 32] >> (2 * (r / 32))) & 3
    }
}

impl Kernel for BlockQ2K {
    const DTYPE: GgmlDType = GgmlDType::Q2K;
    type Act = BlockQ8K;

    /// Each block unpacked as it is read, then `dot_wide`'s term: the same
    /// integers and float operations as `dot_scalar`.
    #[inline(always)]
    fn dot(xs: &[Self], ys: &[BlockQ8K]) -> f32 {
        assert_eq!(xs.len(), ys.len(), "vec_dot_q2k_q8k: lengths");
        let term = |(x, y): (&Self, &BlockQ8K)| wide::term16m(&x.widen(), y);
        xs.iter().zip(ys).map(term).fold(0f32, |sumf, t| sumf + t)
    }

    /// ggml's `ggml_vec_dot_q2_K_q8_K` (its generic code).
    #[inline(always)]
    fn dot_scalar(xs: &[Self], ys: &[BlockQ8K]) -> f32 {
        assert_eq!(xs.len(), ys.len(), "vec_dot_q2k_q8k: lengths");
        let mut sumf = 0f32;
        for (x, y) in xs.iter().zip(ys) {
            let mut summs = 0i32;
            let mut isum = 0i32;
            for (j, &sc) in x.scales.iter().enumerate() {
                summs += (sc >> 4) as i32 * y.bsums[j] as i32;
                let s: i32 = (16 * j..16 * j + 16)
                    .map(|i| x.q(i) as i32 * y.qs[i] as i32)
                    .sum();
                isum += (sc & 0xF) as i32 * s;
            }
            let dall = y.d * x.d.to_f32();
            let dmin = y.d * x.dmin.to_f32();
            sumf += dall * isum as f32 - dmin * summs as f32;
        }
        sumf
    }

    fn dequantize(xs: &[Self], out: &mut [f32]) {
        assert_eq!(out.len(), xs.len() * QK_K, "dequantize_row_q2_K: length");
        for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK_K)) {
            let (d, dmin) = (x.d.to_f32(), x.dmin.to_f32());
            for (j, out) in out.chunks_exact_mut(16).enumerate() {
                let sc = x.scales[j];
                let dl = d * (sc & 0xF) as f32;
                let ml = dmin * (sc >> 4) as f32;
                for (k, o) in out.iter_mut().enumerate() {
                    *o = dl * x.q(16 * j + k) as f32 - ml;
                }
            }
        }
    }

    type Wide = Wide16m;
    const WIDE_ZERO: Wide16m = Wide16m::ZERO;
    const WIDEN_FROM: usize = 2;

    /// The values as bytes, in order (with SIMD shifts when the build has
    /// simd128).
    #[inline(always)]
    fn widen(&self) -> Wide16m {
        #[cfg(target_feature = "simd128")]
        let qs = super::simd::q2k_values(&self.qs);
        #[cfg(not(target_feature = "simd128"))]
        let qs = std::array::from_fn(|i| self.q(i) as i8);
        Wide16m {
            d: self.d.to_f32(),
            dmin: self.dmin.to_f32(),
            scales: self.scales.map(|s| s & 0xF),
            mins: self.scales.map(|s| s >> 4),
            qs,
        }
    }

    #[inline(always)]
    fn dot_wide(xs: &[Wide16m], ys: &[BlockQ8K]) -> f32 {
        wide::dot16m(xs, ys)
    }

    super::wide_avx2!();
}
