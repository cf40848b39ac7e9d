//! Native products (the CLI's local model, the benches): the weight rows
//! split over every thread of rayon's pool (`--threads`; the page splits
//! its products over workers instead, `model::split`), and on x86-64 CPUs
//! with AVX2 the AVX2 kernels (`legacy/avx2.rs`, `kquants/avx2.rs`), chosen
//! at run time.
//!
//! Each AVX2 kernel computes a block's integer sums exactly (any order
//! gives the same integers) and then the scalar kernel's float expression
//! in its order (Rust never reorders float sums, and fuses no multiply-add
//! unless asked), so each element is the scalar kernel's value to the
//! bit, which the tests check for every type (`tests/kernels_native.rs`).
//! Where a type has no AVX2 code of its own, its plain code runs, compiled
//! for AVX2 where it is inlined.
//!
//! A prompt's other per-token work is shared out over the same threads
//! (`map_split`): its activations' quantisation (`quantize_split`), and in
//! `model` its SwiGLU rows and attention heads, each value the same
//! whichever thread computes it.

use super::packed::products as run;
use super::Kernel;
use std::sync::OnceLock;

/// Below this many block products, a product runs on the calling thread
/// alone: handing work to another thread costs a few microseconds, and
/// waking it more. At 2,048 every product of a token being written was
/// split (a 135M model's 576 × 1,536 is 27,648 block products), and a
/// profile of a real-model run spent 14% of its time in the kernel's
/// thread switches; at 32,768 the layers' products of one token stay on
/// one thread (the output head's and a prompt's batches still split): the
/// travel orchestrator run 57.9 / 56.1 s -> 49.0 / 46.4 s, interleaved,
/// the same replies.
const SPLIT_FROM: usize = 1 << 15;

/// The threads products run on: the caller and the pool's. Set once, before
/// the first product (`set_threads`), else the machine's cores.
static THREADS: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();

/// Runs products on `n` threads (at least 1): the calling thread and a
/// pool of `n - 1`. Only the first call (or first product) counts; a later
/// call returns the count in force.
pub fn set_threads(n: usize) -> usize {
    let pool = THREADS.get_or_init(|| {
        let n = n.max(1);
        (n > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n - 1)
                    .thread_name(|i| format!("products-{i}"))
                    .build()
                    .ok()
            })
            .flatten()
    });
    threads_of(pool)
}

fn threads_of(pool: &Option<rayon::ThreadPool>) -> usize {
    pool.as_ref().map_or(1, |p| p.current_num_threads() + 1)
}

/// The threads products run on (the machine's cores unless set).
pub fn threads() -> usize {
    match THREADS.get() {
        Some(pool) => threads_of(pool),
        None => set_threads(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// `matmul`'s products (`dst` is `m × n`) over `threads()` threads, each
/// taking a range of rows; the calling thread takes the first.
pub fn products<T: Kernel>(
    (m, n, kb): (usize, usize, usize),
    act: &[T::Act],
    rows: &[T],
    dst: &mut [f32],
) {
    let threads = threads();
    let parts = if m * n * kb < SPLIT_FROM {
        1
    } else {
        threads.min(n / 16).max(1)
    };
    let Some(Some(pool)) = THREADS.get().filter(|_| parts > 1) else {
        return fastest::<T>((m, n, kb), act, rows, dst, n);
    };
    // Rows per part, even (products read rows two at a time).
    let per = n.div_ceil(parts).next_multiple_of(2);
    let mut outs: Vec<(usize, Vec<f32>)> = (0..n.div_ceil(per))
        .map(|p| (p * per, vec![0f32; m * (((p + 1) * per).min(n) - p * per)]))
        .collect();
    let part = |(j0, out): &mut (usize, Vec<f32>)| {
        let width = out.len() / m;
        let mine = &rows[*j0 * kb..(*j0 + width) * kb];
        fastest::<T>((m, width, kb), act, mine, out, width);
    };
    let part = &part;
    pool.in_place_scope(|s| {
        let (first, rest) = outs.split_at_mut(1);
        for o in rest {
            s.spawn(move |_| part(o));
        }
        part(&mut first[0]);
    });
    for (j0, out) in outs {
        let width = out.len() / m;
        for (i, part) in out.chunks_exact(width).enumerate() {
            dst[i * n + j0..i * n + j0 + width].copy_from_slice(part);
        }
    }
}

/// Tokens of a batch from which their activations are quantised over
/// every thread (a prompt's; a token being written stays on the caller).
const QUANTIZE_SPLIT_FROM: usize = 16;

/// The `m` tokens of `lhs` (`k` values each) quantised to `T`'s
/// activations, token by token (each the same blocks whichever thread
/// quantises it), split over the threads for a batch.
pub fn quantize_split<T: Kernel>(lhs: &[f32], k: usize, m: usize) -> Vec<T::Act> {
    if m < QUANTIZE_SPLIT_FROM {
        return super::packed::quantize::<T>(lhs, k, m);
    }
    map_split(m, true, |i| {
        super::packed::quantize::<T>(&lhs[i * k..(i + 1) * k], k, 1)
    })
    .concat()
}

/// `f(0)`, …, `f(n - 1)` in order, computed over `threads()` threads (the
/// calling thread takes the first share) when `split`, else on the caller.
/// Each value is computed by the same code whichever thread runs it, so
/// the results do not depend on the thread count.
pub fn map_split<R: Send>(n: usize, split: bool, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let parts = if split { threads().min(n) } else { 1 };
    let Some(Some(pool)) = THREADS.get().filter(|_| parts > 1) else {
        return (0..n).map(f).collect();
    };
    let per = n.div_ceil(parts);
    let mut outs: Vec<Vec<R>> = (0..n.div_ceil(per)).map(|_| Vec::new()).collect();
    let f = &f;
    let share = move |p: usize, out: &mut Vec<R>| {
        *out = (p * per..((p + 1) * per).min(n)).map(f).collect();
    };
    pool.in_place_scope(|s| {
        let (first, rest) = outs.split_at_mut(1);
        for (p, out) in rest.iter_mut().enumerate() {
            s.spawn(move |_| share(p + 1, out));
        }
        share(0, &mut first[0]);
    });
    outs.into_iter().flatten().collect()
}

/// The products on the best kernels this CPU has.
fn fastest<T: Kernel>(
    mnk: (usize, usize, usize),
    act: &[T::Act],
    rows: &[T],
    dst: &mut [f32],
    stride: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has AVX2 and F16C (checked above).
        return unsafe { wide_avx2::<T>(mnk, act, rows, dst, stride) };
    }
    run::<T>(mnk, act, rows, dst, stride)
}

#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("f16c")
}

/// `packed::products` with AVX2: for a few tokens, the packed rows of the
/// types that have such a kernel (`Kernel::PACKED_AVX2`: Q4_0, Q4_1, Q8_0
/// and the K-quants); else every row unpacked once (`Kernel::widen`, plain code
/// the compiler widens to AVX2), then two rows at a time multiplied with
/// the tokens four at a time (`dot_wide4x2_avx2`, the four tokens' scales
/// converted to floats once for every row: `scales4`) and the last `m % 4`
/// one by one. Each element is the scalar kernel's value to the bit, as
/// `dot` is natively.
///
/// # Safety
/// The CPU has AVX2 and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn wide_avx2<T: Kernel>(
    (m, n, kb): (usize, usize, usize),
    act: &[T::Act],
    rows: &[T],
    dst: &mut [f32],
    stride: usize,
) {
    if m < 4 && T::PACKED_AVX2 {
        // Writing: the packed rows as stored, each read once per token.
        // (Two rows at a time, their sums' chains interleaved, measured
        // 12% slower on a 135M model.)
        for (j, row) in rows.chunks_exact(kb).take(n).enumerate() {
            for (i, q) in act.chunks_exact(kb).enumerate() {
                dst[i * stride + j] = T::dot_avx2(row, q);
            }
        }
        return;
    }
    let mut wide = vec![T::WIDE_ZERO; 2 * kb];
    let quads = m / 4 * 4;
    let rows = &rows[..n * kb];
    // Each four tokens' block scales as floats, once for every row.
    let scales: Vec<[[f32; 4]; 2]> = act[..quads * kb]
        .chunks_exact(4 * kb)
        .flat_map(|four| (0..kb).map(move |b| T::scales4([0, 1, 2, 3].map(|i| &four[i * kb + b]))))
        .collect();
    // Two rows at a time: each token's blocks loaded once for both.
    for (p, two) in rows.chunks_exact(2 * kb).enumerate() {
        for (w, x) in wide.iter_mut().zip(two) {
            *w = x.widen();
        }
        let (a, b) = wide.split_at(kb);
        let j = 2 * p;
        for (t, four) in act[..quads * kb].chunks_exact(4 * kb).enumerate() {
            let q = |i: usize| &four[i * kb..(i + 1) * kb];
            let sc = &scales[t * kb..(t + 1) * kb];
            let sums = T::dot_wide4x2_avx2(a, b, [q(0), q(1), q(2), q(3)], sc);
            for (r, sums) in sums.into_iter().enumerate() {
                for (i, s) in sums.into_iter().enumerate() {
                    dst[(4 * t + i) * stride + j + r] = s;
                }
            }
        }
        for (i, q) in act.chunks_exact(kb).enumerate().skip(quads) {
            dst[i * stride + j] = T::dot_wide_avx2(a, q);
            dst[i * stride + j + 1] = T::dot_wide_avx2(b, q);
        }
    }
    if n % 2 == 1 {
        let wide = &mut wide[..kb];
        for (w, x) in wide.iter_mut().zip(&rows[(n - 1) * kb..]) {
            *w = x.widen();
        }
        one_row::<T>(wide, act, (m, kb), dst, stride, n - 1);
    }
}

/// Column `j` of `dst`: the unpacked row `wide` with every token, four at
/// a time and the last `m % 4` one by one.
///
/// # Safety
/// The CPU has AVX2 and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn one_row<T: Kernel>(
    wide: &[T::Wide],
    act: &[T::Act],
    (m, kb): (usize, usize),
    dst: &mut [f32],
    stride: usize,
    j: usize,
) {
    let quads = m / 4 * 4;
    for (t, four) in act[..quads * kb].chunks_exact(4 * kb).enumerate() {
        let q = |i: usize| &four[i * kb..(i + 1) * kb];
        let sums = T::dot_wide4_avx2(wide, [q(0), q(1), q(2), q(3)]);
        for (i, s) in sums.into_iter().enumerate() {
            dst[(4 * t + i) * stride + j] = s;
        }
    }
    for (i, q) in act.chunks_exact(kb).enumerate().skip(quads) {
        dst[i * stride + j] = T::dot_wide_avx2(wide, q);
    }
}

/// Which kernels this CPU runs natively: `avx2` (with F16C) or `scalar`.
pub fn kernels() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        return "avx2";
    }
    "scalar"
}
