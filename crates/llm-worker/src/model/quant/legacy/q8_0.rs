//! Q8_0 weights (32 signed bytes and one scale, `x = d * q`; the block is
//! the activation type's, `activation.rs`) with Q8_0 activations, as
//! llama.cpp's wasm build multiplies them: per block the integer sum, then
//! `sumf += (d * yd) * sumi` in block order (ggml's generic kernel, which
//! its wasm build runs). candle's kernels sum in another order
//! (`(sumi * d) * yd`, or in four lanes with SIMD), which moves the model's
//! logits by an ulp now and then.

use super::wide::{self, Wide8};
use super::Formula;
use crate::model::quant::activation::BlockQ8_0;
use crate::model::quant::isum::isum32;
use crate::model::quant::{Kernel, QK};
use candle_core::quantized::GgmlDType;

impl Kernel for BlockQ8_0 {
    const DTYPE: GgmlDType = GgmlDType::Q8_0;
    type Act = BlockQ8_0;

    /// The integer sums with simd128 when the build has it; the same
    /// float formula either way.
    #[inline(always)]
    fn dot(xs: &[Self], ys: &[BlockQ8_0]) -> f32 {
        debug_assert_eq!(xs.len(), ys.len(), "vec_dot_q8_0_q8_0: size mismatch");
        let mut sumf = 0f32;
        for (x, y) in xs.iter().zip(ys) {
            sumf += (x.d.to_f32() * y.d.to_f32()) * isum32(&x.qs, &y.qs) as f32;
        }
        sumf
    }

    /// ggml's `ggml_vec_dot_q8_0_q8_0_generic`: per block `sumi * (d * yd)`.
    #[inline(always)]
    fn dot_scalar(xs: &[Self], ys: &[BlockQ8_0]) -> f32 {
        debug_assert_eq!(xs.len(), ys.len(), "vec_dot_q8_0_q8_0: size mismatch");
        let mut sumf = 0f32;
        for (x, y) in xs.iter().zip(ys) {
            let sumi: i32 =
                x.qs.iter()
                    .zip(&y.qs)
                    .map(|(&a, &b)| a as i32 * b as i32)
                    .sum();
            sumf += (x.d.to_f32() * y.d.to_f32()) * sumi as f32;
        }
        sumf
    }

    fn dequantize(xs: &[Self], out: &mut [f32]) {
        debug_assert_eq!(
            out.len(),
            xs.len() * QK,
            "dequantize_row_q8_0: size mismatch"
        );
        for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK)) {
            let d = x.d.to_f32();
            for (o, &q) in out.iter_mut().zip(&x.qs) {
                *o = q as f32 * d;
            }
        }
    }

    type Wide = Wide8;
    const WIDE_ZERO: Wide8 = <Wide8 as wide::Unpacked>::ZERO;
    /// Already bytes: a row is "unpacked" only to hold its scale as a float.
    const WIDEN_FROM: usize = 4;

    #[inline(always)]
    fn widen(&self) -> Wide8 {
        Wide8 {
            d: self.d.to_f32(),
            qs: self.qs,
        }
    }

    #[inline(always)]
    fn dot_wide(xs: &[Wide8], ys: &[BlockQ8_0]) -> f32 {
        wide::dot(Formula::ScaleFirst, xs, ys)
    }

    #[inline(always)]
    fn dot_wide4(xs: &[Wide8], ys: [&[BlockQ8_0]; 4]) -> [f32; 4] {
        wide::dot4(Formula::ScaleFirst, xs, ys)
    }

    #[cfg(target_arch = "x86_64")]
    const PACKED_AVX2: bool = true;

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn dot_avx2(xs: &[Self], ys: &[BlockQ8_0]) -> f32 {
        super::avx2::dot_packed(xs, ys)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn dot_wide_avx2(xs: &[Wide8], ys: &[BlockQ8_0]) -> f32 {
        super::avx2::dot(Formula::ScaleFirst, xs, ys)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn dot_wide4_avx2(xs: &[Wide8], ys: [&[BlockQ8_0]; 4]) -> [f32; 4] {
        super::avx2::dot4(Formula::ScaleFirst, xs, ys)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn dot_wide4x2_avx2(
        a: &[Wide8],
        b: &[Wide8],
        ys: [&[BlockQ8_0]; 4],
        scales: &[[[f32; 4]; 2]],
    ) -> [[f32; 4]; 2] {
        super::avx2::dot4x2(Formula::ScaleFirst, a, b, ys, scales)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn scales4(ys: [&BlockQ8_0; 4]) -> [[f32; 4]; 2] {
        super::avx2::scales4(ys)
    }
}
