//! The worker's own forward pass (`model`) against candle-transformers'
//! quantized llama and qwen2 on the same GGUF files: the same logits after
//! a prompt read as one batch and after each next token, for every
//! quantisation the worker reads (candle's kernels and ours).
//!
//! Our pass rounds as llama.cpp's does, not as candle's: keys and values
//! in f16 inside attention, sums in llama.cpp's order. With float weights
//! the logits agree to the f16 rounding of keys and values (`FLOAT_TOL`). With quantised weights, each dot product
//! is as close to the exact one as candle's (tests/kernels_*.rs), but a
//! last-bit difference can flip the rounding of an activation when it is
//! quantised for the next product (a step of 1/127 of the row's largest
//! value), and two layers on a difference of about 1% of the largest logit
//! is what such flips add up to.

use candle_core::quantized::{gguf_file, GgmlDType};
use candle_core::{Device, Tensor};
use candle_transformers::models::{quantized_llama, quantized_qwen2};
use llm_worker::model::{Cache, Model};
use llm_worker::tiny::{random_model, Shape};
use std::io::Cursor;

enum Reference {
    Llama(quantized_llama::ModelWeights),
    Qwen2(quantized_qwen2::ModelWeights),
}

impl Reference {
    fn forward(&mut self, tokens: &[u32], pos: usize) -> Vec<f32> {
        let x = Tensor::new(tokens, &Device::Cpu)
            .and_then(|t| t.unsqueeze(0))
            .expect("input");
        let out = match self {
            Reference::Llama(m) => m.forward(&x, pos),
            Reference::Qwen2(m) => m.forward(&x, pos),
        };
        out.and_then(|t| t.flatten_all())
            .and_then(|t| t.to_vec1())
            .expect("reference forward")
    }
}

fn max_rel_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-6);
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0f32, f32::max)
        / scale
}

/// Logits may differ by this share of the largest with float weights:
/// our keys and values are rounded to f16, as llama.cpp's flash attention
/// has them.
const FLOAT_TOL: f32 = 5e-3;

/// With quantised weights, whoever's kernels run, what the module's doc
/// says: the passes' other roundings differ, and each difference can flip
/// an activation's 8-bit step.
fn tolerance(dtype: GgmlDType) -> f32 {
    if dtype.block_size() > 1 {
        3e-2
    } else {
        FLOAT_TOL
    }
}

fn check(shape: &Shape, dtype: GgmlDType) {
    let tol = tolerance(dtype);
    let bytes = random_model(shape, dtype, 11).expect("writes");
    let content = gguf_file::Content::read(&mut Cursor::new(&bytes)).expect("header");
    let ours =
        Model::load(&content, &mut Cursor::new(&bytes), shape.arch, 256).expect("our model loads");
    let mut reference = match shape.arch {
        "qwen2" => Reference::Qwen2(
            quantized_qwen2::ModelWeights::from_gguf(
                content,
                &mut Cursor::new(&bytes),
                &Device::Cpu,
            )
            .expect("loads"),
        ),
        _ => Reference::Llama(
            quantized_llama::ModelWeights::from_gguf(
                content,
                &mut Cursor::new(&bytes),
                &Device::Cpu,
            )
            .expect("loads"),
        ),
    };
    let prompt: Vec<u32> = (0..37u32).map(|i| (i * 7 + 3) % 200).collect();
    let mut cache = Cache::default();
    let a = ours
        .forward(&prompt, &mut cache)
        .expect("our forward")
        .to_vec1::<f32>()
        .expect("logits");
    let b = reference.forward(&prompt, 0);
    let d = max_rel_diff(&a, &b);
    assert!(
        d <= tol,
        "{} {dtype:?}: prompt logits differ by {d}",
        shape.arch
    );
    // Then token by token, from the cache.
    for (i, t) in [5u32, 77, 150].into_iter().enumerate() {
        let a = ours
            .forward(&[t], &mut cache)
            .expect("our step")
            .to_vec1::<f32>()
            .expect("logits");
        let b = reference.forward(&[t], prompt.len() + i);
        let d = max_rel_diff(&a, &b);
        assert!(
            d <= tol,
            "{} {dtype:?}: step {i} logits differ by {d}",
            shape.arch
        );
    }
    assert_eq!(cache.len(), prompt.len() + 3);
}

#[test]
fn legacy_types_give_the_references_logits() {
    for arch in ["llama", "qwen2"] {
        for dtype in [
            GgmlDType::Q8_0,
            GgmlDType::Q4_0,
            GgmlDType::Q4_1,
            GgmlDType::Q5_0,
            GgmlDType::Q5_1,
            GgmlDType::F16,
        ] {
            check(&Shape::tiny(arch), dtype);
        }
    }
}

#[test]
fn k_types_give_the_references_logits() {
    // K-quants come in blocks of 256 values: a wider model.
    for arch in ["llama", "qwen2"] {
        let wide = Shape {
            hidden: 256,
            ffn: 512,
            ..Shape::tiny(arch)
        };
        for dtype in [
            GgmlDType::Q2K,
            GgmlDType::Q3K,
            GgmlDType::Q4K,
            GgmlDType::Q5K,
            GgmlDType::Q6K,
        ] {
            check(&wide, dtype);
        }
    }
}

#[test]
fn the_cache_keeps_its_past_as_it_grows() {
    // Past 256 positions the key and value buffers grow (a copy of what
    // they hold): batches and single tokens across that step give the
    // reference's logits.
    let shape = Shape::tiny("llama");
    let bytes = random_model(&shape, GgmlDType::Q8_0, 4).expect("writes");
    let content = gguf_file::Content::read(&mut Cursor::new(&bytes)).expect("header");
    let ours = Model::load(&content, &mut Cursor::new(&bytes), "llama", 1024).expect("loads");
    let mut reference = Reference::Llama(
        quantized_llama::ModelWeights::from_gguf(content, &mut Cursor::new(&bytes), &Device::Cpu)
            .expect("loads"),
    );
    let tokens: Vec<u32> = (0..602u32).map(|i| (i * 13 + 1) % 200).collect();
    let mut cache = Cache::default();
    let mut pos = 0;
    for len in [200, 100, 1, 1, 300] {
        let batch = &tokens[pos..pos + len];
        let a = ours
            .forward(batch, &mut cache)
            .and_then(|t| t.to_vec1::<f32>())
            .expect("ours");
        let b = reference.forward(batch, pos);
        let d = max_rel_diff(&a, &b);
        let tol = tolerance(GgmlDType::Q8_0);
        assert!(d <= tol, "after {} positions: {d}", pos + len);
        pos += len;
        assert_eq!(cache.len(), pos);
    }
}
