//! Writes small GGUF models for tests and benchmarks, through candle's GGUF
//! writer (the format real files use): a byte-level BPE vocabulary with
//! merges, a ChatML template, special tokens, and weights in a real
//! llama / qwen2 tensor layout.
//!
//! Two kinds:
//! - **random**: random weights of any shape (a SmolLM2-135M-shaped one
//!   for benchmarks); its text is noise, but tokens, timing and streaming
//!   are real;
//! - **scripted**: weights chosen so that greedy decoding answers every
//!   prompt with one known reply. The embedding is one-hot, attention and
//!   feed-forward weights are zero (the residual stream carries the
//!   embedding through), and the output matrix maps each token to its
//!   successor: the prompt's last token (the `\n` after `assistant`) → the
//!   reply's tokens in order → end of turn;
//! - **looping**: the same, but the reply's last token leads back to its
//!   first: greedy decoding writes the reply again and again, as small
//!   real models sometimes do with one sentence.

use candle_core::quantized::gguf_file::{self, Value};
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use std::collections::HashMap;
use std::io::Cursor;

/// The ChatML template (SmolLM2 and Qwen instruct models use this form).
pub use crate::gguf::template::CHATML as CHATML_TEMPLATE;

pub const SPECIALS: [&str; 3] = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"];

#[derive(Clone, Debug)]
pub struct Shape {
    pub arch: &'static str,
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub ffn: usize,
    /// Pads the vocabulary with unused tokens up to this size (0 = no padding).
    pub vocab: usize,
    pub context: u32,
}

impl Shape {
    /// A test model: hidden 64, 2 layers.
    pub fn tiny(arch: &'static str) -> Shape {
        Shape {
            arch,
            hidden: 64,
            layers: 2,
            heads: 4,
            kv_heads: 2,
            ffn: 128,
            vocab: 0,
            context: 2048,
        }
    }
    /// About 27M parameters: slow enough in a browser to be stopped mid-answer.
    pub fn medium() -> Shape {
        Shape {
            arch: "llama",
            hidden: 512,
            layers: 6,
            heads: 8,
            kv_heads: 4,
            ffn: 1536,
            vocab: 16384,
            context: 4096,
        }
    }
    /// About 100M parameters in widths K-quants take (blocks of 256): the
    /// one shape every quantisation is benchmarked in.
    pub fn quant_bench() -> Shape {
        Shape {
            arch: "llama",
            hidden: 768,
            layers: 12,
            heads: 12,
            kv_heads: 4,
            ffn: 2048,
            vocab: 32768,
            context: 4096,
        }
    }
    /// SmolLM2-135M's shape (576 hidden, 30 layers, 9/3 heads, vocab 49152).
    pub fn smollm2_135m() -> Shape {
        Shape {
            arch: "llama",
            hidden: 576,
            layers: 30,
            heads: 9,
            kv_heads: 3,
            ffn: 1536,
            vocab: 49152,
            context: 8192,
        }
    }
    /// Qwen2.5-0.5B's shape (896 hidden, 24 layers, 14/2 heads, vocab 151936).
    pub fn qwen25_05b() -> Shape {
        Shape {
            arch: "qwen2",
            hidden: 896,
            layers: 24,
            heads: 14,
            kv_heads: 2,
            ffn: 4864,
            vocab: 151936,
            context: 32768,
        }
    }
}

/// A byte-level BPE vocabulary: the 256 byte tokens, merged tokens for the
/// given words, padding, then the special tokens.
pub struct Vocab {
    pub tokens: Vec<String>,
    pub merges: Vec<String>,
    pub types: Vec<i32>,
}

/// GPT-2's byte → printable character map (byte-level BPE).
pub fn byte_chars() -> Vec<char> {
    let mut printable: Vec<u32> = (b'!' as u32..=b'~' as u32).collect();
    printable.extend(0xA1..=0xAC);
    printable.extend(0xAE..=0xFF);
    let mut map = vec!['\0'; 256];
    let mut extra = 0;
    for b in 0..256u32 {
        let c = if printable.contains(&b) {
            b
        } else {
            extra += 1;
            255 + extra
        };
        map[b as usize] = char::from_u32(c).unwrap_or('?');
    }
    map
}

/// A word in byte-level form (`" world"` → `"Ġworld"`).
pub fn byte_level(text: &str) -> String {
    let map = byte_chars();
    text.bytes().map(|b| map[b as usize]).collect()
}

impl Vocab {
    /// `words` are plain text pieces as the pre-tokenizer cuts them (a
    /// leading space belongs to the word: `" world"`).
    pub fn new(words: &[&str], pad_to: usize) -> Vocab {
        let mut tokens: Vec<String> = byte_chars().iter().map(|c| c.to_string()).collect();
        let mut index: HashMap<String, usize> = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i))
            .collect();
        let mut merges = Vec::new();
        for word in words {
            let chars: Vec<String> = byte_level(word).chars().map(String::from).collect();
            let mut acc = chars[0].clone();
            for c in &chars[1..] {
                let merged = format!("{acc}{c}");
                if !index.contains_key(&merged) {
                    merges.push(format!("{acc} {c}"));
                    index.insert(merged.clone(), tokens.len());
                    tokens.push(merged.clone());
                }
                acc = merged;
            }
        }
        let mut n = 0;
        while tokens.len() + SPECIALS.len() < pad_to {
            tokens.push(format!("<unused{n}>"));
            n += 1;
        }
        let mut types = vec![1; tokens.len()];
        for s in SPECIALS {
            tokens.push(s.to_string());
            types.push(3);
        }
        Vocab {
            tokens,
            merges,
            types,
        }
    }

    pub fn id(&self, token: &str) -> Option<u32> {
        self.tokens
            .iter()
            .position(|t| t == token)
            .map(|i| i as u32)
    }
}

/// Deterministic pseudo-random numbers (xorshift), in [-scale, scale].
struct Noise(u64);

impl Noise {
    fn next(&mut self, scale: f32) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
    }
}

fn tensor(values: Vec<f32>, dims: &[usize], dtype: GgmlDType) -> candle_core::Result<QTensor> {
    let t = Tensor::from_vec(values, dims, &Device::Cpu)?;
    QTensor::quantize(&t, dtype)
}

/// The metadata every model file carries: architecture, shape, tokenizer and template.
fn metadata(shape: &Shape, vocab: &Vocab, name: &str, pre: &str) -> Vec<(String, Value)> {
    let a = shape.arch;
    let head_dim = shape.hidden / shape.heads;
    let strings = |v: &[String]| Value::Array(v.iter().cloned().map(Value::String).collect());
    let eos = vocab.id("<|im_end|>").unwrap_or(0);
    let bos = vocab.id("<|endoftext|>").unwrap_or(0);
    vec![
        ("general.architecture".into(), Value::String(a.into())),
        ("general.name".into(), Value::String(name.into())),
        (format!("{a}.context_length"), Value::U32(shape.context)),
        (
            format!("{a}.embedding_length"),
            Value::U32(shape.hidden as u32),
        ),
        (format!("{a}.block_count"), Value::U32(shape.layers as u32)),
        (
            format!("{a}.feed_forward_length"),
            Value::U32(shape.ffn as u32),
        ),
        (
            format!("{a}.attention.head_count"),
            Value::U32(shape.heads as u32),
        ),
        (
            format!("{a}.attention.head_count_kv"),
            Value::U32(shape.kv_heads as u32),
        ),
        (
            format!("{a}.rope.dimension_count"),
            Value::U32(head_dim as u32),
        ),
        (format!("{a}.rope.freq_base"), Value::F32(10000.0)),
        (
            format!("{a}.attention.layer_norm_rms_epsilon"),
            Value::F32(1e-5),
        ),
        ("tokenizer.ggml.model".into(), Value::String("gpt2".into())),
        ("tokenizer.ggml.pre".into(), Value::String(pre.into())),
        ("tokenizer.ggml.tokens".into(), strings(&vocab.tokens)),
        ("tokenizer.ggml.merges".into(), strings(&vocab.merges)),
        (
            "tokenizer.ggml.token_type".into(),
            Value::Array(vocab.types.iter().map(|t| Value::I32(*t)).collect()),
        ),
        ("tokenizer.ggml.bos_token_id".into(), Value::U32(bos)),
        ("tokenizer.ggml.eos_token_id".into(), Value::U32(eos)),
        (
            "tokenizer.chat_template".into(),
            Value::String(CHATML_TEMPLATE.into()),
        ),
    ]
}

fn write(
    meta: Vec<(String, Value)>,
    tensors: Vec<(String, QTensor)>,
) -> candle_core::Result<Vec<u8>> {
    let meta_refs: Vec<(&str, &Value)> = meta.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let tensor_refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let mut out = Cursor::new(Vec::new());
    gguf_file::write(&mut out, &meta_refs, &tensor_refs)?;
    Ok(out.into_inner())
}

/// Words of the random model's vocabulary (enough merges to exercise BPE).
const WORDS: [&str; 15] = [
    "user",
    "assistant",
    "system",
    "Hello",
    " world",
    " the",
    " agent",
    " plan",
    " and",
    " tool",
    " answer",
    " is",
    " model",
    " notebook",
    " expert",
];

/// A model with random weights. `dtype` is the matrices' type (Q8_0, Q4_0,
/// Q4K, F32...); norms stay F32, as in real files.
pub fn random_model(shape: &Shape, dtype: GgmlDType, seed: u64) -> candle_core::Result<Vec<u8>> {
    random_model_with(shape, dtype, seed, |_| {})
}

/// A random model whose metadata `edit` may change (tests of bad files).
pub fn random_model_with(
    shape: &Shape,
    dtype: GgmlDType,
    seed: u64,
    edit: impl Fn(&mut Vec<(String, Value)>),
) -> candle_core::Result<Vec<u8>> {
    let vocab = Vocab::new(&WORDS, shape.vocab);
    let n_vocab = vocab.tokens.len();
    let mut noise = Noise(seed.max(1));
    let h = shape.hidden;
    let kv = h / shape.heads * shape.kv_heads;
    let mut mat = |rows: usize, cols: usize, dtype: GgmlDType| {
        let v: Vec<f32> = (0..rows * cols).map(|_| noise.next(0.08)).collect();
        let dims: Vec<usize> = if rows == 1 {
            vec![cols]
        } else {
            vec![rows, cols]
        };
        tensor(v, &dims, dtype)
    };
    let mut t = vec![("token_embd.weight".to_string(), mat(n_vocab, h, dtype)?)];
    for l in 0..shape.layers {
        let p = format!("blk.{l}");
        t.push((format!("{p}.attn_q.weight"), mat(h, h, dtype)?));
        t.push((format!("{p}.attn_k.weight"), mat(kv, h, dtype)?));
        t.push((format!("{p}.attn_v.weight"), mat(kv, h, dtype)?));
        t.push((format!("{p}.attn_output.weight"), mat(h, h, dtype)?));
        t.push((format!("{p}.ffn_gate.weight"), mat(shape.ffn, h, dtype)?));
        t.push((format!("{p}.ffn_up.weight"), mat(shape.ffn, h, dtype)?));
        t.push((format!("{p}.ffn_down.weight"), mat(h, shape.ffn, dtype)?));
        t.push((
            format!("{p}.attn_norm.weight"),
            tensor(vec![1.0; h], &[h], GgmlDType::F32)?,
        ));
        t.push((
            format!("{p}.ffn_norm.weight"),
            tensor(vec![1.0; h], &[h], GgmlDType::F32)?,
        ));
        if shape.arch == "qwen2" {
            for (n, len) in [("attn_q", h), ("attn_k", kv), ("attn_v", kv)] {
                t.push((format!("{p}.{n}.bias"), mat(1, len, GgmlDType::F32)?));
            }
        }
    }
    t.push((
        "output_norm.weight".into(),
        tensor(vec![1.0; h], &[h], GgmlDType::F32)?,
    ));
    let pre = if shape.arch == "qwen2" {
        "qwen2"
    } else {
        "smollm"
    };
    let mut meta = metadata(shape, &vocab, "Tiny random", pre);
    edit(&mut meta);
    write(meta, t)
}

/// A llama-architecture model that answers every prompt with `reply`
/// (greedy decoding), then ends its turn. The reply's pieces must be
/// distinct tokens: `"Hello from the tiny model."` works, a reply that
/// repeats a word does not (the successor map would loop).
pub fn scripted_model(name: &str, reply: &str) -> Result<Vec<u8>, String> {
    let pieces = pieces(reply);
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    scripted_model_pieces(name, &pieces, &[])
}

/// A scripted model writing exactly the tokens `pieces`, with the merged
/// tokens of `words` in its vocabulary first (so a piece sequence such as
/// `["He", "llo"]` can differ from how the tokenizer cuts "Hello").
pub fn scripted_model_pieces(
    name: &str,
    pieces: &[&str],
    words: &[&str],
) -> Result<Vec<u8>, String> {
    successor_model(name, pieces, words, false)
}

/// A llama-architecture model that writes `reply` over and over (greedy
/// decoding): it never ends its turn. The reply's pieces must be distinct
/// tokens, as for [`scripted_model`].
pub fn looping_model(name: &str, reply: &str) -> Result<Vec<u8>, String> {
    let pieces = pieces(reply);
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    successor_model(name, &pieces, &[], true)
}

/// The scripted and looping models: each token's successor is the next
/// piece; after the last, the end of turn, or the first piece (`looping`).
fn successor_model(
    name: &str,
    pieces: &[&str],
    words: &[&str],
    looping: bool,
) -> Result<Vec<u8>, String> {
    let all: Vec<&str> = words.iter().chain(pieces.iter()).copied().collect();
    let vocab = Vocab::new(&all, 0);
    let n_vocab = vocab.tokens.len();
    // One-hot embeddings need a dimension per token; 32 divides it (Q8_0
    // blocks) and 4 heads of a multiple of 8.
    let h = n_vocab.div_ceil(32) * 32;
    let shape = Shape {
        arch: "llama",
        hidden: h,
        layers: 1,
        heads: 4,
        kv_heads: 4,
        ffn: 32,
        vocab: 0,
        context: 4096,
    };
    let mut chain = vec![vocab.id(&byte_level("\n")).ok_or("no newline token")?];
    for p in pieces {
        let id = vocab
            .id(&byte_level(p))
            .ok_or_else(|| format!("no token for {p:?}"))?;
        if chain.contains(&id) {
            return Err(format!("the reply repeats the piece {p:?}"));
        }
        chain.push(id);
    }
    if looping {
        chain.push(*chain.get(1).ok_or("an empty reply cannot loop")?);
    } else {
        chain.push(vocab.id("<|im_end|>").ok_or("no end-of-turn token")?);
    }
    let mut embd = vec![0f32; n_vocab * h];
    for i in 0..n_vocab {
        embd[i * h + i] = 1.0;
    }
    // Row j of the output matrix scores token j: it reads the dimension of
    // the token whose successor j is.
    let mut out = vec![0f32; n_vocab * h];
    for pair in chain.windows(2) {
        out[pair[1] as usize * h + pair[0] as usize] = 1.0;
    }
    let f32t =
        |v: Vec<f32>, dims: &[usize]| tensor(v, dims, GgmlDType::F32).map_err(|e| e.to_string());
    let zeros = |rows: usize, cols: usize| f32t(vec![0.0; rows * cols], &[rows, cols]);
    let mut t = vec![
        ("token_embd.weight".to_string(), f32t(embd, &[n_vocab, h])?),
        ("output.weight".to_string(), f32t(out, &[n_vocab, h])?),
        ("output_norm.weight".to_string(), f32t(vec![1.0; h], &[h])?),
    ];
    let p = "blk.0";
    for n in ["attn_q", "attn_k", "attn_v", "attn_output"] {
        t.push((format!("{p}.{n}.weight"), zeros(h, h)?));
    }
    t.push((format!("{p}.ffn_gate.weight"), zeros(shape.ffn, h)?));
    t.push((format!("{p}.ffn_up.weight"), zeros(shape.ffn, h)?));
    t.push((format!("{p}.ffn_down.weight"), zeros(h, shape.ffn)?));
    t.push((format!("{p}.attn_norm.weight"), f32t(vec![1.0; h], &[h])?));
    t.push((format!("{p}.ffn_norm.weight"), f32t(vec![1.0; h], &[h])?));
    write(metadata(&shape, &vocab, name, "smollm"), t).map_err(|e| e.to_string())
}

/// The reply cut as the SmolLM2 pre-tokenizer cuts it: words with their
/// leading space, runs of punctuation, single digits.
fn pieces(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let kind = |c: char| {
        if c.is_alphabetic() {
            0
        } else if c.is_ascii_digit() {
            1
        } else if c == ' ' {
            3
        } else {
            2
        }
    };
    for c in text.chars() {
        let starts_new = match cur.chars().last() {
            None => false,
            Some(prev) => {
                let (kp, kc) = (kind(prev), kind(c));
                kc == 1 || kp == 1 || kc == 3 || (kp != kc && !(kp == 3 && cur.len() == 1))
            }
        };
        if starts_new {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cut_like_the_pre_tokenizer() {
        assert_eq!(
            pieces("Hello from the tiny model."),
            ["Hello", " from", " the", " tiny", " model", "."]
        );
        assert_eq!(pieces("Go 42!"), ["Go", " ", "4", "2", "!"]);
    }

    #[test]
    fn byte_level_maps_space_and_newline() {
        assert_eq!(byte_level(" world"), "Ġworld");
        assert_eq!(byte_level("\n"), "Ċ");
    }
}
