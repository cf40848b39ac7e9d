//! K-quant blocks with their values unpacked to bytes, for products over
//! a batch of tokens (`Kernel::widen`): a packed block (2 to 6 bits a
//! value, high bits in separate masks) costs more to unpack than to
//! multiply, so a row is unpacked once and then dotted with every token's
//! activations as plain 8-bit products, weighted by the sub-blocks'
//! scales as integers.
//!
//! Each dot product computes every block's integer sum exactly and then
//! the float formula of the packed type's own scalar kernel, in the same
//! order: the results are the scalar kernel's to the bit.

use crate::model::quant::activation::BlockQ8K;
use crate::model::quant::isum::isum_scaled;

/// Q3_K and Q6_K unpacked: 16 sub-blocks of 16, `x = d * scales[j] * q`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wide16 {
    pub d: f32,
    pub scales: [i8; 16],
    pub qs: [i8; 256],
}

/// A K-quant with mins unpacked: `S` sub-blocks of `256 / S` values,
/// `x = d * scales[j] * q - dmin * mins[j]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WideMin<const S: usize> {
    pub d: f32,
    pub dmin: f32,
    pub scales: [u8; S],
    pub mins: [u8; S],
    pub qs: [i8; 256],
}

/// Q2_K unpacked: 16 sub-blocks of 16.
pub type Wide16m = WideMin<16>;
/// Q4_K and Q5_K unpacked: 8 sub-blocks of 32.
pub type Wide32m = WideMin<8>;

impl Wide16 {
    pub const ZERO: Self = Wide16 {
        d: 0.0,
        scales: [0; 16],
        qs: [0; 256],
    };
}

impl<const S: usize> WideMin<S> {
    pub const ZERO: Self = WideMin {
        d: 0.0,
        dmin: 0.0,
        scales: [0; S],
        mins: [0; S],
        qs: [0; 256],
    };
}

/// Q3_K's and Q6_K's product: per block `d * yd * Σ_j scales[j] · Σ_16 q·yq`.
#[inline(always)]
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
#[inline(always)]
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
    term16m_of(x, y, isum, summs)
}

/// `term16m` from the block's integer sums: `isum` = Σ_j scales[j] · Σ_16
/// q·yq, `summs` = Σ_j mins[j] · the activations' sum over sub-block j.
#[inline(always)]
pub fn term16m_of(x: &Wide16m, y: &BlockQ8K, isum: i32, summs: i32) -> f32 {
    (y.d * x.d) * isum as f32 - (y.d * x.dmin) * summs as f32
}

/// Q4_K's and Q5_K's product: per block `d * yd * Σ_j scales[j] · Σ_32 q·yq -
/// dmin * yd * Σ_j mins[j] · (the activations' sum over sub-block j)`.
#[inline(always)]
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
