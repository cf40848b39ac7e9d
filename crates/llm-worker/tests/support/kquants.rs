//! Generators for the K-quant kernels' tests: blocks of floats of every
//! kind, raw blocks of random bits, extreme activations.

use super::{blocks_from_bytes, quantize_act, Rng};
use candle_core::quantized::QTensor;
use candle_core::{Device, Tensor};
use half::f16;
use llm_worker::model::quant::activation::BlockQ8K;
use llm_worker::model::quant::kquants::{BlockQ2K, BlockQ3K, BlockQ4K, BlockQ5K, BlockQ6K};
use llm_worker::model::quant::{Kernel, QK_K};

/// The kinds of 256-value blocks the float tests draw from.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Uniform,
    /// Magnitudes spread over six decades, both signs.
    LargeRange,
    Zero,
    NegativeOnly,
    /// Mostly zero with a few large spikes.
    Sparse,
}

pub const KINDS: [Kind; 5] = [
    Kind::Uniform,
    Kind::LargeRange,
    Kind::Zero,
    Kind::NegativeOnly,
    Kind::Sparse,
];

pub fn block_values(rng: &mut Rng, kind: Kind, out: &mut Vec<f32>) {
    let scale = 10f32.powf(4.0 * rng.unit() - 2.0);
    for _ in 0..QK_K {
        let v = match kind {
            Kind::Uniform => rng.sym() * scale,
            Kind::LargeRange => rng.sym() * 10f32.powf(6.0 * rng.unit() - 3.0),
            Kind::Zero => 0.0,
            Kind::NegativeOnly => -(rng.unit() + 0.01) * scale,
            Kind::Sparse => {
                if rng.below(16) == 0 {
                    rng.sym() * 100.0 * scale
                } else {
                    0.0
                }
            }
        };
        out.push(v);
    }
}

/// `blocks` blocks of values: the first `KINDS.len()` cycle through every
/// kind (so each kind is seen), the rest are drawn at random.
pub fn values(rng: &mut Rng, blocks: usize, offset: usize) -> Vec<f32> {
    let mut out = Vec::with_capacity(blocks * QK_K);
    for b in 0..blocks {
        let kind = if b + offset < KINDS.len() {
            KINDS[(b + offset) % KINDS.len()]
        } else {
            KINDS[rng.below(KINDS.len() as u64) as usize]
        };
        block_values(rng, kind, &mut out);
    }
    out
}

pub fn f16_in(rng: &mut Rng, lo_exp: f32, hi_exp: f32) -> f16 {
    let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
    f16::from_f32(sign * 10f32.powf(lo_exp + (hi_exp - lo_exp) * rng.unit()))
}

/// A Q2_K block of random bits (every pattern of scales and qs is valid).
pub fn raw_q2k(rng: &mut Rng) -> BlockQ2K {
    BlockQ2K {
        scales: std::array::from_fn(|_| rng.byte()),
        qs: std::array::from_fn(|_| rng.byte()),
        d: f16_in(rng, -4.0, 1.0),
        dmin: f16_in(rng, -4.0, 1.0),
    }
}

/// A Q3_K block of random bits (every bit pattern of qs/hmask/scales is a
/// valid block).
pub fn raw_q3k(rng: &mut Rng) -> BlockQ3K {
    BlockQ3K {
        hmask: std::array::from_fn(|_| rng.byte()),
        qs: std::array::from_fn(|_| rng.byte()),
        scales: std::array::from_fn(|_| rng.byte()),
        d: f16_in(rng, -4.0, 1.0),
    }
}

pub fn raw_q4k(rng: &mut Rng) -> BlockQ4K {
    BlockQ4K {
        d: f16_in(rng, -4.0, 1.0),
        dmin: f16_in(rng, -4.0, 1.0),
        scales: std::array::from_fn(|_| rng.byte()),
        qs: std::array::from_fn(|_| rng.byte()),
    }
}

pub fn raw_q5k(rng: &mut Rng) -> BlockQ5K {
    BlockQ5K {
        d: f16_in(rng, -4.0, 1.0),
        dmin: f16_in(rng, -4.0, 1.0),
        scales: std::array::from_fn(|_| rng.byte()),
        qh: std::array::from_fn(|_| rng.byte()),
        qs: std::array::from_fn(|_| rng.byte()),
    }
}

pub fn raw_q6k(rng: &mut Rng) -> BlockQ6K {
    BlockQ6K {
        ql: std::array::from_fn(|_| rng.byte()),
        qh: std::array::from_fn(|_| rng.byte()),
        scales: std::array::from_fn(|_| rng.byte() as i8),
        d: f16_in(rng, -4.0, 1.0),
    }
}

pub fn q8k_from_qs(d: f32, qs: [i8; QK_K]) -> BlockQ8K {
    let mut bsums = [0i16; QK_K / 16];
    for (j, s) in bsums.iter_mut().enumerate() {
        *s = qs[16 * j..16 * j + 16].iter().map(|&q| q as i16).sum();
    }
    BlockQ8K { d, qs, bsums }
}

/// Activations for the kernel tests: quantised floats of every kind, and
/// raw extremes (all -128, all 127, random bytes).
pub fn acts(rng: &mut Rng, blocks: usize, seed: usize) -> Vec<BlockQ8K> {
    let mut ys = quantize_act::<BlockQ3K>(&values(rng, blocks, seed));
    for y in ys.iter_mut() {
        match rng.below(6) {
            0 => *y = q8k_from_qs(rng.unit() + 1e-3, [-128; QK_K]),
            1 => *y = q8k_from_qs(-(rng.unit() + 1e-3), [127; QK_K]),
            2 => *y = q8k_from_qs(rng.unit(), std::array::from_fn(|_| rng.byte() as i8)),
            _ => {}
        }
    }
    ys
}

pub fn candle_blocks<K: Kernel>(w: &[f32], rows: usize, cols: usize) -> (QTensor, Vec<K>) {
    let t = Tensor::from_vec(w.to_vec(), (rows, cols), &Device::Cpu).unwrap();
    let q = QTensor::quantize(&t, K::DTYPE).unwrap();
    let blocks = blocks_from_bytes::<K>(&q.data().unwrap());
    assert_eq!(blocks.len(), rows * cols / QK_K);
    (q, blocks)
}
