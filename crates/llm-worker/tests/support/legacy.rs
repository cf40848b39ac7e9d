//! Generators for the legacy kernels' tests, and what the tests know of
//! each block layout, written out from ggml's rather than taken from
//! the code under test.

use super::Rng;
use candle_core::quantized::QTensor;
use candle_core::{Device, Tensor};
use half::f16;
use llm_worker::model::quant::activation::{BlockQ8_0, BlockQ8_1};
use llm_worker::model::quant::legacy::{BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1};
use llm_worker::model::quant::{Kernel, QK};

/// Kinds of 32-value blocks the float generator cycles through.
pub const KINDS: usize = 6;

/// `nb` blocks of floats; block `b` is of kind `(kind + b) % KINDS`, so every
/// row of `KINDS` or more blocks has them all and shorter rows get them over
/// a few seeds: symmetric, all zero, negative only, large range inside the
/// block (1e-5 .. 1e3), positive far from zero, and halves (`k + 0.5` with
/// max 127, where Q8 rounding ties). A block's sum stays inside f16's range:
/// Q8_1 stores `s = d * sum(q)` as an f16, as ggml does, and it overflows
/// to infinity past 65504.
pub fn floats(rng: &mut Rng, nb: usize, kind: usize) -> Vec<f32> {
    let mut v = Vec::with_capacity(nb * QK);
    for b in 0..nb {
        let scale = rng.pow10(-3.0, 2.0);
        let kind = (kind + b) % KINDS;
        for j in 0..QK {
            v.push(match kind {
                0 => rng.sym() * scale,
                1 => 0.0,
                2 => -(rng.unit() + 0.01) * scale,
                3 => rng.sym() * rng.pow10(-5.0, 3.0),
                4 => (3.0 + rng.sym()) * scale,
                _ if j == 0 => 127.0,
                _ => rng.below(254) as f32 - 126.5,
            });
        }
    }
    v
}

/// What the tests need to know of a weight type, written out here from
/// ggml's layout rather than taken from the code under test.
pub trait Case: Kernel {
    /// Largest code: 15 or 31.
    const MAX_CODE: u8;
    /// The code whose value is 0 when `m == 0`.
    const ZERO_CODE: u8;
    /// A block from its 32 codes (element order), scale and minimum (the
    /// minimum is ignored by Q4_0 and Q5_0).
    fn pack(codes: [u8; QK], d: f32, m: f32) -> Self;
    /// The 32 codes of a block, in element order.
    fn codes(&self) -> [u8; QK];
    /// Scale and minimum (0 for Q4_0 and Q5_0).
    fn dm(&self) -> (f32, f32);
    /// What a code multiplies the activation by, before scaling.
    fn int(code: u8) -> i32;
    /// An activation block's scale, `s` (0 for Q8_0) and values.
    fn act(a: &Self::Act) -> (f32, f32, [i8; QK]);
}

/// Low four bits: element `j < 16` in the low nibble of byte `j`, element
/// `j + 16` in its high nibble.
pub fn pack_low(codes: &[u8; QK]) -> [u8; QK / 2] {
    std::array::from_fn(|j| (codes[j] & 0x0F) | ((codes[j + QK / 2] & 0x0F) << 4))
}

/// Bit 4 of element `i` at bit `i` of a little-endian u32.
pub fn pack_high(codes: &[u8; QK]) -> [u8; 4] {
    let mut qh = 0u32;
    for (i, c) in codes.iter().enumerate() {
        qh |= ((*c as u32 >> 4) & 1) << i;
    }
    qh.to_le_bytes()
}

pub fn unpack(qs: &[u8; QK / 2], qh: Option<[u8; 4]>) -> [u8; QK] {
    let qh = qh.map_or(0, u32::from_le_bytes);
    std::array::from_fn(|i| {
        let nibble = if i < QK / 2 {
            qs[i] & 0x0F
        } else {
            qs[i - QK / 2] >> 4
        };
        nibble | (((qh >> i) & 1) as u8) << 4
    })
}

pub fn q8_1_parts(a: &BlockQ8_1) -> (f32, f32, [i8; QK]) {
    (a.d.to_f32(), a.s.to_f32(), a.qs)
}

impl Case for BlockQ4_0 {
    const MAX_CODE: u8 = 15;
    const ZERO_CODE: u8 = 8;
    fn pack(codes: [u8; QK], d: f32, _m: f32) -> Self {
        BlockQ4_0 {
            d: f16::from_f32(d),
            qs: pack_low(&codes),
        }
    }
    fn codes(&self) -> [u8; QK] {
        unpack(&self.qs, None)
    }
    fn dm(&self) -> (f32, f32) {
        (self.d.to_f32(), 0.0)
    }
    fn int(code: u8) -> i32 {
        code as i32 - 8
    }
    fn act(a: &BlockQ8_0) -> (f32, f32, [i8; QK]) {
        (a.d.to_f32(), 0.0, a.qs)
    }
}

impl Case for BlockQ4_1 {
    const MAX_CODE: u8 = 15;
    const ZERO_CODE: u8 = 0;
    fn pack(codes: [u8; QK], d: f32, m: f32) -> Self {
        BlockQ4_1 {
            d: f16::from_f32(d),
            m: f16::from_f32(m),
            qs: pack_low(&codes),
        }
    }
    fn codes(&self) -> [u8; QK] {
        unpack(&self.qs, None)
    }
    fn dm(&self) -> (f32, f32) {
        (self.d.to_f32(), self.m.to_f32())
    }
    fn int(code: u8) -> i32 {
        code as i32
    }
    fn act(a: &BlockQ8_1) -> (f32, f32, [i8; QK]) {
        q8_1_parts(a)
    }
}

impl Case for BlockQ5_0 {
    const MAX_CODE: u8 = 31;
    const ZERO_CODE: u8 = 16;
    fn pack(codes: [u8; QK], d: f32, _m: f32) -> Self {
        BlockQ5_0 {
            d: f16::from_f32(d),
            qh: pack_high(&codes),
            qs: pack_low(&codes),
        }
    }
    fn codes(&self) -> [u8; QK] {
        unpack(&self.qs, Some(self.qh))
    }
    fn dm(&self) -> (f32, f32) {
        (self.d.to_f32(), 0.0)
    }
    fn int(code: u8) -> i32 {
        code as i32 - 16
    }
    fn act(a: &BlockQ8_0) -> (f32, f32, [i8; QK]) {
        (a.d.to_f32(), 0.0, a.qs)
    }
}

impl Case for BlockQ5_1 {
    const MAX_CODE: u8 = 31;
    const ZERO_CODE: u8 = 0;
    fn pack(codes: [u8; QK], d: f32, m: f32) -> Self {
        BlockQ5_1 {
            d: f16::from_f32(d),
            m: f16::from_f32(m),
            qh: pack_high(&codes),
            qs: pack_low(&codes),
        }
    }
    fn codes(&self) -> [u8; QK] {
        unpack(&self.qs, Some(self.qh))
    }
    fn dm(&self) -> (f32, f32) {
        (self.d.to_f32(), self.m.to_f32())
    }
    fn int(code: u8) -> i32 {
        code as i32
    }
    fn act(a: &BlockQ8_1) -> (f32, f32, [i8; QK]) {
        q8_1_parts(a)
    }
}

/// The dot product in f64 from the codes, and a magnitude to measure f32
/// rounding against: the sum of the absolute values of every product the
/// f32 kernels add up (`|d * yd * q * yq|` per element, `|m * s|` per block).
pub fn reference<T: Case>(xs: &[T], ys: &[T::Act]) -> (f64, f64) {
    let (mut value, mut mag) = (0f64, 0f64);
    for (x, y) in xs.iter().zip(ys) {
        let (d, m) = x.dm();
        let (yd, s, yq) = T::act(y);
        let (mut sumi, mut absi) = (0i64, 0i64);
        for (c, q) in x.codes().iter().zip(yq) {
            let p = T::int(*c) as i64 * q as i64;
            sumi += p;
            absi += p.abs();
        }
        let dd = d as f64 * yd as f64;
        value += sumi as f64 * dd + m as f64 * s as f64;
        mag += absi as f64 * dd.abs() + (m as f64 * s as f64).abs();
    }
    (value, mag)
}

/// Random weight blocks: random codes, scales of either sign over five
/// decades and minima of either sign; every fourth block all zero (d = m =
/// 0) and every fourth all at the largest code.
pub fn random_blocks<T: Case>(rng: &mut Rng, nb: usize, kind: usize) -> Vec<T> {
    (0..nb)
        .map(|b| {
            let d = rng.sym().signum() * rng.pow10(-4.0, 1.0);
            let m = rng.sym() * rng.pow10(-3.0, 2.0);
            match (kind + b) % 4 {
                1 => T::pack([T::ZERO_CODE; QK], 0.0, 0.0),
                2 => T::pack([T::MAX_CODE; QK], d, m),
                _ => T::pack(
                    std::array::from_fn(|_| rng.below(T::MAX_CODE as u64 + 1) as u8),
                    d,
                    m,
                ),
            }
        })
        .collect()
}

/// Blocks from candle's `QTensor` bytes, parsed with `read`.
pub fn blocks_of<T: Kernel>(q: &QTensor) -> Vec<T> {
    let bytes = q.data().unwrap();
    assert_eq!(bytes.len() % T::BYTES, 0);
    bytes.chunks_exact(T::BYTES).map(T::read).collect()
}

/// Weights candle quantises from `nb` blocks of floats.
pub fn candle_blocks<T: Kernel>(w: Vec<f32>) -> Vec<T> {
    let n = w.len();
    let t = Tensor::from_vec(w, (1, n), &Device::Cpu).unwrap();
    blocks_of(&QTensor::quantize(&t, T::DTYPE).unwrap())
}

/// `|a - b| <= tol`, with a message naming the case.
pub fn close(a: f32, b: f32, tol: f64, what: &str) {
    let diff = (a as f64 - b as f64).abs();
    assert!(diff <= tol, "{what}: {a} vs {b} (diff {diff:e} > {tol:e})");
}

/// Q8_0 weights: codes 0..=255 stand for the bytes -128..=127.
impl Case for BlockQ8_0 {
    const MAX_CODE: u8 = 255;
    const ZERO_CODE: u8 = 128;
    fn pack(codes: [u8; QK], d: f32, _m: f32) -> Self {
        BlockQ8_0 {
            d: f16::from_f32(d),
            qs: codes.map(|c| (c as i32 - 128) as i8),
        }
    }
    fn codes(&self) -> [u8; QK] {
        self.qs.map(|q| (q as i32 + 128) as u8)
    }
    fn dm(&self) -> (f32, f32) {
        (self.d.to_f32(), 0.0)
    }
    fn int(code: u8) -> i32 {
        code as i32 - 128
    }
    fn act(a: &BlockQ8_0) -> (f32, f32, [i8; QK]) {
        (a.d.to_f32(), 0.0, a.qs)
    }
}
