//! The legacy kernels (Q4_1, Q5_0, Q5_1 and their Q8_0 / Q8_1 activations)
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
use llm_worker::quant::legacy::{BlockQ4_1, BlockQ5_0, BlockQ5_1, BlockQ8_0, BlockQ8_1, QK};
use llm_worker::quant::Kernel;

/// xorshift64*: deterministic numbers without a crate.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// Uniform in [-1, 1).
    fn sym(&mut self) -> f32 {
        2.0 * self.unit() - 1.0
    }
    /// `10^u`, `u` uniform in [lo, hi).
    fn pow10(&mut self, lo: f32, hi: f32) -> f32 {
        10f32.powf(lo + (hi - lo) * self.unit())
    }
}

/// Kinds of 32-value blocks the float generator cycles through.
const KINDS: usize = 6;

/// `nb` blocks of floats; block `b` is of kind `(kind + b) % KINDS`, so every
/// row of `KINDS` or more blocks has them all and shorter rows get them over
/// a few seeds: symmetric, all zero, negative only, large range inside the
/// block (1e-5 .. 1e3), positive far from zero, and halves (`k + 0.5` with
/// max 127, where Q8 rounding ties). A block's sum stays inside f16's range:
/// Q8_1 stores `s = d * sum(q)` as an f16, as ggml does, and it overflows
/// to infinity past 65504.
fn floats(rng: &mut Rng, nb: usize, kind: usize) -> Vec<f32> {
    let mut v = Vec::with_capacity(nb * QK);
    for b in 0..nb {
        let scale = rng.pow10(-3.0, 2.0);
        let kind = (kind + b) % KINDS;
        for j in 0..QK {
            v.push(match kind {
                0 => rng.sym() * scale,
                1 => 0.0,
                2 => -(rng.unit() + 0.01) * scale,
                3 => rng.sym() * rng.pow10(-5.0, 3.0),
                4 => (3.0 + rng.sym()) * scale,
                _ if j == 0 => 127.0,
                _ => rng.below(254) as f32 - 126.5,
            });
        }
    }
    v
}

/// What the tests need to know of a weight type, written out here from
/// ggml's layout rather than taken from the code under test.
trait Case: Kernel {
    /// Largest code: 15 or 31.
    const MAX_CODE: u8;
    /// The code whose value is 0 when `m == 0`.
    const ZERO_CODE: u8;
    /// A block from its 32 codes (element order), scale and minimum (the
    /// minimum is ignored by Q5_0).
    fn pack(codes: [u8; QK], d: f32, m: f32) -> Self;
    /// The 32 codes of a block, in element order.
    fn codes(&self) -> [u8; QK];
    /// Scale and minimum (0 for Q5_0).
    fn dm(&self) -> (f32, f32);
    /// What a code multiplies the activation by, before scaling.
    fn int(code: u8) -> i32;
    /// An activation block's scale, `s` (0 for Q8_0) and values.
    fn act(a: &Self::Act) -> (f32, f32, [i8; QK]);
}

/// Low four bits: element `j < 16` in the low nibble of byte `j`, element
/// `j + 16` in its high nibble.
fn pack_low(codes: &[u8; QK]) -> [u8; QK / 2] {
    std::array::from_fn(|j| (codes[j] & 0x0F) | ((codes[j + QK / 2] & 0x0F) << 4))
}

/// Bit 4 of element `i` at bit `i` of a little-endian u32.
fn pack_high(codes: &[u8; QK]) -> [u8; 4] {
    let mut qh = 0u32;
    for (i, c) in codes.iter().enumerate() {
        qh |= ((*c as u32 >> 4) & 1) << i;
    }
    qh.to_le_bytes()
}

fn unpack(qs: &[u8; QK / 2], qh: Option<[u8; 4]>) -> [u8; QK] {
    let qh = qh.map_or(0, u32::from_le_bytes);
    std::array::from_fn(|i| {
        let nibble = if i < QK / 2 {
            qs[i] & 0x0F
        } else {
            qs[i - QK / 2] >> 4
        };
        nibble | (((qh >> i) & 1) as u8) << 4
    })
}

fn q8_1_parts(a: &BlockQ8_1) -> (f32, f32, [i8; QK]) {
    (a.d.to_f32(), a.s.to_f32(), a.qs)
}

impl Case for BlockQ4_1 {
    const MAX_CODE: u8 = 15;
    const ZERO_CODE: u8 = 0;
    fn pack(codes: [u8; QK], d: f32, m: f32) -> Self {
        BlockQ4_1 {
            d: f16::from_f32(d),
            m: f16::from_f32(m),
            qs: pack_low(&codes),
        }
    }
    fn codes(&self) -> [u8; QK] {
        unpack(&self.qs, None)
    }
    fn dm(&self) -> (f32, f32) {
        (self.d.to_f32(), self.m.to_f32())
    }
    fn int(code: u8) -> i32 {
        code as i32
    }
    fn act(a: &BlockQ8_1) -> (f32, f32, [i8; QK]) {
        q8_1_parts(a)
    }
}

impl Case for BlockQ5_0 {
    const MAX_CODE: u8 = 31;
    const ZERO_CODE: u8 = 16;
    fn pack(codes: [u8; QK], d: f32, _m: f32) -> Self {
        BlockQ5_0 {
            d: f16::from_f32(d),
            qh: pack_high(&codes),
            qs: pack_low(&codes),
        }
    }
    fn codes(&self) -> [u8; QK] {
        unpack(&self.qs, Some(self.qh))
    }
    fn dm(&self) -> (f32, f32) {
        (self.d.to_f32(), 0.0)
    }
    fn int(code: u8) -> i32 {
        code as i32 - 16
    }
    fn act(a: &BlockQ8_0) -> (f32, f32, [i8; QK]) {
        (a.d.to_f32(), 0.0, a.qs)
    }
}

impl Case for BlockQ5_1 {
    const MAX_CODE: u8 = 31;
    const ZERO_CODE: u8 = 0;
    fn pack(codes: [u8; QK], d: f32, m: f32) -> Self {
        BlockQ5_1 {
            d: f16::from_f32(d),
            m: f16::from_f32(m),
            qh: pack_high(&codes),
            qs: pack_low(&codes),
        }
    }
    fn codes(&self) -> [u8; QK] {
        unpack(&self.qs, Some(self.qh))
    }
    fn dm(&self) -> (f32, f32) {
        (self.d.to_f32(), self.m.to_f32())
    }
    fn int(code: u8) -> i32 {
        code as i32
    }
    fn act(a: &BlockQ8_1) -> (f32, f32, [i8; QK]) {
        q8_1_parts(a)
    }
}

/// The dot product in f64 from the codes, and a magnitude to measure f32
/// rounding against: the sum of the absolute values of every product the
/// f32 kernels add up (`|d * yd * q * yq|` per element, `|m * s|` per block).
fn reference<T: Case>(xs: &[T], ys: &[T::Act]) -> (f64, f64) {
    let (mut value, mut mag) = (0f64, 0f64);
    for (x, y) in xs.iter().zip(ys) {
        let (d, m) = x.dm();
        let (yd, s, yq) = T::act(y);
        let (mut sumi, mut absi) = (0i64, 0i64);
        for (c, q) in x.codes().iter().zip(yq) {
            let p = T::int(*c) as i64 * q as i64;
            sumi += p;
            absi += p.abs();
        }
        let dd = d as f64 * yd as f64;
        value += sumi as f64 * dd + m as f64 * s as f64;
        mag += absi as f64 * dd.abs() + (m as f64 * s as f64).abs();
    }
    (value, mag)
}

/// Random weight blocks: random codes, scales of either sign over five
/// decades and minima of either sign; every fourth block all zero (d = m =
/// 0) and every fourth all at the largest code.
fn random_blocks<T: Case>(rng: &mut Rng, nb: usize, kind: usize) -> Vec<T> {
    (0..nb)
        .map(|b| {
            let d = rng.sym().signum() * rng.pow10(-4.0, 1.0);
            let m = rng.sym() * rng.pow10(-3.0, 2.0);
            match (kind + b) % 4 {
                1 => T::pack([T::ZERO_CODE; QK], 0.0, 0.0),
                2 => T::pack([T::MAX_CODE; QK], d, m),
                _ => T::pack(
                    std::array::from_fn(|_| rng.below(T::MAX_CODE as u64 + 1) as u8),
                    d,
                    m,
                ),
            }
        })
        .collect()
}

fn quantize_act<T: Kernel>(xs: &[f32]) -> Vec<T::Act> {
    let mut out = vec![T::ACT_ZERO; xs.len() / T::BLOCK];
    T::quantize_act(xs, &mut out);
    out
}

/// Blocks from candle's `QTensor` bytes, parsed with `read`.
fn blocks_of<T: Kernel>(q: &QTensor) -> Vec<T> {
    let bytes = q.data().unwrap();
    assert_eq!(bytes.len() % T::BYTES, 0);
    bytes.chunks_exact(T::BYTES).map(T::read).collect()
}

/// Weights candle quantises from `nb` blocks of floats.
fn candle_blocks<T: Kernel>(w: Vec<f32>) -> Vec<T> {
    let n = w.len();
    let t = Tensor::from_vec(w, (1, n), &Device::Cpu).unwrap();
    blocks_of(&QTensor::quantize(&t, T::DTYPE).unwrap())
}

/// `|a - b| <= tol`, with a message naming the case.
fn close(a: f32, b: f32, tol: f64, what: &str) {
    let diff = (a as f64 - b as f64).abs();
    assert!(diff <= tol, "{what}: {a} vs {b} (diff {diff:e} > {tol:e})");
}

/// Case 1: `dot` equals `dot_scalar`, and both the exact f64 dot, within
/// 1e-5 of the magnitude of the products summed.
///
/// Natively `dot` *is* `dot_scalar` and this compares it with itself (the
/// f64 check still counts); in wasm it is the SIMD kernel. The two sum the
/// same exact integer block dots (|sum| < 2^24, exact in f32) but add the
/// scaled terms in different orders (the SIMD kernel per lane, the minima
/// apart). Each f32 sum of at most 8 blocks * 4 lanes + 2 terms is off the
/// exact value by well under 40 * 2^-24 (2.4e-6) of that magnitude, so
/// 1e-5 holds for any order, while one misread element moves the result by
/// about 1/(32 * blocks) of it: 4e-3 or more.
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
                let (exact, mag) = reference(xs, &acts);
                let tol = 1e-5 * mag;
                let what = format!("{name} seed {seed} blocks {nb}");
                close(kernel, scalar, tol, &format!("{what}: dot vs dot_scalar"));
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

/// Case 2: weights quantised by candle, parsed with `read`: `dequantize`
/// equals candle's exactly, and `dot_scalar` and `dot` over our quantised
/// activations equal candle's `QMatMul` (the same arithmetic in candle's
/// scalar `vec_dot_unopt`, so any difference is summation order) within
/// 1e-4 relative plus 1e-5 of the magnitude (for results that cancel to
/// near zero).
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
            for (r, &c) in out.iter().enumerate() {
                let row = &blocks[r * nb..(r + 1) * nb];
                let (_, mag) = reference(row, &acts);
                let tol = 1e-4 * c.abs() as f64 + 1e-5 * mag;
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
/// (f16 fields compared by bits).
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
                    assert_eq!(a.s.to_bits(), c.s.to_bits(), "Q8_1 s, {what}, block {b}");
                    assert_eq!(a.qs, c.qs, "Q8_1 qs, {what}, block {b}");
                }
            }
        }
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
        &[1, 9, 15]
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
fn one_hot_q4_1() {
    one_hot::<BlockQ4_1>("Q4_1");
}

#[test]
fn one_hot_q5_0() {
    one_hot::<BlockQ5_0>("Q5_0");
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
        (BlockQ4_1::BYTES, BlockQ5_0::BYTES, BlockQ5_1::BYTES),
        (20, 22, 24)
    );
    assert_eq!(
        (BlockQ4_1::BLOCK, BlockQ5_0::BLOCK, BlockQ5_1::BLOCK),
        (32, 32, 32)
    );
    let bytes: Vec<u8> = (1..=36).collect();
    let f = |i: usize| f16::from_bits(u16::from_le_bytes([bytes[i], bytes[i + 1]]));
    let arr = |i: usize| -> [u8; 16] { bytes[i..i + 16].try_into().unwrap() };
    let qh = |i: usize| -> [u8; 4] { bytes[i..i + 4].try_into().unwrap() };

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
    use llm_worker::quant::legacy::simd;

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
    use llm_worker::quant::legacy::simd::f16_to_f32x4;

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

/// Milliseconds since some fixed point.
fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3
    }
}

/// The best of five timed runs of `f(xs, ys)`, in nanoseconds per block,
/// after one untimed run: the wasm engine compiles a hot function again,
/// optimised, for its later calls (hence also the call through an opaque
/// pointer: `f` stays a function of its own, called once per repetition).
fn ns_per_block<X, Y>(f: fn(&[X], &[Y]) -> f32, xs: &[X], ys: &[Y]) -> f64 {
    let reps = 40_000;
    let mut best = f64::INFINITY;
    let mut sink = 0f32;
    for run in 0..6 {
        let t = now_ms();
        for _ in 0..reps {
            sink += std::hint::black_box(f)(xs, ys);
        }
        if run > 0 {
            best = best.min((now_ms() - t) * 1e6 / (reps * xs.len()) as f64);
        }
    }
    std::hint::black_box(sink);
    best
}

/// Timing, no assertion on it: nanoseconds per block of `dot` and
/// `dot_scalar` over a 4096-value row, and of candle's own `vec_dot` for
/// the same type and for Q4_0 (which candle has a simd128 kernel for).
/// Ignored by default; run it in a release build, e.g. `cargo test
/// --release ... -- --include-ignored --nocapture bench`.
#[test]
#[ignore]
fn bench_dots() {
    use candle_core::quantized::k_quants::{self as ck, GgmlType};

    const N: usize = 4096;
    fn candle<T: GgmlType>(xs: &[T], ys: &[T::VecDotType]) -> f32 {
        T::vec_dot(xs.len() * T::BLCK_SIZE, xs, ys)
    }
    fn candle_ns<T: GgmlType>() -> f64 {
        let mut rng = Rng::new(7);
        let mut xs = vec![T::zeros(); N / T::BLCK_SIZE];
        T::from_float(&floats(&mut rng, N / QK, 0), &mut xs);
        let mut ys = vec![T::VecDotType::zeros(); N / T::BLCK_SIZE];
        T::VecDotType::from_float(&floats(&mut rng, N / QK, 0), &mut ys);
        ns_per_block(candle::<T>, &xs, &ys)
    }
    /// Ours for `T`, and candle's for its type `C`.
    fn time<T: Case, C: GgmlType>(name: &str) -> String {
        let mut rng = Rng::new(7);
        let xs = random_blocks::<T>(&mut rng, N / QK, 0);
        let ys = quantize_act::<T>(&floats(&mut rng, N / QK, 0));
        format!(
            "{name}: dot {:.2} ns/block, dot_scalar {:.2}, candle's {:.2}",
            ns_per_block(T::dot, &xs, &ys),
            ns_per_block(T::dot_scalar, &xs, &ys),
            candle_ns::<C>(),
        )
    }
    for line in [
        time::<BlockQ4_1, ck::BlockQ4_1>("Q4_1"),
        time::<BlockQ5_0, ck::BlockQ5_0>("Q5_0"),
        time::<BlockQ5_1, ck::BlockQ5_1>("Q5_1"),
        format!(
            "Q4_0: candle's {:.2} ns/block",
            candle_ns::<ck::BlockQ4_0>()
        ),
    ] {
        #[cfg(target_arch = "wasm32")]
        wasm_bindgen_test::console_log!("{line}");
        #[cfg(not(target_arch = "wasm32"))]
        println!("{line}");
    }
}
