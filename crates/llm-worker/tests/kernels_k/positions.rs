//! Every value position, one at a time: dense weights against one-hot
//! activations, and one-hot weights written from ggml's layout against
//! dense activations, for each K type.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A one-hot Q8_K block: value `v` at `p`, scale `d`.
fn one_hot(p: usize, v: i8, d: f32) -> BlockQ8K {
    let mut qs = [0i8; QK_K];
    qs[p] = v;
    q8k_from_qs(d, qs)
}

fn nonzero_i8(rng: &mut Rng) -> i8 {
    loop {
        let v = rng.byte() as i8;
        if v != 0 {
            return v;
        }
    }
}

/// `dot` and `dot_scalar` equal `w · a` within `tol`.
fn check_one(got: [f32; 2], want: f32, tol: f32, what: &str) {
    for (g, name) in got.iter().zip(["dot", "dot_scalar"]) {
        assert!(
            (g - want).abs() <= tol,
            "{what}: {name} {g} != {want} (tol {tol})"
        );
    }
}

/// Random dense weight blocks against one-hot activations at every
/// position: the kernels must see the value `dequantize` puts there (and
/// `dequantize` is candle's, test 2), the Q5_K min term included.
fn dense_weights_one_hot_acts<K: Kernel<Act = BlockQ8K>>(
    raw: fn(&mut Rng) -> K,
    // |terms| of the dequantised value at `p` (for cancellation).
    mag: fn(&K, usize) -> f32,
) {
    let mut rng = Rng::new(500);
    for _ in 0..6 {
        let x = [raw(&mut rng)];
        let mut w = vec![0f32; QK_K];
        K::dequantize(&x, &mut w);
        for (p, &wp) in w.iter().enumerate() {
            let (v, d) = (nonzero_i8(&mut rng), rng.unit() + 0.01);
            let y = [one_hot(p, v, d)];
            let a = d * v as f32;
            let tol = 8.0 * f32::EPSILON * mag(&x[0], p) * a.abs();
            let got = [K::dot(&x, &y), K::dot_scalar(&x, &y)];
            check_one(got, wp * a, tol, &format!("{:?} position {p}", K::DTYPE));
        }
    }
}

fn q3k_mag(x: &BlockQ3K, p: usize) -> f32 {
    let mut w = [0f32; QK_K];
    BlockQ3K::dequantize(std::slice::from_ref(x), &mut w);
    w[p].abs()
}

fn q2k_mag(x: &BlockQ2K, p: usize) -> f32 {
    let sc = x.scales[p / 16];
    (x.d.to_f32() * (sc & 0xF) as f32 * x.q(p) as f32).abs()
        + (x.dmin.to_f32() * (sc >> 4) as f32).abs()
}

#[test]
fn q2k_every_position_one_hot_act() {
    dense_weights_one_hot_acts::<BlockQ2K>(raw_q2k, q2k_mag);
}

#[test]
fn q3k_every_position_one_hot_act() {
    dense_weights_one_hot_acts::<BlockQ3K>(raw_q3k, q3k_mag);
}

#[test]
fn q4k_every_position_one_hot_act() {
    dense_weights_one_hot_acts::<BlockQ4K>(raw_q4k, q4k_mag);
}

#[test]
fn q5k_every_position_one_hot_act() {
    dense_weights_one_hot_acts::<BlockQ5K>(raw_q5k, q5k_mag);
}

fn q6k_mag(x: &BlockQ6K, p: usize) -> f32 {
    let mut w = [0f32; QK_K];
    BlockQ6K::dequantize(std::slice::from_ref(x), &mut w);
    w[p].abs()
}

#[test]
fn q6k_every_position_one_hot_act() {
    dense_weights_one_hot_acts::<BlockQ6K>(raw_q6k, q6k_mag);
}

/// Q6_K blocks with a single nonzero value, written bit by bit from
/// ggml's `dequantize_row_q6_K` (value `i`: `half = i / 128`,
/// `group = i % 128 / 32`, `l = i % 32`; low nibble of
/// `ql[64·half + l + 32·(group & 1)]`, the high one for groups 2 and 3;
/// bits `2·group` of `qh[32·half + l]` on top; minus 32; scale
/// `scales[i / 16]`), against dense activations.
#[test]
fn q6k_every_position_one_hot_weight() {
    let mut rng = Rng::new(800);
    let x = values(&mut rng, 1, 0);
    let ys = quantize_act::<BlockQ6K>(&x);
    for p in 0..QK_K {
        // Every value 32 (= 0) but the one at p: low nibbles 0, high bits 2.
        let mut b = BlockQ6K {
            ql: [0; 128],
            qh: [0xAA; 64],
            scales: std::array::from_fn(|_| rng.byte() as i8 | 1),
            d: f16::from_f32(0.25 + rng.unit()),
        };
        let q = loop {
            let q = rng.byte() & 63;
            if q != 32 {
                break q;
            }
        };
        let (half, group, l) = (p / 128, p % 128 / 32, p % 32);
        let at = 64 * half + l + 32 * (group & 1);
        b.ql[at] |= (q & 0xF) << if group >= 2 { 4 } else { 0 };
        let h = &mut b.qh[32 * half + l];
        *h = (*h & !(3 << (2 * group))) | ((q >> 4) << (2 * group));
        let mut w = vec![0f32; QK_K];
        BlockQ6K::dequantize(&[b], &mut w);
        let want_w = b.d.to_f32() * b.scales[p / 16] as f32 * (q as f32 - 32.0);
        assert_eq!(w[p], want_w, "position {p}: dequantized");
        for (i, &v) in w.iter().enumerate() {
            assert!(i == p || v == 0.0, "position {p}: value at {i} is {v}");
        }
        let a = ys[0].d * ys[0].qs[p] as f32;
        let tol = 8.0 * f32::EPSILON * (w[p] * a).abs();
        let got = [BlockQ6K::dot(&[b], &ys), BlockQ6K::dot_scalar(&[b], &ys)];
        check_one(got, w[p] * a, tol, &format!("Q6K one-hot weight {p}"));
    }
}

/// Q3_K blocks with a single nonzero value, written bit by bit from ggml's
/// layout (value `i`: `half = i / 128`, `shift = i % 128 / 32`,
/// `l = i % 32`; low bits `qs[32·half + l] >> 2·shift`, high bit
/// `hmask[l] >> (4·half + shift)`, stored value minus 4), against dense
/// activations.
#[test]
fn q3k_every_position_one_hot_weight() {
    let mut rng = Rng::new(600);
    let x = values(&mut rng, 1, 0);
    let ys = quantize_act::<BlockQ3K>(&x);
    for p in 0..QK_K {
        // Every value 4 (= 0) but the one at p.
        let mut b = BlockQ3K {
            hmask: [0xFF; 32],
            qs: [0; 64],
            scales: [0; 12],
            d: f16::from_f32(0.25 + rng.unit()),
        };
        let mut s: [u8; 16] = std::array::from_fn(|_| rng.byte() & 63);
        if s[p / 16] == 32 {
            s[p / 16] = 5;
        }
        b.scales = pack_q3k_scales(s);
        let q = [0u8, 1, 2, 3, 5, 6, 7][rng.below(7) as usize];
        let (half, shift, l) = (p / 128, p % 128 / 32, p % 32);
        b.qs[32 * half + l] |= (q & 3) << (2 * shift);
        if q & 4 == 0 {
            b.hmask[l] &= !(1 << (4 * half + shift));
        }
        let mut w = vec![0f32; QK_K];
        BlockQ3K::dequantize(&[b], &mut w);
        let want_w = b.d.to_f32() * (s[p / 16] as f32 - 32.0) * (q as f32 - 4.0);
        assert_eq!(w[p], want_w, "position {p}: dequantized");
        for (i, &v) in w.iter().enumerate() {
            assert!(i == p || v == 0.0, "position {p}: value at {i} is {v}");
        }
        let a = ys[0].d * ys[0].qs[p] as f32;
        let tol = 8.0 * f32::EPSILON * (w[p] * a).abs();
        let got = [BlockQ3K::dot(&[b], &ys), BlockQ3K::dot_scalar(&[b], &ys)];
        check_one(got, w[p] * a, tol, &format!("Q3K one-hot weight {p}"));
    }
}

/// Blocks of a Q4_K-like type (8 sub-blocks of 32, 6-bit scales and
/// mins packed as Q5_K's) with a single nonzero value (mins zero), at
/// every position, against dense activations. `block(d, dmin, scales, q,
/// p)` writes code `q` at `p` from ggml's layout; `value` reads it back.
fn scale_min_one_hot_weight<K: Kernel<Act = BlockQ8K>>(
    seed: u64,
    codes: u64,
    block: impl Fn(f16, f16, [u8; 12], u8, usize) -> K,
    value: impl Fn(&K, usize) -> u8,
    d: impl Fn(&K) -> f16,
) {
    let mut rng = Rng::new(seed);
    let x = values(&mut rng, 1, 0);
    let ys = quantize_act::<K>(&x);
    for p in 0..QK_K {
        let sc: [u8; 8] = std::array::from_fn(|_| 1 + rng.byte() % 63);
        let (d0, dmin) = (
            f16::from_f32(0.25 + rng.unit()),
            f16::from_f32(0.5 + rng.unit()),
        );
        let q = 1 + rng.below(codes) as u8;
        let b = block(d0, dmin, pack_q5k_scales(sc, [0; 8]), q, p);
        assert_eq!(value(&b, p), q);
        let mut w = vec![0f32; QK_K];
        K::dequantize(&[b], &mut w);
        let want_w = d(&b).to_f32() * sc[p / 32] as f32 * q as f32;
        assert_eq!(w[p], want_w, "position {p}: dequantized");
        for (i, &v) in w.iter().enumerate() {
            assert!(i == p || v == 0.0, "position {p}: value at {i} is {v}");
        }
        let a = ys[0].d * ys[0].qs[p] as f32;
        let tol = 8.0 * f32::EPSILON * (w[p] * a).abs();
        let got = [K::dot(&[b], &ys), K::dot_scalar(&[b], &ys)];
        check_one(
            got,
            w[p] * a,
            tol,
            &format!("{:?} one-hot weight {p}", K::DTYPE),
        );
    }
}

/// Q5_K (value `i`: `chunk = i / 64`, `hi = i % 64 / 32`, `l = i % 32`;
/// low 4 bits `qs[32·chunk + l] >> 4·hi`, high bit `qh[l] >> (2·chunk +
/// hi)`).
#[test]
fn q5k_every_position_one_hot_weight() {
    let block = |d, dmin, scales, q: u8, p: usize| {
        let mut b = BlockQ5K {
            d,
            dmin,
            scales,
            qh: [0; 32],
            qs: [0; 128],
        };
        let (chunk, hi, l) = (p / 64, p % 64 / 32, p % 32);
        b.qs[32 * chunk + l] |= (q & 0xF) << (4 * hi);
        b.qh[l] |= (q >> 4) << (2 * chunk + hi);
        b
    };
    scale_min_one_hot_weight(700, 31, block, q5k_value, |b| b.d);
}

/// Q4_K (`q4k_value`).
#[test]
fn q4k_every_position_one_hot_weight() {
    let block = |d, dmin, scales, q: u8, p: usize| {
        let mut b = BlockQ4K {
            d,
            dmin,
            scales,
            qs: [0; 128],
        };
        let (chunk, hi, l) = (p / 64, p % 64 / 32, p % 32);
        b.qs[32 * chunk + l] |= q << (4 * hi);
        b
    };
    scale_min_one_hot_weight(701, 15, block, q4k_value, |b| b.d);
}
