//! K-quant kernels (256 values a block): Q2_K (`q2k.rs`), Q3_K, Q4_K, Q5_K and Q6_K weights against
//! activations quantised to Q8_K, with ggml's block layouts and semantics.
//!
//! Each block's dot product is an exact integer sum (sub-block scales
//! applied as integers, as ggml does), scaled once in f32; the scalar and
//! the simd128 kernels compute the same integers and add the blocks' f32
//! terms in the same order.

use super::wide::{self, Wide16};
use super::Kernel;
use candle_core::quantized::GgmlDType;
use half::f16;

/// Values per K-quant block.
pub const QK_K: usize = 256;

/// Q8_K: the activation type of the K-quants. `d` is the scale, `bsums`
/// the sums of each 16 consecutive `qs`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ8K {
    pub d: f32,
    pub qs: [i8; QK_K],
    pub bsums: [i16; QK_K / 16],
}
const _: () = assert!(size_of::<BlockQ8K>() == 292);

/// Q3_K: 3-bit values (2 low bits in `qs`, the high bit in `hmask`), 16
/// sub-blocks of 16 with 6-bit scales packed in `scales`, super-scale `d`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ3K {
    pub hmask: [u8; QK_K / 8],
    pub qs: [u8; QK_K / 4],
    pub scales: [u8; 12],
    pub d: f16,
}
const _: () = assert!(size_of::<BlockQ3K>() == 110);

/// Q4_K: 4-bit values in `qs`, 8 sub-blocks of 32 with a 6-bit scale and
/// a 6-bit min each, packed in `scales` as Q5_K's; super-scales `d` and
/// `dmin`. `x = d * scale * q - dmin * min`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ4K {
    pub d: f16,
    pub dmin: f16,
    pub scales: [u8; 12],
    pub qs: [u8; QK_K / 2],
}
const _: () = assert!(size_of::<BlockQ4K>() == 144);

/// Q5_K: 5-bit values (4 low bits in `qs`, the high bit in `qh`), 8
/// sub-blocks of 32 with a 6-bit scale and a 6-bit min each, packed in
/// `scales`; super-scales `d` and `dmin`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ5K {
    pub d: f16,
    pub dmin: f16,
    pub scales: [u8; 12],
    pub qh: [u8; QK_K / 8],
    pub qs: [u8; QK_K / 2],
}
const _: () = assert!(size_of::<BlockQ5K>() == 176);

/// Q6_K: 6-bit values (4 low bits in `ql`, 2 high bits in `qh`), 16
/// sub-blocks of 16 with signed 8-bit scales, super-scale `d`;
/// `x = d * scales[i / 16] * (q - 32)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ6K {
    pub ql: [u8; QK_K / 2],
    pub qh: [u8; QK_K / 4],
    pub scales: [i8; QK_K / 16],
    pub d: f16,
}
const _: () = assert!(size_of::<BlockQ6K>() == 210);

fn read_f16(b: &[u8], at: usize) -> f16 {
    f16::from_bits(u16::from_le_bytes([b[at], b[at + 1]]))
}

fn copy<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&b[at..at + N]);
    out
}

impl BlockQ8K {
    /// An all-zero block.
    pub const ZERO: Self = Self {
        d: 0.0,
        qs: [0; QK_K],
        bsums: [0; QK_K / 16],
    };

    /// One block from its 292 little-endian bytes.
    pub fn read(bytes: &[u8]) -> Self {
        assert_eq!(bytes.len(), size_of::<Self>(), "BlockQ8K::read");
        let d = f32::from_le_bytes(copy::<4>(bytes, 0));
        let qs = copy::<QK_K>(bytes, 4).map(|b| b as i8);
        let mut bsums = [0i16; QK_K / 16];
        for (j, s) in bsums.iter_mut().enumerate() {
            let at = 4 + QK_K + 2 * j;
            *s = i16::from_le_bytes([bytes[at], bytes[at + 1]]);
        }
        Self { d, qs, bsums }
    }

    /// ggml's `quantize_row_q8_K` as candle 0.11.1 writes it (outside
    /// aarch64): the signed value of largest magnitude maps to -127.
    pub fn quantize(xs: &[f32], out: &mut [Self]) {
        assert_eq!(xs.len(), out.len() * QK_K, "quantize_row_q8_K: length");
        for (y, xs) in out.iter_mut().zip(xs.chunks_exact(QK_K)) {
            let mut max = 0f32;
            let mut amax = 0f32;
            for &x in xs {
                if amax < x.abs() {
                    amax = x.abs();
                    max = x;
                }
            }
            if amax == 0.0 {
                *y = Self::ZERO;
                continue;
            }
            let iscale = -127f32 / max;
            for (q, &x) in y.qs.iter_mut().zip(xs) {
                *q = (iscale * x).round().clamp(-128.0, 127.0) as i8;
            }
            for (s, qs) in y.bsums.iter_mut().zip(y.qs.chunks_exact(16)) {
                *s = qs.iter().map(|&q| q as i16).sum();
            }
            y.d = 1.0 / iscale;
        }
    }
}

/// Q3_K's 16 sub-block scales, unpacked from 12 bytes (the low 4 bits of
/// each in bytes 0..8, the high 2 bits in bytes 8..12) and re-centred
/// (`- 32`), as ggml's kmask trick does.
pub fn q3k_scales(scales: &[u8; 12]) -> [i8; 16] {
    const KMASK1: u32 = 0x0303_0303;
    const KMASK2: u32 = 0x0f0f_0f0f;
    let a0 = u32::from_le_bytes(copy::<4>(scales, 0));
    let a1 = u32::from_le_bytes(copy::<4>(scales, 4));
    let tmp = u32::from_le_bytes(copy::<4>(scales, 8));
    let aux = [
        (a0 & KMASK2) | ((tmp & KMASK1) << 4),
        (a1 & KMASK2) | (((tmp >> 2) & KMASK1) << 4),
        ((a0 >> 4) & KMASK2) | (((tmp >> 4) & KMASK1) << 4),
        ((a1 >> 4) & KMASK2) | (((tmp >> 6) & KMASK1) << 4),
    ];
    let mut out = [0i8; 16];
    for (o, s) in out.iter_mut().zip(aux.iter().flat_map(|a| a.to_le_bytes())) {
        *o = s as i8 - 32;
    }
    out
}

/// Q4_K/Q5_K's 8 (scale, min) pairs of 6 bits from 12 bytes (ggml's
/// `get_scale_min_k4`).
pub fn q5k_scales_mins(q: &[u8; 12]) -> ([u8; 8], [u8; 8]) {
    let mut sc = [0u8; 8];
    let mut mn = [0u8; 8];
    for j in 0..8 {
        if j < 4 {
            sc[j] = q[j] & 63;
            mn[j] = q[j + 4] & 63;
        } else {
            sc[j] = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
            mn[j] = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
        }
    }
    (sc, mn)
}

impl BlockQ3K {
    /// Value `i` of the block as a signed 3-bit integer in -4..=3:
    /// `(q2 | hbit << 2) - 4`.
    #[inline]
    fn q(&self, i: usize) -> i32 {
        let (half, r) = (i / 128, i % 128);
        let (shift, l) = (r / 32, r % 32);
        let q2 = (self.qs[32 * half + l] >> (2 * shift)) & 3;
        let h = (self.hmask[l] >> (4 * half + shift)) & 1;
        (q2 | (h << 2)) as i32 - 4
    }
}

impl BlockQ6K {
    /// Value `i` of the block, signed (q - 32). Of each half of 128
    /// values, groups of 32 take the low nibbles of `ql[0..32]`, of
    /// `ql[32..64]`, then their high nibbles, and bits 0-1, 2-3, 4-5, 6-7
    /// of `qh[0..32]`.
    #[inline]
    fn q(&self, i: usize) -> i32 {
        let (half, r) = (i / 128, i % 128);
        let (group, l) = (r / 32, r % 32);
        let byte = self.ql[64 * half + l + 32 * (group & 1)];
        let low = if group >= 2 { byte >> 4 } else { byte & 0xF };
        let high = (self.qh[32 * half + l] >> (2 * group)) & 3;
        (low | (high << 4)) as i32 - 32
    }
}

impl Kernel for BlockQ6K {
    const DTYPE: GgmlDType = GgmlDType::Q6K;
    const BLOCK: usize = QK_K;
    const BYTES: usize = size_of::<Self>();
    type Act = BlockQ8K;
    const ACT_ZERO: BlockQ8K = BlockQ8K::ZERO;

    fn read(bytes: &[u8]) -> Self {
        assert_eq!(bytes.len(), Self::BYTES, "BlockQ6K::read");
        Self {
            ql: copy(bytes, 0),
            qh: copy(bytes, 128),
            scales: copy::<16>(bytes, 192).map(|b| b as i8),
            d: read_f16(bytes, 208),
        }
    }

    fn quantize_act(xs: &[f32], out: &mut [BlockQ8K]) {
        BlockQ8K::quantize(xs, out)
    }

    fn dot(xs: &[Self], ys: &[BlockQ8K]) -> f32 {
        #[cfg(target_feature = "simd128")]
        return simd::vec_dot_q6k_q8k(xs.len() * QK_K, xs, ys);
        #[cfg(not(target_feature = "simd128"))]
        return Self::dot_scalar(xs, ys);
    }

    /// Per block `d * yd * Σ_j scales[j] · Σ_16 (q - 32)·yq`, the integer
    /// sum exact (ggml sums it in eight f32 lanes instead).
    fn dot_scalar(xs: &[Self], ys: &[BlockQ8K]) -> f32 {
        assert_eq!(xs.len(), ys.len(), "vec_dot_q6k_q8k: lengths");
        let mut sumf = 0f32;
        for (x, y) in xs.iter().zip(ys) {
            let mut sumi = 0i32;
            for (j, &sc) in x.scales.iter().enumerate() {
                let s: i32 = (16 * j..16 * j + 16).map(|i| x.q(i) * y.qs[i] as i32).sum();
                sumi += sc as i32 * s;
            }
            sumf += x.d.to_f32() * y.d * sumi as f32;
        }
        sumf
    }

    fn dequantize(xs: &[Self], out: &mut [f32]) {
        assert_eq!(out.len(), xs.len() * QK_K, "dequantize_row_q6_K: length");
        for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK_K)) {
            let d = x.d.to_f32();
            for (j, out) in out.chunks_exact_mut(16).enumerate() {
                let dl = d * x.scales[j] as f32;
                for (k, o) in out.iter_mut().enumerate() {
                    *o = dl * x.q(16 * j + k) as f32;
                }
            }
        }
    }

    type Wide = Wide16;
    const WIDE_ZERO: Wide16 = Wide16::ZERO;
    const WIDEN_FROM: usize = 16;

    fn widen(&self) -> Wide16 {
        let mut qs = [0i8; QK_K];
        for (i, q) in qs.iter_mut().enumerate() {
            *q = self.q(i) as i8;
        }
        Wide16 {
            d: self.d.to_f32(),
            scales: self.scales,
            qs,
        }
    }

    fn dot_wide(xs: &[Wide16], ys: &[BlockQ8K]) -> f32 {
        wide::dot16(xs, ys)
    }
}

impl Kernel for BlockQ3K {
    const DTYPE: GgmlDType = GgmlDType::Q3K;
    const BLOCK: usize = QK_K;
    const BYTES: usize = size_of::<Self>();
    type Act = BlockQ8K;
    const ACT_ZERO: BlockQ8K = BlockQ8K::ZERO;

    fn read(bytes: &[u8]) -> Self {
        assert_eq!(bytes.len(), Self::BYTES, "BlockQ3K::read");
        Self {
            hmask: copy(bytes, 0),
            qs: copy(bytes, 32),
            scales: copy(bytes, 96),
            d: read_f16(bytes, 108),
        }
    }

    fn quantize_act(xs: &[f32], out: &mut [BlockQ8K]) {
        BlockQ8K::quantize(xs, out)
    }

    fn dot(xs: &[Self], ys: &[BlockQ8K]) -> f32 {
        #[cfg(target_feature = "simd128")]
        return simd::vec_dot_q3k_q8k(xs.len() * QK_K, xs, ys);
        #[cfg(not(target_feature = "simd128"))]
        return Self::dot_scalar(xs, ys);
    }

    fn dot_scalar(xs: &[Self], ys: &[BlockQ8K]) -> f32 {
        assert_eq!(xs.len(), ys.len(), "vec_dot_q3k_q8k: lengths");
        let mut sumf = 0f32;
        for (x, y) in xs.iter().zip(ys) {
            let scales = q3k_scales(&x.scales);
            let mut sumi = 0i32;
            for (j, &sc) in scales.iter().enumerate() {
                let s: i32 = (16 * j..16 * j + 16).map(|i| x.q(i) * y.qs[i] as i32).sum();
                sumi += sc as i32 * s;
            }
            sumf += x.d.to_f32() * y.d * sumi as f32;
        }
        sumf
    }

    fn dequantize(xs: &[Self], out: &mut [f32]) {
        assert_eq!(out.len(), xs.len() * QK_K, "dequantize_row_q3_K: length");
        for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK_K)) {
            let scales = q3k_scales(&x.scales);
            let d = x.d.to_f32();
            for (j, out) in out.chunks_exact_mut(16).enumerate() {
                let dl = d * scales[j] as f32;
                for (k, o) in out.iter_mut().enumerate() {
                    *o = dl * x.q(16 * j + k) as f32;
                }
            }
        }
    }

    type Wide = Wide16;
    const WIDE_ZERO: Wide16 = Wide16::ZERO;
    const WIDEN_FROM: usize = 16;

    fn widen(&self) -> Wide16 {
        let mut qs = [0i8; QK_K];
        for (i, q) in qs.iter_mut().enumerate() {
            *q = self.q(i) as i8;
        }
        Wide16 {
            d: self.d.to_f32(),
            scales: q3k_scales(&self.scales),
            qs,
        }
    }

    fn dot_wide(xs: &[Wide16], ys: &[BlockQ8K]) -> f32 {
        wide::dot16(xs, ys)
    }
}

/// Q4_K and Q5_K, whose kernels differ only in how a value is read.
mod scale_min;

mod q2k;
pub use q2k::BlockQ2K;

/// The `simd128` kernels (`simd.rs`).
#[cfg(target_feature = "simd128")]
pub mod simd;
