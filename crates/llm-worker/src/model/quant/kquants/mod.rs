//! K-quant kernels (256 values a block): Q2_K, Q3_K, Q4_K, Q5_K and Q6_K
//! weights against activations quantised to Q8_K, with ggml's block
//! layouts and semantics. Q2_K's kernel is its own; Q3_K's and Q6_K's come
//! from the `Scale16` trait (`scale16.rs`), Q4_K's and Q5_K's from
//! `ScaleMin` (`scale_min.rs`).
//!
//! Each block's dot product is an exact integer sum (sub-block scales
//! applied as integers, as ggml does), scaled once in f32; the scalar and
//! the simd128 kernels compute the same integers and add the blocks' f32
//! terms in the same order. `simd` holds the simd128 kernels, `wide` the
//! unpacked blocks of batches.

mod q2k;
mod q3k;
mod q4k;
mod q5k;
mod q6k;
mod scale16;
mod scale_min;
#[cfg(target_feature = "simd128")]
pub mod simd;
pub mod wide;

pub use q2k::BlockQ2K;
pub use q3k::{q3k_scales, BlockQ3K};
pub use q4k::BlockQ4K;
pub use q5k::BlockQ5K;
pub use q6k::BlockQ6K;
pub use scale16::Scale16;
pub use scale_min::{q5k_scales_mins, ScaleMin};

/// The `Kernel` of a type `$t` of ggml type `$dtype` whose kernels are a
/// group's (`scale16`, `scale_min`): the group's generic scalar code, its
/// unpacked block `$wide` and their product `wide::$dot_wide`, and the
/// type's simd128 kernel `simd::$simd`.
macro_rules! group_kernel {
    ($t:ty: $dtype:ident, $group:ident, $wide:ident, $dot_wide:ident, $simd:ident) => {
        impl $crate::model::quant::Kernel for $t {
            const DTYPE: candle_core::quantized::GgmlDType =
                candle_core::quantized::GgmlDType::$dtype;
            type Act = $crate::model::quant::activation::BlockQ8K;

            #[cfg(target_feature = "simd128")]
            fn dot_simd(xs: &[Self], ys: &[Self::Act]) -> f32 {
                use $crate::model::quant::{kquants::simd, QK_K};
                simd::$simd(xs.len() * QK_K, xs, ys)
            }

            #[inline(always)]
            fn dot_scalar(xs: &[Self], ys: &[Self::Act]) -> f32 {
                $crate::model::quant::kquants::$group::dot_scalar(xs, ys)
            }

            fn dequantize(xs: &[Self], out: &mut [f32]) {
                $crate::model::quant::kquants::$group::dequantize(xs, out)
            }

            type Wide = $crate::model::quant::kquants::wide::$wide;
            const WIDE_ZERO: Self::Wide = $crate::model::quant::kquants::wide::$wide::ZERO;
            const WIDEN_FROM: usize = 16;

            #[inline(always)]
            fn widen(&self) -> Self::Wide {
                $crate::model::quant::kquants::$group::widen(self)
            }

            #[inline(always)]
            fn dot_wide(xs: &[Self::Wide], ys: &[Self::Act]) -> f32 {
                $crate::model::quant::kquants::wide::$dot_wide(xs, ys)
            }
        }
    };
}
use group_kernel;
