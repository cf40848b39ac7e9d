//! Attention's inner loops, in plain code (`Scalar`) and with wasm
//! `simd128` (`Simd`): the same float operations on the same values in
//! the same order, lane for lane, so both give the same bits (tested in
//! wasm, `tests/attention.rs`). The order is llama.cpp's: its f16 dot
//! product sums in four accumulators of four lanes, its tiles sum each
//! score and each weighted value one key at a time.

use super::TILE;

/// The f32 nearest to `x` that an f16 holds (ties to even), or ±inf
/// beyond f16's range: what rounding to f16 and back gives.
#[inline(always)]
pub fn round_f16(x: f32) -> f32 {
    let a = x.abs();
    if a < SMALLEST_NORMAL {
        // f16's subnormals are multiples of 2^-24: 0.75 + x has that
        // spacing, so the sum rounds x to one.
        (x + 0.75) - 0.75
    } else if a < OVERFLOW {
        f32::from_bits(round_bits(x.to_bits()))
    } else if x.is_nan() {
        x
    } else {
        f32::INFINITY.copysign(x)
    }
}

/// The bits of the f16 nearest to `x` (`round_f16`'s value: a zero +0).
#[inline]
pub fn f16_bits(x: f32) -> u16 {
    // round_f16's value is an f16's (or ±inf, or NaN): converting it is exact.
    half::f16::from_f32(round_f16(x)).to_bits()
}

/// The f32 of an f16's bits, exactly: the value's bits moved into f32's
/// places and scaled by 2^112 (the two exponents' bias apart), which also
/// makes f16's subnormals f32 normals; ±inf and NaN keep f32's top exponent.
#[inline(always)]
pub fn widen_f16(h: u16) -> f32 {
    let h = h as u32;
    let sign = (h & 0x8000) << 16;
    let em = (h & 0x7FFF) << 13;
    let bits = if em >= INF_BITS {
        em | 0x7F80_0000
    } else {
        (f32::from_bits(em) * TWO_112).to_bits()
    };
    f32::from_bits(bits | sign)
}

/// f16's infinity's exponent in f32's places (`widen_f16`).
const INF_BITS: u32 = 0x7C00 << 13;
/// 2^112: f32's exponent bias less f16's.
const TWO_112: f32 = 5.192_297e33;

/// f16's smallest normal value, 2^-14.
const SMALLEST_NORMAL: f32 = 6.103_515_6e-5;
/// Where f16 overflows: halfway between its largest value and 2^16.
const OVERFLOW: f32 = 65520.0;

/// A normal f32's significand rounded to f16's 11 bits, ties to even (a
/// carry moves the exponent, as it should).
#[inline(always)]
fn round_bits(b: u32) -> u32 {
    (b + 0x0FFF + ((b >> 13) & 1)) & !0x1FFF
}

/// The inner loops.
pub trait Lanes {
    /// Σ x·y as llama.cpp's `ggml_vec_dot_f16` sums it: accumulator j lane
    /// l takes values 16i + 4j + l; then (0+2, 1+3), (0+1), lanes
    /// ((0+1)+2)+3; the values past a multiple of 16 added in double.
    fn dot(x: &[f32], y: &[f32]) -> f32;
    /// acc = f16(acc · s), value by value.
    fn scale_f16(acc: &mut [f32], s: f32);
    /// acc = f16(acc + v · s), value by value.
    fn mad_f16(acc: &mut [f32], v: &[f32], s: f32);
    /// out[k] = Σ_d q[d] · kt[d·TILE + k], one d at a time from 0.
    fn scores(q: &[f32], kt: &[f32], out: &mut [f32; TILE]);
    /// acc[d] += p[k] · v[k·dim + d], one k at a time, every k of the tile.
    fn weigh(acc: &mut [f32], p: &[f32; TILE], v: &[f32]);
    /// out[i] = the f32 of f16 bits h[i] (`widen_f16`), for i < h.len().
    fn widen(h: &[u16], out: &mut [f32]);
}

/// Plain code: the reference, and what native builds run.
pub struct Scalar;

impl Lanes for Scalar {
    fn dot(x: &[f32], y: &[f32]) -> f32 {
        let n = x.len();
        let np = n & !15;
        let mut acc = [[0f32; 4]; 4];
        for i in (0..np).step_by(16) {
            for (j, acc) in acc.iter_mut().enumerate() {
                for (l, a) in acc.iter_mut().enumerate() {
                    *a += x[i + 4 * j + l] * y[i + 4 * j + l];
                }
            }
        }
        let add = |a: [f32; 4], b: [f32; 4]| std::array::from_fn::<f32, 4, _>(|l| a[l] + b[l]);
        let a = add(add(acc[0], acc[2]), add(acc[1], acc[3]));
        let mut sum = (((a[0] + a[1]) + a[2]) + a[3]) as f64;
        for i in np..n {
            sum += (x[i] * y[i]) as f64;
        }
        sum as f32
    }

    fn scale_f16(acc: &mut [f32], s: f32) {
        for a in acc {
            *a = round_f16(*a * s);
        }
    }

    fn mad_f16(acc: &mut [f32], v: &[f32], s: f32) {
        for (a, v) in acc.iter_mut().zip(v) {
            *a = round_f16(*a + v * s);
        }
    }

    fn scores(q: &[f32], kt: &[f32], out: &mut [f32; TILE]) {
        out.fill(0.0);
        for (d, &q) in q.iter().enumerate() {
            for (o, &k) in out.iter_mut().zip(&kt[d * TILE..][..TILE]) {
                *o += q * k;
            }
        }
    }

    fn weigh(acc: &mut [f32], p: &[f32; TILE], v: &[f32]) {
        let dim = acc.len();
        for (k, &p) in p.iter().enumerate() {
            for (a, &v) in acc.iter_mut().zip(&v[k * dim..][..dim]) {
                *a += p * v;
            }
        }
    }

    fn widen(h: &[u16], out: &mut [f32]) {
        for (o, &h) in out.iter_mut().zip(h) {
            *o = widen_f16(h);
        }
    }
}

/// wasm `simd128`: four values at a time.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub struct Simd;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use super::{round_f16, widen_f16, Lanes, Simd, INF_BITS, OVERFLOW, TILE, TWO_112};
    use core::arch::wasm32::*;

    /// `widen_f16` on four lanes (f16 bits in the low halves of u32s).
    #[inline(always)]
    fn widen4(h: v128) -> v128 {
        let sign = u32x4_shl(v128_and(h, u32x4_splat(0x8000)), 16);
        let em = u32x4_shl(v128_and(h, u32x4_splat(0x7FFF)), 13);
        let finite = f32x4_mul(em, f32x4_splat(TWO_112));
        let top = v128_or(em, u32x4_splat(0x7F80_0000));
        let special = u32x4_ge(em, u32x4_splat(INF_BITS));
        v128_or(v128_bitselect(top, finite, special), sign)
    }

    #[inline(always)]
    fn load(x: &[f32], i: usize) -> v128 {
        assert!(i + 4 <= x.len());
        // SAFETY: four values from i, within x (checked above).
        unsafe { v128_load(x.as_ptr().add(i) as *const v128) }
    }

    #[inline(always)]
    fn store(x: &mut [f32], i: usize, v: v128) {
        assert!(i + 4 <= x.len());
        // SAFETY: as `load`.
        unsafe { v128_store(x.as_mut_ptr().add(i) as *mut v128, v) }
    }

    /// `round_f16` on four lanes: x + c - c with c = 1.5 · 2^(e + 13)
    /// for x's exponent e (at least f16's smallest, -14) has the spacing
    /// of f16's values at e, so the sum rounds x to one, ties to even (c
    /// is an even multiple of that spacing); past f16's range, ±inf.
    #[inline(always)]
    fn round4(x: v128) -> v128 {
        let e = u32x4_max(
            v128_and(x, u32x4_splat(0x7F80_0000)),
            u32x4_splat(0x3880_0000),
        );
        let c = v128_or(
            i32x4_add(e, u32x4_splat(13 << 23)),
            u32x4_splat(0x0040_0000),
        );
        let r = f32x4_sub(f32x4_add(x, c), c);
        let inf = v128_or(
            v128_and(x, u32x4_splat(0x8000_0000)),
            f32x4_splat(f32::INFINITY),
        );
        // NaN compares false: x + c - c keeps it NaN.
        v128_bitselect(inf, r, f32x4_ge(f32x4_abs(x), f32x4_splat(OVERFLOW)))
    }

    impl Lanes for Simd {
        fn dot(x: &[f32], y: &[f32]) -> f32 {
            let n = x.len();
            let np = n & !15;
            let mut acc = [f32x4_splat(0.0); 4];
            for i in (0..np).step_by(16) {
                for (j, acc) in acc.iter_mut().enumerate() {
                    let at = i + 4 * j;
                    *acc = f32x4_add(*acc, f32x4_mul(load(x, at), load(y, at)));
                }
            }
            let a = f32x4_add(f32x4_add(acc[0], acc[2]), f32x4_add(acc[1], acc[3]));
            let mut sum = (((f32x4_extract_lane::<0>(a) + f32x4_extract_lane::<1>(a))
                + f32x4_extract_lane::<2>(a))
                + f32x4_extract_lane::<3>(a)) as f64;
            for i in np..n {
                sum += (x[i] * y[i]) as f64;
            }
            sum as f32
        }

        fn scale_f16(acc: &mut [f32], s: f32) {
            let n = acc.len() / 4 * 4;
            let vs = f32x4_splat(s);
            for i in (0..n).step_by(4) {
                store(acc, i, round4(f32x4_mul(load(acc, i), vs)));
            }
            for a in &mut acc[n..] {
                *a = round_f16(*a * s);
            }
        }

        fn mad_f16(acc: &mut [f32], v: &[f32], s: f32) {
            let n = acc.len() / 4 * 4;
            let vs = f32x4_splat(s);
            for i in (0..n).step_by(4) {
                let r = f32x4_add(load(acc, i), f32x4_mul(load(v, i), vs));
                store(acc, i, round4(r));
            }
            for (a, v) in acc[n..].iter_mut().zip(&v[n..]) {
                *a = round_f16(*a + v * s);
            }
        }

        fn scores(q: &[f32], kt: &[f32], out: &mut [f32; TILE]) {
            let mut acc = [f32x4_splat(0.0); TILE / 4];
            for (d, &q) in q.iter().enumerate() {
                let vq = f32x4_splat(q);
                let row = &kt[d * TILE..][..TILE];
                for (r, acc) in acc.iter_mut().enumerate() {
                    *acc = f32x4_add(*acc, f32x4_mul(vq, load(row, 4 * r)));
                }
            }
            for (r, acc) in acc.iter().enumerate() {
                store(out, 4 * r, *acc);
            }
        }

        fn weigh(acc: &mut [f32], p: &[f32; TILE], v: &[f32]) {
            let dim = acc.len();
            let n = dim / 4 * 4;
            for i in (0..n).step_by(4) {
                let mut a = load(acc, i);
                for (k, &p) in p.iter().enumerate() {
                    a = f32x4_add(a, f32x4_mul(f32x4_splat(p), load(v, k * dim + i)));
                }
                store(acc, i, a);
            }
            for i in n..dim {
                let mut a = acc[i];
                for (k, &p) in p.iter().enumerate() {
                    a += p * v[k * dim + i];
                }
                acc[i] = a;
            }
        }

        fn widen(h: &[u16], out: &mut [f32]) {
            let n = h.len().min(out.len());
            let n8 = n / 8 * 8;
            for i in (0..n8).step_by(8) {
                // SAFETY: eight u16s from i + 8 <= n <= h.len().
                let x = unsafe { v128_load(h.as_ptr().add(i) as *const v128) };
                store(out, i, widen4(u32x4_extend_low_u16x8(x)));
                store(out, i + 4, widen4(u32x4_extend_high_u16x8(x)));
            }
            for (o, &h) in out[n8..n].iter_mut().zip(&h[n8..n]) {
                *o = widen_f16(h);
            }
        }
    }
}

/// x86-64 natively (the CLI's model): `Scalar`'s sums with SSE's four
/// lanes (every x86-64 has them) for `dot`, and `scale_f16` / `mad_f16` on
/// eight lanes where the CPU has AVX and F16C (asked at run time), the f16
/// rounding by the CPU's own conversion to f16 and back, which rounds as
/// `round_f16` does (to nearest, ties to even; ±inf past f16's range;
/// subnormals exact; a zero made +0 as `round_f16` makes it); a prompt's
/// tiles (`scores`, `weigh`) on eight lanes with AVX, their 64 sums held
/// in registers over a tile (the plain loops, compiled for SSE, loaded and
/// stored them for every key: attention was 47% of reading a 678-token
/// prompt, 33% after). The same operations on the same values in the same
/// order as `Scalar`, so the same bits (`tests/kernels_native.rs`). A
/// profile of a real-model run had `mad_f16`'s scalar rounding as the
/// largest share of the time: one value at a time, fifteen instructions
/// each.
#[cfg(target_arch = "x86_64")]
pub struct Native;

#[cfg(target_arch = "x86_64")]
mod native {
    use super::{round_f16, Lanes, Native, Scalar, TILE};
    use core::arch::x86_64::*;

    fn has_f16c() -> bool {
        std::arch::is_x86_feature_detected!("avx") && std::arch::is_x86_feature_detected!("f16c")
    }

    /// `round_f16` on eight lanes; a zero comes out +0, as `round_f16`'s
    /// subnormal sum gives it (the conversion keeps -0).
    #[inline]
    #[target_feature(enable = "avx,f16c")]
    fn round8(x: __m256) -> __m256 {
        let r = _mm256_cvtph_ps(_mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(x));
        _mm256_and_ps(r, _mm256_cmp_ps::<_CMP_NEQ_UQ>(r, _mm256_setzero_ps()))
    }

    /// `acc = f16(acc · s)` (`mul`) or `acc = f16(acc + v · s)`, eight at a time.
    ///
    /// # Safety
    /// The CPU has AVX and F16C; `v` is at least as long as `acc` when given.
    #[target_feature(enable = "avx,f16c")]
    unsafe fn rounded(acc: &mut [f32], v: Option<&[f32]>, s: f32) {
        let n = acc.len() / 8 * 8;
        let vs = _mm256_set1_ps(s);
        for i in (0..n).step_by(8) {
            // SAFETY: eight values from i < n <= acc.len() (and v.len()).
            unsafe {
                let a = _mm256_loadu_ps(acc.as_ptr().add(i));
                let r = match v {
                    Some(v) => {
                        _mm256_add_ps(a, _mm256_mul_ps(_mm256_loadu_ps(v.as_ptr().add(i)), vs))
                    }
                    None => _mm256_mul_ps(a, vs),
                };
                _mm256_storeu_ps(acc.as_mut_ptr().add(i), round8(r));
            }
        }
        match v {
            Some(v) => {
                for (a, v) in acc[n..].iter_mut().zip(&v[n..]) {
                    *a = round_f16(*a + v * s);
                }
            }
            None => {
                for a in &mut acc[n..] {
                    *a = round_f16(*a * s);
                }
            }
        }
    }

    impl Lanes for Native {
        fn dot(x: &[f32], y: &[f32]) -> f32 {
            let n = x.len().min(y.len());
            let np = n & !15;
            // SAFETY: SSE is part of x86-64; every load is four values
            // from i + 4j + 4 <= np <= the slices' lengths.
            unsafe {
                let mut acc = [_mm_setzero_ps(); 4];
                for i in (0..np).step_by(16) {
                    for (j, acc) in acc.iter_mut().enumerate() {
                        let at = i + 4 * j;
                        let p = _mm_mul_ps(
                            _mm_loadu_ps(x.as_ptr().add(at)),
                            _mm_loadu_ps(y.as_ptr().add(at)),
                        );
                        *acc = _mm_add_ps(*acc, p);
                    }
                }
                let a = _mm_add_ps(_mm_add_ps(acc[0], acc[2]), _mm_add_ps(acc[1], acc[3]));
                let mut l = [0f32; 4];
                _mm_storeu_ps(l.as_mut_ptr(), a);
                let mut sum = (((l[0] + l[1]) + l[2]) + l[3]) as f64;
                for i in np..n {
                    sum += (x[i] * y[i]) as f64;
                }
                sum as f32
            }
        }

        fn scale_f16(acc: &mut [f32], s: f32) {
            if has_f16c() {
                // SAFETY: the CPU has AVX and F16C (checked).
                return unsafe { rounded(acc, None, s) };
            }
            Scalar::scale_f16(acc, s)
        }

        fn mad_f16(acc: &mut [f32], v: &[f32], s: f32) {
            if has_f16c() && v.len() >= acc.len() {
                // SAFETY: as `scale_f16`; v is long enough (checked).
                return unsafe { rounded(acc, Some(v), s) };
            }
            Scalar::mad_f16(acc, v, s)
        }

        fn scores(q: &[f32], kt: &[f32], out: &mut [f32; TILE]) {
            if has_f16c() && kt.len() >= q.len() * TILE {
                // SAFETY: the CPU has AVX (checked); kt is long enough.
                return unsafe { scores8(q, kt, out) };
            }
            Scalar::scores(q, kt, out)
        }

        fn weigh(acc: &mut [f32], p: &[f32; TILE], v: &[f32]) {
            if has_f16c() && v.len() >= acc.len() * TILE {
                // SAFETY: the CPU has AVX (checked); v is long enough.
                return unsafe { weigh8(acc, p, v) };
            }
            Scalar::weigh(acc, p, v)
        }

        fn widen(h: &[u16], out: &mut [f32]) {
            if has_f16c() {
                // SAFETY: the CPU has AVX and F16C (checked).
                return unsafe { widened(h, out) };
            }
            Scalar::widen(h, out)
        }
    }

    /// `Scalar::scores` with the tile's 64 sums in eight registers: each
    /// `out[k]` is 0 plus `q[d] · kt[d][k]` for d from 0, one multiply and
    /// one add each, as there.
    ///
    /// # Safety
    /// The CPU has AVX; `kt.len() >= q.len() * TILE`.
    #[target_feature(enable = "avx")]
    unsafe fn scores8(q: &[f32], kt: &[f32], out: &mut [f32; TILE]) {
        const _: () = assert!(TILE == 64);
        let mut acc = [_mm256_setzero_ps(); 8];
        for (d, &x) in q.iter().enumerate() {
            let x = _mm256_set1_ps(x);
            let row = &kt[d * TILE..][..TILE];
            for (j, a) in acc.iter_mut().enumerate() {
                // SAFETY: eight values from 8j + 8 <= TILE = row.len().
                let k = unsafe { _mm256_loadu_ps(row.as_ptr().add(8 * j)) };
                *a = _mm256_add_ps(*a, _mm256_mul_ps(x, k));
            }
        }
        for (j, a) in acc.iter().enumerate() {
            // SAFETY: eight values from 8j + 8 <= TILE.
            unsafe { _mm256_storeu_ps(out.as_mut_ptr().add(8 * j), *a) };
        }
    }

    /// `Scalar::weigh` with up to 64 of the sums at a time held in
    /// registers over the tile's keys: each `acc[d]` gets `p[k] · v[k][d]`
    /// added for k from 0, one multiply and one add each, as there.
    ///
    /// # Safety
    /// The CPU has AVX; `v.len() >= acc.len() * TILE`.
    #[target_feature(enable = "avx")]
    unsafe fn weigh8(acc: &mut [f32], p: &[f32; TILE], v: &[f32]) {
        let dim = acc.len();
        let wide = dim / 8 * 8;
        let mut at = 0;
        while at < wide {
            let regs = ((wide - at) / 8).min(8);
            let mut a = [_mm256_setzero_ps(); 8];
            for (j, a) in a.iter_mut().enumerate().take(regs) {
                // SAFETY: eight values from at + 8j + 8 <= wide <= dim.
                *a = unsafe { _mm256_loadu_ps(acc.as_ptr().add(at + 8 * j)) };
            }
            for (k, &w) in p.iter().enumerate() {
                let w = _mm256_set1_ps(w);
                let row = &v[k * dim + at..][..8 * regs];
                for (j, a) in a.iter_mut().enumerate().take(regs) {
                    // SAFETY: eight values from 8j + 8 <= 8 regs = row.len().
                    let x = unsafe { _mm256_loadu_ps(row.as_ptr().add(8 * j)) };
                    *a = _mm256_add_ps(*a, _mm256_mul_ps(w, x));
                }
            }
            for (j, a) in a.iter().enumerate().take(regs) {
                // SAFETY: as the loads.
                unsafe { _mm256_storeu_ps(acc.as_mut_ptr().add(at + 8 * j), *a) };
            }
            at += 8 * regs;
        }
        for (k, &w) in p.iter().enumerate() {
            for (a, &x) in acc[wide..]
                .iter_mut()
                .zip(&v[k * dim + wide..][..dim - wide])
            {
                *a += w * x;
            }
        }
    }

    /// `Lanes::widen` by F16C's conversion, eight at a time (exact, as
    /// `widen_f16`; a signalling NaN comes out quiet, which no sum tells
    /// apart).
    ///
    /// # Safety
    /// The CPU has AVX and F16C.
    #[target_feature(enable = "avx,f16c")]
    unsafe fn widened(h: &[u16], out: &mut [f32]) {
        let n = h.len().min(out.len());
        let n8 = n / 8 * 8;
        for i in (0..n8).step_by(8) {
            // SAFETY: eight values from i + 8 <= n8 <= both lengths.
            unsafe {
                let x = _mm_loadu_si128(h.as_ptr().add(i) as *const __m128i);
                _mm256_storeu_ps(out.as_mut_ptr().add(i), _mm256_cvtph_ps(x));
            }
        }
        for (o, &h) in out[n8..n].iter_mut().zip(&h[n8..n]) {
            *o = super::widen_f16(h);
        }
    }
}
