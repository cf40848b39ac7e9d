//! The attention kernel (`attention::attend`) against the plain formula in
//! f64: scores, causal mask, softmax, weighted values, with grouped query
//! heads, over batches, single tokens and the buffers' growth. Runs
//! natively and in wasm with simd128 (the SIMD dot product, exp and sums).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use llm_worker::attention::{attend, Kv};

/// Attention in f64 over all keys and values so far, laid out
/// (kv heads, positions, dim).
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
                        .map(|d| q[(j * seq + i) * dim + d] as f64 * k[p * dim + d] as f64)
                        .sum();
                    d / (dim as f64).sqrt()
                })
                .collect();
            let max = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = s.iter().map(|x| (x - max).exp()).collect();
            let sum: f64 = e.iter().sum();
            for d in 0..dim {
                let x: f64 = (0..t).map(|p| e[p] * v[p * dim + d] as f64).sum();
                out[(i * heads + j) * dim + d] = (x / sum) as f32;
            }
        }
    }
    out
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

fn run(heads: usize, kvh: usize, dim: usize, batches: &[usize], scale: f32) {
    let mut kv = Kv::default();
    let mut keys = vec![Vec::new(); kvh];
    let mut values = vec![Vec::new(); kvh];
    for (step, &seq) in batches.iter().enumerate() {
        let k = noise(kvh * seq * dim, 11 + step as u32, scale);
        let v = noise(kvh * seq * dim, 23 + step as u32, 1.0);
        kv.append(kvh, dim, seq, &k, &v);
        for g in 0..kvh {
            keys[g].extend_from_slice(&k[g * seq * dim..(g + 1) * seq * dim]);
            values[g].extend_from_slice(&v[g * seq * dim..(g + 1) * seq * dim]);
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
            worst < 2e-5,
            "{heads}/{kvh} heads of {dim}, batch {step} of {seq}: off by {worst}"
        );
    }
    assert_eq!(kv.len(), batches.iter().sum::<usize>());
}

#[test]
fn attends_like_the_plain_formula() {
    // Grouped heads (3 queries per key), a batch, single tokens, then a
    // batch across the buffers' growth (256 positions).
    run(6, 2, 64, &[3, 1, 1, 300, 1], 1.0);
    // One query per key; a width that is no multiple of 16.
    run(4, 4, 20, &[5, 1, 260], 1.0);
    // Sharp scores: the softmax's exponent spans a wide range.
    run(2, 1, 64, &[40, 1], 4.0);
}

#[test]
fn one_position_attends_to_itself() {
    let mut kv = Kv::default();
    kv.append(1, 4, 1, &[1.0, 2.0, 3.0, 4.0], &[0.5, -1.0, 2.0, 7.0]);
    let mut out = [0f32; 4];
    attend(&[9.0, -3.0, 0.1, 2.0], 1, 1, &kv, &mut out);
    assert_eq!(out, [0.5, -1.0, 2.0, 7.0]);
}
