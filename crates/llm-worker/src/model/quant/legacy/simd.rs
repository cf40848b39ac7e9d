//! wasm `simd128` dot products, ggml-style: `vec_dot_*(n, xs, ys)` over the
//! first `n / 32` blocks of a weight row `xs` and its activations `ys`.
//!
//! Each block's integer dot runs on 16-bit lanes: weights and activations
//! widened to i16, multiplied and pair-summed by `i32x4_dot_i16x8` into
//! four i32 partial sums (exact: |q| <= 31, |yq| <= 127). Blocks go four
//! at a time: their sums are gathered into one i32x4, and their f16 scales
//! (`d * yd`, and `m * s` for the types with a minimum) are converted and
//! multiplied four at a time too; the last `nb % 4` blocks go one by one.
//! Only the order and grouping of the float operations differ from the
//! scalar kernels (`sum * (d * yd)` rather than `sum * d * yd`).
//!
//! A build with relaxed SIMD (`+relaxed-simd`, the worker's second build,
//! for browsers that have it) does the integer dots on bytes instead,
//! with `i16x8_relaxed_dot_i8x16_i7x16` (x86's `pmaddubsw`): the weights
//! unsigned and below 128, where every platform's result is the same and
//! no sum can saturate. Sums, and so results, equal the simd128 ones.

use super::{BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1, BlockQ8_0, BlockQ8_1, QK};
use core::arch::wasm32::*;
use half::f16;

/// The four lanes of an f32x4, summed.
#[inline(always)]
fn hsum(v: v128) -> f32 {
    (f32x4_extract_lane::<0>(v) + f32x4_extract_lane::<1>(v))
        + (f32x4_extract_lane::<2>(v) + f32x4_extract_lane::<3>(v))
}

/// Four i32x4 vectors, each summed across its lanes, as one i32x4.
#[inline(always)]
pub(crate) fn sum4(s: [v128; 4]) -> v128 {
    // [a0 + a2, b0 + b2, a1 + a3, b1 + b3], the same for c and d.
    let ab = i32x4_add(
        i32x4_shuffle::<0, 4, 1, 5>(s[0], s[1]),
        i32x4_shuffle::<2, 6, 3, 7>(s[0], s[1]),
    );
    let cd = i32x4_add(
        i32x4_shuffle::<0, 4, 1, 5>(s[2], s[3]),
        i32x4_shuffle::<2, 6, 3, 7>(s[2], s[3]),
    );
    i32x4_add(
        i32x4_shuffle::<0, 1, 4, 5>(ab, cd),
        i32x4_shuffle::<2, 3, 6, 7>(ab, cd),
    )
}

/// Four f16 values, the low 16 bits of each u32 lane (the high bits
/// zero), as f32x4: exact for zeros, subnormals, normals and
/// infinities, NaN for NaN (what `f16::to_f32` gives).
#[inline(always)]
pub fn f16_to_f32x4(h: v128) -> v128 {
    let sign = i32x4_shl(v128_and(h, u32x4_splat(0x8000)), 16);
    let em = v128_and(h, u32x4_splat(0x7FFF));
    let shifted = i32x4_shl(em, 13);
    // Exponent and mantissa moved into f32 position read as a float
    // are the value times 2^-112, subnormals included: scale by 2^112.
    let finite = f32x4_mul(shifted, f32x4_splat(f32::from_bits(0x7780_0000)));
    // Exponent 31 (infinity, NaN) becomes f32's exponent 255.
    let special = v128_or(shifted, u32x4_splat(0x7F80_0000));
    let is_special = u32x4_ge(em, u32x4_splat(0x7C00));
    v128_or(v128_bitselect(special, finite, is_special), sign)
}

/// A block's 32 activations loaded for its integer dots (once for the
/// rows of `dot2`): i16x8 vectors of elements 0..8, 8..16, 16..24 and
/// 24..32; with relaxed SIMD, the bytes of elements 0..16 and 16..32.
#[cfg(not(target_feature = "relaxed-simd"))]
type Ys = [v128; 4];
#[cfg(target_feature = "relaxed-simd")]
type Ys = [v128; 2];

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

/// Q4_1 · Q8_1, one block: the integer dot as four i32 partial sums.
#[inline(always)]
fn isum_q4_1(x: &BlockQ4_1, y: Ys) -> v128 {
    #[cfg(target_feature = "relaxed-simd")]
    return i32x4_extadd_pairwise_i16x8(dot_u8(fours_u8(&x.qs), y));
    #[cfg(not(target_feature = "relaxed-simd"))]
    dot_block(lanes_4bit(&x.qs), y)
}

/// Q5_1 · Q8_1, one block, as `isum_q4_1`.
#[inline(always)]
fn isum_q5_1(x: &BlockQ5_1, y: Ys) -> v128 {
    let [lo, hi] = fives_u8(&x.qs, x.qh);
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

/// Q4_0 · Q8_0, one block: `sum((q - 8) * yq)` as four i32 partial sums.
/// With relaxed SIMD, `sum(q * yq) - 8 * sum(yq)` (its dot needs the
/// weights unsigned), each i16 lane within ±(7680 + 8 * 512).
#[inline(always)]
fn isum_q4_0(x: &BlockQ4_0, y: Ys) -> v128 {
    #[cfg(target_feature = "relaxed-simd")]
    {
        let qy = dot_u8(fours_u8(&x.qs), y);
        let sy = dot_u8([i8x16_splat(1); 2], y);
        i32x4_extadd_pairwise_i16x8(i16x8_sub(qy, i16x8_shl(sy, 3)))
    }
    #[cfg(not(target_feature = "relaxed-simd"))]
    {
        let eight = i16x8_splat(8);
        dot_block(lanes_4bit(&x.qs).map(|v| i16x8_sub(v, eight)), y)
    }
}

/// Q5_0 · Q8_0, one block: `sum((q - 16) * yq)` as four i32 partial sums.
/// With relaxed SIMD, `sum(q * yq) - 16 * sum(yq)` (its dot needs the
/// weights unsigned), each i16 lane within ±(15872 + 16 * 512).
#[inline(always)]
fn isum_q5_0(x: &BlockQ5_0, y: Ys) -> v128 {
    #[cfg(target_feature = "relaxed-simd")]
    {
        let qy = dot_u8(fives_u8(&x.qs, x.qh), y);
        let sy = dot_u8([i8x16_splat(1); 2], y);
        i32x4_extadd_pairwise_i16x8(i16x8_sub(qy, i16x8_shl(sy, 4)))
    }
    #[cfg(not(target_feature = "relaxed-simd"))]
    {
        // q - 16, -16..=15 as an i8.
        let sixteen = i8x16_splat(16);
        let [lo, hi] = fives_u8(&x.qs, x.qh).map(|q| i8x16_sub(q, sixteen));
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

/// How a block's integer sum becomes its term, in ggml's order for each
/// type (its generic kernels, which llama.cpp's wasm build runs).
#[derive(Clone, Copy, PartialEq)]
enum Term {
    /// `(sum * d) * yd` (Q4_0).
    SumFirst,
    /// `(d * yd) * sum` (Q5_0).
    ScaleFirst,
    /// `(d * yd) * sum + m * s` (Q4_1, Q5_1).
    WithMin,
}

/// The row loop shared by the four types, over `R` weight rows (1, or
/// 2 for `dot2`) against the same activations: `isum(i)` is each row's
/// block `i` integer dot as four partial sums; `scales(i)` the rows'
/// `(d, m)` and the activations' `(yd, s)`, each a pair of f16 (low,
/// high) in a u32. Four blocks' terms (`TERM`) are computed at once, a
/// block a lane, then added to the row's sum one block at a time, in
/// order: the scalar kernel's operations, so `dot` is `dot_scalar` to the
/// bit. Each row's float operations are the same whatever `R`, so `dot2`
/// gives `dot`'s values to the bit.
#[inline(always)]
fn dot_rows<const TERM: u8, const R: usize>(
    nb: usize,
    isum: impl Fn(usize) -> [v128; R],
    scales: impl Fn(usize) -> ([u32; R], u32),
) -> [f32; R] {
    let term = match TERM {
        0 => Term::SumFirst,
        1 => Term::ScaleFirst,
        _ => Term::WithMin,
    };
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
            let t = match term {
                Term::SumFirst => f32x4_mul(f32x4_mul(sums, d), yd),
                Term::ScaleFirst => f32x4_mul(f32x4_mul(d, yd), sums),
                Term::WithMin => f32x4_add(f32x4_mul(f32x4_mul(d, yd), sums), f32x4_mul(m, s)),
            };
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
            let si = hsum(f32x4_convert_i32x4(blocks[r]));
            let (d, yd) = (half(xp[r], 0), half(yp, 0));
            sum[r] += match term {
                Term::SumFirst => (si * d) * yd,
                Term::ScaleFirst => (d * yd) * si,
                Term::WithMin => (d * yd) * si + half(xp[r], 16) * half(yp, 16),
            };
        }
    }
    sum
}

/// `R` rows of a type with a scale only (Q4_0, Q5_0) against Q8_0
/// activations: `isum` is a block's integer dot, `d` its scale.
#[inline(always)]
fn rows_q8_0<const TERM: u8, X, const R: usize>(
    n: usize,
    xs: [&[X]; R],
    ys: &[BlockQ8_0],
    isum: impl Fn(&X, Ys) -> v128,
    d: impl Fn(&X) -> f16,
) -> [f32; R] {
    debug_assert!(n % QK == 0, "{n} is not divisible by {QK}");
    let nb = n / QK;
    let (xs, ys) = (xs.map(|x| &x[..nb]), &ys[..nb]);
    dot_rows::<TERM, R>(
        nb,
        |i| {
            let y = load_ys(&ys[i].qs);
            xs.map(|x| isum(&x[i], y))
        },
        |i| {
            (
                xs.map(|x| d(&x[i]).to_bits() as u32),
                ys[i].d.to_bits() as u32,
            )
        },
    )
}

/// `R` rows of a type with a scale and a minimum (Q4_1, Q5_1) against
/// Q8_1 activations: `isum` is a block's integer dot, `dm` its scale and
/// minimum.
#[inline(always)]
fn rows_q8_1<X, const R: usize>(
    n: usize,
    xs: [&[X]; R],
    ys: &[BlockQ8_1],
    isum: impl Fn(&X, Ys) -> v128,
    dm: impl Fn(&X) -> (f16, f16),
) -> [f32; R] {
    debug_assert!(n % QK == 0, "{n} is not divisible by {QK}");
    let nb = n / QK;
    let (xs, ys) = (xs.map(|x| &x[..nb]), &ys[..nb]);
    dot_rows::<2, R>(
        nb,
        |i| {
            let y = load_ys(&ys[i].qs);
            xs.map(|x| isum(&x[i], y))
        },
        |i| {
            (
                xs.map(|x| {
                    let (d, m) = dm(&x[i]);
                    pair(d, m)
                }),
                pair(ys[i].d, ys[i].s),
            )
        },
    )
}

/// Q4_0 · Q8_0: `sum((q - 8) * yq) * d * yd` over `n / 32` blocks.
pub fn vec_dot_q4_0_q8_0(n: usize, xs: &[BlockQ4_0], ys: &[BlockQ8_0]) -> f32 {
    let [a] = vec_dot_rows_q4_0_q8_0(n, [xs], ys);
    a
}

/// `vec_dot_q4_0_q8_0` of `R` rows with the same activations, loaded once.
pub fn vec_dot_rows_q4_0_q8_0<const R: usize>(
    n: usize,
    xs: [&[BlockQ4_0]; R],
    ys: &[BlockQ8_0],
) -> [f32; R] {
    rows_q8_0::<0, _, R>(n, xs, ys, isum_q4_0, |x| x.d)
}

/// Q4_1 · Q8_1: `sum(q * yq) * d * yd + m * s` over `n / 32` blocks.
pub fn vec_dot_q4_1_q8_1(n: usize, xs: &[BlockQ4_1], ys: &[BlockQ8_1]) -> f32 {
    let [a] = vec_dot_rows_q4_1_q8_1(n, [xs], ys);
    a
}

/// Q5_0 · Q8_0: `sum((q - 16) * yq) * d * yd` over `n / 32` blocks.
pub fn vec_dot_q5_0_q8_0(n: usize, xs: &[BlockQ5_0], ys: &[BlockQ8_0]) -> f32 {
    let [a] = vec_dot_rows_q5_0_q8_0(n, [xs], ys);
    a
}

/// Q5_1 · Q8_1: `sum(q * yq) * d * yd + m * s` over `n / 32` blocks.
pub fn vec_dot_q5_1_q8_1(n: usize, xs: &[BlockQ5_1], ys: &[BlockQ8_1]) -> f32 {
    let [a] = vec_dot_rows_q5_1_q8_1(n, [xs], ys);
    a
}

/// `vec_dot_q4_1_q8_1` of `R` rows with the same activations, loaded once.
pub fn vec_dot_rows_q4_1_q8_1<const R: usize>(
    n: usize,
    xs: [&[BlockQ4_1]; R],
    ys: &[BlockQ8_1],
) -> [f32; R] {
    rows_q8_1(n, xs, ys, isum_q4_1, |x| (x.d, x.m))
}

/// `vec_dot_q5_0_q8_0` of `R` rows with the same activations, loaded once.
/// Only one row is used: two measured no faster (the cost is unpacking the
/// fifth bits, and two rows of it crowd the registers).
pub fn vec_dot_rows_q5_0_q8_0<const R: usize>(
    n: usize,
    xs: [&[BlockQ5_0]; R],
    ys: &[BlockQ8_0],
) -> [f32; R] {
    rows_q8_0::<1, _, R>(n, xs, ys, isum_q5_0, |x| x.d)
}

/// `vec_dot_q5_1_q8_1` of `R` rows with the same activations, loaded once.
/// Only one row is used, as for Q5_0.
pub fn vec_dot_rows_q5_1_q8_1<const R: usize>(
    n: usize,
    xs: [&[BlockQ5_1]; R],
    ys: &[BlockQ8_1],
) -> [f32; R] {
    rows_q8_1(n, xs, ys, isum_q5_1, |x| (x.d, x.m))
}
