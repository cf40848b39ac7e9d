//! ggml's legacy 32-value block types Q4_0 (`q4_0.rs`), Q4_1, Q5_0 and
//! Q5_1, and their activation partners Q8_0 and Q8_1.
//!
//! Layouts, quantisation of activations and the scalar dot products are
//! ggml's as candle 0.11.1 has them (`k_quants.rs`), so that bytes and
//! results match candle's; `simd` holds the wasm `simd128` kernels.

use super::wide::{self, Wide8, Wide8m};
use super::Kernel;
use candle_core::quantized::GgmlDType;
use half::f16;

/// Values per block for every type here (ggml's `QK4_1`, `QK5_0`, ... `QK8_1`).
pub const QK: usize = 32;

/// Q8_0: 32 signed 8-bit values and one scale, `x = d * q`. The activation
/// type of Q4_0 and Q5_0.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ8_0 {
    pub d: f16,
    pub qs: [i8; QK],
}
const _: () = assert!(size_of::<BlockQ8_0>() == 34);

/// Q8_1: as Q8_0, plus `s = d * sum(qs)` (rounded to f16 the way candle
/// rounds it). The activation type of Q4_1 and Q5_1.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ8_1 {
    pub d: f16,
    pub s: f16,
    pub qs: [i8; QK],
}
const _: () = assert!(size_of::<BlockQ8_1>() == 36);

/// Q4_1: 32 unsigned 4-bit values, `x = d * q + m`. Byte `j` of `qs`
/// holds element `j` in its low nibble and element `j + 16` in its high one.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ4_1 {
    pub d: f16,
    pub m: f16,
    pub qs: [u8; QK / 2],
}
const _: () = assert!(size_of::<BlockQ4_1>() == 20);

/// Q5_0: 32 5-bit values, `x = d * (q - 16)`. The low four bits are packed
/// as in Q4_1; bit `i` of `qh` (little-endian u32) is bit 4 of element `i`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ5_0 {
    pub d: f16,
    pub qh: [u8; 4],
    pub qs: [u8; QK / 2],
}
const _: () = assert!(size_of::<BlockQ5_0>() == 22);

/// Q5_1: 32 unsigned 5-bit values, `x = d * q + m`, bits packed as in Q5_0.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ5_1 {
    pub d: f16,
    pub m: f16,
    pub qh: [u8; 4],
    pub qs: [u8; QK / 2],
}
const _: () = assert!(size_of::<BlockQ5_1>() == 24);

/// The f16 stored little-endian at `b[i..i + 2]`.
fn f16_at(b: &[u8], i: usize) -> f16 {
    f16::from_le_bytes([b[i], b[i + 1]])
}

/// The `N` bytes at `b[i..i + N]`.
fn bytes_at<const N: usize>(b: &[u8], i: usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&b[i..i + N]);
    out
}

/// The `N` bytes at `b[i..i + N]` as signed values.
fn i8s_at<const N: usize>(b: &[u8], i: usize) -> [i8; N] {
    bytes_at::<N>(b, i).map(|v| v as i8)
}

/// Checks that `bytes` is one block of `T`.
fn check_len(bytes: &[u8], want: usize, what: &str) {
    assert_eq!(bytes.len(), want, "{what} block must be {want} bytes");
}

impl BlockQ8_0 {
    /// An all-zero block.
    pub const ZERO: Self = BlockQ8_0 {
        d: f16::ZERO,
        qs: [0; QK],
    };

    /// One block from its 34 stored bytes.
    pub fn read(bytes: &[u8]) -> Self {
        check_len(bytes, size_of::<Self>(), "Q8_0");
        BlockQ8_0 {
            d: f16_at(bytes, 0),
            qs: i8s_at(bytes, 2),
        }
    }
}

impl BlockQ8_1 {
    /// An all-zero block.
    pub const ZERO: Self = BlockQ8_1 {
        d: f16::ZERO,
        s: f16::ZERO,
        qs: [0; QK],
    };

    /// One block from its 36 stored bytes.
    pub fn read(bytes: &[u8]) -> Self {
        check_len(bytes, size_of::<Self>(), "Q8_1");
        BlockQ8_1 {
            d: f16_at(bytes, 0),
            s: f16_at(bytes, 2),
            qs: i8s_at(bytes, 4),
        }
    }
}

/// The scale of a Q8 block of `xs` and its inverse, as ggml computes them:
/// `d = max|x| / 127`, `id = 1 / d` (0 for an all-zero block).
fn q8_scale(xs: &[f32]) -> (f32, f32) {
    let mut amax = 0f32;
    for &x in xs {
        amax = amax.max(x.abs())
    }
    let d = amax / ((1 << 7) - 1) as f32;
    let id = if d != 0f32 { 1. / d } else { 0. };
    (d, id)
}

/// ggml's `quantize_row_q8_0` (candle's `BlockQ8_0::from_float` outside
/// aarch64): `xs.len() == ys.len() * 32`.
pub fn quantize_row_q8_0(xs: &[f32], ys: &mut [BlockQ8_0]) {
    debug_assert_eq!(xs.len(), ys.len() * QK, "quantize_row_q8_0: size mismatch");
    for (y, xs) in ys.iter_mut().zip(xs.chunks_exact(QK)) {
        let (d, id) = q8_scale(xs);
        y.d = f16::from_f32(d);
        for (q, &x) in y.qs.iter_mut().zip(xs) {
            *q = f32::round(x * id) as i8
        }
    }
}

/// ggml's `quantize_row_q8_1`: `xs.len() == ys.len() * 32`. `s` is
/// `f16(sum * d)` with the unrounded scale, as ggml stores it (candle's
/// `from_float` rounds the sum and the scale to f16 first and multiplies
/// in f16, which moves every Q4_1 and Q5_1 product's minimum term).
pub fn quantize_row_q8_1(xs: &[f32], ys: &mut [BlockQ8_1]) {
    debug_assert_eq!(xs.len(), ys.len() * QK, "quantize_row_q8_1: size mismatch");
    for (y, xs) in ys.iter_mut().zip(xs.chunks_exact(QK)) {
        let (d, id) = q8_scale(xs);
        y.d = f16::from_f32(d);
        let mut sum = 0i32;
        for (q, &x) in y.qs.iter_mut().zip(xs) {
            *q = f32::round(x * id) as i8;
            sum += *q as i32;
        }
        y.s = f16::from_f32(sum as f32 * d);
    }
}

/// Element `j` (0..16) and `j + 16` of a 4-bit block: the low and high
/// nibble of byte `j`.
#[inline(always)]
fn nibbles(qs: &[u8; QK / 2], j: usize) -> (i32, i32) {
    ((qs[j] & 0x0F) as i32, (qs[j] >> 4) as i32)
}

/// Elements `j` and `j + 16` (j in 0..16) of a 5-bit block: the nibbles of
/// byte `j`, with bits `j` and `j + 16` of `qh` as their bit 4.
#[inline(always)]
fn fives(qs: &[u8; QK / 2], qh: u32, j: usize) -> (i32, i32) {
    let (lo, hi) = nibbles(qs, j);
    let h0 = ((qh >> j) & 1) << 4;
    let h1 = ((qh >> (j + 16)) & 1) << 4;
    (lo | h0 as i32, hi | h1 as i32)
}

/// A block's 32 values as bytes, in element order, `offset` added; `pair`
/// gives elements `j` and `j + 16`.
#[inline(always)]
fn unpack(pair: impl Fn(usize) -> (i32, i32), offset: i32) -> [i8; QK] {
    let mut qs = [0i8; QK];
    for j in 0..QK / 2 {
        let (v0, v1) = pair(j);
        (qs[j], qs[j + QK / 2]) = ((v0 + offset) as i8, (v1 + offset) as i8);
    }
    qs
}

impl Kernel for BlockQ4_1 {
    const DTYPE: GgmlDType = GgmlDType::Q4_1;
    const BLOCK: usize = QK;
    const BYTES: usize = size_of::<Self>();

    fn read(bytes: &[u8]) -> Self {
        check_len(bytes, Self::BYTES, "Q4_1");
        BlockQ4_1 {
            d: f16_at(bytes, 0),
            m: f16_at(bytes, 2),
            qs: bytes_at(bytes, 4),
        }
    }

    type Act = BlockQ8_1;
    const ACT_ZERO: BlockQ8_1 = BlockQ8_1::ZERO;

    fn quantize_act(xs: &[f32], out: &mut [BlockQ8_1]) {
        quantize_row_q8_1(xs, out)
    }

    fn dot(xs: &[Self], ys: &[BlockQ8_1]) -> f32 {
        #[cfg(target_feature = "simd128")]
        {
            simd::vec_dot_q4_1_q8_1(xs.len() * QK, xs, ys)
        }
        #[cfg(not(target_feature = "simd128"))]
        {
            Self::dot_scalar(xs, ys)
        }
    }

    /// Two rows share each activation block's loads: measured in wasm
    /// (`tests/kernels_speed.rs`), about 4.0 ns a block a row against
    /// `dot`'s 4.8. Q5_0, Q5_1 and Q3_K gained nothing so (their
    /// unpacking is the cost, and two rows' of it crowd the registers).
    #[cfg(target_feature = "simd128")]
    fn dot2(a: &[Self], b: &[Self], ys: &[BlockQ8_1]) -> [f32; 2] {
        simd::vec_dot_rows_q4_1_q8_1(a.len() * QK, [a, b], ys)
    }

    /// ggml's `ggml_vec_dot_q4_1_q8_1` (its generic code, which llama.cpp's
    /// wasm build runs): per block `(d * yd) * sum(q * yq) + m * ys`.
    fn dot_scalar(xs: &[Self], ys: &[BlockQ8_1]) -> f32 {
        debug_assert_eq!(xs.len(), ys.len(), "vec_dot_q4_1_q8_1: size mismatch");
        let mut sumf = 0f32;
        for (x, y) in xs.iter().zip(ys) {
            let mut sumi = 0i32;
            for j in 0..QK / 2 {
                let (v0, v1) = nibbles(&x.qs, j);
                sumi += v0 * y.qs[j] as i32 + v1 * y.qs[j + QK / 2] as i32;
            }
            sumf += (x.d.to_f32() * y.d.to_f32()) * sumi as f32 + x.m.to_f32() * y.s.to_f32();
        }
        sumf
    }

    fn dequantize(xs: &[Self], out: &mut [f32]) {
        debug_assert_eq!(
            out.len(),
            xs.len() * QK,
            "dequantize_row_q4_1: size mismatch"
        );
        for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK)) {
            let (d, m) = (x.d.to_f32(), x.m.to_f32());
            for j in 0..QK / 2 {
                let (v0, v1) = nibbles(&x.qs, j);
                out[j] = v0 as f32 * d + m;
                out[j + QK / 2] = v1 as f32 * d + m;
            }
        }
    }

    type Wide = Wide8m;
    const WIDE_ZERO: Wide8m = Wide8m::ZERO;
    const WIDEN_FROM: usize = 4;

    fn widen(&self) -> Wide8m {
        Wide8m {
            d: self.d.to_f32(),
            m: self.m.to_f32(),
            qs: unpack(|j| nibbles(&self.qs, j), 0),
        }
    }

    fn dot_wide(xs: &[Wide8m], ys: &[BlockQ8_1]) -> f32 {
        wide::dot8m(xs, ys)
    }

    fn dot_wide4(xs: &[Wide8m], ys: [&[BlockQ8_1]; 4]) -> [f32; 4] {
        wide::dot8m_4(xs, ys)
    }
}

impl Kernel for BlockQ5_0 {
    const DTYPE: GgmlDType = GgmlDType::Q5_0;
    const BLOCK: usize = QK;
    const BYTES: usize = size_of::<Self>();

    fn read(bytes: &[u8]) -> Self {
        check_len(bytes, Self::BYTES, "Q5_0");
        BlockQ5_0 {
            d: f16_at(bytes, 0),
            qh: bytes_at(bytes, 2),
            qs: bytes_at(bytes, 6),
        }
    }

    type Act = BlockQ8_0;
    const ACT_ZERO: BlockQ8_0 = BlockQ8_0::ZERO;

    fn quantize_act(xs: &[f32], out: &mut [BlockQ8_0]) {
        quantize_row_q8_0(xs, out)
    }

    fn dot(xs: &[Self], ys: &[BlockQ8_0]) -> f32 {
        #[cfg(target_feature = "simd128")]
        {
            simd::vec_dot_q5_0_q8_0(xs.len() * QK, xs, ys)
        }
        #[cfg(not(target_feature = "simd128"))]
        {
            Self::dot_scalar(xs, ys)
        }
    }

    /// ggml's `ggml_vec_dot_q5_0_q8_0` (its generic code): per block
    /// `(d * yd) * sum((q - 16) * yq)`.
    fn dot_scalar(xs: &[Self], ys: &[BlockQ8_0]) -> f32 {
        debug_assert_eq!(xs.len(), ys.len(), "vec_dot_q5_0_q8_0: size mismatch");
        let mut sumf = 0f32;
        for (x, y) in xs.iter().zip(ys) {
            let qh = u32::from_le_bytes(x.qh);
            let mut sumi = 0i32;
            for j in 0..QK / 2 {
                let (v0, v1) = fives(&x.qs, qh, j);
                sumi += (v0 - 16) * y.qs[j] as i32 + (v1 - 16) * y.qs[j + QK / 2] as i32;
            }
            sumf += (x.d.to_f32() * y.d.to_f32()) * sumi as f32;
        }
        sumf
    }

    fn dequantize(xs: &[Self], out: &mut [f32]) {
        debug_assert_eq!(
            out.len(),
            xs.len() * QK,
            "dequantize_row_q5_0: size mismatch"
        );
        for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK)) {
            let d = x.d.to_f32();
            let qh = u32::from_le_bytes(x.qh);
            for j in 0..QK / 2 {
                let (v0, v1) = fives(&x.qs, qh, j);
                out[j] = (v0 - 16) as f32 * d;
                out[j + QK / 2] = (v1 - 16) as f32 * d;
            }
        }
    }

    type Wide = Wide8;
    const WIDE_ZERO: Wide8 = Wide8::ZERO;
    const WIDEN_FROM: usize = 4;

    fn widen(&self) -> Wide8 {
        let qh = u32::from_le_bytes(self.qh);
        Wide8 {
            d: self.d.to_f32(),
            qs: unpack(|j| fives(&self.qs, qh, j), -16),
        }
    }

    fn dot_wide(xs: &[Wide8], ys: &[BlockQ8_0]) -> f32 {
        wide::dot8_scaled(xs, ys)
    }

    fn dot_wide4(xs: &[Wide8], ys: [&[BlockQ8_0]; 4]) -> [f32; 4] {
        wide::dot8_scaled_4(xs, ys)
    }
}

impl Kernel for BlockQ5_1 {
    const DTYPE: GgmlDType = GgmlDType::Q5_1;
    const BLOCK: usize = QK;
    const BYTES: usize = size_of::<Self>();

    fn read(bytes: &[u8]) -> Self {
        check_len(bytes, Self::BYTES, "Q5_1");
        BlockQ5_1 {
            d: f16_at(bytes, 0),
            m: f16_at(bytes, 2),
            qh: bytes_at(bytes, 4),
            qs: bytes_at(bytes, 8),
        }
    }

    type Act = BlockQ8_1;
    const ACT_ZERO: BlockQ8_1 = BlockQ8_1::ZERO;

    fn quantize_act(xs: &[f32], out: &mut [BlockQ8_1]) {
        quantize_row_q8_1(xs, out)
    }

    fn dot(xs: &[Self], ys: &[BlockQ8_1]) -> f32 {
        #[cfg(target_feature = "simd128")]
        {
            simd::vec_dot_q5_1_q8_1(xs.len() * QK, xs, ys)
        }
        #[cfg(not(target_feature = "simd128"))]
        {
            Self::dot_scalar(xs, ys)
        }
    }

    /// ggml's `ggml_vec_dot_q5_1_q8_1` (its generic code, which llama.cpp's
    /// wasm build runs): per block `(d * yd) * sum(q * yq) + m * ys`.
    fn dot_scalar(xs: &[Self], ys: &[BlockQ8_1]) -> f32 {
        debug_assert_eq!(xs.len(), ys.len(), "vec_dot_q5_1_q8_1: size mismatch");
        let mut sumf = 0f32;
        for (x, y) in xs.iter().zip(ys) {
            let qh = u32::from_le_bytes(x.qh);
            let mut sumi = 0i32;
            for j in 0..QK / 2 {
                let (v0, v1) = fives(&x.qs, qh, j);
                sumi += v0 * y.qs[j] as i32 + v1 * y.qs[j + QK / 2] as i32;
            }
            sumf += (x.d.to_f32() * y.d.to_f32()) * sumi as f32 + x.m.to_f32() * y.s.to_f32();
        }
        sumf
    }

    fn dequantize(xs: &[Self], out: &mut [f32]) {
        debug_assert_eq!(
            out.len(),
            xs.len() * QK,
            "dequantize_row_q5_1: size mismatch"
        );
        for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK)) {
            let (d, m) = (x.d.to_f32(), x.m.to_f32());
            let qh = u32::from_le_bytes(x.qh);
            for j in 0..QK / 2 {
                let (v0, v1) = fives(&x.qs, qh, j);
                out[j] = v0 as f32 * d + m;
                out[j + QK / 2] = v1 as f32 * d + m;
            }
        }
    }

    type Wide = Wide8m;
    const WIDE_ZERO: Wide8m = Wide8m::ZERO;
    const WIDEN_FROM: usize = 4;

    fn widen(&self) -> Wide8m {
        let qh = u32::from_le_bytes(self.qh);
        Wide8m {
            d: self.d.to_f32(),
            m: self.m.to_f32(),
            qs: unpack(|j| fives(&self.qs, qh, j), 0),
        }
    }

    fn dot_wide(xs: &[Wide8m], ys: &[BlockQ8_1]) -> f32 {
        wide::dot8m(xs, ys)
    }

    fn dot_wide4(xs: &[Wide8m], ys: [&[BlockQ8_1]; 4]) -> [f32; 4] {
        wide::dot8m_4(xs, ys)
    }
}

/// The `simd128` kernels (`simd.rs`).
#[cfg(target_feature = "simd128")]
pub mod simd;

mod q4_0;
mod q8_0;
pub use q4_0::BlockQ4_0;
