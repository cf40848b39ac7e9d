//! The activation blocks: a token's values quantised to 8 bits for a
//! weight type's integer products (`Kernel::Act`), and their quantisers,
//! ggml's as candle 0.11.1 has them (outside aarch64). Q8_0 serves Q4_0,
//! Q5_0 and Q8_0; Q8_1 serves Q4_1 and Q5_1; Q8_K every K-quant.

use super::bytes::{self, block, Plain};
use half::f16;

/// Values per Q8_0 and Q8_1 block, and so per block of the legacy types
/// they serve (ggml's `QK4_0`, `QK4_1`, ... `QK8_1`).
pub const QK: usize = 32;
/// Values per Q8_K block, and so per K-quant block.
pub const QK_K: usize = 256;

/// A block type activations are quantised to.
pub trait Activation: Plain + Send + Sync + 'static {
    /// Values per block.
    const BLOCK: usize;
    /// The all-zero block.
    const ZERO: Self = bytes::zeroed();
    /// Quantises `xs` (`out.len() * BLOCK` values), as ggml does.
    fn quantize(xs: &[f32], out: &mut [Self]);
}

block! {
    /// Q8_0: 32 signed 8-bit values and one scale, `x = d * q`. Also a
    /// weight type (`legacy/q8_0.rs`).
    pub struct BlockQ8_0 {
        pub d: f16, pub qs: [i8; QK]
    } = 34 bytes
}

block! {
    /// Q8_1: as Q8_0, plus `s = d * sum(qs)` (rounded to f16 the way ggml
    /// rounds it).
    pub struct BlockQ8_1 {
        pub d: f16, pub s: f16, pub qs: [i8; QK]
    } = 36 bytes
}

block! {
    /// Q8_K: `d` is the scale, `bsums` the sums of each 16 consecutive `qs`.
    pub struct BlockQ8K {
        pub d: f32, pub qs: [i8; QK_K], pub bsums: [i16; 16]
    } = 292 bytes
}

impl BlockQ8_0 {
    /// One block from its 34 stored bytes.
    pub fn read(bytes: &[u8]) -> Self {
        bytes::read(bytes)
    }
}

impl BlockQ8_1 {
    /// One block from its 36 stored bytes.
    pub fn read(bytes: &[u8]) -> Self {
        bytes::read(bytes)
    }
}

impl BlockQ8K {
    /// One block from its 292 stored bytes.
    pub fn read(bytes: &[u8]) -> Self {
        bytes::read(bytes)
    }
}

/// A Q8_0 or Q8_1 block of `xs` as ggml quantises it: `d = max|x| / 127`
/// (unrounded) and the values `round(x / d)` (all zero for an all-zero
/// block).
fn q8(xs: &[f32]) -> (f32, [i8; QK]) {
    let mut amax = 0f32;
    for &x in xs {
        amax = amax.max(x.abs())
    }
    let d = amax / ((1 << 7) - 1) as f32;
    let id = if d != 0f32 { 1. / d } else { 0. };
    let mut qs = [0i8; QK];
    for (q, &x) in qs.iter_mut().zip(xs) {
        *q = round_i8(x * id)
    }
    (d, qs)
}

/// `f32::round(v) as i8` (halves away from zero, saturating, NaN to 0)
/// without the C library's `roundf`, which natively is a call per value:
/// the truncation and the remainder `v - t` are exact, so `t` moves one
/// away from zero exactly when the remainder's size is at least a half.
/// The compiler vectorises it.
#[inline(always)]
pub fn round_i8(v: f32) -> i8 {
    let t = v as i32;
    let rest = v - t as f32;
    let t = t.saturating_add((rest >= 0.5) as i32 - (rest <= -0.5) as i32);
    t.clamp(i8::MIN as i32, i8::MAX as i32) as i8
}

/// ggml's `quantize_row_q8_0` (candle's `BlockQ8_0::from_float` outside
/// aarch64): `xs.len() == ys.len() * 32`.
pub fn quantize_row_q8_0(xs: &[f32], ys: &mut [BlockQ8_0]) {
    debug_assert_eq!(xs.len(), ys.len() * QK, "quantize_row_q8_0: size mismatch");
    for (y, xs) in ys.iter_mut().zip(xs.chunks_exact(QK)) {
        let (d, qs) = q8(xs);
        *y = BlockQ8_0 {
            d: f16::from_f32(d),
            qs,
        };
    }
}

/// ggml's `quantize_row_q8_1`: `xs.len() == ys.len() * 32`. `s` is
/// `f16(sum * d)` with the unrounded scale, as ggml stores it (candle's
/// `from_float` rounds the sum and the scale to f16 first and multiplies
/// in f16, which moves every Q4_1 and Q5_1 product's minimum term).
pub fn quantize_row_q8_1(xs: &[f32], ys: &mut [BlockQ8_1]) {
    debug_assert_eq!(xs.len(), ys.len() * QK, "quantize_row_q8_1: size mismatch");
    for (y, xs) in ys.iter_mut().zip(xs.chunks_exact(QK)) {
        let (d, qs) = q8(xs);
        let sum: i32 = qs.iter().map(|&q| q as i32).sum();
        *y = BlockQ8_1 {
            d: f16::from_f32(d),
            s: f16::from_f32(sum as f32 * d),
            qs,
        };
    }
}

/// ggml's `quantize_row_q8_K` as candle 0.11.1 writes it (outside
/// aarch64): the signed value of largest magnitude maps to -127.
pub fn quantize_row_q8k(xs: &[f32], out: &mut [BlockQ8K]) {
    assert_eq!(xs.len(), out.len() * QK_K, "quantize_row_q8_K: length");
    for (y, xs) in out.iter_mut().zip(xs.chunks_exact(QK_K)) {
        let mut max = 0f32;
        let mut amax = 0f32;
        for &x in xs {
            if amax < x.abs() {
                amax = x.abs();
                max = x;
            }
        }
        if amax == 0.0 {
            *y = BlockQ8K::ZERO;
            continue;
        }
        let iscale = -127f32 / max;
        for (q, &x) in y.qs.iter_mut().zip(xs) {
            *q = (iscale * x).round().clamp(-128.0, 127.0) as i8;
        }
        for (s, qs) in y.bsums.iter_mut().zip(y.qs.chunks_exact(16)) {
            *s = qs.iter().map(|&q| q as i16).sum();
        }
        y.d = 1.0 / iscale;
    }
}

impl Activation for BlockQ8_0 {
    const BLOCK: usize = QK;
    fn quantize(xs: &[f32], out: &mut [Self]) {
        quantize_row_q8_0(xs, out)
    }
}

impl Activation for BlockQ8_1 {
    const BLOCK: usize = QK;
    fn quantize(xs: &[f32], out: &mut [Self]) {
        quantize_row_q8_1(xs, out)
    }
}

impl Activation for BlockQ8K {
    const BLOCK: usize = QK_K;
    fn quantize(xs: &[f32], out: &mut [Self]) {
        quantize_row_q8k(xs, out)
    }
}
