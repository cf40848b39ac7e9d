//! Attention over a conversation's keys and values, on plain slices, as
//! llama.cpp's flash attention computes it on a CPU (its wasm build), so
//! that the in-page model writes llama.cpp's text.
//!
//! Keys and values are rounded to f16, as llama.cpp hands them to its
//! flash attention whatever its cache's type, and held as f16s: half the
//! memory of f32s, and widening one back to f32 is exact, so the sums see
//! the same values (`Lanes::widen`, a block of keys at a time). A new
//! token's rows are appended;
//! the past is never copied per token. llama.cpp takes one of three paths,
//! each rounding differently, and so does `attend`:
//! - `one_chunk`: key by key, with an online softmax; the query rounded to
//!   f16 and the weighted values summed in f16 (a token being written
//!   while fewer than 256 positions are held, or a prompt of 2-63 tokens);
//! - `split`: the same over each half of the keys, the halves then merged
//!   (a token written after 256 positions: llama.cpp's two threads each
//!   take half);
//! - `tiled`: 64 keys at a time, the query in f32, the values summed in f32
//!   (prompts read 64 tokens or more at a time).
//!
//! llama.cpp reads a prompt in batches of `UBATCH` tokens and chooses a
//! path per batch, so `attend` does too.

mod lanes;

#[cfg(target_arch = "x86_64")]
pub use lanes::Native;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use lanes::Simd;
pub use lanes::{f16_bits, round_f16, widen_f16, Lanes, Scalar};

use crate::model::mathf::expf;

/// The inner loops this build runs.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Fast = Simd;
#[cfg(target_arch = "x86_64")]
type Fast = Native;
#[cfg(not(any(
    all(target_arch = "wasm32", target_feature = "simd128"),
    target_arch = "x86_64"
)))]
type Fast = Scalar;

/// One layer's keys and values: `heads` buffers of `cap` rows of `dim`
/// values, of which the first `len` rows are held, each value rounded to
/// f16 and kept as its f16 bits (a 135M model's 23 KB a position, where
/// f32s took 46 KB).
#[derive(Default)]
pub struct Kv {
    k: Vec<u16>,
    v: Vec<u16>,
    heads: usize,
    dim: usize,
    cap: usize,
    len: usize,
}
/// Buffers grow in steps of this many positions (by a quarter at least).
const STEP: usize = 256;
/// llama.cpp counts the keys it attends over in steps of 256 (its `n_kv`).
const KV_PAD: usize = 256;
/// llama.cpp's threads (wllama's two on a two-core machine): a token
/// written over `SPLIT_FROM` keys or more splits them into this many parts.
const THREADS: usize = 2;
const SPLIT_FROM: usize = 512;
/// Keys `one_chunk` widens to f32 at a time.
const BLOCK: usize = 32;
/// Batches of at least this many query rows take the tiled path, whose
/// tiles are this many keys.
pub const TILE: usize = 64;
/// Tokens llama.cpp reads in one batch (its default `n_ubatch`).
pub const UBATCH: usize = 512;

impl Kv {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `seq` positions of `k` and `v`, laid out (seq, heads, dim),
    /// rounded to f16.
    pub fn append(&mut self, heads: usize, dim: usize, seq: usize, k: &[f32], v: &[f32]) {
        if self.cap == 0 {
            self.heads = heads;
            self.dim = dim;
        }
        debug_assert_eq!((self.heads, self.dim), (heads, dim));
        if self.len + seq > self.cap {
            // A quarter more each time, not twice: a slot's conversation
            // of 1,100 positions held 2,048 when it doubled (the CLI's
            // prefix cache keeps up to four), and a copy per growth is cheap
            // beside the forward passes that fill it.
            let cap = (self.len + seq)
                .max(self.cap + self.cap / 4)
                .next_multiple_of(STEP);
            let grow = |old: &[u16]| {
                let mut new = vec![0u16; heads * cap * dim];
                for g in 0..heads {
                    let from = &old[g * self.cap * dim..][..self.len * dim];
                    new[g * cap * dim..][..self.len * dim].copy_from_slice(from);
                }
                new
            };
            self.k = grow(&self.k);
            self.v = grow(&self.v);
            self.cap = cap;
        }
        for t in 0..seq {
            for g in 0..heads {
                let at = (g * self.cap + self.len + t) * dim;
                let from = (t * heads + g) * dim;
                for d in 0..dim {
                    self.k[at + d] = f16_bits(k[from + d]);
                    self.v[at + d] = f16_bits(v[from + d]);
                }
            }
        }
        self.len += seq;
    }

    /// Key head `g`'s rows `from..from + n`, as f16 bits.
    fn keys(&self, g: usize, from: usize, n: usize) -> &[u16] {
        &self.k[(g * self.cap + from) * self.dim..][..n * self.dim]
    }

    /// Value head `g`'s rows `from..from + n`, as f16 bits.
    fn values(&self, g: usize, from: usize, n: usize) -> &[u16] {
        &self.v[(g * self.cap + from) * self.dim..][..n * self.dim]
    }
}

/// Causal attention of `seq` new tokens, the last `seq` positions of `kv`:
/// `q` and `out` are laid out (seq, heads, dim); query head `j` reads key
/// head `j / (heads / kv heads)`.
pub fn attend(q: &[f32], heads: usize, seq: usize, kv: &Kv, out: &mut [f32]) {
    attend_with::<Fast>(q, heads, seq, kv, out)
}

/// `attend` with the given inner loops (tests compare `Simd` with `Scalar`).
/// Natively the heads of a batch are shared out over the product threads
/// (`quant::native`); each head's values are the same whichever thread
/// computes them.
pub fn attend_with<L: Lanes>(q: &[f32], heads: usize, seq: usize, kv: &Kv, out: &mut [f32]) {
    attend_in::<L>(q, heads, seq, kv, out, true)
}

/// `attend` with every head on the calling thread, in order (the tests
/// compare it with `attend`'s heads shared out over threads).
pub fn attend_unsplit(q: &[f32], heads: usize, seq: usize, kv: &Kv, out: &mut [f32]) {
    attend_in::<Fast>(q, heads, seq, kv, out, false)
}

fn attend_in<L: Lanes>(
    q: &[f32],
    heads: usize,
    seq: usize,
    kv: &Kv,
    out: &mut [f32],
    may_split: bool,
) {
    let dim = kv.dim;
    let first = kv.len - seq;
    for start in (0..seq).step_by(UBATCH) {
        let rows = UBATCH.min(seq - start);
        let batch = Batch {
            q,
            heads,
            first,
            start,
            rows,
        };
        // Worth another thread: a few hundred thousand multiply-adds a head.
        let split = may_split && rows * (first + start + rows) * dim >= SPLIT_WORK;
        let each = |j: usize| batch.head::<L>(kv, j);
        #[cfg(not(target_arch = "wasm32"))]
        let per_head = crate::model::quant::native::map_split(heads, split, each);
        #[cfg(target_arch = "wasm32")]
        let per_head: Vec<Vec<f32>> = {
            let _ = split;
            (0..heads).map(each).collect()
        };
        for (j, o) in per_head.iter().enumerate() {
            for (r, o) in o.chunks_exact(dim).enumerate() {
                out[((start + r) * heads + j) * dim..][..dim].copy_from_slice(o);
            }
        }
    }
}

/// The multiply-adds per head from which a batch's heads are split.
const SPLIT_WORK: usize = 1 << 16;

/// One batch of `rows` new tokens from `start` (of the `seq` whose first
/// position is `first`), queries laid out (seq, heads, dim).
struct Batch<'a> {
    q: &'a [f32],
    heads: usize,
    first: usize,
    start: usize,
    rows: usize,
}

impl Batch<'_> {
    /// Query head `j`'s outputs for the batch's rows, (rows, dim); it reads
    /// key head `j / (heads / kv heads)`.
    fn head<L: Lanes>(&self, kv: &Kv, j: usize) -> Vec<f32> {
        let Batch {
            q,
            heads,
            first,
            start,
            rows,
        } = *self;
        let dim = kv.dim;
        let g = j / (heads / kv.heads.max(1));
        let scale = 1.0 / (dim as f32).sqrt();
        // The keys held once this batch is in (llama.cpp's padded n_kv).
        let n_kv = (first + start + rows).next_multiple_of(KV_PAD).max(KV_PAD);
        let at = |i: usize| (i * heads + j) * dim;
        let mut out = vec![0f32; rows * dim];
        if rows >= TILE {
            let queries: Vec<&[f32]> = (start..start + rows).map(|i| &q[at(i)..][..dim]).collect();
            tiled::<L>(&queries, kv, g, first + start + 1, scale, &mut out);
            return out;
        }
        for (r, o) in out.chunks_exact_mut(dim).enumerate() {
            let i = start + r;
            // Token i sees the keys up to its own position.
            let seen = first + i + 1;
            let query = &q[at(i)..][..dim];
            if rows == 1 && n_kv >= SPLIT_FROM {
                split::<L>(query, kv, g, seen, n_kv, scale, o);
            } else {
                let (_, s, v) = one_chunk::<L>(query, kv, g, 0..seen, scale);
                let inv = if s == 0.0 { 0.0 } else { 1.0 / s };
                for (o, v) in o.iter_mut().zip(v) {
                    *o = v * inv;
                }
            }
        }
        out
    }
}

/// llama.cpp's key-by-key online softmax over `keys` (every one of them
/// seen by the query): the running maximum, the sum of weights and the
/// weighted values, unnormalised. The query is rounded to f16 and the
/// weighted values summed in f16.
fn one_chunk<L: Lanes>(
    query: &[f32],
    kv: &Kv,
    g: usize,
    keys: std::ops::Range<usize>,
    scale: f32,
) -> (f32, f32, Vec<f32>) {
    let dim = kv.dim;
    let q16: Vec<f32> = query.iter().map(|&x| round_f16(x)).collect();
    let (mut m, mut s) = (f32::NEG_INFINITY, 0f32);
    let mut acc = vec![0f32; dim];
    // A block of keys and values widened to f32 at a time.
    let mut key = vec![0f32; BLOCK * dim];
    let mut value = vec![0f32; BLOCK * dim];
    for from in keys.clone().step_by(BLOCK) {
        let n = BLOCK.min(keys.end - from);
        let (key, value) = (&mut key[..n * dim], &mut value[..n * dim]);
        L::widen(kv.keys(g, from, n), key);
        L::widen(kv.values(g, from, n), value);
        for (key, value) in key.chunks_exact(dim).zip(value.chunks_exact(dim)) {
            let score = L::dot(key, &q16) * scale + 0.0;
            let (ms, w);
            if score > m {
                let old = m;
                m = score;
                ms = expf(old - m);
                w = 1.0;
                L::scale_f16(&mut acc, ms);
            } else {
                ms = 1.0;
                w = expf(score - m);
            }
            L::mad_f16(&mut acc, value, w);
            s = s * ms + w;
        }
    }
    (m, s, acc)
}

/// A written token over `n_kv` keys in `THREADS` parts, each part's
/// softmax merged into the last's in order.
fn split<L: Lanes>(
    query: &[f32],
    kv: &Kv,
    g: usize,
    seen: usize,
    n_kv: usize,
    scale: f32,
    o: &mut [f32],
) {
    let part = n_kv.div_ceil(THREADS);
    let (mut m, mut s) = (f32::NEG_INFINITY, 0f32);
    o.fill(0.0);
    for c in 0..THREADS {
        let keys = (c * part).min(seen)..((c + 1) * part).min(seen);
        let (mc, sc, vc) = one_chunk::<L>(query, kv, g, keys, scale);
        if sc == 0.0 {
            continue;
        }
        let mn = m.max(mc);
        let (a, b) = (expf(m - mn), expf(mc - mn));
        for (o, v) in o.iter_mut().zip(&vc) {
            *o = *o * a + v * b;
        }
        s = s * a + sc * b;
        m = mn;
    }
    if s != 0.0 {
        let inv = 1.0 / s;
        for o in o.iter_mut() {
            *o *= inv;
        }
    }
}

/// A batch's rows of one head over tiles of `TILE` keys: scores in f32
/// from the f32 queries, per tile one rescale to each row's new maximum
/// and the tile's weights summed in double, the weighted values summed in
/// f32. Row r sees `seen0 + r` keys; `out` is (rows, dim).
fn tiled<L: Lanes>(
    queries: &[&[f32]],
    kv: &Kv,
    g: usize,
    seen0: usize,
    scale: f32,
    out: &mut [f32],
) {
    let dim = kv.dim;
    let rows = queries.len();
    let (mut m, mut s) = (vec![f32::NEG_INFINITY; rows], vec![0f32; rows]);
    out.fill(0.0);
    let mut kt = vec![0f32; dim * TILE];
    let mut wide = vec![0f32; TILE * dim];
    let mut values = vec![0f32; TILE * dim];
    let mut p = [0f32; TILE];
    // The keys the batch's last row sees.
    let seen_last = seen0 + rows - 1;
    for start in (0..seen_last).step_by(TILE) {
        // The tile's keys, transposed (one row per value of a key).
        let held = (kv.len - start).min(TILE);
        let keys = &mut wide[..held * dim];
        L::widen(kv.keys(g, start, held), keys);
        for (k, key) in keys.chunks_exact(dim).enumerate() {
            for (d, &x) in key.iter().enumerate() {
                kt[d * TILE + k] = x;
            }
        }
        for x in kt.chunks_exact_mut(TILE).flat_map(|r| r[held..].iter_mut()) {
            *x = 0.0;
        }
        // Values of keys past those held are 0 (the buffers start so and
        // hold whole tiles: `STEP` is a multiple of `TILE`).
        L::widen(kv.values(g, start, TILE), &mut values);
        for (r, query) in queries.iter().enumerate() {
            let live = (seen0 + r).saturating_sub(start).min(TILE);
            if live == 0 {
                continue;
            }
            L::scores(query, &kt, &mut p);
            for (k, p) in p.iter_mut().enumerate() {
                *p = if k < live {
                    *p * scale + 0.0
                } else {
                    f32::NEG_INFINITY
                };
            }
            let top = p.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
            let o = &mut out[r * dim..][..dim];
            let new = m[r].max(top);
            if new > m[r] {
                let ms = expf(m[r] - new);
                for o in o.iter_mut() {
                    *o *= ms;
                }
                s[r] *= ms;
            }
            m[r] = new;
            let mut sum = 0f64;
            for p in p.iter_mut() {
                *p = expf(*p - new);
                sum += *p as f64;
            }
            s[r] = (s[r] as f64 + sum) as f32;
            L::weigh(o, &p, &values);
        }
    }
    for (r, o) in out.chunks_exact_mut(dim).enumerate() {
        let inv = if s[r] == 0.0 { 0.0 } else { 1.0 / s[r] };
        for o in o.iter_mut() {
            *o *= inv;
        }
    }
}
