//! Quantised weight types and their dot-product kernels, for the types
//! candle runs only with scalar (or slow) code in wasm (Q4_1, Q5_0, Q5_1,
//! Q2_K, Q3_K, Q5_K, Q6_K), in wasm Q4_0 and Q4_K, whose simd128 kernels in
//! candle have no batch path and take one row at a time, and Q8_0, whose
//! products must add in llama.cpp's order (`packed::has_kernels`). Each type has ggml's block layout (`#[repr(C)]`, the bytes a GGUF
//! file stores), a scalar kernel that is the reference, and a wasm
//! `simd128` kernel used when the build enables SIMD (the worker's wasm
//! always does). The shape is candle's and ggml's: `vec_dot(n, xs, ys)`
//! over a weight row `xs` and the activations `ys` quantised to the type's
//! partner (Q8_0, Q8_1 or Q8_K), so the kernels could move upstream as
//! they are.
//!
//! `packed::matmul` runs a whole matrix product with them, weight row
//! outermost so that one row is read from memory once for every token of
//! a batch; for a batch the row is first unpacked to bytes (`wide`).

pub mod kquants;
pub mod legacy;
pub mod packed;
pub mod wide;

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
pub trait Kernel: Copy + Send + Sync + 'static {
    const DTYPE: GgmlDType;
    /// Values per block.
    const BLOCK: usize;
    /// Bytes per block as stored in a GGUF file (`size_of::<Self>()`).
    const BYTES: usize;
    /// One block from its stored bytes (`bytes.len() == BYTES`,
    /// little-endian as GGUF stores them).
    fn read(bytes: &[u8]) -> Self;
    /// The block type activations are quantised to for `dot`.
    type Act: Copy + Send + Sync + 'static;
    /// An all-zero activation block (scratch buffers).
    const ACT_ZERO: Self::Act;
    /// Quantises `xs` (`out.len() * BLOCK` values) for `dot`.
    fn quantize_act(xs: &[f32], out: &mut [Self::Act]);
    /// The dot product of a weight row and quantised activations of the
    /// same length in blocks: the SIMD kernel when the build has simd128.
    fn dot(xs: &[Self], ys: &[Self::Act]) -> f32;
    /// Two weight rows with the same activations: `[dot(a), dot(b)]` to
    /// the bit. Kernels that load the activations once for both override
    /// it; a product of few tokens reads its rows two at a time.
    fn dot2(a: &[Self], b: &[Self], ys: &[Self::Act]) -> [f32; 2] {
        [Self::dot(a, ys), Self::dot(b, ys)]
    }
    /// The same, in plain scalar code (the reference the SIMD kernel is
    /// tested against).
    fn dot_scalar(xs: &[Self], ys: &[Self::Act]) -> f32;
    /// Unpacks blocks to floats (`out.len() == xs.len() * BLOCK`).
    fn dequantize(xs: &[Self], out: &mut [f32]);
    /// The block with its values unpacked to bytes (`wide`).
    type Wide: Copy + Send + Sync + 'static;
    const WIDE_ZERO: Self::Wide;
    /// Batches of at least this many tokens unpack each weight row once
    /// and use `dot_wide` (unpacking costs a few products).
    const WIDEN_FROM: usize;
    fn widen(&self) -> Self::Wide;
    /// `dot` over unpacked blocks: the same value as `dot_scalar`, to the bit.
    fn dot_wide(xs: &[Self::Wide], ys: &[Self::Act]) -> f32;
    /// `dot_wide` for four tokens: `ys.map(|y| dot_wide(xs, y))` to the
    /// bit. A batch runs its tokens four at a time; kernels that load the
    /// row once for all four and scale their sums in one vector override it.
    fn dot_wide4(xs: &[Self::Wide], ys: [&[Self::Act]; 4]) -> [f32; 4] {
        ys.map(|y| Self::dot_wide(xs, y))
    }
}
