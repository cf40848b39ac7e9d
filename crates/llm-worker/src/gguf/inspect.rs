//! Reads a GGUF file's header and says whether Roundtable can run it:
//! architecture, tokenizer, quantisation, that every tensor lies inside the
//! file, and whether the model fits in a tab's memory. Every refusal is a
//! sentence the user can act on.

use crate::protocol::ModelInfo;
use candle_core::quantized::gguf_file::{Content, Value};
use candle_core::quantized::GgmlDType;
use std::collections::HashMap;
use std::io::{Read, Seek};

/// Architectures with a loader here (llama covers SmolLM2 and Llama 3).
pub const ARCHITECTURES: [&str; 2] = ["llama", "qwen2"];

/// The longest context the worker allows (the model's rotary tables are
/// this long).
pub const MAX_CONTEXT: usize = 4096;

/// wasm32 addresses 4 GiB; the app, the tokenizer and buffers need some of it.
pub const MEMORY_BUDGET: u64 = 3 * 1024 * 1024 * 1024;

pub struct Meta<'a>(pub &'a HashMap<String, Value>);

impl Meta<'_> {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }
    pub fn str(&self, key: &str) -> Option<&str> {
        self.0
            .get(key)
            .and_then(|v| v.to_string().ok())
            .map(String::as_str)
    }
    pub fn u32(&self, key: &str) -> Option<u32> {
        self.0.get(key).and_then(|v| v.to_u32().ok())
    }
}

pub fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    match v? {
        Value::Array(items) => items.iter().map(|i| i.to_string().ok().cloned()).collect(),
        _ => None,
    }
}

fn dtype_name(d: GgmlDType) -> &'static str {
    match d {
        GgmlDType::F32 => "F32",
        GgmlDType::F16 => "F16",
        GgmlDType::BF16 => "BF16",
        GgmlDType::Q4_0 => "Q4_0",
        GgmlDType::Q4_1 => "Q4_1",
        GgmlDType::Q5_0 => "Q5_0",
        GgmlDType::Q5_1 => "Q5_1",
        GgmlDType::Q8_0 => "Q8_0",
        GgmlDType::Q8_1 => "Q8_1",
        GgmlDType::Q2K => "Q2_K",
        GgmlDType::Q3K => "Q3_K",
        GgmlDType::Q4K => "Q4_K",
        GgmlDType::Q5K => "Q5_K",
        GgmlDType::Q6K => "Q6_K",
        GgmlDType::Q8K => "Q8_K",
    }
}

/// Types with wasm SIMD kernels (candle's or `quant`'s) or unpacked to
/// floats; the others run, slowly.
fn fast(d: GgmlDType) -> bool {
    !matches!(d, GgmlDType::Q8_1 | GgmlDType::Q8K)
}

/// Turns candle's header errors into what the user can do about them.
pub fn read_error(e: candle_core::Error) -> String {
    let text = e.to_string();
    if text.contains("unknown dtype") {
        format!("This file uses a quantisation Roundtable cannot read ({text}; e.g. the IQ types). Pick a Q8_0, Q4_0 or Q4_K_M file.")
    } else if text.contains("magic/version") {
        format!("This GGUF file's version is not one Roundtable reads ({text}; versions 1 to 3 are). Download a current GGUF file.")
    } else if text.contains("magic") {
        "This is not a GGUF model file (its first bytes are not \"GGUF\"). Pick a .gguf file."
            .into()
    } else if text.contains("failed to fill whole buffer")
        || text.contains("exceeds")
        || text.contains("remaining")
    {
        format!("This GGUF file is damaged or incomplete ({text}). Download it again.")
    } else {
        format!("This GGUF file cannot be read: {text}.")
    }
}

/// Reads and checks the header of a model file of `file_bytes` bytes.
pub fn inspect<R: Read + Seek>(
    reader: &mut R,
    file_bytes: u64,
    budget: u64,
) -> Result<(Content, ModelInfo), String> {
    let content = Content::read(reader).map_err(read_error)?;
    let info = check(&content, file_bytes, budget)?;
    Ok((content, info))
}

pub fn check(content: &Content, file_bytes: u64, budget: u64) -> Result<ModelInfo, String> {
    let meta = Meta(&content.metadata);
    let arch = meta.str("general.architecture").unwrap_or("").to_string();
    if !ARCHITECTURES.contains(&arch.as_str()) {
        return Err(format!(
            "This model's architecture is {}; Roundtable runs llama (SmolLM2, Llama 3) and qwen2 (Qwen2, Qwen2.5) models.",
            if arch.is_empty() { "not named in the file".to_string() } else { format!("\"{arch}\"") }
        ));
    }
    let tokenizer = meta.str("tokenizer.ggml.model").unwrap_or("");
    if tokenizer != "gpt2" {
        return Err(format!(
            "This model's tokenizer is {}; Roundtable reads byte-level BPE tokenizers (\"gpt2\"), which SmolLM2, Qwen2.5 and Llama 3 use.",
            if tokenizer.is_empty() { "not in the file".to_string() } else { format!("\"{tokenizer}\"") }
        ));
    }
    let need = |key: &str| {
        meta.u32(&format!("{arch}.{key}"))
            .ok_or_else(|| format!("The file lacks {arch}.{key}, which every {arch} model has: it is damaged or not a chat model."))
    };
    let hidden = need("embedding_length")?;
    let layers = need("block_count")?;
    let heads = need("attention.head_count")?;
    let kv_heads = meta
        .u32(&format!("{arch}.attention.head_count_kv"))
        .unwrap_or(heads);
    if hidden == 0
        || layers == 0
        || heads == 0
        || kv_heads == 0
        || hidden % heads != 0
        || heads % kv_heads != 0
    {
        return Err(format!(
            "This model's shape is impossible ({hidden} wide, {layers} layers, {heads} heads, {kv_heads} key/value heads): the file is damaged."
        ));
    }
    let context = meta.u32(&format!("{arch}.context_length")).unwrap_or(2048);

    // Every tensor must lie inside the file: a cut download fails here,
    // not halfway through loading.
    let mut counts: HashMap<&'static str, u64> = HashMap::new();
    let mut params: u64 = 0;
    let mut slow = Vec::new();
    let mut embd_elems: u64 = 0;
    for (name, t) in &content.tensor_infos {
        let elems = t.shape.elem_count() as u64;
        let bytes = elems / t.ggml_dtype.block_size() as u64 * t.ggml_dtype.type_size() as u64;
        let end = content.tensor_data_offset + t.offset + bytes;
        if end > file_bytes {
            return Err(format!(
                "This GGUF file is incomplete: it has {:.1} MB and its weights need more (tensor {name} ends at {:.1} MB). Download it again.",
                file_bytes as f64 / 1e6,
                end as f64 / 1e6
            ));
        }
        params += elems;
        *counts.entry(dtype_name(t.ggml_dtype)).or_default() += elems;
        if !fast(t.ggml_dtype) && !slow.contains(&dtype_name(t.ggml_dtype)) {
            slow.push(dtype_name(t.ggml_dtype));
        }
        if name == "token_embd.weight" {
            embd_elems = elems;
        }
    }
    if embd_elems == 0 {
        return Err("The file has no token_embd.weight tensor: it is not a complete model.".into());
    }
    // The weights as stored, the embedding once more as f32 (a margin: its
    // rows are unpacked as they come), and a full context of keys and
    // values (f16s: `attention::Kv`).
    let head_dim = (hidden / heads) as u64;
    let kv_heads = kv_heads as u64;
    let kv = 2 * layers as u64 * kv_heads * head_dim * 2 * context.min(MAX_CONTEXT as u32) as u64;
    let memory = file_bytes + embd_elems * 4 + kv;
    if memory > budget {
        return Err(format!(
            "This model needs about {} MB of memory and a browser tab can give it about {} MB. Pick a smaller model (SmolLM2-360M or Qwen2.5-0.5B in Q4_0 fit).",
            memory / 1_000_000,
            budget / 1_000_000
        ));
    }
    let quant = counts
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(d, _)| d.to_string())
        .unwrap_or_default();
    let name = meta
        .str("general.name")
        .map(str::to_string)
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| arch.clone());
    Ok(ModelInfo {
        name,
        arch,
        quant,
        params,
        file_bytes,
        memory_bytes: memory,
        kv_bytes: kv,
        context: context.min(MAX_CONTEXT as u32),
        layers,
        hidden,
        vocab: strings(meta.get("tokenizer.ggml.tokens"))
            .map(|t| t.len())
            .unwrap_or(0) as u32,
        has_template: meta.str("tokenizer.chat_template").is_some(),
        slow_types: slow.iter().map(|s| s.to_string()).collect(),
        workers: 1,
        // Which kernels run is the engine's to say once it loads the model.
        simd: String::new(),
        sha256: String::new(),
    })
}
