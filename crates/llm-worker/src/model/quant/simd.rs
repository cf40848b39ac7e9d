//! What the families' simd128 kernels share: loads, horizontal sums,
//! gathering four vectors' sums into one, and f16 scales as f32 lanes.

use core::arch::wasm32::*;

/// 16 bytes of `s` from element `at`.
#[inline(always)]
pub fn load<T: Copy>(s: &[T], at: usize) -> v128 {
    let bytes = &s[at..at + 16 / size_of::<T>()];
    // SAFETY: `bytes` spans 16 valid bytes; v128_load allows unaligned
    // addresses.
    unsafe { v128_load(bytes.as_ptr().cast()) }
}

/// The sum of the four i32 lanes.
#[inline(always)]
pub fn hsum(v: v128) -> i32 {
    i32x4_extract_lane::<0>(v)
        + i32x4_extract_lane::<1>(v)
        + i32x4_extract_lane::<2>(v)
        + i32x4_extract_lane::<3>(v)
}

/// The sum of the four f32 lanes, `(0 + 1) + (2 + 3)`.
#[inline(always)]
pub fn hsum_f32(v: v128) -> f32 {
    (f32x4_extract_lane::<0>(v) + f32x4_extract_lane::<1>(v))
        + (f32x4_extract_lane::<2>(v) + f32x4_extract_lane::<3>(v))
}

/// The four lanes of an f32x4.
#[inline(always)]
pub fn lanes_f32(v: v128) -> [f32; 4] {
    [
        f32x4_extract_lane::<0>(v),
        f32x4_extract_lane::<1>(v),
        f32x4_extract_lane::<2>(v),
        f32x4_extract_lane::<3>(v),
    ]
}

/// Four i32x4 vectors, each summed across its lanes, as one i32x4.
#[inline(always)]
pub fn sum4(s: [v128; 4]) -> v128 {
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
