//! The tokenizer a GGUF file describes, built with the `tokenizers` crate.
//!
//! Only byte-level BPE vocabularies (`tokenizer.ggml.model = "gpt2"`:
//! SmolLM2, Qwen2/2.5, Llama 3) are supported. candle's own GGUF tokenizer
//! builder is not compiled for wasm, and for SmolLM2's `smollm` pre-tokenizer
//! it falls back to GPT-2's with a prefix space (a stray space token after
//! every special token): the pre-tokenizer is chosen here from
//! `tokenizer.ggml.pre`, as the models' own tokenizer.json files set it.

use crate::gguf::inspect::{strings, Meta};
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::normalizers::unicode::NFC;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{AddedToken, SplitDelimiterBehavior, Tokenizer};

/// Qwen2's split pattern (single digits).
const QWEN2: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Llama 3's split pattern (digits in groups of up to three).
const LLAMA3: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

pub struct Tok {
    pub inner: Tokenizer,
    /// Ids of the special (control) tokens.
    pub specials: Vec<u32>,
    pub vocab_size: usize,
}

/// What the file's `tokenizer.ggml.pre` says, as the pre-tokenizer we build.
fn pre_tokenizer(pre: &str) -> Result<(Sequence, bool), String> {
    let split = |pattern: &str| {
        Split::new(
            SplitPattern::Regex(pattern.into()),
            SplitDelimiterBehavior::Isolated,
            false,
        )
        .map_err(|e| format!("the tokenizer's split pattern does not compile: {e}"))
    };
    let bytes = ByteLevel::new(false, false, false);
    Ok(match pre {
        "qwen2" => (
            Sequence::new(vec![split(QWEN2)?.into(), bytes.into()]),
            true,
        ),
        "llama-bpe" | "llama3" | "smaug-bpe" => (
            Sequence::new(vec![split(LLAMA3)?.into(), bytes.into()]),
            false,
        ),
        // SmolLM2 ("smollm") and GPT-2 style vocabularies: single digits,
        // then GPT-2's byte-level split, no prefix space.
        _ => (
            Sequence::new(vec![
                Digits::new(true).into(),
                ByteLevel::new(false, true, true).into(),
            ]),
            false,
        ),
    })
}

impl Tok {
    pub fn from_meta(meta: &Meta) -> Result<Tok, String> {
        let model = meta.str("tokenizer.ggml.model").unwrap_or("");
        if model != "gpt2" {
            return Err(format!(
                "This file's tokenizer is {}, and Roundtable reads byte-level BPE tokenizers only (\"gpt2\": SmolLM2, Qwen2.5, Llama 3). Pick one of the suggested models.",
                if model.is_empty() { "missing".to_string() } else { format!("\"{model}\"") }
            ));
        }
        let tokens = strings(meta.get("tokenizer.ggml.tokens"))
            .ok_or("The file has no token list (tokenizer.ggml.tokens).")?;
        let merges = strings(meta.get("tokenizer.ggml.merges"))
            .ok_or("The file has no BPE merges (tokenizer.ggml.merges).")?;
        let types: Vec<i32> = match meta.get("tokenizer.ggml.token_type") {
            Some(candle_core::quantized::gguf_file::Value::Array(v)) => {
                v.iter().map(|t| t.to_i32().unwrap_or(1)).collect()
            }
            _ => vec![1; tokens.len()],
        };
        let vocab: tokenizers::models::bpe::Vocab = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as u32))
            .collect();
        let mut pairs = Vec::with_capacity(merges.len());
        for m in &merges {
            let (a, b) = m
                .split_once(' ')
                .ok_or_else(|| format!("A BPE merge has no space in it: {m:?}"))?;
            pairs.push((a.to_string(), b.to_string()));
        }
        let pre = meta.str("tokenizer.ggml.pre").unwrap_or("default");
        let bpe = BPE::builder()
            .vocab_and_merges(vocab, pairs)
            .ignore_merges(matches!(pre, "llama-bpe" | "llama3"))
            .build()
            .map_err(|e| format!("The file's BPE vocabulary is invalid: {e}"))?;
        let mut tk = Tokenizer::new(bpe);
        let (seq, nfc) = pre_tokenizer(pre)?;
        tk.with_pre_tokenizer(Some(seq));
        tk.with_decoder(Some(ByteLevelDecoder::default()));
        if nfc {
            tk.with_normalizer(Some(NFC))
                .map_err(|e| format!("the tokenizer's normalizer: {e}"))?;
        }
        let mut specials = Vec::new();
        let mut added = Vec::new();
        for (i, (t, ty)) in tokens.iter().zip(types.iter()).enumerate() {
            if *ty == 3 || *ty == 4 {
                specials.push(i as u32);
                added.push(AddedToken::from(t.clone(), true));
            }
        }
        tk.add_special_tokens(added)
            .map_err(|e| format!("the file's special tokens: {e}"))?;
        Ok(Tok {
            inner: tk,
            specials,
            vocab_size: tokens.len(),
        })
    }

    pub fn encode(&self, text: &str) -> Result<Vec<u32>, String> {
        self.inner
            .encode_fast(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| format!("tokenizing the prompt failed: {e}"))
    }

    /// The text of `ids`, special tokens left out.
    pub fn decode(&self, ids: &[u32]) -> String {
        self.inner.decode(ids, true).unwrap_or_default()
    }

    /// The exact text of `ids`, special tokens included (empty when the
    /// bytes are not valid UTF-8 text).
    pub fn decode_all(&self, ids: &[u32]) -> String {
        self.inner.decode(ids, false).unwrap_or_default()
    }

    pub fn id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }
}
