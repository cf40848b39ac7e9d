//! Products over a batch of tokens (`quant::packed::matmul`): from
//! `Kernel::WIDEN_FROM` tokens on, each weight row is unpacked once and
//! multiplied as bytes; below, the packed kernels run. Either way each
//! element is the scalar kernel's value. Runs natively and in wasm with
//! simd128.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use llm_worker::model::quant::activation::BlockQ8K;
use llm_worker::model::quant::kquants::{BlockQ2K, BlockQ3K, BlockQ4K, BlockQ5K, BlockQ6K};
use llm_worker::model::quant::legacy::{BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1};
use llm_worker::model::quant::{Kernel, QK_K};

mod support;
use support::kquants::{raw_q2k, raw_q3k, raw_q4k, raw_q5k, raw_q6k, values};
use support::legacy::{close, floats, random_blocks, Case};
use support::{quantize_act, Rng};

/// A product over a batch (unpacked rows) and over a few tokens (packed
/// rows, two at a time, an odd last one alone) give each element the
/// scalar kernel's value; over a few tokens, `dot`'s value to the bit
/// (the rows read in pairs share the activations' loads, not their sums).
/// Seven blocks a row: four at a time, then three one by one.
fn legacy_batch<T: Case>(name: &str) {
    let mut rng = Rng::new(77);
    let (kb, n) = (7, 5);
    let k = kb * 32;
    let rows: Vec<T> = (0..n)
        .flat_map(|_| random_blocks::<T>(&mut rng, kb, 0))
        .collect();
    for m in [1, 2, T::WIDEN_FROM, 9] {
        let lhs: Vec<f32> = (0..m).flat_map(|_| floats(&mut rng, kb, 1)).collect();
        let mut dst = vec![f32::NAN; m * n];
        llm_worker::model::quant::packed::matmul((m, k, n), &lhs, &rows, &mut dst).expect("matmul");
        for i in 0..m {
            let acts = quantize_act::<T>(&lhs[i * k..(i + 1) * k]);
            for j in 0..n {
                let row = &rows[j * kb..(j + 1) * kb];
                let want = T::dot_scalar(row, &acts);
                let tol = 1e-5 * want.abs().max(1.0) as f64;
                let what = format!("{name}: {m} tokens, element ({i}, {j})");
                close(dst[i * n + j], want, tol, &what);
                if m >= T::WIDEN_FROM {
                    // Unpacked rows, four tokens at a time and the rest
                    // one by one: the scalar kernel's value to the bit.
                    assert_eq!(dst[i * n + j].to_bits(), want.to_bits(), "{what}");
                } else {
                    assert_eq!(
                        dst[i * n + j].to_bits(),
                        T::dot(row, &acts).to_bits(),
                        "{what}"
                    );
                }
            }
        }
    }
}

#[test]
fn batch_products_q4_0() {
    legacy_batch::<BlockQ4_0>("Q4_0");
}

#[test]
fn batch_products_q4_1() {
    legacy_batch::<BlockQ4_1>("Q4_1");
}

#[test]
fn batch_products_q5_0() {
    legacy_batch::<BlockQ5_0>("Q5_0");
}

#[test]
fn batch_products_q5_1() {
    legacy_batch::<BlockQ5_1>("Q5_1");
}

/// A product over a batch (rows unpacked once) and over a few tokens
/// (packed rows, in pairs and an odd last one) give each element the
/// scalar kernel's value; over a few tokens, `dot`'s to the bit.
fn k_batch<K: Kernel<Act = BlockQ8K>>(raw: fn(&mut Rng) -> K) {
    let mut rng = Rng::new(5);
    let (kb, n) = (2, 3);
    let rows: Vec<K> = (0..kb * n).map(|_| raw(&mut rng)).collect();
    for m in [1, 2, K::WIDEN_FROM, 21] {
        let lhs = values(&mut rng, m * kb, 2);
        let mut dst = vec![f32::NAN; m * n];
        llm_worker::model::quant::packed::matmul((m, kb * QK_K, n), &lhs, &rows, &mut dst)
            .expect("matmul");
        for i in 0..m {
            let ys = quantize_act::<K>(&lhs[i * kb * QK_K..(i + 1) * kb * QK_K]);
            for j in 0..n {
                let row = &rows[j * kb..(j + 1) * kb];
                let want = K::dot_scalar(row, &ys);
                let got = dst[i * n + j];
                if m >= K::WIDEN_FROM {
                    // Unpacked rows: the scalar kernel's value to the bit.
                    assert_eq!(got.to_bits(), want.to_bits(), "{m} tokens, ({i}, {j})");
                } else {
                    // Rows read in pairs: `dot`'s value to the bit.
                    assert_eq!(
                        got.to_bits(),
                        K::dot(row, &ys).to_bits(),
                        "{:?} ({i}, {j})",
                        K::DTYPE
                    );
                }
                let tol = 1e-5 * want.abs().max(1.0);
                assert!(
                    (got - want).abs() <= tol,
                    "{m} tokens, ({i}, {j}): {got} vs {want}"
                );
            }
        }
    }
}

#[test]
fn q2k_batch_products() {
    k_batch::<BlockQ2K>(raw_q2k);
}

#[test]
fn q3k_batch_products() {
    k_batch::<BlockQ3K>(raw_q3k);
}

#[test]
fn q4k_batch_products() {
    k_batch::<BlockQ4K>(raw_q4k);
}

#[test]
fn q5k_batch_products() {
    k_batch::<BlockQ5K>(raw_q5k);
}

#[test]
fn q6k_batch_products() {
    k_batch::<BlockQ6K>(raw_q6k);
}
