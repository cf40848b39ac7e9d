//! Q4_K and Q5_K: 8 sub-blocks of 32 values with a 6-bit scale and a
//! 6-bit min each (`x = d * scale * q - dmin * min`). One scalar kernel,
//! dequantisation and unpacking serve both; only reading a value differs.

use super::wide::Wide32m;
use crate::model::quant::activation::BlockQ8K;
use crate::model::quant::QK_K;
use half::f16;

/// Q4_K or Q5_K: where its scales and values are.
pub trait ScaleMin {
    /// The super-scales `d` and `dmin`, and the 12 bytes the sub-blocks'
    /// scales and mins are packed in.
    fn scales(&self) -> (f16, f16, &[u8; 12]);
    /// The values' low four bits (`qs`) and, for Q5_K, their fifth (`qh`).
    fn bits(&self) -> (&[u8; QK_K / 2], Option<&[u8; QK_K / 8]>);

    /// Value `i` of the block, unsigned: its low bits `qs[32·chunk + l] >>
    /// 4·hi` (`chunk = i / 64`, `hi = i % 64 / 32`, `l = i % 32`), and
    /// for Q5_K bit `2·chunk + hi` of `qh[l]` above them.
    #[inline]
    fn q(&self, i: usize) -> i32 {
        let (qs, qh) = self.bits();
        let (chunk, hi, l) = (i / 64, i % 64 / 32, i % 32);
        let low = (qs[32 * chunk + l] >> (4 * hi)) & 0xF;
        match qh {
            Some(qh) => (low | (((qh[l] >> (i / 32)) & 1) << 4)) as i32,
            None => low as i32,
        }
    }
}

/// Q4_K/Q5_K's 8 (scale, min) pairs of 6 bits from 12 bytes (ggml's
/// `get_scale_min_k4`).
pub fn q5k_scales_mins(q: &[u8; 12]) -> ([u8; 8], [u8; 8]) {
    let mut sc = [0u8; 8];
    let mut mn = [0u8; 8];
    for j in 0..8 {
        if j < 4 {
            sc[j] = q[j] & 63;
            mn[j] = q[j + 4] & 63;
        } else {
            sc[j] = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
            mn[j] = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
        }
    }
    (sc, mn)
}

/// ggml's scalar Q4_K/Q5_K product: per block the exact integer sums
/// `Σ_j scale_j · Σ q·q8` and `Σ_j min_j · Σ q8`, then
/// `d·dy·sumi - dmin·dy·summ`.
#[inline(always)]
pub fn dot_scalar<B: ScaleMin>(xs: &[B], ys: &[BlockQ8K]) -> f32 {
    assert_eq!(xs.len(), ys.len(), "scale-min K-quant dot: lengths");
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        let (d, dmin, packed) = x.scales();
        let (scales, mins) = q5k_scales_mins(packed);
        let mut sumi = 0i32;
        for (j, &sc) in scales.iter().enumerate() {
            let s: i32 = (32 * j..32 * j + 32).map(|i| x.q(i) * y.qs[i] as i32).sum();
            sumi += sc as i32 * s;
        }
        // Σ min·q8 over each sub-block of 32: two bsums of 16 each.
        let summ: i32 = y
            .bsums
            .iter()
            .enumerate()
            .map(|(j, &b)| b as i32 * mins[j / 2] as i32)
            .sum();
        sumf += d.to_f32() * y.d * sumi as f32 - dmin.to_f32() * y.d * summ as f32;
    }
    sumf
}

pub fn dequantize<B: ScaleMin>(xs: &[B], out: &mut [f32]) {
    assert_eq!(out.len(), xs.len() * QK_K, "dequantize_row_q4_K: length");
    for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK_K)) {
        let (d, dmin, packed) = x.scales();
        let (scales, mins) = q5k_scales_mins(packed);
        let (d, dmin) = (d.to_f32(), dmin.to_f32());
        for (j, out) in out.chunks_exact_mut(32).enumerate() {
            let d1 = d * scales[j] as f32;
            let m1 = dmin * mins[j] as f32;
            for (k, o) in out.iter_mut().enumerate() {
                *o = d1 * x.q(32 * j + k) as f32 - m1;
            }
        }
    }
}

#[inline(always)]
pub fn widen<B: ScaleMin>(x: &B) -> Wide32m {
    let (d, dmin, packed) = x.scales();
    let (scales, mins) = q5k_scales_mins(packed);
    let mut qs = [0i8; QK_K];
    for (i, q) in qs.iter_mut().enumerate() {
        *q = x.q(i) as i8;
    }
    Wide32m {
        d: d.to_f32(),
        dmin: dmin.to_f32(),
        scales,
        mins,
        qs,
    }
}
