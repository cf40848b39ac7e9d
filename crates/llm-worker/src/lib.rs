//! Roundtable's in-browser model: GGUF files run with candle, in a Web
//! Worker of their own (`worker`, wasm32 only). The engine, its sampler
//! and loop check, the header checks, the tokenizer and template, and the
//! tiny test models are plain Rust, tested natively.

pub mod attention;
pub mod digest;
pub mod engine;
pub mod inspect;
pub mod mathf;
pub mod model;
pub mod protocol;
pub mod quant;
pub mod repeat;
pub mod sampler;
pub mod split;
pub mod template;
pub mod tiny;
pub mod tokenizer;

#[cfg(target_arch = "wasm32")]
pub mod worker;
