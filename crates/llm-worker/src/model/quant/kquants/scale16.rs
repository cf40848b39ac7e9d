//! Q3_K and Q6_K: 16 sub-blocks of 16 values with a signed scale each
//! (`x = d * scale * q`, q signed). One scalar kernel, dequantisation and
//! unpacking serve both; only reading the scales and values differs.

use super::wide::Wide16;
use crate::model::quant::activation::BlockQ8K;
use crate::model::quant::QK_K;
use half::f16;

/// Q3_K or Q6_K: how its scales and values are read.
pub trait Scale16 {
    /// The super-scale `d` and the 16 sub-blocks' scales.
    fn scales(&self) -> (f16, [i8; 16]);
    /// Value `i` of the block, signed.
    fn q(&self, i: usize) -> i32;
}

/// Per block `d * yd * Σ_j scales[j] · Σ_16 q·yq`, the integer sum exact
/// (ggml sums Q6_K's in eight f32 lanes instead).
#[inline(always)]
pub fn dot_scalar<B: Scale16>(xs: &[B], ys: &[BlockQ8K]) -> f32 {
    assert_eq!(xs.len(), ys.len(), "scale-16 K-quant dot: lengths");
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        let (d, scales) = x.scales();
        let mut sumi = 0i32;
        for (j, &sc) in scales.iter().enumerate() {
            let s: i32 = (16 * j..16 * j + 16).map(|i| x.q(i) * y.qs[i] as i32).sum();
            sumi += sc as i32 * s;
        }
        sumf += d.to_f32() * y.d * sumi as f32;
    }
    sumf
}

pub fn dequantize<B: Scale16>(xs: &[B], out: &mut [f32]) {
    assert_eq!(out.len(), xs.len() * QK_K, "dequantize_row_q6_K: length");
    for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK_K)) {
        let (d, scales) = x.scales();
        let d = d.to_f32();
        for (j, out) in out.chunks_exact_mut(16).enumerate() {
            let dl = d * scales[j] as f32;
            for (k, o) in out.iter_mut().enumerate() {
                *o = dl * x.q(16 * j + k) as f32;
            }
        }
    }
}

#[inline(always)]
pub fn widen<B: Scale16>(x: &B) -> Wide16 {
    let (d, scales) = x.scales();
    let mut qs = [0i8; QK_K];
    for (i, q) in qs.iter_mut().enumerate() {
        *q = x.q(i) as i8;
    }
    Wide16 {
        d: d.to_f32(),
        scales,
        qs,
    }
}
