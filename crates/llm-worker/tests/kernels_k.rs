//! The K-quant kernels (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K against Q8_K): SIMD against scalar,
//! scalar against candle 0.11.1, and every value position one at a time.
//! Runs natively and in wasm (Node, simd128).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{Device, Module, Tensor};
use half::f16;
use llm_worker::model::quant::activation::BlockQ8K;
use llm_worker::model::quant::kquants::{
    q3k_scales, q5k_scales_mins, BlockQ2K, BlockQ3K, BlockQ4K, BlockQ5K, BlockQ6K,
};
use llm_worker::model::quant::{Kernel, QK_K};

#[path = "kernels_k/positions.rs"]
mod positions;
mod support;
use support::kquants::*;
use support::{quantize_act, Rng};

// ---------------------------------------------------------------------
// 1. kernel == scalar
// ---------------------------------------------------------------------

/// `dot` against `dot_scalar`. In wasm with simd128 `dot` is the SIMD
/// kernel; natively it *is* `dot_scalar`, so there this only checks the
/// harness. Both kernels compute the same exact integer sum per block and
/// add the same f32 terms `d·dy·sumi (- dmin·dy·summ)` in block order, so
/// they agree bit for bit today; the tolerance, a few ulps of the sum of
/// the blocks' magnitudes, leaves room for a kernel that adds its f32
/// terms in another order (each addition rounds by at most half an ulp of
/// the running magnitude) while any integer or layout mistake, which moves
/// a block term by at least one unit of `d·dy`, fails.
fn check_kernel_vs_scalar<K: Kernel<Act = BlockQ8K>>(xs: &[K], ys: &[BlockQ8K], what: &str) {
    let got = K::dot(xs, ys);
    let want = K::dot_scalar(xs, ys);
    // The unpacked rows batches use: the scalar kernel's value, to the bit.
    let wide: Vec<K::Wide> = xs.iter().map(|x| x.widen()).collect();
    let unpacked = K::dot_wide(&wide, ys);
    assert_eq!(
        unpacked.to_bits(),
        want.to_bits(),
        "{what}: dot_wide {unpacked} != dot_scalar {want}"
    );
    let mag: f32 = (0..xs.len())
        .map(|b| K::dot_scalar(&xs[b..b + 1], &ys[b..b + 1]).abs())
        .sum();
    let tol = 4.0 * xs.len() as f32 * f32::EPSILON * mag + f32::MIN_POSITIVE;
    assert!(
        (got - want).abs() <= tol,
        "{what}: dot {got} != dot_scalar {want} (tol {tol})"
    );
}

fn kernel_vs_scalar<K: Kernel<Act = BlockQ8K>>(raw: fn(&mut Rng) -> K) {
    for seed in 0..12u64 {
        let mut rng = Rng::new(seed + 100);
        for blocks in 1..=4 {
            let ys = acts(&mut rng, blocks, seed as usize);
            // Random bit patterns, including the all-zero and all-ones
            // blocks.
            let mut xs: Vec<K> = (0..blocks).map(|_| raw(&mut rng)).collect();
            check_kernel_vs_scalar(&xs, &ys, &format!("seed {seed} raw {blocks}"));
            let zero = K::read(&vec![0u8; K::BYTES]);
            let mut ones = vec![0xFFu8; K::BYTES];
            // Keep d (and dmin) finite: f16 0xFFFF is NaN.
            let d = f16::from_f32(0.5).to_le_bytes();
            for at in d_offsets::<K>() {
                ones[at..at + 2].copy_from_slice(&d);
            }
            xs[0] = K::read(&ones);
            xs[blocks - 1] = zero;
            check_kernel_vs_scalar(&xs, &ys, &format!("seed {seed} ones/zero {blocks}"));
            // Largest values and scales against the extreme activations
            // (the i16 partial sums' worst case).
            let ones = vec![K::read(&ones); blocks];
            for q in [-128i8, 127] {
                let ys = vec![q8k_from_qs(0.25, [q; QK_K]); blocks];
                check_kernel_vs_scalar(&ones, &ys, &format!("seed {seed} ones x {q}"));
            }
            // Blocks quantised by candle from floats of every kind.
            let w = values(&mut rng, blocks, seed as usize + 1);
            let (_, xs) = candle_blocks::<K>(&w, 1, blocks * QK_K);
            check_kernel_vs_scalar(&xs, &ys, &format!("seed {seed} candle {blocks}"));
        }
    }
}

/// Byte offsets of the f16 super-scales in a stored block.
fn d_offsets<K: Kernel>() -> Vec<usize> {
    match K::DTYPE {
        GgmlDType::Q2K => vec![80, 82],
        GgmlDType::Q3K => vec![108],
        GgmlDType::Q4K | GgmlDType::Q5K => vec![0, 2],
        GgmlDType::Q6K => vec![208],
        other => panic!("{other:?}"),
    }
}

#[test]
fn q2k_kernel_matches_scalar() {
    kernel_vs_scalar::<BlockQ2K>(raw_q2k);
}

#[test]
fn q3k_kernel_matches_scalar() {
    kernel_vs_scalar::<BlockQ3K>(raw_q3k);
}

#[test]
fn q4k_kernel_matches_scalar() {
    kernel_vs_scalar::<BlockQ4K>(raw_q4k);
}

#[test]
fn q5k_kernel_matches_scalar() {
    kernel_vs_scalar::<BlockQ5K>(raw_q5k);
}

#[test]
fn q6k_kernel_matches_scalar() {
    kernel_vs_scalar::<BlockQ6K>(raw_q6k);
}

/// The SIMD functions called directly, so the wasm run surely exercises
/// them (and `dot` is them, bit for bit).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[test]
fn simd_functions_are_the_kernels() {
    use llm_worker::model::quant::kquants::simd::{
        vec_dot_q3k_q8k, vec_dot_q4k_q8k, vec_dot_q5k_q8k, vec_dot_q6k_q8k,
    };
    let mut rng = Rng::new(7);
    for blocks in 1..=4 {
        let ys = acts(&mut rng, blocks, 0);
        let x4: Vec<BlockQ4K> = (0..blocks).map(|_| raw_q4k(&mut rng)).collect();
        let s4 = vec_dot_q4k_q8k(blocks * QK_K, &x4, &ys);
        assert_eq!(s4.to_bits(), BlockQ4K::dot(&x4, &ys).to_bits());
        check_kernel_vs_scalar(&x4, &ys, "simd q4k");
        let x3: Vec<BlockQ3K> = (0..blocks).map(|_| raw_q3k(&mut rng)).collect();
        let x5: Vec<BlockQ5K> = (0..blocks).map(|_| raw_q5k(&mut rng)).collect();
        let x6: Vec<BlockQ6K> = (0..blocks).map(|_| raw_q6k(&mut rng)).collect();
        let n = blocks * QK_K;
        let s6 = vec_dot_q6k_q8k(n, &x6, &ys);
        assert_eq!(s6.to_bits(), BlockQ6K::dot(&x6, &ys).to_bits());
        check_kernel_vs_scalar(&x6, &ys, "simd q6k");
        let s3 = vec_dot_q3k_q8k(n, &x3, &ys);
        let s5 = vec_dot_q5k_q8k(n, &x5, &ys);
        assert_eq!(s3.to_bits(), BlockQ3K::dot(&x3, &ys).to_bits());
        assert_eq!(s5.to_bits(), BlockQ5K::dot(&x5, &ys).to_bits());
        check_kernel_vs_scalar(&x3, &ys, "simd q3k");
        check_kernel_vs_scalar(&x5, &ys, "simd q5k");
    }
}

/// The wasm test build is the SIMD build (the kernels above were the SIMD
/// ones, not the scalar fallback). Constant per build, on purpose: a wasm
/// run without `+simd128` fails here rather than silently testing scalar
/// code against itself.
#[cfg(target_arch = "wasm32")]
#[test]
#[allow(clippy::assertions_on_constants)]
fn wasm_build_has_simd128() {
    assert!(cfg!(target_feature = "simd128"));
}

// ---------------------------------------------------------------------
// 2. our scalar == candle
// ---------------------------------------------------------------------

/// Σ|w·x| over a Q3_K block: the magnitude float rounding is relative to.
fn q3k_parts(b: &BlockQ3K, x: &[f32]) -> f32 {
    let mut w = [0f32; QK_K];
    BlockQ3K::dequantize(std::slice::from_ref(b), &mut w);
    w.iter().zip(x).map(|(w, x)| (w * x).abs()).sum()
}

/// Q5_K's unsigned 5-bit value `i`, read as ggml lays it out: `chunk =
/// i / 64`, `hi = i % 64 / 32`, `l = i % 32`; low 4 bits
/// `qs[32·chunk + l] >> 4·hi`, high bit `qh[l] >> (2·chunk + hi)`.
fn q5k_value(b: &BlockQ5K, i: usize) -> u8 {
    let (chunk, hi, l) = (i / 64, i % 64 / 32, i % 32);
    let high = (b.qh[l] >> (2 * chunk + hi)) & 1;
    low_nibble(&b.qs, i) | (high << 4)
}

/// The low four bits of Q4_K's or Q5_K's value `i`: `qs[32·chunk + l] >>
/// 4·hi` with `chunk = i / 64`, `hi = i % 64 / 32`, `l = i % 32`.
fn low_nibble(qs: &[u8; 128], i: usize) -> u8 {
    let (chunk, hi, l) = (i / 64, i % 64 / 32, i % 32);
    (qs[32 * chunk + l] >> (4 * hi)) & 0xF
}

/// |d·sc·q| + |dmin·m| of value `i` of a Q4_K or Q5_K block (its two
/// parts, which may nearly cancel), given how to read its value.
fn scale_min_mag(packed: &[u8; 12], d: f16, dmin: f16, q: u8, i: usize) -> f32 {
    let (sc, mn) = q5k_scales_mins(packed);
    let j = i / 32;
    (d.to_f32() * sc[j] as f32 * q as f32).abs() + (dmin.to_f32() * mn[j] as f32).abs()
}

fn q4k_mag(x: &BlockQ4K, p: usize) -> f32 {
    scale_min_mag(&x.scales, x.d, x.dmin, q4k_value(x, p), p)
}

fn q5k_mag(x: &BlockQ5K, p: usize) -> f32 {
    scale_min_mag(&x.scales, x.d, x.dmin, q5k_value(x, p), p)
}

/// Σ(|d·sc·q·x| + |dmin·m·x|) over a Q5_K block: the two parts of each
/// value are summed apart (d·Σ and dmin·Σ), and may nearly cancel, so
/// float rounding is relative to both.
fn q5k_parts(b: &BlockQ5K, x: &[f32]) -> f32 {
    (0..QK_K).map(|i| q5k_mag(b, i) * x[i].abs()).sum()
}

/// Our `dequantize` is candle's, bit for bit; our `dot_scalar` of a row
/// and our quantised activations is candle's `QMatMul` output within
/// 1e-4 relative, plus 1e-6 of the parts' magnitude (candle natively runs
/// its AVX kernel, in wasm its simd128 one or `vec_dot_unopt`; all add
/// the same exact integer sums in other f32 orders, and Q4_K's and Q5_K's
/// d and dmin parts can cancel to a result far smaller than either).
fn scalar_vs_candle<K: Kernel<Act = BlockQ8K>>(parts: fn(&K, &[f32]) -> f32) {
    for seed in 0..6u64 {
        let mut rng = Rng::new(seed + 200);
        for blocks in 1..=4 {
            let (rows, cols) = (3, blocks * QK_K);
            let w = values(&mut rng, rows * blocks, seed as usize);
            let x = values(&mut rng, blocks, seed as usize + 2);
            let (q, xs) = candle_blocks::<K>(&w, rows, cols);

            // dequantize: exactly candle's.
            let mut ours = vec![0f32; rows * cols];
            K::dequantize(&xs, &mut ours);
            let theirs = q
                .dequantize(&Device::Cpu)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap();
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                assert_eq!(a.to_bits(), b.to_bits(), "seed {seed} dequantize [{i}]");
            }

            // The matrix-vector product.
            let xt = Tensor::from_vec(x.clone(), (1, cols), &Device::Cpu).unwrap();
            let mm = QMatMul::from_qtensor(q).unwrap();
            let want = mm.forward(&xt).unwrap().flatten_all().unwrap();
            let want = want.to_vec1::<f32>().unwrap();
            let ys = quantize_act::<K>(&x);
            for r in 0..rows {
                let row = &xs[r * blocks..(r + 1) * blocks];
                let got = K::dot_scalar(row, &ys);
                let mag: f32 = row
                    .iter()
                    .zip(x.chunks_exact(QK_K))
                    .map(|(b, x)| parts(b, x))
                    .sum();
                let tol = 1e-4 * want[r].abs() + 1e-6 * mag + 1e-30;
                assert!(
                    (got - want[r]).abs() <= tol,
                    "seed {seed} blocks {blocks} row {r}: ours {got} candle {} (tol {tol})",
                    want[r]
                );
            }
        }
    }
}

/// Q2_K's value `i` as ggml lays it out: byte `32·(i / 128) + i % 32`,
/// bits `2·(i % 128 / 32)`.
fn q2k_value(b: &BlockQ2K, i: usize) -> u8 {
    (b.qs[32 * (i / 128) + i % 32] >> (2 * (i % 128 / 32))) & 3
}

/// |d·sc·q·x| + |dmin·m·x| over a Q2_K block (the two parts may cancel).
fn q2k_parts(b: &BlockQ2K, x: &[f32]) -> f32 {
    (0..QK_K)
        .map(|i| {
            let sc = b.scales[i / 16];
            let w = (b.d.to_f32() * (sc & 0xF) as f32 * q2k_value(b, i) as f32).abs()
                + (b.dmin.to_f32() * (sc >> 4) as f32).abs();
            w * x[i].abs()
        })
        .sum()
}

#[test]
fn q2k_scalar_matches_candle() {
    scalar_vs_candle::<BlockQ2K>(q2k_parts);
}

#[test]
fn q2k_reads_values_where_ggml_puts_them() {
    let mut rng = Rng::new(9);
    for _ in 0..20 {
        let b = raw_q2k(&mut rng);
        for i in 0..QK_K {
            assert_eq!(b.q(i), q2k_value(&b, i), "value {i}");
        }
        let w = b.widen();
        for i in 0..QK_K {
            assert_eq!(w.qs[i], q2k_value(&b, i) as i8, "unpacked value {i}");
        }
        assert_eq!(w.scales, b.scales.map(|s| s & 0xF));
        assert_eq!(w.mins, b.scales.map(|s| s >> 4));
    }
    let mut bytes = vec![0u8; 84];
    for (i, x) in bytes.iter_mut().enumerate() {
        *x = i as u8;
    }
    let b = BlockQ2K::read(&bytes);
    assert_eq!(b.scales[0], 0);
    assert_eq!(b.qs[0], 16);
    assert_eq!(b.d.to_bits(), u16::from_le_bytes([80, 81]));
    assert_eq!(b.dmin.to_bits(), u16::from_le_bytes([82, 83]));
}

#[test]
fn q3k_scalar_matches_candle() {
    scalar_vs_candle::<BlockQ3K>(q3k_parts);
}

/// Σ(|d·sc·q·x| + |dmin·m·x|) over a Q4_K block, as `q5k_parts`.
fn q4k_parts(b: &BlockQ4K, x: &[f32]) -> f32 {
    (0..QK_K).map(|i| q4k_mag(b, i) * x[i].abs()).sum()
}

/// Q4_K's 4-bit value `i`, as ggml lays it out (`low_nibble`).
fn q4k_value(b: &BlockQ4K, i: usize) -> u8 {
    low_nibble(&b.qs, i)
}

#[test]
fn q4k_scalar_matches_candle() {
    scalar_vs_candle::<BlockQ4K>(q4k_parts);
}

#[test]
fn q5k_scalar_matches_candle() {
    scalar_vs_candle::<BlockQ5K>(q5k_parts);
}

/// Σ|w·x| over a Q6_K block.
fn q6k_parts(b: &BlockQ6K, x: &[f32]) -> f32 {
    let mut w = [0f32; QK_K];
    BlockQ6K::dequantize(std::slice::from_ref(b), &mut w);
    w.iter().zip(x).map(|(w, x)| (w * x).abs()).sum()
}

#[test]
fn q6k_scalar_matches_candle() {
    scalar_vs_candle::<BlockQ6K>(q6k_parts);
}

// ---------------------------------------------------------------------
// 3. activations: candle's bytes
// ---------------------------------------------------------------------

#[test]
fn q8k_activations_match_candle() {
    for seed in 0..10u64 {
        let mut rng = Rng::new(seed + 300);
        for blocks in 1..=4 {
            let mut x = values(&mut rng, blocks, seed as usize);
            if seed == 0 {
                // Halfway cases: with the max -127, iscale is 1 and
                // iscale·x lands on .5 (rounded away from zero).
                x[0] = -127.0;
                for (i, v) in x[1..QK_K].iter_mut().enumerate() {
                    *v = (i % 254) as f32 - 126.5;
                }
            }
            let t = Tensor::from_vec(x.clone(), (1, blocks * QK_K), &Device::Cpu).unwrap();
            let q = QTensor::quantize(&t, GgmlDType::Q8K).unwrap();
            let bytes = q.data().unwrap();
            assert_eq!(bytes.len(), blocks * size_of::<BlockQ8K>());
            let theirs: Vec<BlockQ8K> = bytes
                .chunks_exact(size_of::<BlockQ8K>())
                .map(BlockQ8K::read)
                .collect();
            let ours = quantize_act::<BlockQ5K>(&x);
            for (b, (o, t)) in ours.iter().zip(&theirs).enumerate() {
                assert_eq!(o.d.to_bits(), t.d.to_bits(), "seed {seed} block {b}: d");
                assert_eq!(o.qs, t.qs, "seed {seed} block {b}: qs");
                assert_eq!(o.bsums, t.bsums, "seed {seed} block {b}: bsums");
            }
        }
    }
}

// ---------------------------------------------------------------------
// 4. packed scales and stored bytes (every position, one at a time, is
// in kernels_k/positions.rs)
// ---------------------------------------------------------------------

/// Q3_K's 16 6-bit scales (stored values, 0..64) packed as ggml stores
/// them: low nibbles in bytes 0..8, high 2-bit pairs in bytes 8..12.
fn pack_q3k_scales(s: [u8; 16]) -> [u8; 12] {
    let mut out = [0u8; 12];
    for (j, &v) in s.iter().enumerate() {
        out[j % 8] |= (v & 0xF) << (4 * (j / 8));
        out[8 + j % 4] |= (v >> 4) << (2 * (j / 4));
    }
    out
}

/// Q5_K's 8 6-bit (scale, min) pairs packed as `get_scale_min_k4` reads
/// them.
fn pack_q5k_scales(sc: [u8; 8], mn: [u8; 8]) -> [u8; 12] {
    let mut q = [0u8; 12];
    for j in 0..8 {
        if j < 4 {
            q[j] |= sc[j];
            q[j + 4] |= mn[j];
        } else {
            q[j + 4] = (sc[j] & 0xF) | ((mn[j] & 0xF) << 4);
            q[j - 4] |= (sc[j] >> 4) << 6;
            q[j] |= (mn[j] >> 4) << 6;
        }
    }
    q
}

#[test]
fn scale_packing_round_trips() {
    let mut rng = Rng::new(400);
    for _ in 0..200 {
        let s: [u8; 16] = std::array::from_fn(|_| rng.byte() & 63);
        let got = q3k_scales(&pack_q3k_scales(s));
        assert_eq!(got, s.map(|v| v as i8 - 32));
        let sc: [u8; 8] = std::array::from_fn(|_| rng.byte() & 63);
        let mn: [u8; 8] = std::array::from_fn(|_| rng.byte() & 63);
        assert_eq!(q5k_scales_mins(&pack_q5k_scales(sc, mn)), (sc, mn));
    }
}

/// The simd128 kernels' decoders of packed scales against the scalar
/// ones, on any 12 bytes (all bits clear, all set, and random).
#[cfg(target_feature = "simd128")]
#[test]
fn simd_scale_decoders() {
    use core::arch::wasm32::{v128, v128_store};
    use llm_worker::model::quant::kquants::simd::{q3k_scales_v, q5k_scales_mins_v};
    fn lanes(v: v128) -> [u8; 16] {
        let mut out = [0u8; 16];
        // SAFETY: `out` has the 16 bytes stored; wasm stores need no alignment.
        unsafe { v128_store(out.as_mut_ptr().cast(), v) };
        out
    }
    let mut rng = Rng::new(401);
    for i in 0..2000 {
        let b: [u8; 12] = match i {
            0 => [0; 12],
            1 => [0xFF; 12],
            _ => std::array::from_fn(|_| rng.byte()),
        };
        assert_eq!(
            lanes(q3k_scales_v(&b)).map(|v| v as i8),
            q3k_scales(&b),
            "{b:?}"
        );
        let sm = lanes(q5k_scales_mins_v(&b));
        let (sc, mn) = q5k_scales_mins(&b);
        assert_eq!((&sm[..8], &sm[8..]), (&sc[..], &mn[..]), "{b:?}");
    }
}

/// Stored bytes parse field by field (little-endian, ggml's order).
#[test]
fn read_parses_ggml_layout() {
    let mut rng = Rng::new(800);
    let b3 = raw_q3k(&mut rng);
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&b3.hmask);
    bytes.extend_from_slice(&b3.qs);
    bytes.extend_from_slice(&b3.scales);
    bytes.extend_from_slice(&b3.d.to_le_bytes());
    assert_eq!(bytes.len(), BlockQ3K::BYTES);
    assert_eq!(BlockQ3K::read(&bytes), b3);

    let b4 = raw_q4k(&mut rng);
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&b4.d.to_le_bytes());
    bytes.extend_from_slice(&b4.dmin.to_le_bytes());
    bytes.extend_from_slice(&b4.scales);
    bytes.extend_from_slice(&b4.qs);
    assert_eq!(bytes.len(), BlockQ4K::BYTES);
    assert_eq!(BlockQ4K::read(&bytes), b4);

    let b5 = raw_q5k(&mut rng);
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&b5.d.to_le_bytes());
    bytes.extend_from_slice(&b5.dmin.to_le_bytes());
    bytes.extend_from_slice(&b5.scales);
    bytes.extend_from_slice(&b5.qh);
    bytes.extend_from_slice(&b5.qs);
    assert_eq!(bytes.len(), BlockQ5K::BYTES);
    assert_eq!(BlockQ5K::read(&bytes), b5);

    let y = q8k_from_qs(-0.75, std::array::from_fn(|_| rng.byte() as i8));
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&y.d.to_le_bytes());
    bytes.extend(y.qs.iter().map(|&q| q as u8));
    for s in y.bsums {
        bytes.extend_from_slice(&s.to_le_bytes());
    }
    assert_eq!(BlockQ8K::read(&bytes), y);
}
