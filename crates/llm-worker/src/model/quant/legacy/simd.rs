//! wasm `simd128` dot products of the legacy types, ggml-style
//! (`vec_dot_*(n, xs, ys)` over the first `n / 32` blocks of a weight row
//! `xs` and its activations `ys`), one loop for the four (`rows`) and a
//! block's integer dot for each (`BlockDot`).
//!
//! Each block's integer dot runs on 16-bit lanes: weights and activations
//! widened to i16, multiplied and pair-summed by `i32x4_dot_i16x8` into
//! four i32 partial sums (exact: |q| <= 31, |yq| <= 127). Blocks go four
//! at a time: their sums are gathered into one i32x4, their f16 scales
//! (and minimums) converted four at a time, and the four blocks' terms
//! (the type's `Formula`) computed a block a lane; the terms are then added
//! to the row's sum one block at a time, in order, as the scalar kernel
//! adds them; the last `nb % 4` blocks go one by one.
//!
//! A build with relaxed SIMD (`+relaxed-simd`, the worker's second build,
//! for browsers that have it) does the integer dots on bytes instead,
//! with `i16x8_relaxed_dot_i8x16_i7x16` (x86's `pmaddubsw`): the weights
//! unsigned and below 128, where every platform's result is the same and
//! no sum can saturate. Sums, and so results, equal the simd128 ones.

use super::{BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1, Formula, Legacy, Q8};
use crate::model::quant::activation::{BlockQ8_0, BlockQ8_1};
use crate::model::quant::simd::{f16_to_f32x4, hsum_f32, sum4};
use crate::model::quant::QK;
use core::arch::wasm32::*;
use half::f16;

/// A block's 32 activations loaded for its integer dots (once for the
/// rows of `dot2`): i16x8 vectors of elements 0..8, 8..16, 16..24 and
/// 24..32; with relaxed SIMD, the bytes of elements 0..16 and 16..32.
#[cfg(not(target_feature = "relaxed-simd"))]
pub type Ys = [v128; 4];
#[cfg(target_feature = "relaxed-simd")]
pub type Ys = [v128; 2];

#[cfg(not(target_feature = "relaxed-simd"))]
#[inline(always)]
fn load_ys(y: &[i8; QK]) -> Ys {
    let p = y.as_ptr();
    // SAFETY: the four loads read bytes 0..8, 8..16, 16..24 and 24..32
    // of `y`, a 32-byte array; wasm loads need no alignment.
    unsafe {
        [
            i16x8_load_extend_i8x8(p),
            i16x8_load_extend_i8x8(p.add(8)),
            i16x8_load_extend_i8x8(p.add(16)),
            i16x8_load_extend_i8x8(p.add(24)),
        ]
    }
}

#[cfg(target_feature = "relaxed-simd")]
#[inline(always)]
fn load_ys(y: &[i8; QK]) -> Ys {
    let p = y.as_ptr();
    // SAFETY: bytes 0..16 and 16..32 of the 32-byte `y`; wasm loads need
    // no alignment.
    unsafe {
        [
            v128_load(p as *const v128),
            v128_load(p.add(16) as *const v128),
        ]
    }
}

/// The dot of 32 weights, given as i16x8 vectors of elements 0..8,
/// 8..16, 16..24 and 24..32, with 32 activations (`load_ys`), as four
/// i32 partial sums.
#[cfg(not(target_feature = "relaxed-simd"))]
#[inline(always)]
fn dot_block(x: [v128; 4], y: [v128; 4]) -> v128 {
    let s01 = i32x4_add(i32x4_dot_i16x8(x[0], y[0]), i32x4_dot_i16x8(x[1], y[1]));
    let s23 = i32x4_add(i32x4_dot_i16x8(x[2], y[2]), i32x4_dot_i16x8(x[3], y[3]));
    i32x4_add(s01, s23)
}

/// Byte `k` of entry `b` is 16 if bit `k` of `b` is set, else 0: eight
/// fifth bits of a 5-bit block spread to their bytes in one load.
static SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        while k < 8 {
            if b >> k & 1 == 1 {
                t[b] |= 0x10 << (8 * k);
            }
            k += 1;
        }
        b += 1;
    }
    t
};

/// A 5-bit block's unsigned values (0..32) as bytes: elements 0..16 and
/// 16..32, the nibble with 16 added where its bit 4 in `qh` is set.
#[inline(always)]
fn fives_u8(qs: &[u8; QK / 2], qh: [u8; 4]) -> [v128; 2] {
    // SAFETY: reads the 16 bytes of `qs`; wasm loads need no alignment.
    let q = unsafe { v128_load(qs.as_ptr() as *const v128) };
    let lo = v128_and(q, u8x16_splat(0x0F));
    // A 16-bit shift moves each byte's high nibble down; the bits it
    // brings in from the next byte are masked off.
    let hi = v128_and(u16x8_shr(q, 4), u8x16_splat(0x0F));
    // qh byte k holds bit 4 of elements 8k..8k + 8: a table entry each
    // (four scalar loads took fewer instructions than shuffling, masking
    // and comparing a splat of qh).
    let spread = |k: usize| SPREAD[qh[k] as usize];
    let hl = u64x2(spread(0), spread(1));
    let hh = u64x2(spread(2), spread(3));
    [v128_or(lo, hl), v128_or(hi, hh)]
}

/// A 4-bit block's values (0..16) as i16x8 lanes (`dot_block`'s order).
#[cfg(not(target_feature = "relaxed-simd"))]
#[inline(always)]
fn lanes_4bit(qs: &[u8; QK / 2]) -> [v128; 4] {
    let p = qs.as_ptr();
    // SAFETY: bytes 0..8 and 8..16 of the 16-byte `qs`; wasm loads
    // need no alignment.
    let (a, b) = unsafe { (u16x8_load_extend_u8x8(p), u16x8_load_extend_u8x8(p.add(8))) };
    let mask = i16x8_splat(0x0F);
    // Low nibbles are elements 0..16, high nibbles 16..32.
    [
        v128_and(a, mask),
        v128_and(b, mask),
        u16x8_shr(a, 4),
        u16x8_shr(b, 4),
    ]
}

/// A 4-bit block's values as bytes: elements 0..16 (low nibbles) and
/// 16..32 (high nibbles).
#[cfg(target_feature = "relaxed-simd")]
#[inline(always)]
fn fours_u8(qs: &[u8; QK / 2]) -> [v128; 2] {
    // SAFETY: reads the 16 bytes of `qs`; wasm loads need no alignment.
    let q = unsafe { v128_load(qs.as_ptr() as *const v128) };
    let mask = u8x16_splat(0x0F);
    [v128_and(q, mask), v128_and(u16x8_shr(q, 4), mask)]
}

/// Relaxed SIMD: 32 weights below 128 (elements 0..16 and 16..32, as
/// bytes) times 32 activations, as eight i16 sums of four products each.
/// The weights are the operand `relaxed_dot` may read signed or unsigned,
/// the same value either way below 128; |sum| <= 4 * 128 * 31 (5-bit
/// weights) fits i16, so no platform saturates or wraps.
#[cfg(target_feature = "relaxed-simd")]
#[inline(always)]
fn dot_u8(x: [v128; 2], y: Ys) -> v128 {
    i16x8_add(
        i16x8_relaxed_dot_i8x16_i7x16(y[0], x[0]),
        i16x8_relaxed_dot_i8x16_i7x16(y[1], x[1]),
    )
}

/// A legacy type's SIMD integer dot of one block with its activations
/// (`load_ys`), as four i32 partial sums.
pub trait BlockDot {
    /// `dot2` takes its two rows in one loop (`rows`): measured in wasm
    /// (`tests/kernels_speed.rs`) about 4.0 ns a block a row against
    /// `dot`'s 4.8 for Q4_1. Q5_0 and Q5_1 gained nothing so (their
    /// unpacking is the cost, and two rows' of it crowd the registers).
    const TWO_ROWS: bool;
    fn isum(&self, y: Ys) -> v128;
}

/// `sum((q - 8) * yq)`. With relaxed SIMD, `sum(q * yq) - 8 * sum(yq)`
/// (its dot needs the weights unsigned), each i16 lane within ±(7680 +
/// 8 * 512).
impl BlockDot for BlockQ4_0 {
    const TWO_ROWS: bool = true;
    #[inline(always)]
    fn isum(&self, y: Ys) -> v128 {
        #[cfg(target_feature = "relaxed-simd")]
        {
            let qy = dot_u8(fours_u8(&self.qs), y);
            let sy = dot_u8([i8x16_splat(1); 2], y);
            i32x4_extadd_pairwise_i16x8(i16x8_sub(qy, i16x8_shl(sy, 3)))
        }
        #[cfg(not(target_feature = "relaxed-simd"))]
        {
            let eight = i16x8_splat(8);
            dot_block(lanes_4bit(&self.qs).map(|v| i16x8_sub(v, eight)), y)
        }
    }
}

/// `sum(q * yq)`.
impl BlockDot for BlockQ4_1 {
    const TWO_ROWS: bool = true;
    #[inline(always)]
    fn isum(&self, y: Ys) -> v128 {
        #[cfg(target_feature = "relaxed-simd")]
        return i32x4_extadd_pairwise_i16x8(dot_u8(fours_u8(&self.qs), y));
        #[cfg(not(target_feature = "relaxed-simd"))]
        dot_block(lanes_4bit(&self.qs), y)
    }
}

/// `sum((q - 16) * yq)`. With relaxed SIMD, `sum(q * yq) - 16 * sum(yq)`
/// (its dot needs the weights unsigned), each i16 lane within ±(15872 +
/// 16 * 512).
impl BlockDot for BlockQ5_0 {
    const TWO_ROWS: bool = false;
    #[inline(always)]
    fn isum(&self, y: Ys) -> v128 {
        #[cfg(target_feature = "relaxed-simd")]
        {
            let qy = dot_u8(fives_u8(&self.qs, self.qh), y);
            let sy = dot_u8([i8x16_splat(1); 2], y);
            i32x4_extadd_pairwise_i16x8(i16x8_sub(qy, i16x8_shl(sy, 4)))
        }
        #[cfg(not(target_feature = "relaxed-simd"))]
        {
            // q - 16, -16..=15 as an i8.
            let sixteen = i8x16_splat(16);
            let [lo, hi] = fives_u8(&self.qs, self.qh).map(|q| i8x16_sub(q, sixteen));
            dot_block(
                [
                    i16x8_extend_low_i8x16(lo),
                    i16x8_extend_high_i8x16(lo),
                    i16x8_extend_low_i8x16(hi),
                    i16x8_extend_high_i8x16(hi),
                ],
                y,
            )
        }
    }
}

/// `sum(q * yq)`.
impl BlockDot for BlockQ5_1 {
    const TWO_ROWS: bool = false;
    #[inline(always)]
    fn isum(&self, y: Ys) -> v128 {
        let [lo, hi] = fives_u8(&self.qs, self.qh);
        #[cfg(target_feature = "relaxed-simd")]
        return i32x4_extadd_pairwise_i16x8(dot_u8([lo, hi], y));
        #[cfg(not(target_feature = "relaxed-simd"))]
        dot_block(
            [
                u16x8_extend_low_u8x16(lo),
                u16x8_extend_high_u8x16(lo),
                u16x8_extend_low_u8x16(hi),
                u16x8_extend_high_u8x16(hi),
            ],
            y,
        )
    }
}

/// Two f16 in a u32, low half first.
#[inline(always)]
fn pair(lo: f16, hi: f16) -> u32 {
    lo.to_bits() as u32 | (hi.to_bits() as u32) << 16
}

/// The f32 values of the low and the high f16 of each u32 lane.
#[inline(always)]
fn unpair(v: v128) -> (v128, v128) {
    (
        f16_to_f32x4(v128_and(v, u32x4_splat(0xFFFF))),
        f16_to_f32x4(u32x4_shr(v, 16)),
    )
}

impl Formula {
    /// `term` in four lanes: four blocks' (or four tokens') terms, each
    /// lane the same operations as `term`'s.
    #[inline(always)]
    pub fn term4(self, sums: v128, d: v128, yd: v128, m: v128, s: v128) -> v128 {
        match self {
            Formula::SumFirst => f32x4_mul(f32x4_mul(sums, d), yd),
            Formula::ScaleFirst => f32x4_mul(f32x4_mul(d, yd), sums),
            Formula::WithMin => f32x4_add(f32x4_mul(f32x4_mul(d, yd), sums), f32x4_mul(m, s)),
        }
    }
}

/// `R` rows (1, or 2 for `dot2`) of a legacy type against the same
/// activations, over their first `n / 32` blocks: each block's
/// activations loaded once for the rows, each row's integer dot
/// (`BlockDot`) as four partial sums, its scale and minimum and the
/// activations' `yd` and `s` as pairs of f16 (low, high) in a u32. Four
/// blocks' terms (`Formula::term4`) are computed at once, a block a lane,
/// then added to the row's sum one block at a time, in order: the scalar
/// kernel's operations, so `dot` is `dot_scalar` to the bit. Each row's
/// float operations are the same whatever `R`, so `dot2` gives `dot`'s
/// values to the bit.
#[inline(always)]
pub fn rows<T: Legacy + BlockDot, const R: usize>(
    n: usize,
    xs: [&[T]; R],
    ys: &[T::Act],
) -> [f32; R] {
    debug_assert!(n % QK == 0, "{n} is not divisible by {QK}");
    let nb = n / QK;
    let (xs, ys) = (xs.map(|x| &x[..nb]), &ys[..nb]);
    let isum = |i: usize| {
        let y = load_ys(ys[i].qs());
        xs.map(|x| x[i].isum(y))
    };
    let scales = |i: usize| {
        let (yd, s) = ys[i].ds();
        (
            xs.map(|x| {
                let (d, m) = x[i].dm();
                pair(d, m)
            }),
            pair(yd, s),
        )
    };
    let f = T::FORMULA;
    let mut sum = [0f32; R];
    let mut i = 0;
    while i + 4 <= nb {
        let blocks = [isum(i), isum(i + 1), isum(i + 2), isum(i + 3)];
        let sc = [scales(i), scales(i + 1), scales(i + 2), scales(i + 3)];
        let (yd, s) = unpair(u32x4(sc[0].1, sc[1].1, sc[2].1, sc[3].1));
        for r in 0..R {
            let sums = f32x4_convert_i32x4(sum4([
                blocks[0][r],
                blocks[1][r],
                blocks[2][r],
                blocks[3][r],
            ]));
            let (d, m) = unpair(u32x4(sc[0].0[r], sc[1].0[r], sc[2].0[r], sc[3].0[r]));
            let t = f.term4(sums, d, yd, m, s);
            sum[r] += f32x4_extract_lane::<0>(t);
            sum[r] += f32x4_extract_lane::<1>(t);
            sum[r] += f32x4_extract_lane::<2>(t);
            sum[r] += f32x4_extract_lane::<3>(t);
        }
        i += 4;
    }
    let half = |v: u32, k: u32| f16::from_bits((v >> k) as u16).to_f32();
    for i in i..nb {
        let (xp, yp) = scales(i);
        let blocks = isum(i);
        for r in 0..R {
            let si = hsum_f32(f32x4_convert_i32x4(blocks[r]));
            let ms = || (half(xp[r], 16), half(yp, 16));
            sum[r] += f.term(si, half(xp[r], 0), half(yp, 0), ms);
        }
    }
    sum
}

/// The simd128 kernels by ggml's names: `dot` of the first `n / 32`
/// blocks of `xs` and `ys`.
macro_rules! vec_dots {
    ($($name:ident: $x:ty, $y:ty;)+) => {$(
        pub fn $name(n: usize, xs: &[$x], ys: &[$y]) -> f32 {
            let [v] = rows(n, [xs], ys);
            v
        }
    )+};
}

vec_dots! {
    vec_dot_q4_0_q8_0: BlockQ4_0, BlockQ8_0;
    vec_dot_q4_1_q8_1: BlockQ4_1, BlockQ8_1;
    vec_dot_q5_0_q8_0: BlockQ5_0, BlockQ8_0;
    vec_dot_q5_1_q8_1: BlockQ5_1, BlockQ8_1;
}
