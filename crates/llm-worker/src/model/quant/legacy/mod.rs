//! ggml's legacy types, blocks of 32 values: Q4_0, Q4_1, Q5_0 and Q5_1,
//! whose kernels all come from the `Legacy` trait, and Q8_0, whose kernel
//! is its own (`q8_0.rs`); activations in Q8_0 or Q8_1.
//!
//! Layouts, quantisation of activations and the scalar dot products are
//! ggml's (its generic code, which llama.cpp's wasm build runs); `simd`
//! holds the wasm `simd128` kernels, `wide` the unpacked blocks of batches.
//! Each type's float operations are its own, in ggml's order (`Formula`):
//! the SIMD and unpacked kernels give the scalar kernel's value to the bit.

#[cfg(target_arch = "x86_64")]
pub mod avx2;
mod q4_0;
mod q4_1;
mod q5_0;
mod q5_1;
mod q8_0;
#[cfg(target_feature = "simd128")]
pub mod simd;
pub mod wide;

pub use q4_0::BlockQ4_0;
pub use q4_1::BlockQ4_1;
pub use q5_0::BlockQ5_0;
pub use q5_1::BlockQ5_1;

use super::activation::{Activation, BlockQ8_0, BlockQ8_1};
use super::{Kernel, QK};
use half::f16;
use wide::Unpacked;

/// How a block's integer sum becomes its term: each type's own order of
/// float operations, ggml's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formula {
    /// `(sum * d) * yd` (Q4_0).
    SumFirst,
    /// `(d * yd) * sum` (Q5_0, Q8_0).
    ScaleFirst,
    /// `(d * yd) * sum + m * s` (Q4_1, Q5_1: a minimum `m`, and the
    /// activations' `s`).
    WithMin,
}

impl Formula {
    /// A block's term from its integer sum, the weights' scale `d`, the
    /// activations' scale `yd`, and (read only with a minimum) the weights'
    /// minimum `m` and the activations' `s`, `ms()`.
    #[inline(always)]
    pub fn term(self, sum: f32, d: f32, yd: f32, ms: impl FnOnce() -> (f32, f32)) -> f32 {
        match self {
            Formula::SumFirst => sum * d * yd,
            Formula::ScaleFirst => (d * yd) * sum,
            Formula::WithMin => {
                let (m, s) = ms();
                (d * yd) * sum + m * s
            }
        }
    }

    /// A value from its integer `q` (offset applied): `q * d`, plus `m`
    /// for the types with a minimum.
    #[inline(always)]
    pub fn value(self, q: i32, d: f32, m: f32) -> f32 {
        match self {
            Formula::WithMin => q as f32 * d + m,
            _ => q as f32 * d,
        }
    }
}

/// Q8_0 and Q8_1 as the legacy types read them.
pub trait Q8: Activation {
    fn qs(&self) -> &[i8; QK];
    /// The scale and `s` (zero for Q8_0, which has none).
    fn ds(&self) -> (f16, f16);
}

impl Q8 for BlockQ8_0 {
    #[inline(always)]
    fn qs(&self) -> &[i8; QK] {
        &self.qs
    }
    #[inline(always)]
    fn ds(&self) -> (f16, f16) {
        (self.d, f16::ZERO)
    }
}

impl Q8 for BlockQ8_1 {
    #[inline(always)]
    fn qs(&self) -> &[i8; QK] {
        &self.qs
    }
    #[inline(always)]
    fn ds(&self) -> (f16, f16) {
        (self.d, self.s)
    }
}

/// What a legacy weight type is; its `Kernel` comes from `legacy_kernel!`,
/// with Q8_1 activations and `Wide8m` for a type with a minimum, Q8_0 and
/// `Wide8` for one without.
pub trait Legacy: Kernel<Act: Q8, Wide: Unpacked> {
    const FORMULA: Formula;
    /// Added to a code for its value: -8 (Q4_0), -16 (Q5_0), 0 for the
    /// types with a minimum.
    const OFFSET: i32;
    /// Elements `j` and `j + 16` (j < 16) as unsigned codes.
    fn codes(&self, j: usize) -> (i32, i32);
    /// The scale and the minimum (zero for the types without one).
    fn dm(&self) -> (f16, f16);
}

/// Element `j` (0..16) and `j + 16` of a 4-bit block: the low and high
/// nibble of byte `j`.
#[inline(always)]
fn nibbles(qs: &[u8; QK / 2], j: usize) -> (i32, i32) {
    ((qs[j] & 0x0F) as i32, (qs[j] >> 4) as i32)
}

/// Elements `j` and `j + 16` (j in 0..16) of a 5-bit block: the nibbles of
/// byte `j`, with bits `j` and `j + 16` of `qh` (little-endian) as their
/// bit 4.
#[inline(always)]
fn fives(qs: &[u8; QK / 2], qh: [u8; 4], j: usize) -> (i32, i32) {
    let qh = u32::from_le_bytes(qh);
    let (lo, hi) = nibbles(qs, j);
    let h0 = ((qh >> j) & 1) << 4;
    let h1 = ((qh >> (j + 16)) & 1) << 4;
    (lo | h0 as i32, hi | h1 as i32)
}

/// ggml's generic `ggml_vec_dot_*`: per block the integer sum of
/// `(code + OFFSET) * yq`, then the type's `FORMULA`.
#[inline(always)]
pub fn dot_scalar<T: Legacy>(xs: &[T], ys: &[T::Act]) -> f32 {
    debug_assert_eq!(xs.len(), ys.len(), "{:?} vec_dot: size mismatch", T::DTYPE);
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        let yq = y.qs();
        let mut sumi = 0i32;
        for j in 0..QK / 2 {
            let (v0, v1) = x.codes(j);
            sumi += (v0 + T::OFFSET) * yq[j] as i32 + (v1 + T::OFFSET) * yq[j + QK / 2] as i32;
        }
        let ((d, m), (yd, s)) = (x.dm(), y.ds());
        let ms = || (m.to_f32(), s.to_f32());
        sumf += T::FORMULA.term(sumi as f32, d.to_f32(), yd.to_f32(), ms);
    }
    sumf
}

/// ggml's `dequantize_row_*`.
pub fn dequantize<T: Legacy>(xs: &[T], out: &mut [f32]) {
    debug_assert_eq!(
        out.len(),
        xs.len() * QK,
        "{:?} dequantize: size mismatch",
        T::DTYPE
    );
    for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK)) {
        let (d, m) = x.dm();
        let (d, m) = (d.to_f32(), m.to_f32());
        for j in 0..QK / 2 {
            let (v0, v1) = x.codes(j);
            out[j] = T::FORMULA.value(v0 + T::OFFSET, d, m);
            out[j + QK / 2] = T::FORMULA.value(v1 + T::OFFSET, d, m);
        }
    }
}

/// The block unpacked: its values (offset applied) as bytes, in element
/// order.
#[inline(always)]
pub fn widen<T: Legacy>(x: &T) -> T::Wide {
    let mut qs = [0i8; QK];
    for j in 0..QK / 2 {
        let (v0, v1) = x.codes(j);
        (qs[j], qs[j + QK / 2]) = ((v0 + T::OFFSET) as i8, (v1 + T::OFFSET) as i8);
    }
    let (d, m) = x.dm();
    T::Wide::new(d.to_f32(), m.to_f32(), qs)
}

/// The simd128 kernel: `simd::rows` of one row.
#[cfg(target_feature = "simd128")]
pub fn dot_simd<T: Legacy + simd::BlockDot>(xs: &[T], ys: &[T::Act]) -> f32 {
    let [v] = simd::rows(xs.len() * QK, [xs], ys);
    v
}

/// Two rows in one SIMD loop if the type gains by it
/// (`simd::BlockDot::TWO_ROWS`), else one after the other.
#[cfg(target_feature = "simd128")]
#[inline(always)]
pub fn dot2<T: Legacy + simd::BlockDot>(a: &[T], b: &[T], ys: &[T::Act]) -> [f32; 2] {
    debug_assert_eq!(a.len(), b.len(), "{:?} dot2: rows differ", T::DTYPE);
    if T::TWO_ROWS {
        simd::rows(a.len() * QK, [a, b], ys)
    } else {
        [T::dot(a, ys), T::dot(b, ys)]
    }
}

/// The `Kernel` of a `Legacy` type `$t` of ggml type `$dtype`, with
/// activations `$act` and unpacked blocks `$wide`; with `packed = true`, natively
/// a few tokens multiply its packed blocks on AVX2 (`avx2::Packed32`).
macro_rules! legacy_kernel {
    ($t:ty: $dtype:ident, $act:ty, $wide:ty $(, packed = $packed:literal)?) => {
        impl $crate::model::quant::Kernel for $t {
            const DTYPE: candle_core::quantized::GgmlDType =
                candle_core::quantized::GgmlDType::$dtype;
            type Act = $act;

            #[cfg(target_feature = "simd128")]
            fn dot_simd(xs: &[Self], ys: &[$act]) -> f32 {
                $crate::model::quant::legacy::dot_simd(xs, ys)
            }

            #[cfg(target_feature = "simd128")]
            #[inline(always)]
            fn dot2(a: &[Self], b: &[Self], ys: &[$act]) -> [f32; 2] {
                $crate::model::quant::legacy::dot2(a, b, ys)
            }

            #[inline(always)]
            fn dot_scalar(xs: &[Self], ys: &[$act]) -> f32 {
                $crate::model::quant::legacy::dot_scalar(xs, ys)
            }

            fn dequantize(xs: &[Self], out: &mut [f32]) {
                $crate::model::quant::legacy::dequantize(xs, out)
            }

            type Wide = $wide;
            const WIDE_ZERO: $wide = <$wide as $crate::model::quant::legacy::wide::Unpacked>::ZERO;
            const WIDEN_FROM: usize = 4;

            #[inline(always)]
            fn widen(&self) -> $wide {
                $crate::model::quant::legacy::widen(self)
            }

            #[inline(always)]
            fn dot_wide(xs: &[$wide], ys: &[$act]) -> f32 {
                $crate::model::quant::legacy::wide::dot(Self::FORMULA, xs, ys)
            }

            #[inline(always)]
            fn dot_wide4(xs: &[$wide], ys: [&[$act]; 4]) -> [f32; 4] {
                $crate::model::quant::legacy::wide::dot4(Self::FORMULA, xs, ys)
            }

            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            unsafe fn dot_wide_avx2(xs: &[$wide], ys: &[$act]) -> f32 {
                $crate::model::quant::legacy::avx2::dot(Self::FORMULA, xs, ys)
            }

            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            unsafe fn dot_wide4_avx2(xs: &[$wide], ys: [&[$act]; 4]) -> [f32; 4] {
                $crate::model::quant::legacy::avx2::dot4(Self::FORMULA, xs, ys)
            }

            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            fn scales4(ys: [&$act; 4]) -> [[f32; 4]; 2] {
                $crate::model::quant::legacy::avx2::scales4(ys)
            }

            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            unsafe fn dot_wide4x2_avx2(
                a: &[$wide],
                b: &[$wide],
                ys: [&[$act]; 4],
                scales: &[[[f32; 4]; 2]],
            ) -> [[f32; 4]; 2] {
                $crate::model::quant::legacy::avx2::dot4x2(Self::FORMULA, a, b, ys, scales)
            }

            $(
            #[cfg(target_arch = "x86_64")]
            const PACKED_AVX2: bool = $packed;

            #[cfg(target_arch = "x86_64")]
            #[inline(always)]
            unsafe fn dot_avx2(xs: &[Self], ys: &[$act]) -> f32 {
                $crate::model::quant::legacy::avx2::dot_packed(xs, ys)
            }
            )?
        }
    };
}
use legacy_kernel;
