//! The legacy kernels (Q4_0, Q4_1, Q5_0, Q5_1 and their Q8_0 / Q8_1 activations)
//! against an exact f64 reference, their scalar code, and candle 0.11.1's
//! own quantisation, dequantisation and matmul.
//!
//! The same file runs natively, where `Kernel::dot` is the scalar code, and
//! in wasm with simd128 (`cargo test --target wasm32-unknown-unknown`, in
//! Node), where `dot` is the SIMD kernel.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{Device, Module, Tensor};
use half::f16;
use llm_worker::model::quant::activation::{BlockQ8_0, BlockQ8_1};
use llm_worker::model::quant::legacy::{BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1};
use llm_worker::model::quant::{Kernel, QK};

mod support;
use support::legacy::*;
use support::{quantize_act, Rng};

/// Case 1: `dot` (and `dot2`, and the unpacked rows' `dot_wide`) equal
/// `dot_scalar` to the bit, and that the exact f64 dot within 1e-5 of the
/// magnitude of the products summed.
///
/// Natively `dot` *is* `dot_scalar` and this compares it with itself (the
/// f64 check still counts); in wasm it is the SIMD kernel, which computes
/// four blocks' terms at once but adds them one block at a time, as ggml's
/// generic kernel (llama.cpp's wasm build) does. One misread element moves
/// the result by about 1/(32 * blocks) of it: 4e-3 or more.
fn kernel_matches_scalar<T: Case>(name: &str) {
    for seed in 0..8u64 {
        let mut rng = Rng::new(seed);
        for nb in 1..=8 {
            let kind = seed as usize;
            let acts = quantize_act::<T>(&floats(&mut rng, nb, kind));
            let weights = [
                random_blocks::<T>(&mut rng, nb, kind),
                candle_blocks::<T>(floats(&mut rng, nb, kind + 1)),
            ];
            for xs in &weights {
                let scalar = T::dot_scalar(xs, &acts);
                let kernel = T::dot(xs, &acts);
                // The unpacked rows batches use: the scalar kernel's value, to the bit.
                let wide: Vec<T::Wide> = xs.iter().map(|x| x.widen()).collect();
                let unpacked = T::dot_wide(&wide, &acts);
                assert_eq!(
                    unpacked.to_bits(),
                    scalar.to_bits(),
                    "{name} seed {seed} blocks {nb}: dot_wide {unpacked} vs dot_scalar {scalar}"
                );
                let (exact, mag) = reference(xs, &acts);
                let tol = 1e-5 * mag;
                let what = format!("{name} seed {seed} blocks {nb}");
                assert_eq!(
                    kernel.to_bits(),
                    scalar.to_bits(),
                    "{what}: dot {kernel} vs dot_scalar {scalar}"
                );
                let [a, b] = T::dot2(xs, xs, &acts);
                assert_eq!(
                    [a.to_bits(), b.to_bits()],
                    [scalar.to_bits(); 2],
                    "{what}: dot2 {a} {b} vs dot_scalar {scalar}"
                );
                close(
                    scalar,
                    exact as f32,
                    tol,
                    &format!("{what}: dot_scalar vs f64"),
                );
            }
        }
    }
}

#[test]
fn kernel_matches_scalar_q4_0() {
    kernel_matches_scalar::<BlockQ4_0>("Q4_0");
}

#[test]
fn kernel_matches_scalar_q4_1() {
    kernel_matches_scalar::<BlockQ4_1>("Q4_1");
}

#[test]
fn kernel_matches_scalar_q5_0() {
    kernel_matches_scalar::<BlockQ5_0>("Q5_0");
}

#[test]
fn kernel_matches_scalar_q5_1() {
    kernel_matches_scalar::<BlockQ5_1>("Q5_1");
}

#[test]
fn kernel_matches_scalar_q8_0() {
    kernel_matches_scalar::<BlockQ8_0>("Q8_0");
}

/// Case 2: weights quantised by candle, parsed with `read`: `dequantize`
/// equals candle's exactly, and `dot_scalar` and `dot` over our quantised
/// activations equal candle's `QMatMul` (the same arithmetic in candle's
/// scalar `vec_dot_unopt`, so any difference is summation order) within
/// 1e-4 relative plus 1e-5 of the magnitude (for results that cancel to
/// near zero), plus, for Q4_1 and Q5_1, what candle's rounding of the
/// activations' sums moves (case 3).
///
/// Rows are an even number of blocks: candle's scalar kernels for these
/// types `debug_assert!` that (ggml's unrolled-by-two legacy).
fn matches_candle<T: Case>(name: &str) {
    for seed in 0..4u64 {
        let mut rng = Rng::new(100 + seed);
        for nb in [2, 4, 6, 8] {
            let (rows, cols) = (5, nb * QK);
            let w = floats(&mut rng, rows * nb, seed as usize);
            let wt = Tensor::from_vec(w, (rows, cols), &Device::Cpu).unwrap();
            let q = QTensor::quantize(&wt, T::DTYPE).unwrap();
            let blocks = blocks_of::<T>(&q);
            assert_eq!(blocks.len(), rows * nb);

            let theirs = q.dequantize(&Device::Cpu).unwrap();
            let theirs = theirs.flatten_all().unwrap().to_vec1::<f32>().unwrap();
            let mut ours = vec![0f32; rows * cols];
            T::dequantize(&blocks, &mut ours);
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                assert_eq!(a, b, "{name} dequantize, seed {seed}, value {i}");
            }

            let x = floats(&mut rng, nb, seed as usize + 2);
            let acts = quantize_act::<T>(&x);
            let xt = Tensor::from_vec(x, (1, cols), &Device::Cpu).unwrap();
            let out = QMatMul::from_qtensor(q).unwrap().forward(&xt).unwrap();
            let out = out.flatten_all().unwrap().to_vec1::<f32>().unwrap();
            assert_eq!(out.len(), rows);
            // Our Q8_1 sums are ggml's, `f16(sum * d)`; candle's are
            // `f16(sum) * f16(d)` in f16. Where the weights have a minimum,
            // each block's `m * s` term moves by `m` times that difference.
            let candle_s: Vec<f32> = candle_bytes(
                &xt.flatten_all().unwrap().to_vec1().unwrap(),
                GgmlDType::Q8_1,
            )
            .chunks_exact(36)
            .map(|b| BlockQ8_1::read(b).s.to_f32())
            .collect();
            for (r, &c) in out.iter().enumerate() {
                let row = &blocks[r * nb..(r + 1) * nb];
                let (_, mag) = reference(row, &acts);
                let s_moved: f64 = (0..nb)
                    .map(|b| {
                        (row[b].dm().1 as f64 * (T::act(&acts[b]).1 - candle_s[b]) as f64).abs()
                    })
                    .sum();
                let tol = 1e-4 * c.abs() as f64 + 1e-5 * mag + 1.0001 * s_moved;
                let what = format!("{name} seed {seed} blocks {nb} row {r}");
                close(
                    T::dot_scalar(row, &acts),
                    c,
                    tol,
                    &format!("{what}: scalar"),
                );
                close(T::dot(row, &acts), c, tol, &format!("{what}: kernel"));
            }
        }
    }
}

#[test]
fn scalar_matches_candle_q4_0() {
    matches_candle::<BlockQ4_0>("Q4_0");
}

#[test]
fn scalar_matches_candle_q4_1() {
    matches_candle::<BlockQ4_1>("Q4_1");
}

#[test]
fn scalar_matches_candle_q5_0() {
    matches_candle::<BlockQ5_0>("Q5_0");
}

#[test]
fn scalar_matches_candle_q5_1() {
    matches_candle::<BlockQ5_1>("Q5_1");
}

#[test]
fn scalar_matches_candle_q8_0() {
    matches_candle::<BlockQ8_0>("Q8_0");
}

/// Candle's bytes for `xs` quantised to `dtype`.
fn candle_bytes(xs: &[f32], dtype: GgmlDType) -> Vec<u8> {
    let t = Tensor::from_vec(xs.to_vec(), xs.len(), &Device::Cpu).unwrap();
    QTensor::quantize(&t, dtype)
        .unwrap()
        .data()
        .unwrap()
        .into_owned()
}

/// Case 3: `quantize_act` gives candle's Q8_0 / Q8_1 bytes, field by field
/// (f16 fields compared by bits), but for Q8_1's `s`, which is ggml's.
#[test]
fn activations_match_candle() {
    for seed in 0..8u64 {
        let mut rng = Rng::new(200 + seed);
        for nb in 1..=8 {
            let x = floats(&mut rng, nb, seed as usize);
            let what = format!("seed {seed} blocks {nb}");

            let theirs: Vec<BlockQ8_0> = candle_bytes(&x, GgmlDType::Q8_0)
                .chunks_exact(34)
                .map(BlockQ8_0::read)
                .collect();
            let ours = quantize_act::<BlockQ5_0>(&x);
            assert_eq!(ours.len(), theirs.len());
            for (b, (a, c)) in ours.iter().zip(&theirs).enumerate() {
                assert_eq!(a.d.to_bits(), c.d.to_bits(), "Q8_0 d, {what}, block {b}");
                assert_eq!(a.qs, c.qs, "Q8_0 qs, {what}, block {b}");
            }

            let theirs: Vec<BlockQ8_1> = candle_bytes(&x, GgmlDType::Q8_1)
                .chunks_exact(36)
                .map(BlockQ8_1::read)
                .collect();
            for ours in [quantize_act::<BlockQ4_1>(&x), quantize_act::<BlockQ5_1>(&x)] {
                assert_eq!(ours.len(), theirs.len());
                for (b, (a, c)) in ours.iter().zip(&theirs).enumerate() {
                    assert_eq!(a.d.to_bits(), c.d.to_bits(), "Q8_1 d, {what}, block {b}");
                    assert_eq!(a.qs, c.qs, "Q8_1 qs, {what}, block {b}");
                    // `s` as ggml stores it (`quantize_row_q8_1`): the sum
                    // times the unrounded scale, rounded once to f16.
                    let block = &x[b * QK..(b + 1) * QK];
                    let d = block.iter().fold(0f32, |m, v| m.max(v.abs())) / 127.0;
                    let sum: i32 = c.qs.iter().map(|&q| q as i32).sum();
                    let want = f16::from_f32(sum as f32 * d);
                    assert_eq!(a.s.to_bits(), want.to_bits(), "Q8_1 s, {what}, block {b}");
                }
            }
        }
    }
}

/// Case 3b: the activations' rounding (`round_i8`, a truncation and its
/// exact remainder) is `f32::round(v) as i8` for every value tried: each
/// half and its neighbouring floats from -300 to 300, a million random
/// values, and the special ones (zeros, infinities, NaN, past i32).
#[test]
fn activation_rounding_is_round_as_i8() {
    use llm_worker::model::quant::activation::round_i8;
    let check = |v: f32| {
        assert_eq!(
            round_i8(v),
            f32::round(v) as i8,
            "{v:e} ({:#x})",
            v.to_bits()
        );
    };
    let step = |v: f32, n: i32| f32::from_bits((v.to_bits() as i32 + n) as u32);
    for k in -300..=300 {
        for base in [k as f32, k as f32 + 0.5] {
            for n in -3..=3 {
                if base != 0.0 {
                    check(step(base, n));
                }
            }
        }
    }
    let mut rng = Rng::new(7);
    for _ in 0..1_000_000 {
        check(rng.sym() * 300.0);
    }
    for v in [
        0.0,
        -0.0,
        0.49999997,
        -0.49999997,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        2147483648.0,
        -2147483648.0,
        3e9,
        -3e9,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
    ] {
        check(v);
    }
}

/// Case 4: the layout, element by element. In a row of five blocks (the
/// SIMD kernels take four together and the fifth alone), one element alone
/// is nonzero (the others hold the zero code, which for Q5_0 has bit 4 set,
/// and every block has a scale, so a misplaced nibble or `qh` bit shows);
/// `dequantize` must put its value at its index only, and the dot with
/// each one-hot activation must be that value times the activation at its
/// index, and exactly 0 at every other index.
fn one_hot<T: Case>(name: &str) {
    const NB: usize = 5;
    let n = NB * QK;
    // The activation 1.0 at each index, quantised: q = 127, d = f16(1/127).
    let acts: Vec<Vec<T::Act>> = (0..n)
        .map(|k| {
            let mut x = vec![0f32; n];
            x[k] = 1.0;
            quantize_act::<T>(&x)
        })
        .collect();
    // Codes with bit 4 clear and set (for the 5-bit types), and the extremes.
    let codes: &[u8] = if T::MAX_CODE == 31 {
        &[3, 21, 31, 0]
    } else {
        &[1, 9, 15, 0]
    };
    let d = 0.5;
    let mut deq = vec![0f32; n];
    for &code in codes.iter().filter(|&&c| c != T::ZERO_CODE) {
        let value = T::int(code) as f32 * d;
        for at in 0..n {
            let xs: Vec<T> = (0..NB)
                .map(|b| {
                    let mut c = [T::ZERO_CODE; QK];
                    if b == at / QK {
                        c[at % QK] = code;
                    }
                    T::pack(c, d, 0.0)
                })
                .collect();
            T::dequantize(&xs, &mut deq);
            for (i, &v) in deq.iter().enumerate() {
                let want = if i == at { value } else { 0.0 };
                assert_eq!(v, want, "{name} code {code} at {at}: dequantized [{i}]");
            }
            for (k, ys) in acts.iter().enumerate() {
                let what = format!("{name} code {code} at {at}, activation at {k}");
                let scalar = T::dot_scalar(&xs, ys);
                let kernel = T::dot(&xs, ys);
                if k == at {
                    let (yd, _, yq) = T::act(&ys[k / QK]);
                    let want = value * (yq[k % QK] as f32 * yd);
                    let tol = 1e-6 * want.abs() as f64;
                    close(scalar, want, tol, &format!("{what}: scalar"));
                    close(kernel, want, tol, &format!("{what}: kernel"));
                } else {
                    assert_eq!(scalar, 0.0, "{what}: scalar");
                    assert_eq!(kernel, 0.0, "{what}: kernel");
                }
            }
        }
    }
}

#[test]
fn one_hot_q4_0() {
    one_hot::<BlockQ4_0>("Q4_0");
}

#[test]
fn one_hot_q4_1() {
    one_hot::<BlockQ4_1>("Q4_1");
}

#[test]
fn one_hot_q5_0() {
    one_hot::<BlockQ5_0>("Q5_0");
}

#[test]
fn one_hot_q8_0() {
    one_hot::<BlockQ8_0>("Q8_0");
}

#[test]
fn one_hot_q5_1() {
    one_hot::<BlockQ5_1>("Q5_1");
}

/// `read` takes the fields at ggml's byte offsets, little-endian, and the
/// sizes are ggml's.
#[test]
fn read_layout() {
    assert_eq!(
        (
            BlockQ4_0::BYTES,
            BlockQ4_1::BYTES,
            BlockQ5_0::BYTES,
            BlockQ5_1::BYTES
        ),
        (18, 20, 22, 24)
    );
    assert_eq!(
        (
            BlockQ4_0::BLOCK,
            BlockQ4_1::BLOCK,
            BlockQ5_0::BLOCK,
            BlockQ5_1::BLOCK
        ),
        (32, 32, 32, 32)
    );
    let bytes: Vec<u8> = (1..=36).collect();
    let f = |i: usize| f16::from_bits(u16::from_le_bytes([bytes[i], bytes[i + 1]]));
    let arr = |i: usize| -> [u8; 16] { bytes[i..i + 16].try_into().unwrap() };
    let qh = |i: usize| -> [u8; 4] { bytes[i..i + 4].try_into().unwrap() };

    let b = BlockQ4_0::read(&bytes[..18]);
    assert_eq!(
        b,
        BlockQ4_0 {
            d: f(0),
            qs: arr(2)
        }
    );
    let b = BlockQ4_1::read(&bytes[..20]);
    assert_eq!(
        b,
        BlockQ4_1 {
            d: f(0),
            m: f(2),
            qs: arr(4)
        }
    );
    let b = BlockQ5_0::read(&bytes[..22]);
    assert_eq!(
        b,
        BlockQ5_0 {
            d: f(0),
            qh: qh(2),
            qs: arr(6)
        }
    );
    let b = BlockQ5_1::read(&bytes[..24]);
    assert_eq!(
        b,
        BlockQ5_1 {
            d: f(0),
            m: f(2),
            qh: qh(4),
            qs: arr(8)
        }
    );
    let b = BlockQ8_0::read(&bytes[..34]);
    assert_eq!((b.d, b.qs[0], b.qs[31]), (f(0), 3, 34));
    let b = BlockQ8_1::read(&bytes[..36]);
    assert_eq!((b.d, b.s, b.qs[0], b.qs[31]), (f(0), f(2), 5, 36));
}

/// In the simd128 build `dot` is the SIMD kernel: the public `simd` functions
/// give `dot`'s result bit for bit, match the scalar code, and honour `n`
/// (a prefix of the row).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[test]
fn simd_kernels_are_used() {
    use llm_worker::model::quant::legacy::simd;

    fn check<T: Case>(name: &str, simd_dot: fn(usize, &[T], &[T::Act]) -> f32) {
        for seed in 0..4u64 {
            let mut rng = Rng::new(300 + seed);
            for nb in 1..=8 {
                let xs = random_blocks::<T>(&mut rng, nb, seed as usize);
                let ys = quantize_act::<T>(&floats(&mut rng, nb, seed as usize));
                let v = simd_dot(nb * QK, &xs, &ys);
                assert_eq!(
                    v.to_bits(),
                    T::dot(&xs, &ys).to_bits(),
                    "{name}: dot is simd"
                );
                let (_, mag) = reference(&xs, &ys);
                close(v, T::dot_scalar(&xs, &ys), 1e-5 * mag, name);
                let k = nb / 2;
                let (_, mag) = reference(&xs[..k], &ys[..k]);
                let prefix = simd_dot(k * QK, &xs, &ys);
                close(prefix, T::dot_scalar(&xs[..k], &ys[..k]), 1e-5 * mag, name);
            }
        }
    }
    check::<BlockQ4_0>("Q4_0", simd::vec_dot_q4_0_q8_0);
    check::<BlockQ4_1>("Q4_1", simd::vec_dot_q4_1_q8_1);
    check::<BlockQ5_0>("Q5_0", simd::vec_dot_q5_0_q8_0);
    check::<BlockQ5_1>("Q5_1", simd::vec_dot_q5_1_q8_1);
}

/// The SIMD kernels' f16 conversion gives `f16::to_f32`'s value for every
/// f16 (NaN for NaN; its payload bits may differ).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[test]
fn simd_f16_conversion_is_exact() {
    use core::arch::wasm32::{f32x4_extract_lane, u32x4};
    use llm_worker::model::quant::simd::f16_to_f32x4;

    for base in (0..=0xFFFFu32).step_by(4) {
        let v = f16_to_f32x4(u32x4(base, base + 1, base + 2, base + 3));
        let got = [
            f32x4_extract_lane::<0>(v),
            f32x4_extract_lane::<1>(v),
            f32x4_extract_lane::<2>(v),
            f32x4_extract_lane::<3>(v),
        ];
        for (k, got) in got.into_iter().enumerate() {
            let bits = base + k as u32;
            let want = f16::from_bits(bits as u16).to_f32();
            if want.is_nan() {
                assert!(got.is_nan(), "f16 {bits:#06x}: {got}");
            } else {
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "f16 {bits:#06x}: {got} vs {want}"
                );
            }
        }
    }
}
