//! Q4_K and Q5_K: 8 sub-blocks of 32 values with a 6-bit scale and a
//! 6-bit min each (`x = d * scale * q - dmin * min`). One scalar kernel,
//! dequantisation and unpacking serve both; only reading a value differs.

use super::super::wide::{self, Wide32m};
use super::super::Kernel;
#[cfg(target_feature = "simd128")]
use super::simd;
use super::{copy, q5k_scales_mins, read_f16, BlockQ4K, BlockQ5K, BlockQ8K, QK_K};
use candle_core::quantized::GgmlDType;
use half::f16;

/// Q4_K and Q5_K: 8 sub-blocks of 32 values, each with a 6-bit scale and
/// min, `x = d * scale * q - dmin * min`; their kernels differ only in
/// how a value is read.
trait ScaleMin: Sized {
    const DTYPE: GgmlDType;
    /// The block from its stored bytes (their count already checked).
    fn parse(bytes: &[u8]) -> Self;
    /// The simd128 kernel.
    #[cfg(target_feature = "simd128")]
    fn simd_dot(n: usize, xs: &[Self], ys: &[BlockQ8K]) -> f32;
    fn d(&self) -> f16;
    fn dmin(&self) -> f16;
    fn packed(&self) -> &[u8; 12];
    /// Value `i` of the block, unsigned.
    fn q(&self, i: usize) -> i32;
}

/// Value `i`'s low four bits in a Q4_K or Q5_K `qs`: `chunk = i / 64`,
/// `hi = i % 64 / 32`, `l = i % 32`; `qs[32·chunk + l] >> 4·hi`.
#[inline]
fn low4(qs: &[u8; QK_K / 2], i: usize) -> u8 {
    let (chunk, hi, l) = (i / 64, i % 64 / 32, i % 32);
    (qs[32 * chunk + l] >> (4 * hi)) & 0xF
}

impl ScaleMin for BlockQ4K {
    const DTYPE: GgmlDType = GgmlDType::Q4K;
    fn parse(bytes: &[u8]) -> Self {
        Self {
            d: read_f16(bytes, 0),
            dmin: read_f16(bytes, 2),
            scales: copy(bytes, 4),
            qs: copy(bytes, 16),
        }
    }
    #[cfg(target_feature = "simd128")]
    fn simd_dot(n: usize, xs: &[Self], ys: &[BlockQ8K]) -> f32 {
        simd::vec_dot_q4k_q8k(n, xs, ys)
    }
    fn d(&self) -> f16 {
        self.d
    }
    fn dmin(&self) -> f16 {
        self.dmin
    }
    fn packed(&self) -> &[u8; 12] {
        &self.scales
    }
    #[inline]
    fn q(&self, i: usize) -> i32 {
        low4(&self.qs, i) as i32
    }
}

impl ScaleMin for BlockQ5K {
    const DTYPE: GgmlDType = GgmlDType::Q5K;
    fn parse(bytes: &[u8]) -> Self {
        Self {
            d: read_f16(bytes, 0),
            dmin: read_f16(bytes, 2),
            scales: copy(bytes, 4),
            qh: copy(bytes, 16),
            qs: copy(bytes, 48),
        }
    }
    #[cfg(target_feature = "simd128")]
    fn simd_dot(n: usize, xs: &[Self], ys: &[BlockQ8K]) -> f32 {
        simd::vec_dot_q5k_q8k(n, xs, ys)
    }
    fn d(&self) -> f16 {
        self.d
    }
    fn dmin(&self) -> f16 {
        self.dmin
    }
    fn packed(&self) -> &[u8; 12] {
        &self.scales
    }
    /// The high bit is bit `2·chunk + hi` of `qh[l]`.
    #[inline]
    fn q(&self, i: usize) -> i32 {
        let h = (self.qh[i % 32] >> (i / 32)) & 1;
        (low4(&self.qs, i) | (h << 4)) as i32
    }
}

/// ggml's scalar Q4_K/Q5_K product: per block the exact integer sums
/// `Σ_j scale_j · Σ q·q8` and `Σ_j min_j · Σ q8`, then
/// `d·dy·sumi - dmin·dy·summ`.
fn scale_min_dot<B: ScaleMin>(xs: &[B], ys: &[BlockQ8K]) -> f32 {
    assert_eq!(xs.len(), ys.len(), "scale-min K-quant dot: lengths");
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        let (scales, mins) = q5k_scales_mins(x.packed());
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
        sumf += x.d().to_f32() * y.d * sumi as f32 - x.dmin().to_f32() * y.d * summ as f32;
    }
    sumf
}

fn scale_min_dequantize<B: ScaleMin>(xs: &[B], out: &mut [f32]) {
    assert_eq!(
        out.len(),
        xs.len() * QK_K,
        "dequantize_row_q4_K/q5_K: length"
    );
    for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK_K)) {
        let (scales, mins) = q5k_scales_mins(x.packed());
        let (d, dmin) = (x.d().to_f32(), x.dmin().to_f32());
        for (j, out) in out.chunks_exact_mut(32).enumerate() {
            let d1 = d * scales[j] as f32;
            let m1 = dmin * mins[j] as f32;
            for (k, o) in out.iter_mut().enumerate() {
                *o = d1 * x.q(32 * j + k) as f32 - m1;
            }
        }
    }
}

fn scale_min_widen<B: ScaleMin>(x: &B) -> Wide32m {
    let (scales, mins) = q5k_scales_mins(x.packed());
    let mut qs = [0i8; QK_K];
    for (i, q) in qs.iter_mut().enumerate() {
        *q = x.q(i) as i8;
    }
    Wide32m {
        d: x.d().to_f32(),
        dmin: x.dmin().to_f32(),
        scales,
        mins,
        qs,
    }
}

/// The `Kernel` of a `ScaleMin` type: everything but reading a value is
/// shared.
macro_rules! scale_min_kernel {
    ($t:ty) => {
        impl Kernel for $t {
            const DTYPE: GgmlDType = <$t as ScaleMin>::DTYPE;
            const BLOCK: usize = QK_K;
            const BYTES: usize = size_of::<Self>();
            type Act = BlockQ8K;
            const ACT_ZERO: BlockQ8K = BlockQ8K::ZERO;

            fn read(bytes: &[u8]) -> Self {
                assert_eq!(bytes.len(), Self::BYTES, concat!(stringify!($t), "::read"));
                Self::parse(bytes)
            }

            fn quantize_act(xs: &[f32], out: &mut [BlockQ8K]) {
                BlockQ8K::quantize(xs, out)
            }

            fn dot(xs: &[Self], ys: &[BlockQ8K]) -> f32 {
                #[cfg(target_feature = "simd128")]
                return Self::simd_dot(xs.len() * QK_K, xs, ys);
                #[cfg(not(target_feature = "simd128"))]
                return Self::dot_scalar(xs, ys);
            }

            fn dot_scalar(xs: &[Self], ys: &[BlockQ8K]) -> f32 {
                scale_min_dot(xs, ys)
            }

            fn dequantize(xs: &[Self], out: &mut [f32]) {
                scale_min_dequantize(xs, out)
            }

            type Wide = Wide32m;
            const WIDE_ZERO: Wide32m = Wide32m::ZERO;
            const WIDEN_FROM: usize = 16;

            fn widen(&self) -> Wide32m {
                scale_min_widen(self)
            }

            fn dot_wide(xs: &[Wide32m], ys: &[BlockQ8K]) -> f32 {
                wide::dot32m(xs, ys)
            }
        }
    };
}

scale_min_kernel!(BlockQ4K);
scale_min_kernel!(BlockQ5K);
