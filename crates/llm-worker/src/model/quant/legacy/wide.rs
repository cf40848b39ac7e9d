//! Legacy blocks with their values unpacked to bytes, for products over a
//! batch of tokens (`Kernel::widen`): a row is unpacked once, then dotted
//! with every token's activations as plain 8-bit products.
//!
//! Each block's integer sum is exact and its term the type's `Formula`,
//! as in its scalar kernel: the results are the scalar kernel's to the
//! bit. `dot4` runs four tokens at once: the row's bytes are loaded once
//! for the four, their integer sums gathered into one vector, and the
//! formula run on its four lanes, which is each token's own formula,
//! operation for operation.

use super::{Formula, Q8};
use crate::model::quant::isum::{isum32, isum32u};
use crate::model::quant::QK;
#[cfg(target_feature = "simd128")]
use core::arch::wasm32::*;

/// Q4_0, Q5_0 and Q8_0 unpacked: `x = d * q`, q in -128..127.
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

/// An unpacked legacy block.
pub trait Unpacked: Copy + Send + Sync + 'static {
    const ZERO: Self;
    /// Every value is in 0..128 (a type with a minimum: 0..32), so relaxed
    /// SIMD may multiply them as unsigned bytes (`isum32u`).
    const UNSIGNED: bool;
    /// The block of scale `d`, minimum `m` (dropped by a type without
    /// one) and values `qs`.
    fn new(d: f32, m: f32, qs: [i8; QK]) -> Self;
    /// The scale and the minimum (zero without one).
    fn dm(&self) -> (f32, f32);
    fn qs(&self) -> &[i8; QK];
}

impl Unpacked for Wide8 {
    const ZERO: Self = Wide8 {
        d: 0.0,
        qs: [0; QK],
    };
    const UNSIGNED: bool = false;
    fn new(d: f32, _m: f32, qs: [i8; QK]) -> Self {
        Wide8 { d, qs }
    }
    #[inline(always)]
    fn dm(&self) -> (f32, f32) {
        (self.d, 0.0)
    }
    #[inline(always)]
    fn qs(&self) -> &[i8; QK] {
        &self.qs
    }
}

impl Unpacked for Wide8m {
    const ZERO: Self = Wide8m {
        d: 0.0,
        m: 0.0,
        qs: [0; QK],
    };
    const UNSIGNED: bool = true;
    fn new(d: f32, m: f32, qs: [i8; QK]) -> Self {
        Wide8m { d, m, qs }
    }
    #[inline(always)]
    fn dm(&self) -> (f32, f32) {
        (self.d, self.m)
    }
    #[inline(always)]
    fn qs(&self) -> &[i8; QK] {
        &self.qs
    }
}

/// A block's Σ q·yq.
#[inline(always)]
fn isum<W: Unpacked>(x: &W, yq: &[i8; QK]) -> i32 {
    if W::UNSIGNED {
        isum32u(x.qs(), yq)
    } else {
        isum32(x.qs(), yq)
    }
}

/// The product of unpacked blocks and activations: per block `f`'s term
/// of the exact integer sum.
#[inline(always)]
pub fn dot<W: Unpacked, Y: Q8>(f: Formula, xs: &[W], ys: &[Y]) -> f32 {
    debug_assert_eq!(xs.len(), ys.len());
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        let ((d, m), (yd, s)) = (x.dm(), y.ds());
        sumf += f.term(isum(x, y.qs()) as f32, d, yd.to_f32(), || (m, s.to_f32()));
    }
    sumf
}

/// `dot` for four tokens, to the bit: per block the row's bytes loaded
/// once for all four, their four integer sums gathered into one vector
/// and `f`'s term run on its lanes (the same operations, in the same
/// order, as `dot`'s for each token).
#[inline(always)]
pub fn dot4<W: Unpacked, Y: Q8>(f: Formula, xs: &[W], ys: [&[Y]; 4]) -> [f32; 4] {
    #[cfg(target_feature = "simd128")]
    {
        use crate::model::quant::isum::{lanes32, lanes32u};
        use crate::model::quant::simd::{f16_to_f32x4, lanes_f32, sum4};
        let f16x4 = |h: [half::f16; 4]| {
            let h = h.map(|h| h.to_bits() as u32);
            f16_to_f32x4(u32x4(h[0], h[1], h[2], h[3]))
        };
        let ys = ys.map(|y| &y[..xs.len()]);
        let mut acc = f32x4_splat(0.0);
        for (b, x) in xs.iter().enumerate() {
            let y = ys.map(|y| &y[b]);
            let lanes = |y: &Y| match W::UNSIGNED {
                true => lanes32u(x.qs(), y.qs()),
                false => lanes32(x.qs(), y.qs()),
            };
            let sums = f32x4_convert_i32x4(sum4(y.map(lanes)));
            let (d, m) = x.dm();
            let (yd, s) = (f16x4(y.map(|y| y.ds().0)), f16x4(y.map(|y| y.ds().1)));
            acc = f32x4_add(acc, f.term4(sums, f32x4_splat(d), yd, f32x4_splat(m), s));
        }
        lanes_f32(acc)
    }
    // Written out, not `ys.map`: core's array map is a function of its
    // own that a native AVX2 product (`native.rs`) would not inline.
    #[cfg(not(target_feature = "simd128"))]
    [
        dot(f, xs, ys[0]),
        dot(f, xs, ys[1]),
        dot(f, xs, ys[2]),
        dot(f, xs, ys[3]),
    ]
}
