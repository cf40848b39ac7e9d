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

#[cfg(target_arch = "x86_64")]
pub mod avx2;
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
/// type's simd128 kernel `simd::$simd`, and natively its packed AVX2
/// kernel `avx2::$avx2` when it has one.
macro_rules! group_kernel {
    ($t:ty: $dtype:ident, $group:ident, $wide:ident, $dot_wide:ident, $simd:ident, avx2 = $avx2:ident) => {
        $crate::model::quant::kquants::group_kernel!(@impl $t: $dtype, $group, $wide, $dot_wide, $simd, {
            #[cfg(target_arch = "x86_64")]
            const PACKED_AVX2: bool = true;

            #[cfg(target_arch = "x86_64")]
            #[inline]
            unsafe fn dot_avx2(xs: &[Self], ys: &[Self::Act]) -> f32 {
                // SAFETY: the caller's: the CPU has AVX2.
                unsafe { $crate::model::quant::kquants::avx2::$avx2(xs, ys) }
            }
        });
    };
    ($t:ty: $dtype:ident, $group:ident, $wide:ident, $dot_wide:ident, $simd:ident) => {
        $crate::model::quant::kquants::group_kernel!(@impl $t: $dtype, $group, $wide, $dot_wide, $simd, {});
    };
    (@impl $t:ty: $dtype:ident, $group:ident, $wide:ident, $dot_wide:ident, $simd:ident, { $($avx2:tt)* }) => {
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

            $crate::model::quant::kquants::wide_avx2!();

            $($avx2)*
        }
    };
}
pub(crate) use group_kernel;

/// A K-quant `Kernel`'s products of unpacked rows natively on AVX2
/// (`avx2::WideAvx2`), in the `impl Kernel` of every K-quant type.
macro_rules! wide_avx2 {
    () => {
        #[cfg(target_arch = "x86_64")]
        #[inline]
        unsafe fn dot_wide_avx2(xs: &[Self::Wide], ys: &[Self::Act]) -> f32 {
            // SAFETY: the caller's: the CPU has AVX2.
            unsafe { <Self::Wide as $crate::model::quant::kquants::avx2::WideAvx2>::dot(xs, ys) }
        }

        #[cfg(target_arch = "x86_64")]
        #[inline]
        unsafe fn dot_wide4_avx2(xs: &[Self::Wide], ys: [&[Self::Act]; 4]) -> [f32; 4] {
            use $crate::model::quant::kquants::avx2::WideAvx2;
            // SAFETY: as `dot_wide_avx2`.
            unsafe { Self::Wide::dots(xs, ys) }
        }
    };
}
pub(crate) use wide_avx2;
