//! Attention over a conversation's keys and values, on plain slices.
//!
//! The keys and values live in buffers written in place (`Kv`): a new
//! token's rows are appended, the past is never copied per token. Scores,
//! softmax and the weighted sum of values run head by head straight over
//! those buffers with `simd128` (in the browser): a general matrix product
//! would repack every key for every token, and the softmax's scalar `exp`
//! was a tenth of the time of writing an answer.

/// One layer's keys and values: `heads` buffers of `cap` rows of `dim`
/// values, of which the first `len` rows are held.
#[derive(Default)]
pub struct Kv {
    k: Vec<f32>,
    v: Vec<f32>,
    heads: usize,
    dim: usize,
    cap: usize,
    len: usize,
}

/// Buffers grow in steps of this many positions.
const STEP: usize = 256;

impl Kv {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `seq` positions of `k` and `v`, laid out (heads, seq, dim).
    pub fn append(&mut self, heads: usize, dim: usize, seq: usize, k: &[f32], v: &[f32]) {
        if self.cap == 0 {
            self.heads = heads;
            self.dim = dim;
        }
        debug_assert_eq!((self.heads, self.dim), (heads, dim));
        if self.len + seq > self.cap {
            let cap = (self.len + seq).max(self.cap * 2).next_multiple_of(STEP);
            let grow = |old: &[f32]| {
                let mut new = vec![0f32; heads * cap * dim];
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
        for g in 0..heads {
            let at = (g * self.cap + self.len) * dim;
            let rows = g * seq * dim..(g + 1) * seq * dim;
            self.k[at..at + seq * dim].copy_from_slice(&k[rows.clone()]);
            self.v[at..at + seq * dim].copy_from_slice(&v[rows]);
        }
        self.len += seq;
    }

    /// Key head `g`'s first `t` rows.
    pub fn keys(&self, g: usize, t: usize) -> &[f32] {
        &self.k[g * self.cap * self.dim..][..t * self.dim]
    }

    /// Value head `g`'s first `t` rows.
    pub fn values(&self, g: usize, t: usize) -> &[f32] {
        &self.v[g * self.cap * self.dim..][..t * self.dim]
    }
}

/// Causal attention of `seq` new tokens, the last `seq` positions of `kv`:
/// `q` is laid out (heads, seq, dim); query head `j` reads key head
/// `j / (heads / kv heads)`. Writes `out` as (seq, heads × dim), the layout
/// the output projection reads.
pub fn attend(q: &[f32], heads: usize, seq: usize, kv: &Kv, out: &mut [f32]) {
    let dim = kv.dim;
    let rep = heads / kv.heads.max(1);
    let past = kv.len - seq;
    let scale = 1.0 / (dim as f32).sqrt();
    let mut scores = vec![0f32; kv.len];
    for j in 0..heads {
        let g = j / rep;
        for i in 0..seq {
            // Token i sees the past and the batch's tokens up to itself.
            let t = past + i + 1;
            let keys = kv.keys(g, t);
            let query = &q[(j * seq + i) * dim..][..dim];
            let s = &mut scores[..t];
            for (s, key) in s.iter_mut().zip(keys.chunks_exact(dim)) {
                *s = simd::dot(query, key) * scale;
            }
            let max = s.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
            let sum = simd::exp_sub(s, max);
            let o = &mut out[(i * heads + j) * dim..][..dim];
            o.fill(0.0);
            for (&p, value) in s.iter().zip(kv.values(g, t).chunks_exact(dim)) {
                simd::axpy(p / sum, value, o);
            }
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use core::arch::wasm32::*;

    /// Σ a·b (lengths equal, a multiple of 4 where it counts).
    pub fn dot(a: &[f32], b: &[f32]) -> f32 {
        let mut acc = [f32x4_splat(0.0); 4];
        let (ca, ra) = a.split_at(a.len() / 16 * 16);
        let (cb, rb) = b.split_at(ca.len());
        for (x, y) in ca.chunks_exact(16).zip(cb.chunks_exact(16)) {
            for (l, acc) in acc.iter_mut().enumerate() {
                // SAFETY: 16-value chunks; unaligned loads are allowed.
                let (vx, vy) = unsafe {
                    (
                        v128_load(x.as_ptr().add(l * 4) as *const v128),
                        v128_load(y.as_ptr().add(l * 4) as *const v128),
                    )
                };
                *acc = f32x4_add(*acc, f32x4_mul(vx, vy));
            }
        }
        let v = f32x4_add(f32x4_add(acc[0], acc[1]), f32x4_add(acc[2], acc[3]));
        let mut s = f32x4_extract_lane::<0>(v)
            + f32x4_extract_lane::<1>(v)
            + f32x4_extract_lane::<2>(v)
            + f32x4_extract_lane::<3>(v);
        for (x, y) in ra.iter().zip(rb) {
            s += x * y;
        }
        s
    }

    /// o += a·x.
    pub fn axpy(a: f32, x: &[f32], o: &mut [f32]) {
        let va = f32x4_splat(a);
        let n = x.len() / 4 * 4;
        for i in (0..n).step_by(4) {
            // SAFETY: i + 4 <= n <= both lengths.
            unsafe {
                let px = x.as_ptr().add(i) as *const v128;
                let po = o.as_mut_ptr().add(i) as *mut v128;
                v128_store(po, f32x4_add(v128_load(po), f32x4_mul(va, v128_load(px))));
            }
        }
        for i in n..x.len() {
            o[i] += a * x[i];
        }
    }

    /// e^x for four lanes: x = n·ln2 + r, e^r by a degree-6 polynomial on
    /// |r| <= ln2/2, 2^n put in the exponent (about 1 ulp; -inf gives 0).
    fn exp4(x: v128) -> v128 {
        let x = f32x4_max(x, f32x4_splat(-87.0));
        let x = f32x4_min(x, f32x4_splat(88.0));
        let n = f32x4_nearest(f32x4_mul(x, f32x4_splat(std::f32::consts::LOG2_E)));
        let r = f32x4_sub(x, f32x4_mul(n, f32x4_splat(0.693_145_75)));
        let r = f32x4_sub(r, f32x4_mul(n, f32x4_splat(1.428_606_8e-6)));
        let mut p = f32x4_splat(1.0 / 720.0);
        for c in [1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0] {
            p = f32x4_add(f32x4_mul(p, r), f32x4_splat(c));
        }
        let bits = i32x4_shl(i32x4_add(i32x4_trunc_sat_f32x4(n), i32x4_splat(127)), 23);
        f32x4_mul(p, bits)
    }

    /// s = e^(s - max), returning Σ s.
    pub fn exp_sub(s: &mut [f32], max: f32) -> f32 {
        let vm = f32x4_splat(max);
        let mut acc = f32x4_splat(0.0);
        let n = s.len() / 4 * 4;
        for i in (0..n).step_by(4) {
            // SAFETY: i + 4 <= n <= s.len().
            unsafe {
                let p = s.as_mut_ptr().add(i) as *mut v128;
                let e = exp4(f32x4_sub(v128_load(p), vm));
                v128_store(p, e);
                acc = f32x4_add(acc, e);
            }
        }
        let mut sum = f32x4_extract_lane::<0>(acc)
            + f32x4_extract_lane::<1>(acc)
            + f32x4_extract_lane::<2>(acc)
            + f32x4_extract_lane::<3>(acc);
        for x in &mut s[n..] {
            *x = (*x - max).exp();
            sum += *x;
        }
        sum
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod simd {
    pub fn dot(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    pub fn axpy(a: f32, x: &[f32], o: &mut [f32]) {
        for (o, x) in o.iter_mut().zip(x) {
            *o += a * x;
        }
    }

    pub fn exp_sub(s: &mut [f32], max: f32) -> f32 {
        let mut sum = 0.0;
        for x in s.iter_mut() {
            *x = (*x - max).exp();
            sum += *x;
        }
        sum
    }
}
