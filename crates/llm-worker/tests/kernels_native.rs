//! Native products (`quant::native`): rows split over threads and, on a
//! CPU with AVX2 and F16C, the AVX2 kernels. Every element of a product is
//! the scalar kernel's value to the bit, for every type, for a few tokens
//! and a batch, with the rows split over threads and not. Native only (in
//! wasm the simd128 kernels have tests of their own).
#![cfg(not(target_arch = "wasm32"))]

use llm_worker::model::quant::activation::{BlockQ8K, BlockQ8_0};
use llm_worker::model::quant::kquants::{BlockQ2K, BlockQ3K, BlockQ4K, BlockQ5K, BlockQ6K};
use llm_worker::model::quant::legacy::{BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1};
use llm_worker::model::quant::native;
use llm_worker::model::quant::packed::matmul;
use llm_worker::model::quant::{Kernel, QK_K};

mod support;
use support::kquants::{raw_q2k, raw_q3k, raw_q4k, raw_q5k, raw_q6k, values};
use support::legacy::{floats, random_blocks, Case};
use support::{quantize_act, Rng};

/// Three threads (the caller and two in the pool), whatever the machine
/// has, so that the split is exercised on any CI runner.
fn three_threads() {
    assert_eq!(native::set_threads(3), 3, "the pool was set elsewhere");
}

/// `matmul` of `rows` (`n` rows of `kb` blocks) with `m` tokens of `lhs`
/// against the scalar kernel, element by element, to the bit.
fn check<K: Kernel>(name: &str, rows: &[K], (m, n, kb): (usize, usize, usize), lhs: &[f32]) {
    let k = kb * K::BLOCK;
    let mut dst = vec![f32::NAN; m * n];
    matmul((m, k, n), lhs, rows, &mut dst).expect("matmul");
    for i in 0..m {
        let acts = quantize_act::<K>(&lhs[i * k..(i + 1) * k]);
        for j in 0..n {
            let want = K::dot_scalar(&rows[j * kb..(j + 1) * kb], &acts);
            assert_eq!(
                dst[i * n + j].to_bits(),
                want.to_bits(),
                "{name} on {} kernels: {m} tokens, element ({i}, {j}): {} vs {want}",
                native::kernels(),
                dst[i * n + j]
            );
        }
    }
}

/// 1 to 9 tokens (a few, a batch of four and its remainder) over a matrix
/// small enough to run on one thread and one split over three.
fn legacy<T: Case>(name: &str) {
    three_threads();
    let mut rng = Rng::new(91);
    // 401 × 23 blocks: split from 4 tokens on (`native::SPLIT_FROM`).
    for (n, kb) in [(5, 7), (401, 23)] {
        let rows: Vec<T> = (0..n)
            .flat_map(|r| random_blocks::<T>(&mut rng, kb, r))
            .collect();
        for m in [1, 2, 3, 4, 9] {
            let lhs: Vec<f32> = (0..m).flat_map(|t| floats(&mut rng, kb, t)).collect();
            check(name, &rows, (m, n, kb), &lhs);
        }
    }
}

fn kquant<K: Kernel<Act = BlockQ8K>>(name: &str, raw: fn(&mut Rng) -> K) {
    three_threads();
    let mut rng = Rng::new(17);
    // 701 × 3 blocks: split at 17 tokens (`native::SPLIT_FROM`).
    for (n, kb) in [(3, 2), (701, 3)] {
        let rows: Vec<K> = (0..n * kb).map(|_| raw(&mut rng)).collect();
        for m in [1, 3, 4, 17] {
            let lhs = values(&mut rng, m * kb, 1);
            assert_eq!(lhs.len(), m * kb * QK_K);
            check(name, &rows, (m, n, kb), &lhs);
        }
    }
}

#[test]
fn native_products_q4_0() {
    legacy::<BlockQ4_0>("Q4_0");
}

#[test]
fn native_products_q4_1() {
    legacy::<BlockQ4_1>("Q4_1");
}

#[test]
fn native_products_q5_0() {
    legacy::<BlockQ5_0>("Q5_0");
}

#[test]
fn native_products_q5_1() {
    legacy::<BlockQ5_1>("Q5_1");
}

#[test]
fn native_products_q8_0() {
    legacy::<BlockQ8_0>("Q8_0");
}

#[test]
fn native_products_q2k() {
    kquant::<BlockQ2K>("Q2_K", raw_q2k);
}

#[test]
fn native_products_q3k() {
    kquant::<BlockQ3K>("Q3_K", raw_q3k);
}

#[test]
fn native_products_q4k() {
    kquant::<BlockQ4K>("Q4_K", raw_q4k);
}

#[test]
fn native_products_q5k() {
    kquant::<BlockQ5K>("Q5_K", raw_q5k);
}

#[test]
fn native_products_q6k() {
    kquant::<BlockQ6K>("Q6_K", raw_q6k);
}

/// The thread count is the first one set; a later call reports it.
#[test]
fn the_first_thread_count_stays() {
    three_threads();
    assert_eq!(native::set_threads(1), 3);
    assert_eq!(native::threads(), 3);
}

/// Attention's heads shared out over three threads give each head's values
/// to the bit, on every path: a prompt read in batches (tiled, 512 and
/// then 190 rows), a few tokens key by key, and a token written over
/// 1,200 keys (split in halves).
#[test]
fn attention_heads_split_over_threads_keep_their_bits() {
    use llm_worker::model::attention::{attend, attend_unsplit};
    three_threads();
    grown(Rng::new(7), &[702, 5, 1, 500, 1], 1.0, |q, seq, kv| {
        let (mut split, mut alone) = (vec![0f32; q.len()], vec![1f32; q.len()]);
        attend(q, HEADS, seq, kv, &mut split);
        attend_unsplit(q, HEADS, seq, kv, &mut alone);
        let bits = |x: &[f32]| x.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert!(
            bits(&split) == bits(&alone),
            "{seq} tokens after {} keys",
            kv.len() - seq
        );
    });
}

/// Query heads, key heads and head size of the attention tests (a 135M
/// model's).
const HEADS: usize = 9;

/// A conversation's keys and values grown by `steps` tokens at a time
/// (random, within ±`range`), `check` told each step's random queries,
/// its token count and the cache.
fn grown(
    mut rng: Rng,
    steps: &[usize],
    range: f32,
    mut check: impl FnMut(&[f32], usize, &llm_worker::model::attention::Kv),
) {
    let (kvh, dim) = (3, 64);
    let mut kv = llm_worker::model::attention::Kv::default();
    for &seq in steps {
        let n = seq * kvh * dim;
        let k: Vec<f32> = (0..n).map(|_| (rng.unit() * 2.0 - 1.0) * range).collect();
        let v: Vec<f32> = (0..n).map(|_| (rng.unit() * 2.0 - 1.0) * range).collect();
        kv.append(kvh, dim, seq, &k, &v);
        let q: Vec<f32> = (0..seq * HEADS * dim)
            .map(|_| rng.unit() * 2.0 - 1.0)
            .collect();
        check(&q, seq, &kv);
    }
}

/// Attention's native loops (`attention::Native`: SSE sums, AVX and F16C
/// rounding to f16 where the CPU has them) against `Scalar`, to the bit:
/// each loop on random values and on f16's edges (subnormals, ties,
/// overflow, signed zero; lengths that leave a tail), then whole heads on
/// every path (tiled, key by key, split).
#[cfg(target_arch = "x86_64")]
#[test]
fn native_attention_loops_are_the_scalar_ones_to_the_bit() {
    use llm_worker::model::attention::{attend_with, Lanes, Native, Scalar, TILE};
    let bits = |x: &[f32]| x.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    let mut rng = Rng::new(11);
    let edges = [
        0.0f32,
        -0.0,
        1e-8,
        -3e-8,
        6.0e-8,
        5.96e-8,
        6.1e-5,
        -6.1035e-5,
        1.0 + 1.0 / 2048.0,
        1.0 + 3.0 / 2048.0,
        65504.0,
        65519.0,
        65520.0,
        -65535.0,
        1e6,
        0.333_333_34,
    ];
    for len in [1usize, 7, 8, 15, 16, 17, 64, 100, 128, 136] {
        for round in 0..40 {
            let mut draw = |i: usize| {
                if round % 4 == 0 {
                    edges[(i + round) % edges.len()]
                } else {
                    (rng.unit() * 2.0 - 1.0) * [1.0, 1e-4, 300.0][round % 3]
                }
            };
            let x: Vec<f32> = (0..len).map(&mut draw).collect();
            let y: Vec<f32> = (0..len).map(|i| draw(i + 3)).collect();
            let s = [0.5f32, 1.7, 1e-3, 40.0][round % 4];
            assert_eq!(
                Native::dot(&x, &y).to_bits(),
                Scalar::dot(&x, &y).to_bits(),
                "dot, {len}"
            );
            let (mut a, mut b) = (x.clone(), x.clone());
            Native::scale_f16(&mut a, s);
            Scalar::scale_f16(&mut b, s);
            assert_eq!(bits(&a), bits(&b), "scale_f16, {len}, {x:?} · {s}");
            let (mut a, mut b) = (x.clone(), x.clone());
            Native::mad_f16(&mut a, &y, s);
            Scalar::mad_f16(&mut b, &y, s);
            assert_eq!(bits(&a), bits(&b), "mad_f16, {len}, {x:?} + {y:?} · {s}");
            // A tile's scores and weighed values (the tiled path's loops),
            // with `len` as the head's size.
            let tile: Vec<f32> = (0..len * TILE).map(&mut draw).collect();
            let p: [f32; TILE] = std::array::from_fn(|i| draw(i + 5));
            let (mut a, mut b) = ([f32::NAN; TILE], [1f32; TILE]);
            Native::scores(&x, &tile, &mut a);
            Scalar::scores(&x, &tile, &mut b);
            assert_eq!(bits(&a), bits(&b), "scores, {len}");
            let (mut a, mut b) = (y.clone(), y.clone());
            Native::weigh(&mut a, &p, &tile);
            Scalar::weigh(&mut b, &p, &tile);
            assert_eq!(bits(&a), bits(&b), "weigh, {len}");
        }
    }
    // Widening f16 bits: every pattern, lengths that leave a tail.
    let all: Vec<u16> = (0..=u16::MAX).collect();
    for len in [all.len(), all.len() - 5, 7] {
        let (mut a, mut b) = (vec![0f32; len], vec![1f32; len]);
        Native::widen(&all[..len], &mut a);
        Scalar::widen(&all[..len], &mut b);
        for (h, (a, b)) in all.iter().zip(a.iter().zip(&b)) {
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "widen {h:#06x}: {a:e} vs {b:e}"
            );
        }
    }
    grown(rng, &[70, 3, 1, 600, 1], 2.0, |q, seq, kv| {
        let (mut native, mut scalar) = (vec![0f32; q.len()], vec![1f32; q.len()]);
        attend_with::<Native>(q, HEADS, seq, kv, &mut native);
        attend_with::<Scalar>(q, HEADS, seq, kv, &mut scalar);
        assert!(
            bits(&native) == bits(&scalar),
            "{seq} tokens after {} keys",
            kv.len() - seq
        );
    });
}

/// The AVX2 products of signed weights (`legacy/avx2.rs`) take |w| times
/// the activation with w's sign, which holds only for activations in
/// -127..=127: Q8_0's (and Q8_1's) rounding of `x / (max|x| / 127)` never
/// gives -128, whatever the values (a block's largest of either sign, ties,
/// tiny and huge scales, infinities, NaN).
#[test]
fn q8_activations_never_reach_minus_128() {
    let mut rng = Rng::new(5);
    let specials = [
        f32::MAX,
        -f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-38,
        -1e-38,
    ];
    for round in 0..20_000 {
        let scale = rng.pow10(-30.0, 30.0);
        let mut xs: Vec<f32> = (0..32).map(|_| rng.sym() * scale).collect();
        // The largest magnitude negative, and values just at the rounding edge.
        xs[round % 32] = -scale;
        xs[(round + 7) % 32] = -scale * (126.5 / 127.0);
        if round % 50 == 0 {
            xs[(round / 50) % 32] = specials[(round / 50) % specials.len()];
        }
        for act in [
            quantize_act::<BlockQ8_0>(&xs)[0].qs,
            quantize_act::<BlockQ4_1>(&xs)[0].qs,
        ] {
            assert!(act.iter().all(|&q| q != -128), "{xs:?} gave {act:?}");
        }
    }
}
