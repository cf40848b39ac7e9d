//! The attention kernel (`attention::attend`) against the plain formula in
//! f64 over the keys and values rounded to f16 (as llama.cpp hands them to
//! its flash attention): scores, causal mask, softmax, weighted values,
//! with grouped query heads, over batches, single tokens and the buffers'
//! growth, through each of llama.cpp's three paths (key by key, tiled for
//! batches of 64 or more, split in halves past 256 positions). Each path
//! rounds in its own way, which `tests/llama_cpp_reference.rs` checks
//! against llama.cpp itself; here, that each computes attention. Runs
//! natively and in wasm.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use llm_worker::model::attention::{attend, Kv};

/// Attention in f64 over all keys and values so far, laid out
/// (kv heads, positions, dim), rounded to f16; `q` and the result are
/// (seq, heads, dim).
fn reference(
    q: &[f32],
    heads: usize,
    seq: usize,
    keys: &[Vec<f32>],
    values: &[Vec<f32>],
    dim: usize,
) -> Vec<f32> {
    let rep = heads / keys.len();
    let len = keys[0].len() / dim;
    let past = len - seq;
    let mut out = vec![0f32; seq * heads * dim];
    for j in 0..heads {
        let (k, v) = (&keys[j / rep], &values[j / rep]);
        for i in 0..seq {
            let t = past + i + 1;
            let s: Vec<f64> = (0..t)
                .map(|p| {
                    let d: f64 = (0..dim)
                        .map(|d| q[(i * heads + j) * dim + d] as f64 * f16r(k[p * dim + d]))
                        .sum();
                    d / (dim as f64).sqrt()
                })
                .collect();
            let max = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = s.iter().map(|x| (x - max).exp()).collect();
            let sum: f64 = e.iter().sum();
            for d in 0..dim {
                let x: f64 = (0..t).map(|p| e[p] * f16r(v[p * dim + d])).sum();
                out[(i * heads + j) * dim + d] = (x / sum) as f32;
            }
        }
    }
    out
}

fn f16r(x: f32) -> f64 {
    half::f16::from_f32(x).to_f64()
}

fn noise(n: usize, seed: u32, scale: f32) -> Vec<f32> {
    let mut x = seed.max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            ((x % 2001) as f32 / 1000.0 - 1.0) * scale
        })
        .collect()
}

/// `tol`: the key-by-key path sums the weighted values in f16 (about
/// 2^-11 of the largest value); the tiled one in f32.
fn run(heads: usize, kvh: usize, dim: usize, batches: &[usize], scale: f32, tol: f32) {
    let mut kv = Kv::default();
    let mut keys = vec![Vec::new(); kvh];
    let mut values = vec![Vec::new(); kvh];
    for (step, &seq) in batches.iter().enumerate() {
        let k = noise(kvh * seq * dim, 11 + step as u32, scale);
        let v = noise(kvh * seq * dim, 23 + step as u32, 1.0);
        kv.append(kvh, dim, seq, &k, &v);
        for t in 0..seq {
            for g in 0..kvh {
                keys[g].extend_from_slice(&k[(t * kvh + g) * dim..][..dim]);
                values[g].extend_from_slice(&v[(t * kvh + g) * dim..][..dim]);
            }
        }
        let q = noise(heads * seq * dim, 37 + step as u32, scale);
        let mut out = vec![f32::NAN; seq * heads * dim];
        attend(&q, heads, seq, &kv, &mut out);
        let want = reference(&q, heads, seq, &keys, &values, dim);
        let worst = out
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        assert!(
            worst < tol,
            "{heads}/{kvh} heads of {dim}, batch {step} of {seq}: off by {worst}"
        );
    }
    assert_eq!(kv.len(), batches.iter().sum::<usize>());
}

#[test]
fn attends_like_the_plain_formula() {
    // Grouped heads (3 queries per key), a batch, single tokens (key by
    // key), then a batch across the buffers' growth (tiled), then single
    // tokens past 256 positions (split in halves).
    run(6, 2, 64, &[3, 1, 1, 300, 1, 1], 1.0, 2e-3);
    // One query per key; a width that is no multiple of 16.
    run(4, 4, 20, &[5, 1, 260, 1], 1.0, 2e-3);
    // Sharp scores: the softmax's exponent spans a wide range.
    run(2, 1, 64, &[40, 1], 4.0, 2e-3);
    // Tiled only (a batch of 64 and more, over several tiles): f32 sums.
    run(3, 1, 64, &[70, 130], 1.0, 2e-5);
    // A prompt over one batch of llama.cpp's (512): the rest, 88 rows,
    // tiled too; then 40 rows key by key.
    run(2, 1, 32, &[600, 40], 1.0, 2e-3);
}

/// The paths round differently: the key-by-key path's f16 sums are
/// coarser than the tiled path's f32 ones, on the same keys and values.
#[test]
fn batches_of_64_take_the_f32_path() {
    let (dim, n) = (64, 64);
    let k = noise(n * dim, 5, 1.0);
    let v = noise(n * dim, 7, 1.0);
    let q = noise(n * dim, 9, 1.0);
    let err = |rows: usize| {
        let mut kv = Kv::default();
        kv.append(
            1,
            dim,
            n - rows,
            &k[..(n - rows) * dim],
            &v[..(n - rows) * dim],
        );
        kv.append(1, dim, rows, &k[(n - rows) * dim..], &v[(n - rows) * dim..]);
        let mut out = vec![0f32; rows * dim];
        let qs = &q[(n - rows) * dim..];
        attend(qs, 1, rows, &kv, &mut out);
        let want = reference(
            qs,
            1,
            rows,
            std::slice::from_ref(&k),
            std::slice::from_ref(&v),
            dim,
        );
        out.iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max)
    };
    // The last row is the same query over the same 64 keys either way.
    let (tiled, keyed) = (err(64), err(63));
    assert!(tiled < 1e-5, "tiled: off by {tiled}");
    assert!(
        keyed > 1e-4,
        "key by key: off by only {keyed} (f16 sums expected)"
    );
}

#[test]
fn one_position_attends_to_itself() {
    let mut kv = Kv::default();
    kv.append(1, 4, 1, &[1.0, 2.0, 3.0, 4.0], &[0.5, -1.0, 2.0, 7.0]);
    let mut out = [0f32; 4];
    attend(&[9.0, -3.0, 0.1, 2.0], 1, 1, &kv, &mut out);
    assert_eq!(out, [0.5, -1.0, 2.0, 7.0]);
}

/// `round_f16` is rounding to f16 and back (`half`'s conversion), over a
/// spread of every f32 bit pattern: normals, f16's subnormals, the
/// overflow edge, zeros, infinities.
#[test]
fn rounds_to_f16_as_a_conversion_does() {
    use llm_worker::model::attention::round_f16;
    let step = if cfg!(debug_assertions) { 4099 } else { 1 };
    let same = |x: f32| {
        let (ours, theirs) = (round_f16(x), half::f16::from_f32(x).to_f32());
        // Zero's sign aside (llama.cpp's sums never tell them apart).
        assert!(
            ours.to_bits() == theirs.to_bits() || (ours == 0.0 && theirs == 0.0),
            "{x:e} ({:#x}): {ours:e}, a conversion gives {theirs:e}",
            x.to_bits()
        );
    };
    // The overflow edge, f16's smallest normal and subnormal, their
    // neighbours, with both signs.
    for b in [
        0x4780_0000u32,
        0x477f_f000,
        0x477f_efff,
        0x3880_0000,
        0x387f_ffff,
        0x3300_0000,
        0x3300_0001,
        0x32ff_ffff,
    ] {
        same(f32::from_bits(b));
        same(f32::from_bits(b | 0x8000_0000));
    }
    let mut b = 0u32;
    loop {
        let x = f32::from_bits(b);
        if !x.is_nan() {
            same(x);
        }
        match b.checked_add(step) {
            Some(n) => b = n,
            None => break,
        }
    }
}

/// In wasm, the SIMD inner loops give the plain ones' bits, alone and in
/// whole attentions down each path.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[test]
fn simd_loops_give_the_plain_ones_bits() {
    use llm_worker::model::attention::{attend_with, Lanes, Scalar, Simd};
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for (seed, n) in [(1u32, 64usize), (2, 20), (3, 80), (4, 7)] {
        let x = noise(n, seed, 3.0);
        let y = noise(n, seed + 10, 3.0);
        assert_eq!(
            Simd::dot(&x, &y).to_bits(),
            Scalar::dot(&x, &y).to_bits(),
            "dot {n}"
        );
        // Sums that land on f16's subnormals, its normals and past its range.
        for s in [1e-6f32, 0.3, 1.0, 3e4] {
            let (mut a, mut b) = (x.clone(), x.clone());
            Simd::mad_f16(&mut a, &y, s);
            Scalar::mad_f16(&mut b, &y, s);
            assert_eq!(bits(&a), bits(&b), "mad {n} {s}");
            Simd::scale_f16(&mut a, s);
            Scalar::scale_f16(&mut b, s);
            assert_eq!(bits(&a), bits(&b), "scale {n} {s}");
        }
    }
    // Rounding to f16 over a spread of every bit pattern (x + 0·0 is x,
    // but for -0, which both make +0).
    let xs: Vec<f32> = (0..=u32::MAX / 4099)
        .map(|i| f32::from_bits(i * 4099))
        .collect();
    let zeros = vec![0f32; xs.len()];
    let (mut a, mut b) = (xs.clone(), xs.clone());
    Simd::mad_f16(&mut a, &zeros, 0.0);
    Scalar::mad_f16(&mut b, &zeros, 0.0);
    for ((x, a), b) in xs.iter().zip(&a).zip(&b) {
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "f16 rounding of {x:e}: {a:e} vs {b:e}"
        );
    }
    let q = noise(64, 5, 1.0);
    let kt = noise(64 * 64, 6, 1.0);
    let (mut a, mut b) = ([0f32; 64], [0f32; 64]);
    Simd::scores(&q, &kt, &mut a);
    Scalar::scores(&q, &kt, &mut b);
    assert_eq!(bits(&a), bits(&b), "scores");
    let v = noise(64 * 20, 8, 1.0);
    let (mut a, mut b) = (noise(20, 9, 1.0), noise(20, 9, 1.0));
    Simd::weigh(&mut a, &[0.25; 64], &v);
    Scalar::weigh(&mut b, &[0.25; 64], &v);
    assert_eq!(bits(&a), bits(&b), "weigh");

    // Key by key, tiled, then split in halves.
    let (heads, kvh, dim) = (4, 2, 64);
    let mut kv = Kv::default();
    for (step, seq) in [5usize, 1, 200, 1, 330, 1].into_iter().enumerate() {
        let k = noise(kvh * seq * dim, 11 + step as u32, 1.0);
        let v = noise(kvh * seq * dim, 23 + step as u32, 1.0);
        kv.append(kvh, dim, seq, &k, &v);
        let q = noise(heads * seq * dim, 37 + step as u32, 1.0);
        let (mut a, mut b) = (vec![0f32; q.len()], vec![0f32; q.len()]);
        attend_with::<Simd>(&q, heads, seq, &kv, &mut a);
        attend_with::<Scalar>(&q, heads, seq, &kv, &mut b);
        assert_eq!(bits(&a), bits(&b), "attention, batch {step} of {seq}");
    }
}

/// Widening f16 bits to f32 (`widen_f16`, and each build's `Lanes::widen`)
/// is exact: every one of the 65,536 patterns gives `half`'s value, and
/// `f16_bits` of that value gives the bits back (NaNs aside: any NaN is one).
#[test]
fn widens_every_f16_exactly() {
    use llm_worker::model::attention::{f16_bits, widen_f16, Lanes, Scalar};
    let all: Vec<u16> = (0..=u16::MAX).collect();
    let mut wide = vec![0f32; all.len()];
    Scalar::widen(&all, &mut wide);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let fast = {
        let mut w = vec![0f32; all.len()];
        // An odd length, so the tail is widened too.
        llm_worker::model::attention::Simd::widen(&all[..all.len() - 3], &mut w);
        w[all.len() - 3..].copy_from_slice(&wide[all.len() - 3..]);
        w
    };
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let fast = wide.clone();
    for ((&h, &w), &f) in all.iter().zip(&wide).zip(&fast) {
        let theirs = half::f16::from_bits(h).to_f32();
        for (ours, name) in [(widen_f16(h), "widen_f16"), (w, "Scalar"), (f, "fast")] {
            assert!(
                ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()),
                "{name}: {h:#06x} gave {ours:e}, it is {theirs:e}"
            );
        }
        if !theirs.is_nan() && h != 0x8000 {
            assert_eq!(f16_bits(theirs), h, "{theirs:e} back to bits");
        }
    }
    // -0 is stored as +0, as round_f16 makes it.
    assert_eq!(f16_bits(-0.0), 0);
}
