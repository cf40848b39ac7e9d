//! Quantised weight types and their dot-product kernels, for the types
//! candle runs only with scalar (or slow) code in wasm (Q4_1, Q5_0, Q5_1,
//! Q2_K, Q3_K, Q5_K, Q6_K), Q4_0 and Q4_K, whose simd128 kernels in candle
//! have no batch path and take one row at a time, and Q8_0, whose products
//! must add in llama.cpp's order (`packed::has_kernels`); natively the
//! same types, so that the CLI sums as the page does. Each
//! type has ggml's block layout (`#[repr(C)]`, the bytes a GGUF file
//! stores), a scalar kernel that is the reference, and a wasm `simd128`
//! kernel used when the build enables SIMD (the worker's wasm always does).
//! The shape is candle's and ggml's: `vec_dot(n, xs, ys)` over a weight row
//! `xs` and the activations `ys` quantised to the type's partner (Q8_0,
//! Q8_1 or Q8_K), so the kernels could move upstream as they are.
//!
//! `packed::matmul` runs a whole matrix product with them, weight row
//! outermost so that one row is read from memory once for every token of
//! a batch; for a batch the row is first unpacked to bytes
//! (`Kernel::widen`).
//!
//! # Where things live
//! - Each weight type in its own file in its family's folder, named for
//!   the type: `legacy/` (blocks of 32 values: Q4_0, Q4_1, Q5_0, Q5_1,
//!   Q8_0) or `kquants/` (blocks of 256: Q2_K, Q3_K, Q4_K, Q5_K, Q6_K).
//!   The file holds the type's layout (`bytes::block!`; Q8_0's is its
//!   activation block's), how its values are read, and its `Kernel`.
//! - Types whose kernels are one algorithm implement their group's trait
//!   and take their `Kernel` from their family's macro (in its `mod.rs`).
//!   The group's trait and generic code are in the family's `mod.rs` when
//!   the group is most of the family (`legacy::Legacy`: Q4_0, Q4_1, Q5_0,
//!   Q5_1), else in a file named for the group (`kquants/scale16.rs`: Q3_K,
//!   Q6_K; `kquants/scale_min.rs`: Q4_K, Q5_K). A type with a kernel of its
//!   own writes its `Kernel` out in its file (Q8_0, Q2_K).
//! - A family's SIMD kernels are in its `simd.rs`, its unpacked blocks and
//!   their products in its `wide.rs`.
//! - The activation blocks (Q8_0, Q8_1, Q8_K) and their quantisers are in
//!   `activation.rs`, which both families use and which uses neither;
//!   neither family uses the other.
//! - What both families use: block layouts and reading them from bytes
//!   (`bytes.rs`), integer dot products of byte rows (`isum.rs`), SIMD
//!   helpers (`simd.rs`); the matrix product over any `Kernel` and candle's
//!   tensors on it (`packed.rs`).
//! - Whether a kernel is the scalar or the SIMD one is chosen once, in
//!   `Kernel::dot` (`dot_simd` in simd128 builds, else `dot_scalar`).

pub mod activation;
pub mod bytes;
mod isum;
pub mod kquants;
pub mod legacy;
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
pub mod packed;
#[cfg(target_feature = "simd128")]
pub mod simd;

pub use activation::{QK, QK_K};

use activation::Activation;
use bytes::Plain;
use candle_core::quantized::GgmlDType;

/// Which kernels this build runs: `relaxed-simd` (the worker's build for
/// browsers with relaxed SIMD), `simd128` (its build for every other), or
/// `scalar` (native code, tests).
pub const BUILD: &str = if cfg!(target_feature = "relaxed-simd") {
    "relaxed-simd"
} else if cfg!(target_feature = "simd128") {
    "simd128"
} else {
    "scalar"
};

/// A weight block type and the kernels that read it.
pub trait Kernel: Plain + Send + Sync + 'static {
    const DTYPE: GgmlDType;
    /// The block type activations are quantised to for `dot`.
    type Act: Activation;
    /// Values per block: the activation block's, as products pair a weight
    /// block with one activation block.
    const BLOCK: usize = <Self::Act as Activation>::BLOCK;
    /// Bytes per block as stored in a GGUF file (`size_of::<Self>()`).
    const BYTES: usize = size_of::<Self>();
    /// One block from its stored bytes (`bytes.len() == BYTES`,
    /// little-endian as GGUF stores them).
    fn read(bytes: &[u8]) -> Self {
        bytes::read(bytes)
    }
    /// An all-zero activation block (scratch buffers).
    const ACT_ZERO: Self::Act = <Self::Act as Activation>::ZERO;
    /// Quantises `xs` (`out.len() * BLOCK` values) for `dot`.
    fn quantize_act(xs: &[f32], out: &mut [Self::Act]) {
        <Self::Act as Activation>::quantize(xs, out)
    }
    /// The dot product of a weight row and quantised activations of the
    /// same length in blocks: `dot_simd` when the build has simd128, else
    /// `dot_scalar`. A type with one kernel for every build overrides it.
    #[inline(always)]
    fn dot(xs: &[Self], ys: &[Self::Act]) -> f32 {
        #[cfg(target_feature = "simd128")]
        return Self::dot_simd(xs, ys);
        #[cfg(not(target_feature = "simd128"))]
        return Self::dot_scalar(xs, ys);
    }
    /// The simd128 kernel: `dot_scalar`'s value, to the bit.
    #[cfg(target_feature = "simd128")]
    fn dot_simd(xs: &[Self], ys: &[Self::Act]) -> f32 {
        Self::dot_scalar(xs, ys)
    }
    /// Two weight rows with the same activations: `[dot(a), dot(b)]` to
    /// the bit. Kernels that load the activations once for both override
    /// it; a product of few tokens reads its rows two at a time.
    #[inline(always)]
    fn dot2(a: &[Self], b: &[Self], ys: &[Self::Act]) -> [f32; 2] {
        [Self::dot(a, ys), Self::dot(b, ys)]
    }
    /// The same, in plain scalar code (the reference the SIMD kernel is
    /// tested against).
    fn dot_scalar(xs: &[Self], ys: &[Self::Act]) -> f32;
    /// Unpacks blocks to floats (`out.len() == xs.len() * BLOCK`).
    fn dequantize(xs: &[Self], out: &mut [f32]);
    /// The block with its values unpacked to bytes (the family's `wide`).
    type Wide: Copy + Send + Sync + 'static;
    const WIDE_ZERO: Self::Wide;
    /// Batches of at least this many tokens unpack each weight row once
    /// and use `dot_wide` (unpacking costs a few products).
    const WIDEN_FROM: usize;
    fn widen(&self) -> Self::Wide;
    /// `dot` over unpacked blocks: the same value as `dot_scalar`, to the bit.
    fn dot_wide(xs: &[Self::Wide], ys: &[Self::Act]) -> f32;
    /// Whether natively, on AVX2, a token or two are multiplied with the
    /// packed rows (`dot_avx2`) rather than with unpacked ones.
    #[cfg(target_arch = "x86_64")]
    const PACKED_AVX2: bool = false;
    /// `dot` with AVX2 and F16C on packed blocks, to the bit (for the
    /// types with `PACKED_AVX2`).
    ///
    /// # Safety
    /// The CPU has AVX2 and F16C.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn dot_avx2(xs: &[Self], ys: &[Self::Act]) -> f32 {
        Self::dot(xs, ys)
    }
    /// `dot_wide` with AVX2 and F16C (native x86-64, `native.rs`): the
    /// same value to the bit. A type with AVX2 code overrides it; the
    /// others run their plain code, compiled for AVX2 where it is inlined.
    ///
    /// # Safety
    /// The CPU has AVX2 and F16C.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn dot_wide_avx2(xs: &[Self::Wide], ys: &[Self::Act]) -> f32 {
        Self::dot_wide(xs, ys)
    }
    /// `dot_wide4` with AVX2 and F16C, to the bit.
    ///
    /// # Safety
    /// The CPU has AVX2 and F16C.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn dot_wide4_avx2(xs: &[Self::Wide], ys: [&[Self::Act]; 4]) -> [f32; 4] {
        Self::dot_wide4(xs, ys)
    }
    /// Four tokens' per-block activation scales as floats, for
    /// `dot_wide4x2_avx2`: `[yd of each, s of each]` (exact conversions of
    /// the stored values), made once per product. Types whose kernels do
    /// not read them give zeros.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn scales4(_ys: [&Self::Act; 4]) -> [[f32; 4]; 2] {
        [[0.0; 4]; 2]
    }
    /// `dot_wide4_avx2` for two rows: `[dot_wide4(a, ys), dot_wide4(b,
    /// ys)]` to the bit, with `scales` the tokens' `scales4` block by
    /// block. Kernels that load the tokens once for both rows override it;
    /// a batch runs its rows two at a time.
    ///
    /// # Safety
    /// The CPU has AVX2 and F16C.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn dot_wide4x2_avx2(
        a: &[Self::Wide],
        b: &[Self::Wide],
        ys: [&[Self::Act]; 4],
        _scales: &[[[f32; 4]; 2]],
    ) -> [[f32; 4]; 2] {
        [Self::dot_wide4_avx2(a, ys), Self::dot_wide4_avx2(b, ys)]
    }
    /// `dot_wide` for four tokens: `ys.map(|y| dot_wide(xs, y))` to the
    /// bit. A batch runs its tokens four at a time; kernels that load the
    /// row once for all four and scale their sums in one vector override it.
    #[inline(always)]
    fn dot_wide4(xs: &[Self::Wide], ys: [&[Self::Act]; 4]) -> [f32; 4] {
        // Not `ys.map`: see `legacy::wide::dot4`.
        [
            Self::dot_wide(xs, ys[0]),
            Self::dot_wide(xs, ys[1]),
            Self::dot_wide(xs, ys[2]),
            Self::dot_wide(xs, ys[3]),
        ]
    }
}
