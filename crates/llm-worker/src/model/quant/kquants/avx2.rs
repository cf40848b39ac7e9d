//! x86-64 AVX2 products of packed Q4_K, Q5_K and Q6_K rows with Q8_K
//! activations: what native products run for a token or two being written
//! on a CPU with AVX2 and F16C (`quant::native`, `Kernel::PACKED_AVX2`).
//! Unpacking a row to bytes for every token written (`wide`) cost more
//! than the products themselves.
//!
//! A block's values are unpacked 32 at a time in registers (nibbles by
//! masks, Q5_K's fifth bit by a compare, Q6_K's top two bits shifted into
//! place) and multiplied with the activations by `vpmaddubsw` (unsigned
//! values below 64 times signed bytes: its i16 pair sums, at most
//! 2·63·128, never saturate), then weighted by each sub-block's scale with
//! `vpmaddwd`: the block's integer sum is exact, the scalar kernel's. The
//! block's float term is then the scalar kernel's own expression, so each
//! product is the scalar one to the bit (`tests/kernels_native.rs`).
//!
//! Batches multiply unpacked rows (`wide`): `WideAvx2` is their product
//! with the integer sums in AVX2 and the plain product's float terms.

use super::wide::{Wide16, Wide16m, Wide32m};
use super::{q5k_scales_mins, BlockQ4K, BlockQ5K, BlockQ6K};
use crate::model::quant::activation::BlockQ8K;
use core::arch::x86_64::*;

/// 32 bytes from `b[at..]`.
#[inline]
#[target_feature(enable = "avx2")]
fn load(b: &[u8], at: usize) -> __m256i {
    let b = &b[at..at + 32];
    // SAFETY: 32 bytes from `at` (the slice above); unaligned load.
    unsafe { _mm256_loadu_si256(b.as_ptr() as *const __m256i) }
}

/// 32 activations from `y.qs[at..]`.
#[inline]
#[target_feature(enable = "avx2")]
fn load_y(y: &BlockQ8K, at: usize) -> __m256i {
    let q = &y.qs[at..at + 32];
    // SAFETY: as `load`.
    unsafe { _mm256_loadu_si256(q.as_ptr() as *const __m256i) }
}

/// The sum of eight i32 lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn hsum(v: __m256i) -> i32 {
    let s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
    _mm_cvtsi128_si32(s)
}

/// Σ_j scale_j · Σ q·q8 of Q4_K (`qh` none) or Q5_K, each sub-block j's 32
/// values q below 32, exactly.
#[inline]
#[target_feature(enable = "avx2")]
fn scale_min_sum(qs: &[u8; 128], qh: Option<&[u8; 32]>, scales: &[u8; 8], y: &BlockQ8K) -> i32 {
    let low4 = _mm256_set1_epi8(0xF);
    let high = qh.map(|h| load(h, 0));
    let mut acc = _mm256_setzero_si256();
    for c in 0..4 {
        let q = load(qs, 32 * c);
        let halves = [
            _mm256_and_si256(q, low4),
            _mm256_and_si256(_mm256_srli_epi16::<4>(q), low4),
        ];
        for (h, mut v) in halves.into_iter().enumerate() {
            let j = 2 * c + h;
            if let Some(high) = high {
                // Bit j of qh[l] is value l's fifth bit in sub-block j.
                let bit = _mm256_set1_epi8(1 << j);
                let set = _mm256_cmpeq_epi8(_mm256_and_si256(high, bit), bit);
                v = _mm256_or_si256(v, _mm256_and_si256(set, _mm256_set1_epi8(16)));
            }
            let p = _mm256_maddubs_epi16(v, load_y(y, 32 * j));
            let s = _mm256_madd_epi16(p, _mm256_set1_epi16(scales[j] as i16));
            acc = _mm256_add_epi32(acc, s);
        }
    }
    hsum(acc)
}

/// `scale_min::dot_scalar` for Q4_K, to the bit.
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn dot_q4k(xs: &[BlockQ4K], ys: &[BlockQ8K]) -> f32 {
    assert_eq!(xs.len(), ys.len(), "Q4_K dot: lengths");
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        let (scales, mins) = q5k_scales_mins(&x.scales);
        let sumi = scale_min_sum(&x.qs, None, &scales, y);
        sumf += term_min(x.d, x.dmin, sumi, &mins, y);
    }
    sumf
}

/// `scale_min::dot_scalar` for Q5_K, to the bit.
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn dot_q5k(xs: &[BlockQ5K], ys: &[BlockQ8K]) -> f32 {
    assert_eq!(xs.len(), ys.len(), "Q5_K dot: lengths");
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        let (scales, mins) = q5k_scales_mins(&x.scales);
        let sumi = scale_min_sum(&x.qs, Some(&x.qh), &scales, y);
        sumf += term_min(x.d, x.dmin, sumi, &mins, y);
    }
    sumf
}

/// A Q4_K or Q5_K block's term, as `scale_min::dot_scalar` computes it.
#[inline]
#[target_feature(enable = "avx2")]
fn term_min(d: half::f16, dmin: half::f16, sumi: i32, mins: &[u8; 8], y: &BlockQ8K) -> f32 {
    let summ = mins_sum(&y.bsums, mins);
    d.to_f32() * y.d * sumi as f32 - dmin.to_f32() * y.d * summ as f32
}

/// `scale16::dot_scalar` for Q6_K, to the bit: per half of 128 values,
/// four groups of 32 (`BlockQ6K::q`), each two sub-blocks of 16.
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn dot_q6k(xs: &[BlockQ6K], ys: &[BlockQ8K]) -> f32 {
    assert_eq!(xs.len(), ys.len(), "Q6_K dot: lengths");
    let low4 = _mm256_set1_epi8(0xF);
    let two = _mm256_set1_epi8(3);
    let m32 = _mm256_set1_epi8(32);
    let mut sumf = 0f32;
    for (x, y) in xs.iter().zip(ys) {
        let mut acc = _mm256_setzero_si256();
        for half in 0..2 {
            let ql = [load(&x.ql, 64 * half), load(&x.ql, 64 * half + 32)];
            let qh = load(&x.qh, 32 * half);
            for group in 0..4 {
                let byte = ql[group & 1];
                let low = if group >= 2 {
                    _mm256_and_si256(_mm256_srli_epi16::<4>(byte), low4)
                } else {
                    _mm256_and_si256(byte, low4)
                };
                let top = match group {
                    0 => qh,
                    1 => _mm256_srli_epi16::<2>(qh),
                    2 => _mm256_srli_epi16::<4>(qh),
                    _ => _mm256_srli_epi16::<6>(qh),
                };
                let q = _mm256_or_si256(low, _mm256_slli_epi16::<4>(_mm256_and_si256(top, two)));
                let yq = load_y(y, 128 * half + 32 * group);
                // Σ (q - 32)·y as Σ q·y - Σ 32·y: each i16 pair's true sum
                // is at most 2·32·128, so the wrapping subtraction is exact.
                let p =
                    _mm256_sub_epi16(_mm256_maddubs_epi16(q, yq), _mm256_maddubs_epi16(m32, yq));
                let j = 8 * half + 2 * group;
                let sc = _mm256_set_m128i(
                    _mm_set1_epi16(x.scales[j + 1] as i16),
                    _mm_set1_epi16(x.scales[j] as i16),
                );
                acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, sc));
            }
        }
        sumf += x.d.to_f32() * y.d * hsum(acc) as f32;
    }
    sumf
}

/// 32 unpacked values from `x[at..]`.
#[inline]
#[target_feature(enable = "avx2")]
fn load_i8(x: &[i8; 256], at: usize) -> __m256i {
    let x = &x[at..at + 32];
    // SAFETY: 32 bytes from `at` (the slice above); unaligned load.
    unsafe { _mm256_loadu_si256(x.as_ptr() as *const __m256i) }
}

/// A sub-block scale for each half of a vector of sixteen i16 lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn halves(lo: i16, hi: i16) -> __m256i {
    _mm256_set_m128i(_mm_set1_epi16(hi), _mm_set1_epi16(lo))
}

/// `isum::isum_scaled` with AVX2 for values `a` in 0..64, for `T` tokens'
/// activations `b` at once (the row's bytes loaded once for all): Σ_j
/// scales[j] · Σ a·b over the sub-blocks of `W` (16 or 32) values of a
/// block, exactly: 32 values at a time by `vpmaddubsw` (pair sums at most
/// 2·63·128), then the scales by `vpmaddwd`. The plain code's loop,
/// outlined by the compiler, ran on SSE2 even when its caller had AVX2.
#[inline]
#[target_feature(enable = "avx2")]
fn isum_unsigned<const W: usize, const T: usize>(
    scales: &[u8],
    a: &[i8; 256],
    b: [&[i8; 256]; T],
) -> [i32; T] {
    let mut acc = [_mm256_setzero_si256(); T];
    for c in 0..8 {
        let q = load_i8(a, 32 * c);
        let sc = if W == 32 {
            _mm256_set1_epi16(scales[c] as i16)
        } else {
            halves(scales[2 * c] as i16, scales[2 * c + 1] as i16)
        };
        for (acc, b) in acc.iter_mut().zip(b) {
            let p = _mm256_maddubs_epi16(q, load_i8(b, 32 * c));
            *acc = _mm256_add_epi32(*acc, _mm256_madd_epi16(p, sc));
        }
    }
    acc.map(|v| hsum(v))
}

/// The same for Q3_K's and Q6_K's signed values (-32..32) and signed
/// scales, sub-blocks of 16: Σ (a + 32)·b - Σ 32·b, each i16 pair's true
/// sum at most 2·32·128 (the wrapping subtraction is exact).
#[inline]
#[target_feature(enable = "avx2")]
fn isum_signed16<const T: usize>(scales: &[i8; 16], a: &[i8; 256], b: [&[i8; 256]; T]) -> [i32; T] {
    let m32 = _mm256_set1_epi8(32);
    let mut acc = [_mm256_setzero_si256(); T];
    for c in 0..8 {
        let q = _mm256_add_epi8(load_i8(a, 32 * c), m32);
        let sc = halves(scales[2 * c] as i16, scales[2 * c + 1] as i16);
        for (acc, b) in acc.iter_mut().zip(b) {
            let y = load_i8(b, 32 * c);
            let p = _mm256_sub_epi16(_mm256_maddubs_epi16(q, y), _mm256_maddubs_epi16(m32, y));
            *acc = _mm256_add_epi32(*acc, _mm256_madd_epi16(p, sc));
        }
    }
    acc.map(|v| hsum(v))
}

/// Σ_i bsums[i] · mins[i / (16 / S)]: the activations' sums over 16
/// values weighted by their sub-block's min (`S` = 8 or 16 sub-blocks).
#[inline]
#[target_feature(enable = "avx2")]
fn mins_sum<const S: usize>(bsums: &[i16; 16], mins: &[u8; S]) -> i32 {
    // SAFETY: 16 i16 values, and `S` bytes (8 or 16); unaligned loads.
    let (b, m) = unsafe {
        (
            _mm256_loadu_si256(bsums.as_ptr() as *const __m256i),
            if S == 16 {
                _mm_loadu_si128(mins.as_ptr() as *const __m128i)
            } else {
                _mm_loadl_epi64(mins.as_ptr() as *const __m128i)
            },
        )
    };
    let m = if S == 16 {
        _mm256_cvtepu8_epi16(m)
    } else {
        // Each of the 8 mins for two sums of 16.
        let m = _mm_cvtepu8_epi16(m);
        _mm256_set_m128i(_mm_unpackhi_epi16(m, m), _mm_unpacklo_epi16(m, m))
    };
    hsum(_mm256_madd_epi16(b, m))
}

/// An unpacked K-quant block's products with AVX2 (`Kernel::dot_wide_avx2`,
/// `dot_wide4_avx2`): the integer sums of `T` tokens at once, then each
/// token's float terms added in block order, as the plain `wide` product
/// adds them: its value, to the bit.
pub trait WideAvx2: Sized {
    /// The block's integer sums with `T` tokens' activations.
    ///
    /// # Safety
    /// The CPU has AVX2.
    unsafe fn isums<const T: usize>(&self, ys: [&BlockQ8K; T]) -> [i32; T];
    /// The block's term from its integer sum with `y`.
    ///
    /// # Safety
    /// The CPU has AVX2.
    unsafe fn term(&self, y: &BlockQ8K, isum: i32) -> f32;

    /// # Safety
    /// The CPU has AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn dot(xs: &[Self], ys: &[BlockQ8K]) -> f32 {
        let [sum] = unsafe { Self::dots(xs, [ys]) };
        sum
    }

    /// # Safety
    /// The CPU has AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn dots<const T: usize>(xs: &[Self], ys: [&[BlockQ8K]; T]) -> [f32; T] {
        let ys = ys.map(|y| &y[..xs.len()]);
        let mut sumf = [0f32; T];
        for (b, x) in xs.iter().enumerate() {
            let y = ys.map(|y| &y[b]);
            // SAFETY: the caller's: the CPU has AVX2.
            let sums = unsafe { x.isums(y) };
            for t in 0..T {
                // SAFETY: as above.
                sumf[t] += unsafe { x.term(y[t], sums[t]) };
            }
        }
        sumf
    }
}

impl WideAvx2 for Wide16 {
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn isums<const T: usize>(&self, ys: [&BlockQ8K; T]) -> [i32; T] {
        isum_signed16(&self.scales, &self.qs, ys.map(|y| &y.qs))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn term(&self, y: &BlockQ8K, isum: i32) -> f32 {
        self.d * y.d * isum as f32
    }
}

impl WideAvx2 for Wide32m {
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn isums<const T: usize>(&self, ys: [&BlockQ8K; T]) -> [i32; T] {
        isum_unsigned::<32, T>(&self.scales, &self.qs, ys.map(|y| &y.qs))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn term(&self, y: &BlockQ8K, isum: i32) -> f32 {
        let summ = mins_sum(&y.bsums, &self.mins);
        self.d * y.d * isum as f32 - self.dmin * y.d * summ as f32
    }
}

impl WideAvx2 for Wide16m {
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn isums<const T: usize>(&self, ys: [&BlockQ8K; T]) -> [i32; T] {
        isum_unsigned::<16, T>(&self.scales, &self.qs, ys.map(|y| &y.qs))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn term(&self, y: &BlockQ8K, isum: i32) -> f32 {
        super::wide::term16m_of(self, y, isum, mins_sum(&y.bsums, &self.mins))
    }
}
