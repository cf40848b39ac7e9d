//! The pass's steps besides products and attention (RMS norm, rotary
//! embeddings, SwiGLU), rounded as llama.cpp's wasm build rounds them, so
//! that the in-page model writes llama.cpp's text (tests/llama_cpp_reference.rs).
//!
//! Each is a few float operations per value, and each is llama.cpp's in
//! its order: a norm's sum of squares in double, rotary angles as a
//! running product, the C library's `expf`, `sinf` and `cosf` (`mathf`).

use crate::model::mathf::{cosf, expf, sinf};

/// RMS norm of each row of `x` (rows of `w.len()`), times `w`:
/// `(x * (1 / sqrt(mean(x²) + eps))) * w`, the squares rounded to f32 and
/// summed in double.
pub fn rms_norm(x: &[f32], w: &[f32], eps: f32) -> Vec<f32> {
    let n = w.len();
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks_exact(n) {
        let sum: f64 = row.iter().map(|&v| (v * v) as f64).sum();
        let mean = (sum / n as f64) as f32;
        let scale = 1.0f32 / (mean + eps).sqrt();
        out.extend(row.iter().zip(w).map(|(&v, &w)| (v * scale) * w));
    }
    out
}

/// Rotary tables: per position, the cosines and sines of the angles of
/// each pair of a head's values. The angle of pair i at position p is p
/// times base^(-2/dim), i times over, multiplied one step at a time.
pub struct Rope {
    cos: Vec<f32>,
    sin: Vec<f32>,
    half: usize,
    /// Pairs (i, i + dim/2) (qwen2) rather than (2i, 2i + 1).
    neox: bool,
}

impl Rope {
    pub fn new(dim: usize, base: f32, len: usize, neox: bool) -> Rope {
        let half = dim / 2;
        let exponent = -2.0f32 / dim as f32;
        let step = (base as f64).powf(exponent as f64) as f32;
        let (mut cos, mut sin) = (
            Vec::with_capacity(len * half),
            Vec::with_capacity(len * half),
        );
        for p in 0..len {
            let mut theta = p as f32;
            for _ in 0..half {
                cos.push(cosf(theta));
                sin.push(sinf(theta));
                theta *= step;
            }
        }
        Rope {
            cos,
            sin,
            half,
            neox,
        }
    }

    /// Positions the tables hold.
    pub fn len(&self) -> usize {
        self.cos.len() / self.half.max(1)
    }

    /// Rotates one head's values (`2 * half` of them) for position `pos`.
    pub fn rotate(&self, x: &mut [f32], pos: usize) {
        let (cos, sin) = (
            &self.cos[pos * self.half..][..self.half],
            &self.sin[pos * self.half..][..self.half],
        );
        for i in 0..self.half {
            let (a, b) = if self.neox {
                (i, i + self.half)
            } else {
                (2 * i, 2 * i + 1)
            };
            let (x0, x1) = (x[a], x[b]);
            x[a] = x0 * cos[i] - x1 * sin[i];
            x[b] = x0 * sin[i] + x1 * cos[i];
        }
    }
}

/// SwiGLU: `silu(gate) * up`, `silu(x) = x / (1 + e^-x)`.
pub fn swiglu(gate: &[f32], up: &[f32]) -> Vec<f32> {
    gate.iter()
        .zip(up)
        .map(|(&g, &u)| g / (1.0f32 + expf(-g)) * u)
        .collect()
}
