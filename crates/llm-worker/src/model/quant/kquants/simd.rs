//! The wasm simd128 kernels. Values are unpacked 16 at a time with v128
//! shifts and masks, taken unsigned, multiplied by the Q8_K values into
//! i16 (`mul16u`: `i16x8_extmul_*_i8x16`, or one relaxed-SIMD dot in the
//! worker's relaxed build), summed over a sub-block in i16, and weighted
//! by the sub-block's scale with `i32x4_dot_i16x8`: the block's integer sum
//! is exact, as in the scalar kernel, and scaled once in f32.
//!
//! Values' bits are moved with 16-bit lane shifts (wasm's 8-bit ones are
//! several instructions on x86); every bit read comes from its own byte,
//! the bits crossing bytes are masked. A block's packed 6-bit scales are
//! unpacked once a block in one vector (`q3k_scales_v`,
//! `q5k_scales_mins_v`: there 8-bit shifts are clearer and cost little),
//! and each sub-block's scale is taken from its lane by a shuffle.

use super::{BlockQ3K, BlockQ4K, BlockQ5K, BlockQ6K, ScaleMin};
use crate::model::quant::activation::BlockQ8K;
use crate::model::quant::simd::{hsum, load};
use crate::model::quant::QK_K;
use core::arch::wasm32::*;
use half::f16;

/// `a·q8` for 16 bytes of each, `a` unsigned and below 64: eight i16
/// sums of two products each, every lane at most 2·63·128 in size.
/// simd128 adds the two halves' products (`i16x8_extmul_*_i8x16`);
/// relaxed SIMD pairs neighbours with one `i16x8_relaxed_dot_i8x16_i7x16`
/// (x86's `pmaddubsw`), the same value on every platform for such `a`.
/// Callers only sum the lanes, so the pairing does not matter.
#[inline(always)]
fn mul16u(a: v128, q8: v128) -> v128 {
    #[cfg(target_feature = "relaxed-simd")]
    return i16x8_relaxed_dot_i8x16_i7x16(q8, a);
    #[cfg(not(target_feature = "relaxed-simd"))]
    i16x8_add(
        i16x8_extmul_low_i8x16(a, q8),
        i16x8_extmul_high_i8x16(a, q8),
    )
}

/// The 12 packed scale bytes of a K block: bytes 0..12 of the vector,
/// the rest zero (two loads: a 16-byte load would read past the block).
#[inline(always)]
fn load12(b: &[u8; 12]) -> v128 {
    let p = b.as_ptr();
    // SAFETY: bytes 0..8 and 8..12 of the 12-byte `b`; wasm loads need no
    // alignment.
    unsafe {
        let lo = v128_load64_zero(p.cast());
        v128_load32_lane::<2>(lo, p.add(8).cast())
    }
}

/// Q3_K's 16 signed scales (`q3k_scales`) in the 16 i8 lanes: the low
/// nibbles of bytes 0..8 for scales 0..8, their high nibbles for 8..16;
/// the two high bits of scale `j` are bits `2·(j / 4)` of byte `8 + j % 4`.
#[inline(always)]
pub fn q3k_scales_v(b: &[u8; 12]) -> v128 {
    let v = load12(b);
    let low4 = u8x16_splat(0xF);
    let twice = i8x16_shuffle::<0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7>(v, v);
    let nibbles = i8x16_shuffle::<0, 1, 2, 3, 4, 5, 6, 7, 24, 25, 26, 27, 28, 29, 30, 31>(
        v128_and(twice, low4),
        v128_and(u8x16_shr(twice, 4), low4),
    );
    // Bytes 8..12 four times, the k-th copy shifted down 2·k.
    let t = i8x16_shuffle::<8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11>(v, v);
    let t01 =
        i8x16_shuffle::<0, 1, 2, 3, 20, 21, 22, 23, 0, 0, 0, 0, 0, 0, 0, 0>(t, u8x16_shr(t, 2));
    let t23 = i8x16_shuffle::<0, 1, 2, 3, 20, 21, 22, 23, 0, 0, 0, 0, 0, 0, 0, 0>(
        u8x16_shr(t, 4),
        u8x16_shr(t, 6),
    );
    let tops = i8x16_shuffle::<0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23>(t01, t23);
    let high = i8x16_shl(v128_and(tops, u8x16_splat(3)), 4);
    i8x16_sub(v128_or(nibbles, high), i8x16_splat(32))
}

/// Q4_K/Q5_K's 8 scales (lanes 0..8) and 8 mins (lanes 8..16) as
/// `q5k_scales_mins` reads them: pairs `j < 4` are the low six bits of
/// bytes `j` and `j + 4`; pairs `j >= 4` take byte `j + 4`'s low and high
/// nibbles, with bits 6..8 of bytes `j - 4` and `j` above them.
#[inline(always)]
pub fn q5k_scales_mins_v(b: &[u8; 12]) -> v128 {
    let v = load12(b);
    // Low parts: q[0..4] & 63, q[8..12] & 15 | q[4..8] & 63, q[8..12] >> 4.
    let lows = i8x16_shuffle::<0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11>(v, v);
    let masked = v128_and(
        lows,
        u8x16(
            63, 63, 63, 63, 15, 15, 15, 15, 63, 63, 63, 63, 255, 255, 255, 255,
        ),
    );
    let low = i8x16_shuffle::<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 28, 29, 30, 31>(
        masked,
        u8x16_shr(lows, 4),
    );
    // High parts of pairs 4..8: q[0..4] >> 6 (scales), q[4..8] >> 6 (mins).
    let tops =
        i8x16_shuffle::<16, 16, 16, 16, 0, 1, 2, 3, 16, 16, 16, 16, 4, 5, 6, 7>(v, i8x16_splat(0));
    v128_or(low, i8x16_shl(u8x16_shr(tops, 6), 4))
}

/// Lane `L` of eight i16 lanes, in all eight.
#[inline(always)]
fn splat16<const L: usize>(v: v128) -> v128 {
    match L {
        0 => i16x8_shuffle::<0, 0, 0, 0, 0, 0, 0, 0>(v, v),
        1 => i16x8_shuffle::<1, 1, 1, 1, 1, 1, 1, 1>(v, v),
        2 => i16x8_shuffle::<2, 2, 2, 2, 2, 2, 2, 2>(v, v),
        3 => i16x8_shuffle::<3, 3, 3, 3, 3, 3, 3, 3>(v, v),
        4 => i16x8_shuffle::<4, 4, 4, 4, 4, 4, 4, 4>(v, v),
        5 => i16x8_shuffle::<5, 5, 5, 5, 5, 5, 5, 5>(v, v),
        6 => i16x8_shuffle::<6, 6, 6, 6, 6, 6, 6, 6>(v, v),
        _ => i16x8_shuffle::<7, 7, 7, 7, 7, 7, 7, 7>(v, v),
    }
}

/// Lane `l` (< 8, a constant once the caller's loops are unrolled) of
/// eight i16 lanes, in all eight.
#[inline(always)]
fn splat16_at(v: v128, l: usize) -> v128 {
    match l {
        0 => splat16::<0>(v),
        1 => splat16::<1>(v),
        2 => splat16::<2>(v),
        3 => splat16::<3>(v),
        4 => splat16::<4>(v),
        5 => splat16::<5>(v),
        6 => splat16::<6>(v),
        _ => splat16::<7>(v),
    }
}

/// Q3_K · Q8_K over `n` values (`n / 256` blocks of each).
///
/// Values are taken unsigned, `q2 | hbit << 2` in 0..8, and the `- 4`
/// applied once a block through the Q8_K sums (`vec_dot_scale16`).
pub fn vec_dot_q3k_q8k(n: usize, xs: &[BlockQ3K], ys: &[BlockQ8K]) -> f32 {
    vec_dot_scale16(n, xs, ys, 2, |x| (x.d, q3k_scales_v(&x.scales)), isum_q3k)
}

/// `acc` plus a Q3_K block's Σ sc·q·q8 (`sc16`: its scales as i16).
#[inline(always)]
fn isum_q3k(x: &BlockQ3K, y: &BlockQ8K, sc16: [v128; 2], mut acc: v128) -> v128 {
    let (three, four) = (u8x16_splat(3), u8x16_splat(4));
    // Value `128·half + 32·shift + l` (l < 32, in two vectors of 16,
    // `k`): its high bit is bit `4·half + shift` of `hmask[l]`, shifted
    // down one a step and read at bit 0; its low bits are bits `2·shift`
    // of `qs[32·half + l]`, shifted down two a step.
    let mut hm = [load(&x.hmask, 0), load(&x.hmask, 16)];
    for (half, &sc) in sc16.iter().enumerate() {
        let mut q = [load(&x.qs, 32 * half), load(&x.qs, 32 * half + 16)];
        for shift in 0..4 {
            for k in 0..2 {
                let q2 = v128_and(q[k], three);
                let hb = v128_and(i16x8_shl(hm[k], 2), four);
                let sub = 8 * half + 2 * shift + k;
                let p = mul16u(v128_or(q2, hb), load(&y.qs, 16 * sub));
                let s = splat16_at(sc, 2 * shift + k);
                acc = i32x4_add(acc, i32x4_dot_i16x8(p, s));
                q[k] = u16x8_shr(q[k], 2);
                hm[k] = u16x8_shr(hm[k], 1);
            }
        }
    }
    acc
}

/// Q3_K's and Q6_K's product: per block the integer sum, then the scalar
/// kernel's `d·dy·sumi`. A block's 16 signed scales (`block`, with its
/// super-scale) go to i16 lanes, sub-blocks 0..8 then 8..16, and its
/// values are taken unsigned, `2^shift` above their value: the sum starts
/// at `-2^shift·Σ sc·bsum` and `isum` adds `Σ sc·q·q8`, which makes
/// `Σ sc·(q - 2^shift)·q8`.
#[inline(always)]
fn vec_dot_scale16<X>(
    n: usize,
    xs: &[X],
    ys: &[BlockQ8K],
    shift: u32,
    block: impl Fn(&X) -> (f16, v128),
    isum: impl Fn(&X, &BlockQ8K, [v128; 2], v128) -> v128,
) -> f32 {
    debug_assert!(n % QK_K == 0, "vec_dot_scale16: {n} % {QK_K}");
    let nb = n / QK_K;
    let mut sumf = 0f32;
    for (x, y) in xs[..nb].iter().zip(&ys[..nb]) {
        let (d, scales) = block(x);
        let sc16 = [
            i16x8_extend_low_i8x16(scales),
            i16x8_extend_high_i8x16(scales),
        ];
        let offset = i32x4_add(
            i32x4_dot_i16x8(load(&y.bsums, 0), sc16[0]),
            i32x4_dot_i16x8(load(&y.bsums, 8), sc16[1]),
        );
        let acc = isum(x, y, sc16, i32x4_shl(i32x4_neg(offset), shift));
        sumf += d.to_f32() * y.d * hsum(acc) as f32;
    }
    sumf
}

/// Q4_K · Q8_K over `n` values (`n / 256` blocks of each).
pub fn vec_dot_q4k_q8k(n: usize, xs: &[BlockQ4K], ys: &[BlockQ8K]) -> f32 {
    vec_dot_scale_min(n, xs, ys)
}

/// Q5_K · Q8_K over `n` values (`n / 256` blocks of each).
pub fn vec_dot_q5k_q8k(n: usize, xs: &[BlockQ5K], ys: &[BlockQ8K]) -> f32 {
    vec_dot_scale_min(n, xs, ys)
}

/// Q4_K's or Q5_K's product: per block `scale_min_sums`, then the scalar
/// kernel's `d·dy·sumi - dmin·dy·summ`.
#[inline(always)]
fn vec_dot_scale_min<B: ScaleMin>(n: usize, xs: &[B], ys: &[BlockQ8K]) -> f32 {
    debug_assert!(n % QK_K == 0, "vec_dot_scale_min: {n} % {QK_K}");
    let nb = n / QK_K;
    let mut sumf = 0f32;
    for (x, y) in xs[..nb].iter().zip(&ys[..nb]) {
        let ((d, dmin, packed), (qs, qh)) = (x.scales(), x.bits());
        let (sumi, summ) = scale_min_sums(packed, qh, qs, y);
        sumf += d.to_f32() * y.d * sumi as f32 - dmin.to_f32() * y.d * summ as f32;
    }
    sumf
}

/// A Q4_K block (`qh` None) or a Q5_K one against a Q8_K block: the
/// integer sums `Σ_j scale_j · Σ q·q8` and `Σ_j min_j · Σ q8` over its 8
/// sub-blocks of 32, as the scalar kernel computes them.
#[inline(always)]
fn scale_min_sums(
    packed: &[u8; 12],
    qh: Option<&[u8; QK_K / 8]>,
    qs: &[u8; QK_K / 2],
    y: &BlockQ8K,
) -> (i32, i32) {
    let (low4, sixteen) = (u8x16_splat(0xF), u8x16_splat(16));
    let sm = q5k_scales_mins_v(packed);
    // The scales as i16 (all below 64), and the mins each twice.
    let scales = i16x8_extend_low_u8x16(sm);
    let mins2 = i8x16_shuffle::<8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15>(sm, sm);
    // Σ min·q8: bsums (two per sub-block of 32) against the mins.
    let summ = i32x4_add(
        i32x4_dot_i16x8(load(&y.bsums, 0), i16x8_extend_low_u8x16(mins2)),
        i32x4_dot_i16x8(load(&y.bsums, 8), i16x8_extend_high_u8x16(mins2)),
    );
    let mut acc = i32x4_splat(0);
    // Value `64·chunk + 32·hi + l` (sub-block `2·chunk + hi`, l < 32 in
    // two vectors of 16, `k`): low bits `qs[32·chunk + l] >> 4·hi`; for
    // Q5_K, high bit bit `2·chunk + hi` of `qh[l]`, shifted down one a
    // sub-block and read at bit 0.
    let mut hm = qh.map(|h| [load(h, 0), load(h, 16)]);
    for chunk in 0..4 {
        let q = [load(qs, 32 * chunk), load(qs, 32 * chunk + 16)];
        for hi in 0..2 {
            let sub = 2 * chunk + hi;
            let mut p = i16x8_splat(0);
            for k in 0..2 {
                let q4 = if hi == 0 { q[k] } else { u16x8_shr(q[k], 4) };
                let mut a = v128_and(q4, low4);
                if let Some(hm) = hm.as_mut() {
                    a = v128_or(a, v128_and(i16x8_shl(hm[k], 4), sixteen));
                    hm[k] = u16x8_shr(hm[k], 1);
                }
                // a <= 31: two of these sum to at most 4·31·128 a lane.
                p = i16x8_add(p, mul16u(a, load(&y.qs, 32 * sub + 16 * k)));
            }
            let s = splat16_at(scales, sub);
            acc = i32x4_add(acc, i32x4_dot_i16x8(p, s));
        }
    }
    (hsum(acc), hsum(summ))
}

/// Q6_K · Q8_K over `n` values (`n / 256` blocks of each). Values are
/// rebuilt unsigned (`low | high << 4`, 0..64) and weighted by their
/// signed scales; the `- 32` is applied once a block through the Q8_K
/// sums, as for Q3_K (`vec_dot_scale16`).
pub fn vec_dot_q6k_q8k(n: usize, xs: &[BlockQ6K], ys: &[BlockQ8K]) -> f32 {
    vec_dot_scale16(n, xs, ys, 5, |x| (x.d, load(&x.scales, 0)), isum_q6k)
}

/// `acc` plus a Q6_K block's Σ sc·q·q8 (`sc16`: its scales as i16).
#[inline(always)]
fn isum_q6k(x: &BlockQ6K, y: &BlockQ8K, sc16: [v128; 2], mut acc: v128) -> v128 {
    let (low4, three) = (u8x16_splat(0xF), u8x16_splat(3));
    // Value `128·half + 32·group + l` (l < 32, in two vectors of 16,
    // `k`): low nibble of `ql[64·half + l]` (groups 0, 2: low, high) or of
    // `ql[64·half + 32 + l]` (groups 1, 3); high bits `2·group` of
    // `qh[32·half + l]`; scale `8·half + 2·group + k`.
    for (half, &sc) in sc16.iter().enumerate() {
        for k in 0..2 {
            let qa = load(&x.ql, 64 * half + 16 * k);
            let qb = load(&x.ql, 64 * half + 32 + 16 * k);
            let h = load(&x.qh, 32 * half + 16 * k);
            let lows = [
                v128_and(qa, low4),
                v128_and(qb, low4),
                v128_and(u16x8_shr(qa, 4), low4),
                v128_and(u16x8_shr(qb, 4), low4),
            ];
            for (group, low) in lows.into_iter().enumerate() {
                let high = v128_and(u16x8_shr(h, 2 * group as u32), three);
                let q = v128_or(low, i16x8_shl(high, 4));
                let sub = 8 * half + 2 * group + k;
                let p = mul16u(q, load(&y.qs, 16 * sub));
                let s = splat16_at(sc, 2 * group + k);
                acc = i32x4_add(acc, i32x4_dot_i16x8(p, s));
            }
        }
    }
    acc
}

/// Q2_K's 256 values (`qs`, 2 bits each) as bytes, in order: each 32 bytes
/// of `qs` shifted down 2·j and masked give values 32·j.. of their half.
#[inline]
pub fn q2k_values(qs: &[u8; QK_K / 4]) -> [i8; QK_K] {
    let mut out = [0i8; QK_K];
    let three = u8x16_splat(3);
    for half in 0..2 {
        // SAFETY: 16-byte loads within `qs` (64 bytes) and stores within
        // `out` (256).
        unsafe {
            let v = [
                v128_load(qs.as_ptr().add(32 * half) as *const v128),
                v128_load(qs.as_ptr().add(32 * half + 16) as *const v128),
            ];
            for j in 0..4u32 {
                for (k, v) in v.iter().enumerate() {
                    let q = v128_and(u8x16_shr(*v, 2 * j), three);
                    let at = 128 * half + 32 * j as usize + 16 * k;
                    v128_store(out.as_mut_ptr().add(at) as *mut v128, q);
                }
            }
        }
    }
    out
}
