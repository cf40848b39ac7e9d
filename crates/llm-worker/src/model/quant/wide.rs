//! Weight blocks with their values unpacked to bytes, for products over a
//! batch of tokens: a packed block (4, 5 or 3 bits a value, high bits in
//! separate masks) costs more to unpack than to multiply, so a row is
//! unpacked once (`Kernel::widen`) and then dotted with every token's
//! activations as plain 8-bit products.
//!
//! Each dot product computes every block's integer sum exactly and then
//! the float formula of the packed type's own scalar kernel, in the same
//! order: the results are the scalar kernel's to the bit. The 32-value
//! types also run four tokens at once (`dot8_4`, `dot8m_4`): the row's
//! bytes are loaded once for the four, their integer sums gathered into
//! one vector, and the formula run on its four lanes, which is each
//! token's own formula, operation for operation.

use super::kquants::BlockQ8K;
use super::legacy::{BlockQ8_0, BlockQ8_1, QK};

/// Q4_0 and Q5_0 unpacked: `x = d * q`, q in -8..7 or -16..15.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wide8 {
    pub d: f32,
    pub qs: [i8; QK],
}

/// Q4_1 and Q5_1 unpacked: `x = d * q + m`, q in 0..31.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wide8m {
    pub d: f32,
    pub m: f32,
    pub qs: [i8; QK],
}

/// Q3_K unpacked: 16 sub-blocks of 16, `x = d * scales[j] * q`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wide16 {
    pub d: f32,
    pub scales: [i8; 16],
    pub qs: [i8; 256],
}

/// Q2_K unpacked: 16 sub-blocks of 16, `x = d * scales[j] * q - dmin * mins[j]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wide16m {
    pub d: f32,
    pub dmin: f32,
    pub scales: [u8; 16],
    pub mins: [u8; 16],
    pub qs: [i8; 256],
}

/// Q4_K and Q5_K unpacked: 8 sub-blocks of 32, `x = d * scales[j] * q - dmin * mins[j]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wide32m {
    pub d: f32,
    pub dmin: f32,
    pub scales: [u8; 8],
    pub mins: [u8; 8],
    pub qs: [i8; 256],
}

impl Wide8 {
    pub const ZERO: Self = Wide8 {
        d: 0.0,
        qs: [0; QK],
    };
}
impl Wide8m {
    pub const ZERO: Self = Wide8m {
        d: 0.0,
        m: 0.0,
        qs: [0; QK],
    };
}
impl Wide16 {
    pub const ZERO: Self = Wide16 {
        d: 0.0,
        scales: [0; 16],
        qs: [0; 256],
    };
}
impl Wide16m {
    pub const ZERO: Self = Wide16m {
        d: 0.0,
        dmin: 0.0,
        scales: [0; 16],
        mins: [0; 16],
        qs: [0; 256],
    };
}
impl Wide32m {
    pub const ZERO: Self = Wide32m {
        d: 0.0,
        dmin: 0.0,
        scales: [0; 8],
        mins: [0; 8],
        qs: [0; 256],
    };
}

/// The four i32 lanes of Σ a·b over 16 values (their sum is the dot).
#[cfg(target_feature = "simd128")]
#[inline(always)]
fn lanes16(a: &[i8], b: &[i8]) -> core::arch::wasm32::v128 {
    use core::arch::wasm32::*;
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

#[cfg(target_feature = "simd128")]
#[inline(always)]
fn hsum(v: core::arch::wasm32::v128) -> i32 {
    use core::arch::wasm32::*;
    i32x4_extract_lane::<0>(v)
        + i32x4_extract_lane::<1>(v)
        + i32x4_extract_lane::<2>(v)
        + i32x4_extract_lane::<3>(v)
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

/// The four i32 lanes of Σ a·b over 32 values.
#[cfg(target_feature = "simd128")]
#[inline(always)]
fn lanes32(a: &[i8], b: &[i8]) -> core::arch::wasm32::v128 {
    core::arch::wasm32::i32x4_add(lanes16(a, b), lanes16(&a[16..], &b[16..]))
}

/// Σ_j scales[j] · Σ a·b over the `scales.len()` sub-blocks of `width`
/// values (16 or 32) of a 256-value block.
#[inline(always)]
fn isum_scaled<const W: usize>(scales: &[i32], a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_feature = "simd128")]
    {
        use core::arch::wasm32::*;
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

/// Q4_0's product: per block `(sumi * d) * yd` (ggml's order for Q4_0).
pub fn dot8(xs: &[Wide8], ys: &[BlockQ8_0]) -> f32 {
    debug_assert_eq!(xs.len(), ys.len());
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        sumf += isum32(&x.qs, &y.qs) as f32 * x.d * y.d.to_f32();
    }
    sumf
}

/// Q5_0's and Q8_0's product: per block `(d * yd) * sumi` (ggml's order
/// for them; `d * yd` is exact, two f16 significands).
pub fn dot8_scaled(xs: &[Wide8], ys: &[BlockQ8_0]) -> f32 {
    debug_assert_eq!(xs.len(), ys.len());
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        sumf += isum32(&x.qs, &y.qs) as f32 * (x.d * y.d.to_f32());
    }
    sumf
}

/// Σ a·b over 32 values with every `a` in 0..128 (`lanes32u`'s sum).
#[inline(always)]
fn isum32u(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_feature = "simd128")]
    {
        hsum(lanes32u(a, b))
    }
    #[cfg(not(target_feature = "simd128"))]
    isum32(a, b)
}

/// The four i32 lanes of Σ a·b over 32 values with every `a` in 0..128:
/// with relaxed SIMD two `i32x4_relaxed_dot_i8x16_i7x16_add` (x86's
/// `pmaddubsw`), whose result is the same on every platform for such `a`
/// (each i16 pair sum is at most 2·127·128); else `lanes32`.
#[cfg(target_feature = "simd128")]
#[inline(always)]
fn lanes32u(a: &[i8], b: &[i8]) -> core::arch::wasm32::v128 {
    #[cfg(target_feature = "relaxed-simd")]
    {
        use core::arch::wasm32::*;
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

/// Q4_1's and Q5_1's product: per block `(d * yd) * sumi + m * ys`
/// (ggml's order).
pub fn dot8m(xs: &[Wide8m], ys: &[BlockQ8_1]) -> f32 {
    debug_assert_eq!(xs.len(), ys.len());
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        sumf += (x.d * y.d.to_f32()) * isum32u(&x.qs, &y.qs) as f32 + x.m * y.s.to_f32();
    }
    sumf
}

/// `dot8` for four tokens, to the bit: the row's bytes loaded once for
/// all four, their four integer sums gathered into one vector and the
/// float formula run on its lanes (the same operations, in the same
/// order, as `dot8`'s for each token).
pub fn dot8_4(xs: &[Wide8], ys: [&[BlockQ8_0]; 4]) -> [f32; 4] {
    #[cfg(target_feature = "simd128")]
    {
        use super::legacy::simd::f16_to_f32x4;
        use core::arch::wasm32::*;
        four(
            xs,
            ys,
            |x, y| lanes32(&x.qs, &y.qs),
            |x, y, sums| {
                let yd = f16_to_f32x4(u32x4_from(y.map(|y| y.d.to_bits())));
                f32x4_mul(f32x4_mul(sums, f32x4_splat(x.d)), yd)
            },
        )
    }
    #[cfg(not(target_feature = "simd128"))]
    ys.map(|y| dot8(xs, y))
}

/// `dot8_scaled` for four tokens, to the bit, as `dot8_4` does `dot8`.
pub fn dot8_scaled_4(xs: &[Wide8], ys: [&[BlockQ8_0]; 4]) -> [f32; 4] {
    #[cfg(target_feature = "simd128")]
    {
        use super::legacy::simd::f16_to_f32x4;
        use core::arch::wasm32::*;
        four(
            xs,
            ys,
            |x, y| lanes32(&x.qs, &y.qs),
            |x, y, sums| {
                let yd = f16_to_f32x4(u32x4_from(y.map(|y| y.d.to_bits())));
                f32x4_mul(f32x4_mul(f32x4_splat(x.d), yd), sums)
            },
        )
    }
    #[cfg(not(target_feature = "simd128"))]
    ys.map(|y| dot8_scaled(xs, y))
}

/// `dot8m` for four tokens, to the bit, as `dot8_4` does `dot8`.
pub fn dot8m_4(xs: &[Wide8m], ys: [&[BlockQ8_1]; 4]) -> [f32; 4] {
    #[cfg(target_feature = "simd128")]
    {
        use super::legacy::simd::f16_to_f32x4;
        use core::arch::wasm32::*;
        four(
            xs,
            ys,
            |x, y| lanes32u(&x.qs, &y.qs),
            |x, y, sums| {
                let yd = f16_to_f32x4(u32x4_from(y.map(|y| y.d.to_bits())));
                let ysum = f16_to_f32x4(u32x4_from(y.map(|y| y.s.to_bits())));
                let scaled = f32x4_mul(f32x4_mul(f32x4_splat(x.d), yd), sums);
                f32x4_add(scaled, f32x4_mul(f32x4_splat(x.m), ysum))
            },
        )
    }
    #[cfg(not(target_feature = "simd128"))]
    ys.map(|y| dot8m(xs, y))
}

/// The loop `dot8_4` and `dot8m_4` share: per block, the four tokens'
/// integer lanes (`lanes`) summed into one vector as floats, and the
/// block's term (`term`, each lane one token's) added to the total.
#[cfg(target_feature = "simd128")]
#[inline(always)]
fn four<X, Y>(
    xs: &[X],
    ys: [&[Y]; 4],
    lanes: impl Fn(&X, &Y) -> core::arch::wasm32::v128,
    term: impl Fn(&X, [&Y; 4], core::arch::wasm32::v128) -> core::arch::wasm32::v128,
) -> [f32; 4] {
    use super::legacy::simd::sum4;
    use core::arch::wasm32::*;
    let ys = ys.map(|y| &y[..xs.len()]);
    let mut acc = f32x4_splat(0.0);
    for (b, x) in xs.iter().enumerate() {
        let y = ys.map(|y| &y[b]);
        let sums = f32x4_convert_i32x4(sum4(y.map(|y| lanes(x, y))));
        acc = f32x4_add(acc, term(x, y, sums));
    }
    lanes_f32(acc)
}

/// Four f16 bit patterns, each in the low half of a u32 lane.
#[cfg(target_feature = "simd128")]
#[inline(always)]
fn u32x4_from(h: [u16; 4]) -> core::arch::wasm32::v128 {
    core::arch::wasm32::u32x4(h[0] as u32, h[1] as u32, h[2] as u32, h[3] as u32)
}

/// The four lanes of an f32x4.
#[cfg(target_feature = "simd128")]
#[inline(always)]
fn lanes_f32(v: core::arch::wasm32::v128) -> [f32; 4] {
    use core::arch::wasm32::*;
    [
        f32x4_extract_lane::<0>(v),
        f32x4_extract_lane::<1>(v),
        f32x4_extract_lane::<2>(v),
        f32x4_extract_lane::<3>(v),
    ]
}

/// Q3_K's and Q6_K's product: per block `d * yd * Σ_j scales[j] · Σ_16 q·yq`.
pub fn dot16(xs: &[Wide16], ys: &[BlockQ8K]) -> f32 {
    debug_assert_eq!(xs.len(), ys.len());
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        let sumi = isum_scaled::<16>(&x.scales.map(|s| s as i32), &x.qs, &y.qs);
        sumf += x.d * y.d * sumi as f32;
    }
    sumf
}

/// Q2_K's product: the sum of each block's `term16m`.
pub fn dot16m(xs: &[Wide16m], ys: &[BlockQ8K]) -> f32 {
    debug_assert_eq!(xs.len(), ys.len());
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        sumf += term16m(x, y);
    }
    sumf
}

/// A Q2_K block's term, ggml's: `(yd * d) * Σ_j scales[j] · Σ_16 q·yq -
/// (yd * dmin) * Σ_j mins[j] · (the activations' sum over sub-block j)`.
#[inline(always)]
pub fn term16m(x: &Wide16m, y: &BlockQ8K) -> f32 {
    let isum = isum_scaled::<16>(&x.scales.map(|s| s as i32), &x.qs, &y.qs);
    let summs: i32 = y
        .bsums
        .iter()
        .zip(&x.mins)
        .map(|(&b, &m)| b as i32 * m as i32)
        .sum();
    (y.d * x.d) * isum as f32 - (y.d * x.dmin) * summs as f32
}

/// Q4_K's and Q5_K's product: per block `d * yd * Σ_j scales[j] · Σ_32 q·yq -
/// dmin * yd * Σ_j mins[j] · (the activations' sum over sub-block j)`.
pub fn dot32m(xs: &[Wide32m], ys: &[BlockQ8K]) -> f32 {
    debug_assert_eq!(xs.len(), ys.len());
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        let sumi = isum_scaled::<32>(&x.scales.map(|s| s as i32), &x.qs, &y.qs);
        let summ: i32 = y
            .bsums
            .iter()
            .enumerate()
            .map(|(j, &b)| b as i32 * x.mins[j / 2] as i32)
            .sum();
        sumf += x.d * y.d * sumi as f32 - x.dmin * y.d * summ as f32;
    }
    sumf
}
