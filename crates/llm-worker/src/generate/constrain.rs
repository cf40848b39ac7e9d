//! Constrained decoding: an answer held to a JSON Schema (or a grammar:
//! the text tool protocol's) by construction.
//! Before each token is sampled (greedy included), every token that would
//! take the answer outside the schema gets a logit of minus infinity, so
//! the sampler can only pick one that keeps the answer valid; the end of
//! turn is allowed only once the answer is complete. The masks come from
//! llguidance (the engine behind llama.cpp's, vLLM's and SGLang's
//! structured outputs) over the tokenizer's real vocabulary.

use crate::gguf::tokenizer::Tok;
use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::{ApproximateTokEnv, TokEnv, TokRxInfo, TokTrie};
use llguidance::{Matcher, ParserFactory};
use std::sync::Arc;

/// The vocabulary as the mask engine reads it (built once per model).
pub struct Vocab {
    factory: ParserFactory,
    eos: u32,
}

/// GPT-2's byte-level alphabet: the byte a vocabulary character stands
/// for (printable bytes stand for themselves, the others are shifted to
/// 256 and up).
fn byte_of(c: char) -> Option<u8> {
    let printable = |b: u32| {
        (0x21..=0x7E).contains(&b) || (0xA1..=0xAC).contains(&b) || (0xAE..=0xFF).contains(&b)
    };
    let c = c as u32;
    if c < 256 && printable(c) {
        return Some(c as u8);
    }
    // The n-th non-printable byte is 256 + n.
    let n = c.checked_sub(256)?;
    (0u32..256)
        .filter(|b| !printable(*b))
        .nth(n as usize)
        .map(|b| b as u8)
}

/// A vocabulary entry's bytes; None for a string outside the byte-level
/// alphabet (a malformed file).
fn token_bytes(token: &str) -> Option<Vec<u8>> {
    token.chars().map(byte_of).collect()
}

impl Vocab {
    /// The vocabulary of `tok`, with `eos` the end of turn. Special tokens
    /// are marked as such (the mask never offers them inside an answer).
    pub fn new(tok: &Tok, eos: u32) -> Result<Vocab, String> {
        let n = tok.vocab_size as u32;
        let words: Vec<Vec<u8>> = (0..n)
            .map(|id| {
                let text = tok.inner.id_to_token(id).unwrap_or_default();
                if tok.specials.contains(&id) {
                    // toktrie's mark of a special token: 0xFF, then its name.
                    let mut w = vec![0xFF];
                    w.extend_from_slice(text.as_bytes());
                    w
                } else {
                    token_bytes(&text).unwrap_or_default()
                }
            })
            .collect();
        Vocab::of_words(&words, eos)
    }

    /// One token a byte (0xFF, never in UTF-8, has none) and an end of
    /// turn ([`BYTE_EOS`]): a vocabulary to check a schema or grammar
    /// against texts (tests, `roundtable shapes`), not to decode with.
    pub fn bytes() -> Result<Vocab, String> {
        let mut words: Vec<Vec<u8>> = (0u32..256)
            .map(|b| if b == 0xFF { vec![] } else { vec![b as u8] })
            .collect();
        words.push(b"\xFF<eos>".to_vec());
        Vocab::of_words(&words, BYTE_EOS)
    }

    /// A vocabulary of these byte strings (token `i` is `words[i]`; a
    /// special token starts with 0xFF), with `eos` the end of turn: the
    /// tokenizer's, or one token per byte where a grammar is checked on
    /// text (`tests`).
    pub fn of_words(words: &[Vec<u8>], eos: u32) -> Result<Vocab, String> {
        let trie = TokTrie::from(&TokRxInfo::new(words.len() as u32, eos), words);
        let env: TokEnv = Arc::new(ApproximateTokEnv::new(trie));
        let factory = ParserFactory::new_simple(&env)
            .map_err(|e| format!("the structured-output engine could not start: {e}"))?;
        Ok(Vocab { factory, eos })
    }
}

/// The end of turn of [`Vocab::bytes`].
pub const BYTE_EOS: u32 = 256;

/// One answer held to a schema.
pub struct Constraint {
    matcher: Matcher,
    eos: u32,
}

impl Constraint {
    /// A constraint for `schema` (a JSON Schema); an error says why the
    /// schema cannot be held (the answer is then written unconstrained).
    pub fn new(vocab: &Vocab, schema: &serde_json::Value) -> Result<Constraint, String> {
        // JSON as people write it on one line (one space after ":" and
        // ","): a small model held to a schema that allows any whitespace
        // can fill its answer with blanks.
        let mut schema = schema.clone();
        if let Some(o) = schema.as_object_mut() {
            o.insert(
                "x-guidance".into(),
                serde_json::json!({"whitespace_flexible": false, "item_separator": ", ", "key_separator": ": "}),
            );
        }
        Constraint::of(vocab, TopLevelGrammar::from_json_schema(schema), "schema")
    }

    /// A constraint for `lark`, a grammar in llguidance's Lark syntax (the
    /// text tool protocol's: a call whole, or none); an error says why it
    /// cannot be held.
    pub fn of_grammar(vocab: &Vocab, lark: &str) -> Result<Constraint, String> {
        Constraint::of(
            vocab,
            TopLevelGrammar::from_lark(lark.to_string()),
            "grammar",
        )
    }

    fn of(vocab: &Vocab, grammar: TopLevelGrammar, what: &str) -> Result<Constraint, String> {
        let parser = vocab
            .factory
            .create_parser(grammar)
            .map_err(|e| format!("the step's {what} cannot be held: {e}"))?;
        let matcher = Matcher::new(Ok(parser));
        if let Some(e) = matcher.get_error() {
            return Err(format!("the step's {what} cannot be held: {e}"));
        }
        Ok(Constraint {
            matcher,
            eos: vocab.eos,
        })
    }

    /// How many of `tokens`, in order, the constraint would take from here
    /// (none is taken).
    pub fn would_take(&mut self, tokens: &[u32]) -> Result<usize, String> {
        self.matcher
            .validate_tokens(tokens)
            .map_err(|e| format!("the structured-output engine failed: {e}"))
    }

    /// With [`Vocab::bytes`]: whether the held answer can be `text`
    /// exactly, and end there.
    pub fn writes(mut self, text: &str) -> Result<bool, String> {
        for b in text.bytes() {
            if !self.allows(u32::from(b))? {
                return Ok(false);
            }
            self.accept(u32::from(b))?;
        }
        self.allows(BYTE_EOS)
    }

    /// Whether the tokens allowed next include `token` (the end of turn:
    /// whether the answer may end here).
    pub fn allows(&mut self, token: u32) -> Result<bool, String> {
        self.matcher
            .compute_mask_or_eos()
            .map(|m| m.is_allowed(token))
            .map_err(|e| format!("the structured-output engine failed: {e}"))
    }

    /// Sets every token the schema does not allow next to minus infinity.
    pub fn mask(&mut self, logits: &mut [f32]) -> Result<(), String> {
        let allowed = self
            .matcher
            .compute_mask_or_eos()
            .map_err(|e| format!("the structured-output engine failed: {e}"))?;
        for (id, l) in logits.iter_mut().enumerate() {
            if !allowed.is_allowed(id as u32) {
                *l = f32::NEG_INFINITY;
            }
        }
        Ok(())
    }

    /// The sampled token, taken into the answer (the end of turn ends it).
    pub fn accept(&mut self, token: u32) -> Result<(), String> {
        if self.matcher.is_stopped() {
            return Ok(());
        }
        self.matcher
            .consume_token(token)
            .map_err(|e| format!("the structured-output engine refused a token: {e}"))
    }

    /// The end-of-turn token this constraint allows once complete.
    pub fn eos(&self) -> u32 {
        self.eos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_level_alphabet_maps_back_to_bytes() {
        assert_eq!(token_bytes("hello"), Some(b"hello".to_vec()));
        // GPT-2's "Ġ" is a space, "Ċ" a newline.
        assert_eq!(token_bytes("Ġ{"), Some(b" {".to_vec()));
        assert_eq!(token_bytes("Ċ"), Some(b"\n".to_vec()));
        let all: Vec<u8> = (0u32..256).map(|b| b as u8).collect();
        let mapped: Vec<u8> = (0u32..512)
            .filter_map(char::from_u32)
            .filter_map(byte_of)
            .collect();
        let mut sorted = mapped.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, all, "every byte has one character");
        assert_eq!(mapped.len(), 256);
    }
}
