//! Integer dot products of byte rows, `Σ a·b` exactly: with simd128 when
//! the build has it, else in plain code (the same integers either way).
//! The unpacked blocks' products (each family's `wide`) and Q8_0's kernel
//! are built on them.

#[cfg(target_feature = "simd128")]
use super::simd::hsum;
#[cfg(target_feature = "simd128")]
use core::arch::wasm32::*;

/// The four i32 lanes of Σ a·b over 16 values (their sum is the dot).
#[cfg(target_feature = "simd128")]
#[inline(always)]
fn lanes16(a: &[i8], b: &[i8]) -> v128 {
    debug_assert!(a.len() >= 16 && b.len() >= 16);
    // SAFETY: both slices hold at least 16 values; loads are unaligned.
    let (va, vb) = unsafe {
        (
            v128_load(a.as_ptr() as *const v128),
            v128_load(b.as_ptr() as *const v128),
        )
    };
    let lo = i32x4_extadd_pairwise_i16x8(i16x8_extmul_low_i8x16(va, vb));
    let hi = i32x4_extadd_pairwise_i16x8(i16x8_extmul_high_i8x16(va, vb));
    i32x4_add(lo, hi)
}

/// The four i32 lanes of Σ a·b over 32 values.
#[cfg(target_feature = "simd128")]
#[inline(always)]
pub fn lanes32(a: &[i8], b: &[i8]) -> v128 {
    i32x4_add(lanes16(a, b), lanes16(&a[16..], &b[16..]))
}

/// The four i32 lanes of Σ a·b over 32 values with every `a` in 0..128:
/// with relaxed SIMD two `i32x4_relaxed_dot_i8x16_i7x16_add` (x86's
/// `pmaddubsw`), whose result is the same on every platform for such `a`
/// (each i16 pair sum is at most 2·127·128); else `lanes32`.
#[cfg(target_feature = "simd128")]
#[inline(always)]
pub fn lanes32u(a: &[i8], b: &[i8]) -> v128 {
    #[cfg(target_feature = "relaxed-simd")]
    {
        debug_assert!(a.len() >= 32 && b.len() >= 32);
        // SAFETY: both slices hold at least 32 values; loads are unaligned.
        let [a0, a1, b0, b1] = unsafe {
            [
                a.as_ptr(),
                a.as_ptr().add(16),
                b.as_ptr(),
                b.as_ptr().add(16),
            ]
            .map(|p| v128_load(p as *const v128))
        };
        let acc = i32x4_relaxed_dot_i8x16_i7x16_add(b0, a0, i32x4_splat(0));
        i32x4_relaxed_dot_i8x16_i7x16_add(b1, a1, acc)
    }
    #[cfg(not(target_feature = "relaxed-simd"))]
    lanes32(a, b)
}

/// Σ a·b over 32 values.
#[inline(always)]
pub fn isum32(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_feature = "simd128")]
    {
        hsum(lanes32(a, b))
    }
    #[cfg(not(target_feature = "simd128"))]
    {
        isum_scalar(&a[..32], &b[..32])
    }
}

/// Σ a·b over 32 values with every `a` in 0..128 (`lanes32u`'s sum).
#[inline(always)]
pub fn isum32u(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_feature = "simd128")]
    {
        hsum(lanes32u(a, b))
    }
    #[cfg(not(target_feature = "simd128"))]
    isum32(a, b)
}

/// Σ_j scales[j] · Σ a·b over the `scales.len()` sub-blocks of `W`
/// values (16 or 32) of a 256-value block.
#[inline(always)]
pub fn isum_scaled<const W: usize>(scales: &[i32], a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_feature = "simd128")]
    {
        let mut acc = i32x4_splat(0);
        for (j, &sc) in scales.iter().enumerate() {
            let mut part = lanes16(&a[W * j..], &b[W * j..]);
            if W == 32 {
                part = i32x4_add(part, lanes16(&a[W * j + 16..], &b[W * j + 16..]));
            }
            acc = i32x4_add(acc, i32x4_mul(part, i32x4_splat(sc)));
        }
        hsum(acc)
    }
    #[cfg(not(target_feature = "simd128"))]
    {
        scales
            .iter()
            .enumerate()
            .map(|(j, &sc)| sc * isum_scalar(&a[W * j..W * (j + 1)], &b[W * j..W * (j + 1)]))
            .sum()
    }
}

/// Σ a·b in plain code.
#[cfg(not(target_feature = "simd128"))]
#[inline(always)]
fn isum_scalar(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(&x, &y)| x as i32 * y as i32).sum()
}
