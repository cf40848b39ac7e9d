//! x86-64 AVX2 products of unpacked legacy blocks (`wide.rs`) with their
//! activations: what native products run on a CPU with AVX2 and F16C
//! (`quant::native`), chosen at run time.
//!
//! The same algorithm as the simd128 `wide::dot4`, on 256-bit vectors: a
//! block's 32 integer products summed exactly (unsigned values: bytes
//! times bytes with `vpmaddubsw`, whose i16 pair sums cannot saturate for
//! values below 32; signed ones widened to i16 and multiplied with
//! `vpmaddwd`), four blocks' sums gathered into one vector, the type's
//! `Formula` run on its lanes with separate multiplies and adds (no fused
//! multiply-add), and the terms added in block order, as the scalar
//! kernel adds them. So every result is the scalar kernel's to the bit.

use super::wide::Unpacked;
use super::{Formula, Q8};
use core::arch::x86_64::*;

/// Σ a·b of a block's 32 values as eight i32 lanes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn lanes<W: Unpacked>(x: &W, y: &[i8; 32]) -> __m256i {
    products(load32(x.qs()), load32(y), W::UNSIGNED)
}

/// 32 bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load32(v: &[i8; 32]) -> __m256i {
    _mm256_loadu_si256(v.as_ptr() as *const __m256i)
}

/// Σ a·b of 32 byte pairs as eight i32 lanes, exactly: `a` in 0..32 when
/// `unsigned` (bytes times bytes; pair sums at most 2·31·128), else any
/// weight byte, with `b` an activation, in -127..=127 (ggml's Q8_0 and
/// Q8_1 rounding of `x / (max|x| / 127)`): then |a| times b with a's sign
/// (`vpsignb` cannot overflow on such b), pair sums at most 2·128·127.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn products(a: __m256i, b: __m256i, unsigned: bool) -> __m256i {
    let ones = _mm256_set1_epi16(1);
    if unsigned {
        _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), ones)
    } else {
        let p = _mm256_maddubs_epi16(_mm256_abs_epi8(a), _mm256_sign_epi8(b, a));
        _mm256_madd_epi16(p, ones)
    }
}

/// Four vectors of eight i32 lanes, each summed across its lanes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn sum4(v: [__m256i; 4]) -> __m128i {
    let h = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
    _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256::<1>(h))
}

/// Eight vectors of eight i32 lanes, each summed across its lanes, in
/// one vector (lane i the sum of `v[i]`).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn sum8(v: [__m256i; 8]) -> __m256i {
    let lo = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
    let hi = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
    _mm256_add_epi32(
        _mm256_permute2x128_si256::<0x20>(lo, hi),
        _mm256_permute2x128_si256::<0x31>(lo, hi),
    )
}

/// Four f16 values as f32 lanes (F16C: exact, as `f16::to_f32`).
#[inline]
#[target_feature(enable = "avx2,f16c")]
unsafe fn f16x4(h: [half::f16; 4]) -> __m128 {
    let b = |i: usize| h[i].to_bits() as i16;
    _mm_cvtph_ps(_mm_setr_epi16(b(0), b(1), b(2), b(3), 0, 0, 0, 0))
}

/// `f`'s term on four lanes, with the scalar `Formula::term`'s operations.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn term4(f: Formula, sums: __m128, d: __m128, yd: __m128, m: __m128, s: __m128) -> __m128 {
    match f {
        Formula::SumFirst => _mm_mul_ps(_mm_mul_ps(sums, d), yd),
        Formula::ScaleFirst => _mm_mul_ps(_mm_mul_ps(d, yd), sums),
        Formula::WithMin => _mm_add_ps(_mm_mul_ps(_mm_mul_ps(d, yd), sums), _mm_mul_ps(m, s)),
    }
}

/// `term4` on eight lanes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn term8(f: Formula, sums: __m256, d: __m256, yd: __m256, m: __m256, s: __m256) -> __m256 {
    match f {
        Formula::SumFirst => _mm256_mul_ps(_mm256_mul_ps(sums, d), yd),
        Formula::ScaleFirst => _mm256_mul_ps(_mm256_mul_ps(d, yd), sums),
        Formula::WithMin => _mm256_add_ps(
            _mm256_mul_ps(_mm256_mul_ps(d, yd), sums),
            _mm256_mul_ps(m, s),
        ),
    }
}

/// `wide::dot` for four tokens: per block the row's bytes with each
/// token's, the four sums in one vector, each lane one token's sum.
///
/// # Safety
/// The CPU has AVX2 and F16C.
#[inline]
#[target_feature(enable = "avx2,f16c")]
pub unsafe fn dot4<W: Unpacked, Y: Q8>(f: Formula, xs: &[W], ys: [&[Y]; 4]) -> [f32; 4] {
    let n = xs.len();
    let ys = [&ys[0][..n], &ys[1][..n], &ys[2][..n], &ys[3][..n]];
    let mut acc = _mm_setzero_ps();
    for (b, x) in xs.iter().enumerate() {
        let y = [&ys[0][b], &ys[1][b], &ys[2][b], &ys[3][b]];
        let sums = sum4([
            lanes(x, y[0].qs()),
            lanes(x, y[1].qs()),
            lanes(x, y[2].qs()),
            lanes(x, y[3].qs()),
        ]);
        let (d, m) = x.dm();
        let yd = f16x4([y[0].ds().0, y[1].ds().0, y[2].ds().0, y[3].ds().0]);
        let s = f16x4([y[0].ds().1, y[1].ds().1, y[2].ds().1, y[3].ds().1]);
        let t = term4(
            f,
            _mm_cvtepi32_ps(sums),
            _mm_set1_ps(d),
            yd,
            _mm_set1_ps(m),
            s,
        );
        acc = _mm_add_ps(acc, t);
    }
    let mut out = [0f32; 4];
    _mm_storeu_ps(out.as_mut_ptr(), acc);
    out
}

/// Four tokens' block scales as floats, `[yd of each, s of each]` (F16C:
/// exact, as `f16::to_f32`), for `dot4x2`.
#[inline]
pub fn scales4<Y: Q8>(y: [&Y; 4]) -> [[f32; 4]; 2] {
    [
        [0, 1, 2, 3].map(|i| y[i].ds().0.to_f32()),
        [0, 1, 2, 3].map(|i| y[i].ds().1.to_f32()),
    ]
}

/// `dot4` for two rows `a` and `b`: per block the four tokens' bytes and
/// scales (`scales`, from `scales4`) loaded once for both rows, the eight
/// integer sums gathered into one vector (`a`'s four tokens, then `b`'s)
/// and `f`'s term run on its eight lanes, each lane one row and token's
/// own formula.
///
/// # Safety
/// The CPU has AVX2 and F16C.
#[inline]
#[target_feature(enable = "avx2,f16c")]
pub unsafe fn dot4x2<W: Unpacked, Y: Q8>(
    f: Formula,
    a: &[W],
    b: &[W],
    ys: [&[Y]; 4],
    scales: &[[[f32; 4]; 2]],
) -> [[f32; 4]; 2] {
    let n = a.len();
    let (b, scales) = (&b[..n], &scales[..n]);
    let ys = [&ys[0][..n], &ys[1][..n], &ys[2][..n], &ys[3][..n]];
    let mut acc = _mm256_setzero_ps();
    for (i, ((xa, xb), sc)) in a.iter().zip(b).zip(scales).enumerate() {
        let q = [
            load32(ys[0][i].qs()),
            load32(ys[1][i].qs()),
            load32(ys[2][i].qs()),
            load32(ys[3][i].qs()),
        ];
        let (va, vb) = (load32(xa.qs()), load32(xb.qs()));
        let u = W::UNSIGNED;
        let sums = sum8([
            products(va, q[0], u),
            products(va, q[1], u),
            products(va, q[2], u),
            products(va, q[3], u),
            products(vb, q[0], u),
            products(vb, q[1], u),
            products(vb, q[2], u),
            products(vb, q[3], u),
        ]);
        let ((da, ma), (db, mb)) = (xa.dm(), xb.dm());
        let two = |lo: f32, hi: f32| _mm256_set_m128(_mm_set1_ps(hi), _mm_set1_ps(lo));
        let both = |v: &[f32; 4]| {
            let v = _mm_loadu_ps(v.as_ptr());
            _mm256_set_m128(v, v)
        };
        let t = term8(
            f,
            _mm256_cvtepi32_ps(sums),
            two(da, db),
            both(&sc[0]),
            two(ma, mb),
            both(&sc[1]),
        );
        acc = _mm256_add_ps(acc, t);
    }
    let mut out = [[0f32; 4]; 2];
    _mm_storeu_ps(out[0].as_mut_ptr(), _mm256_castps256_ps128(acc));
    _mm_storeu_ps(out[1].as_mut_ptr(), _mm256_extractf128_ps::<1>(acc));
    out
}

/// `wide::dot` for one token: blocks four at a time (their sums and terms
/// in one vector, the terms then added one by one, in order), the last
/// `n % 4` alone.
///
/// # Safety
/// The CPU has AVX2 and F16C.
#[inline]
#[target_feature(enable = "avx2,f16c")]
pub unsafe fn dot<W: Unpacked, Y: Q8>(f: Formula, xs: &[W], ys: &[Y]) -> f32 {
    let ys = &ys[..xs.len()];
    let mut sumf = 0f32;
    let (xq, xr) = xs.split_at(xs.len() / 4 * 4);
    let (yq, yr) = ys.split_at(xq.len());
    for (x, y) in xq.chunks_exact(4).zip(yq.chunks_exact(4)) {
        let sums = sum4([
            lanes(&x[0], y[0].qs()),
            lanes(&x[1], y[1].qs()),
            lanes(&x[2], y[2].qs()),
            lanes(&x[3], y[3].qs()),
        ]);
        let dm = [x[0].dm(), x[1].dm(), x[2].dm(), x[3].dm()];
        let t = term4(
            f,
            _mm_cvtepi32_ps(sums),
            _mm_setr_ps(dm[0].0, dm[1].0, dm[2].0, dm[3].0),
            f16x4([y[0].ds().0, y[1].ds().0, y[2].ds().0, y[3].ds().0]),
            _mm_setr_ps(dm[0].1, dm[1].1, dm[2].1, dm[3].1),
            f16x4([y[0].ds().1, y[1].ds().1, y[2].ds().1, y[3].ds().1]),
        );
        let mut terms = [0f32; 4];
        _mm_storeu_ps(terms.as_mut_ptr(), t);
        for t in terms {
            sumf += t;
        }
    }
    for (x, y) in xr.iter().zip(yr) {
        let sum = hsum(lanes(x, y.qs()));
        let ((d, m), (yd, s)) = (x.dm(), y.ds());
        sumf += f.term(sum as f32, d, yd.to_f32(), || (m, s.to_f32()));
    }
    sumf
}

/// A packed block whose 32 values AVX2 reads from its stored bytes, with
/// no unpacked copy: Q4_1 (nibbles) and Q8_0 (bytes). A token or two of
/// products (writing) then reads each weight once, as stored.
pub trait Packed32: Copy {
    /// Values in 0..32 (`products`' unsigned case).
    const UNSIGNED: bool;
    const FORMULA: Formula;
    /// The 32 values (offset applied), in element order.
    ///
    /// # Safety
    /// The CPU has AVX2.
    unsafe fn values(&self) -> __m256i;
    /// The scale and the minimum (zero without one).
    fn dm(&self) -> (half::f16, half::f16);
}

/// A 4-bit block's 32 values in element order: byte j holds element j in
/// its low nibble, j + 16 in its high one (Q4_0's and Q4_1's layout).
#[inline]
#[target_feature(enable = "avx2")]
fn nibbles(qs: &[u8; 16]) -> __m256i {
    // SAFETY: 16 bytes; unaligned load.
    let q = unsafe { _mm_loadu_si128(qs.as_ptr() as *const __m128i) };
    let low = _mm_set1_epi8(0x0F);
    let hi = _mm_and_si128(_mm_srli_epi16::<4>(q), low);
    _mm256_set_m128i(hi, _mm_and_si128(q, low))
}

impl Packed32 for super::BlockQ4_1 {
    const UNSIGNED: bool = true;
    const FORMULA: Formula = Formula::WithMin;
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn values(&self) -> __m256i {
        nibbles(&self.qs)
    }
    #[inline(always)]
    fn dm(&self) -> (half::f16, half::f16) {
        (self.d, self.m)
    }
}

impl Packed32 for super::BlockQ4_0 {
    const UNSIGNED: bool = false;
    const FORMULA: Formula = Formula::SumFirst;
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn values(&self) -> __m256i {
        // The offset applied: q - 8 in -8..8.
        _mm256_sub_epi8(nibbles(&self.qs), _mm256_set1_epi8(8))
    }
    #[inline(always)]
    fn dm(&self) -> (half::f16, half::f16) {
        (self.d, half::f16::ZERO)
    }
}

impl Packed32 for crate::model::quant::activation::BlockQ8_0 {
    const UNSIGNED: bool = false;
    const FORMULA: Formula = Formula::ScaleFirst;
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn values(&self) -> __m256i {
        load32(&self.qs)
    }
    #[inline(always)]
    fn dm(&self) -> (half::f16, half::f16) {
        (self.d, half::f16::ZERO)
    }
}

/// The scalar kernel's product of packed blocks and one token's
/// activations, to the bit: `dot`'s algorithm (blocks four at a time, the
/// terms added one by one in order) on the stored bytes.
///
/// # Safety
/// The CPU has AVX2 and F16C.
#[inline]
#[target_feature(enable = "avx2,f16c")]
pub unsafe fn dot_packed<X: Packed32, Y: Q8>(xs: &[X], ys: &[Y]) -> f32 {
    let ys = &ys[..xs.len()];
    let f = X::FORMULA;
    let mut sumf = 0f32;
    let (xq, xr) = xs.split_at(xs.len() / 4 * 4);
    let (yq, yr) = ys.split_at(xq.len());
    let block = |x: &X, y: &Y| products(x.values(), load32(y.qs()), X::UNSIGNED);
    for (x, y) in xq.chunks_exact(4).zip(yq.chunks_exact(4)) {
        let sums = sum4([
            block(&x[0], &y[0]),
            block(&x[1], &y[1]),
            block(&x[2], &y[2]),
            block(&x[3], &y[3]),
        ]);
        let dm = [x[0].dm(), x[1].dm(), x[2].dm(), x[3].dm()];
        let t = term4(
            f,
            _mm_cvtepi32_ps(sums),
            f16x4([dm[0].0, dm[1].0, dm[2].0, dm[3].0]),
            f16x4([y[0].ds().0, y[1].ds().0, y[2].ds().0, y[3].ds().0]),
            f16x4([dm[0].1, dm[1].1, dm[2].1, dm[3].1]),
            f16x4([y[0].ds().1, y[1].ds().1, y[2].ds().1, y[3].ds().1]),
        );
        let mut terms = [0f32; 4];
        _mm_storeu_ps(terms.as_mut_ptr(), t);
        for t in terms {
            sumf += t;
        }
    }
    for (x, y) in xr.iter().zip(yr) {
        let sum = hsum(block(x, y));
        let ((d, m), (yd, s)) = (x.dm(), y.ds());
        sumf += f.term(sum as f32, d.to_f32(), yd.to_f32(), || {
            (m.to_f32(), s.to_f32())
        });
    }
    sumf
}

/// The sum of eight i32 lanes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn hsum(v: __m256i) -> i32 {
    let h = _mm256_hadd_epi32(v, v);
    let s = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256::<1>(h));
    _mm_cvtsi128_si32(s) + _mm_extract_epi32::<1>(s)
}
