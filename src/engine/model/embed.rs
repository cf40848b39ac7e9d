//! Text embeddings: the [`Embedder`] trait, the built-in offline
//! [`LexicalEmbedder`] (feature hashing of words, word bigrams and
//! character trigrams; lexical, not a neural model), and the vector maths
//! retrieval uses. Provider embeddings (OpenAI-compatible `/embeddings`)
//! are in `providers::embeddings`.
//!
//! Every vector an embedder returns is L2-normalised, so a cosine
//! similarity is a dot product.

use super::ModelError;
use crate::engine::base::cancel::CancelToken;
use futures::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};

/// Which embedder made a vector, and its length. Vectors of different
/// embedders are never compared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbedderId {
    /// `lexical-v1`, or `<provider>:<model>` for a provider's embeddings.
    pub id: String,
    pub dims: usize,
}

impl EmbedderId {
    /// What the user reads about it.
    pub fn label(&self) -> String {
        if self.id == LEXICAL_ID {
            format!("built-in lexical embedder ({} dims; word and character features, not a neural model)", self.dims)
        } else {
            format!("{} ({} dims)", self.id, self.dims)
        }
    }
}

/// What an embedding call gives back: one vector per text.
pub type Embedding<'a> = LocalBoxFuture<'a, Result<Vec<Vec<f32>>, ModelError>>;

pub trait Embedder {
    fn id(&self) -> EmbedderId;
    /// One unit-length vector per text, in order.
    fn embed<'a>(&'a self, texts: &'a [String], cancel: &'a CancelToken) -> Embedding<'a>;
}

pub const LEXICAL_ID: &str = "lexical-v1";
pub const LEXICAL_DIMS: usize = 384;

/// Deterministic feature hashing: each lowercase word, each pair of
/// adjacent words and each character trigram of a word (with `^`/`$` at
/// its ends) adds ±1 to one of 384 dimensions (FNV-1a; the sign from
/// another bit of the hash, which keeps collisions from only adding up);
/// words count with weight 2, bigrams and trigrams with 1. Texts that share
/// words and word pieces point the same way; it knows no synonyms.
#[derive(Clone, Copy, Debug, Default)]
pub struct LexicalEmbedder;

/// FNV-1a over `parts`, a separator between them.
pub fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0x1f;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        for b in p.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn add(v: &mut [f32], parts: &[&str], weight: f32) {
    let h = fnv1a(parts);
    let i = (h % v.len() as u64) as usize;
    let sign = if (h >> 63) & 1 == 1 { -1.0 } else { 1.0 };
    v[i] += sign * weight;
}

/// The lowercase words of a text (letters and digits).
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect()
}

impl LexicalEmbedder {
    pub fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; LEXICAL_DIMS];
        let ws = words(text);
        for (i, w) in ws.iter().enumerate() {
            add(&mut v, &["w", w], 2.0);
            if let Some(next) = ws.get(i + 1) {
                add(&mut v, &["b", w, next], 1.0);
            }
            let chars: Vec<char> = std::iter::once('^')
                .chain(w.chars())
                .chain(std::iter::once('$'))
                .collect();
            for t in chars.windows(3) {
                let tri: String = t.iter().collect();
                add(&mut v, &["t", &tri], 1.0);
            }
        }
        normalize(&mut v);
        v
    }
}

impl Embedder for LexicalEmbedder {
    fn id(&self) -> EmbedderId {
        EmbedderId {
            id: LEXICAL_ID.into(),
            dims: LEXICAL_DIMS,
        }
    }

    fn embed<'a>(&'a self, texts: &'a [String], cancel: &'a CancelToken) -> Embedding<'a> {
        Box::pin(async move {
            if cancel.is_cancelled() {
                return Err(ModelError::Cancelled);
            }
            Ok(texts.iter().map(|t| self.vector(t)).collect())
        })
    }
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 && n.is_finite() {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

/// The dot product (the cosine of two unit vectors): the hot loop of
/// retrieval. In the browser build (wasm with SIMD, `.cargo/config.toml`)
/// two `f32x4` accumulators, written out: the size-optimised build does not
/// vectorise loops by itself. Elsewhere eight running sums over exact
/// chunks, which the compiler vectorises.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::dot(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        let mut s = [0.0f32; 8];
        let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
        let tail = plain_dot(ca.remainder(), cb.remainder());
        for (x, y) in ca.zip(cb) {
            for (k, acc) in s.iter_mut().enumerate() {
                *acc += x[k] * y[k];
            }
        }
        ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7])) + tail
    }
}

/// The dot product one pair at a time (the few floats after the lanes).
fn plain_dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use core::arch::wasm32::*;

    /// `a · b` for slices of one length, sixteen lanes at a time (four
    /// independent sums hide the adds' latency).
    pub fn dot(a: &[f32], b: &[f32]) -> f32 {
        let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
        let tail = super::plain_dot(ca.remainder(), cb.remainder());
        let (mut s0, mut s1, mut s2, mut s3) = (
            f32x4_splat(0.0),
            f32x4_splat(0.0),
            f32x4_splat(0.0),
            f32x4_splat(0.0),
        );
        for (x, y) in ca.zip(cb) {
            let (px, py) = (x.as_ptr() as *const v128, y.as_ptr() as *const v128);
            // SAFETY: each chunk holds 16 floats (64 bytes): the four
            // 16-byte loads are in bounds; wasm loads may be unaligned.
            unsafe {
                s0 = f32x4_add(s0, f32x4_mul(v128_load(px), v128_load(py)));
                s1 = f32x4_add(s1, f32x4_mul(v128_load(px.add(1)), v128_load(py.add(1))));
                s2 = f32x4_add(s2, f32x4_mul(v128_load(px.add(2)), v128_load(py.add(2))));
                s3 = f32x4_add(s3, f32x4_mul(v128_load(px.add(3)), v128_load(py.add(3))));
            }
        }
        let s = [s0, s1, s2, s3];
        let v = f32x4_add(f32x4_add(s[0], s[1]), f32x4_add(s[2], s[3]));
        (f32x4_extract_lane::<0>(v) + f32x4_extract_lane::<1>(v))
            + (f32x4_extract_lane::<2>(v) + f32x4_extract_lane::<3>(v))
            + tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_vectors_are_unit_length_deterministic_and_lexically_close() {
        let e = LexicalEmbedder;
        let a = e.vector("Twelve pens cost three dollars each, buy 4 get 1 free.");
        let b = e.vector("How much do 12 pens cost at 3 dollars each with buy 4 get 1 free?");
        let c = e.vector("Summarise the causes of the French revolution.");
        assert_eq!(a.len(), LEXICAL_DIMS);
        assert!((dot(&a, &a) - 1.0).abs() < 1e-5);
        assert_eq!(
            a,
            e.vector("Twelve pens cost three dollars each, buy 4 get 1 free.")
        );
        assert!(
            dot(&a, &b) > dot(&a, &c) + 0.2,
            "{} vs {}",
            dot(&a, &b),
            dot(&a, &c)
        );
        assert_eq!(e.vector("").iter().filter(|x| **x != 0.0).count(), 0);
        // Case and punctuation do not matter; word order (bigrams) does a little.
        assert!((dot(&e.vector("Red APPLE!"), &e.vector("red apple")) - 1.0).abs() < 1e-5);
        assert!(dot(&e.vector("dog bites man"), &e.vector("man bites dog")) < 0.999);
    }

    #[test]
    fn dot_matches_the_plain_sum_for_any_length() {
        for n in [0, 1, 3, 4, 5, 383, 384] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - plain).abs() < 1e-4, "{n}");
        }
    }
}
