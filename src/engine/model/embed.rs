//! Text embeddings: the [`Embedder`] trait, the built-in offline
//! [`LexicalEmbedder`] (feature hashing of words, word bigrams and
//! character trigrams; lexical, not a neural model), and the vector maths
//! retrieval uses. Provider embeddings (OpenAI-compatible `/embeddings`)
//! are in `providers::embeddings`.
//!
//! Every vector an embedder returns is L2-normalised, so a cosine
//! similarity is a dot product.

use super::ModelError;
use crate::engine::run::cancel::CancelToken;
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

pub trait Embedder {
    fn id(&self) -> EmbedderId;
    /// One unit-length vector per text, in order.
    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Vec<f32>>, ModelError>>;
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

fn fnv1a(parts: &[&str]) -> u64 {
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

    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        cancel: &'a CancelToken,
    ) -> LocalBoxFuture<'a, Result<Vec<Vec<f32>>, ModelError>> {
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

/// The dot product (the cosine of two unit vectors). Four running sums, so
/// the compiler can vectorise it (and the wasm build uses SIMD).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut s = [0.0f32; 4];
    let chunks = n / 4;
    for i in 0..chunks {
        let j = i * 4;
        s[0] += a[j] * b[j];
        s[1] += a[j + 1] * b[j + 1];
        s[2] += a[j + 2] * b[j + 2];
        s[3] += a[j + 3] * b[j + 3];
    }
    let mut tail = 0.0;
    for j in chunks * 4..n {
        tail += a[j] * b[j];
    }
    (s[0] + s[1]) + (s[2] + s[3]) + tail
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
