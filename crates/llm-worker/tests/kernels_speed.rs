//! How fast the kernels are, per block (no assertion on it; ignored
//! by default): `cargo test --release --target wasm32-unknown-unknown
//! --test kernels_speed -- --include-ignored --nocapture`.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

mod support;
use llm_worker::model::quant::activation::{BlockQ8K, BlockQ8_0};
use llm_worker::model::quant::legacy::{BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1};
use llm_worker::model::quant::{Kernel, QK, QK_K};
use support::kquants::{raw_q3k, raw_q4k, raw_q5k, raw_q6k, values};
use support::legacy::*;
use support::{quantize_act, Rng};

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
/// the same type, and for Q8_0 and Q4_K (which candle has simd128
/// kernels for).
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
    /// Two rows of `xs` (its halves) with the same `ys`, by `dot2`.
    fn two<T: Case>(xs: &[T], ys: &[T::Act]) -> f32 {
        let (a, b) = xs.split_at(xs.len() / 2);
        let [p, q] = T::dot2(a, b, ys);
        p + q
    }
    /// Ours for `T` (one row at a time, and two), and candle's for its type `C`.
    fn time<T: Case, C: GgmlType>(name: &str) -> String {
        let mut rng = Rng::new(7);
        let xs = random_blocks::<T>(&mut rng, 2 * N / QK, 0);
        let ys = quantize_act::<T>(&floats(&mut rng, N / QK, 0));
        format!(
            "{name}: dot {:.2} ns/block, two rows by dot2 {:.2}, dot_scalar {:.2}, candle's {:.2}",
            ns_per_block(T::dot, &xs[..N / QK], &ys),
            ns_per_block(two::<T>, &xs, &ys),
            ns_per_block(T::dot_scalar, &xs[..N / QK], &ys),
            candle_ns::<C>(),
        )
    }
    /// A K type's `dot` and two rows by `dot2`, per 32 values (Q8_0's
    /// block) to compare with the legacy types'.
    fn time_k<K: Kernel<Act = BlockQ8K>>(name: &str, raw: fn(&mut Rng) -> K) -> String {
        let mut rng = Rng::new(7);
        let xs: Vec<K> = (0..2 * N / QK_K).map(|_| raw(&mut rng)).collect();
        let ys = quantize_act::<K>(&values(&mut rng, N / QK_K, 2));
        let per32 = (QK_K / QK) as f64;
        format!(
            "{name}: dot {:.2} ns per 32 values, two rows by dot2 {:.2}",
            ns_per_block(K::dot, &xs[..N / QK_K], &ys) / per32,
            ns_per_block(two_k::<K>, &xs, &ys) / per32,
        )
    }
    fn two_k<K: Kernel>(xs: &[K], ys: &[K::Act]) -> f32 {
        let (a, b) = xs.split_at(xs.len() / 2);
        let [p, q] = K::dot2(a, b, ys);
        p + q
    }
    for line in [
        time_k("Q3_K", raw_q3k),
        time_k("Q4_K", raw_q4k),
        time_k("Q5_K", raw_q5k),
        time_k("Q6_K", raw_q6k),
        time::<BlockQ4_0, ck::BlockQ4_0>("Q4_0"),
        time::<BlockQ4_1, ck::BlockQ4_1>("Q4_1"),
        time::<BlockQ5_0, ck::BlockQ5_0>("Q5_0"),
        time::<BlockQ5_1, ck::BlockQ5_1>("Q5_1"),
        time::<BlockQ8_0, ck::BlockQ8_0>("Q8_0"),
        format!(
            "Q4_K: candle's {:.2} ns per 32 values",
            candle_ns::<ck::BlockQ4K>() / (QK_K / QK) as f64,
        ),
    ] {
        #[cfg(target_arch = "wasm32")]
        wasm_bindgen_test::console_log!("{line}");
        #[cfg(not(target_arch = "wasm32"))]
        println!("{line}");
    }
}
