//! Constrained decoding: an answer held to a JSON Schema (or a grammar:
//! the text tool protocol's) by construction.
//! The model's pick is checked first (one token: [`Constraint::takes`]);
//! when the schema does not take it, every token that would take the
//! answer outside the schema gets a logit of minus infinity and the pick
//! is made again, so the sampler can only pick one that keeps the answer
//! valid; the end of turn is allowed only once the answer is complete. The masks come from
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
    /// Each token's bytes (a special token's start with 0xFF).
    words: Arc<Vec<Vec<u8>>>,
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
        Ok(Vocab {
            factory,
            eos,
            words: Arc::new(words.to_vec()),
        })
    }
}

/// The end of turn of [`Vocab::bytes`].
pub const BYTE_EOS: u32 = 256;

/// One answer held to a schema.
pub struct Constraint {
    matcher: Matcher,
    eos: u32,
    words: Arc<Vec<Vec<u8>>>,
    /// Where a JSON answer stands (None: held to a grammar, not JSON).
    json: Option<Lexer>,
}

/// Where a JSON answer stands between tokens: in a string or not (and
/// after a backslash in one), and how many lists and objects are open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Lexer {
    in_string: bool,
    escaped: bool,
    depth: usize,
}

impl Lexer {
    fn read(&mut self, bytes: &[u8]) {
        for &b in bytes {
            match (self.in_string, self.escaped, b) {
                (true, true, _) => self.escaped = false,
                (true, false, b'\\') => self.escaped = true,
                (_, false, b'"') => self.in_string = !self.in_string,
                (false, _, b'[' | b'{') => self.depth += 1,
                (false, _, b']' | b'}') => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
    }
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
        let mut c = Constraint::of(vocab, TopLevelGrammar::from_json_schema(schema), "schema")?;
        c.json = Some(Lexer::default());
        Ok(c)
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
            words: vocab.words.clone(),
            json: None,
        })
    }

    /// Whether the answer is held to a JSON Schema (it can be wrapped up,
    /// [`closing`](Self::closing)).
    pub fn is_json(&self) -> bool {
        self.json.is_some()
    }

    /// The lists and objects a JSON answer has open (None: not JSON).
    pub fn depth(&self) -> Option<usize> {
        self.json.map(|l| l.depth)
    }

    /// The allowed token that takes a JSON answer soonest to its end: the
    /// end of turn once the answer is whole; else, in a string, the token
    /// that closes it soonest (`"` earliest); outside one, the one that
    /// closes a list or object soonest (`]` or `}`, then `"`: a key or
    /// value the shape requires); the shortest on a tie. A model that
    /// loops is wrapped up with it: the answer ends whole and fits its
    /// shape, its open text cut where the loop was found (the engine
    /// closes the list or object the loop was in, then lets the model
    /// write on).
    pub fn closing(&mut self) -> Result<u32, String> {
        let allowed = self
            .matcher
            .compute_mask_or_eos()
            .map_err(|e| format!("the structured-output engine failed: {e}"))?;
        if allowed.is_allowed(self.eos) {
            return Ok(self.eos);
        }
        let in_string = self.json.is_some_and(|l| l.in_string);
        let rank = |b: u8| match (in_string, b) {
            (true, b'"') => Some(0),
            (false, b']' | b'}') => Some(0),
            (false, b'"') => Some(1),
            _ => None,
        };
        let mut best: Option<(usize, u8, usize, u32)> = None;
        for (id, w) in self.words.iter().enumerate() {
            let id = id as u32;
            if w.is_empty() || w[0] == 0xFF || !allowed.is_allowed(id) {
                continue;
            }
            let (at, r) = w
                .iter()
                .enumerate()
                .find_map(|(i, b)| rank(*b).map(|r| (i, r)))
                .unwrap_or((usize::MAX, u8::MAX));
            let key = (at, r, w.len(), id);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        best.map(|b| b.3)
            .ok_or_else(|| "the structured-output engine allows no token".to_string())
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

    /// Whether the answer may go on with `token` (the end of turn: end
    /// here), by checking that one token: far cheaper than the whole mask.
    pub fn takes(&mut self, token: u32) -> Result<bool, String> {
        if self.matcher.is_stopped() {
            return Ok(token == self.eos);
        }
        self.would_take(&[token]).map(|n| n == 1)
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
            .map_err(|e| format!("the structured-output engine refused a token: {e}"))?;
        if let (Some(l), Some(w)) = (self.json.as_mut(), self.words.get(token as usize)) {
            l.read(w);
        }
        Ok(())
    }

    /// The end-of-turn token this constraint allows once complete.
    pub fn eos(&self) -> u32 {
        self.eos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `start`, then the tokens `closing` picks until the end of turn, on
    /// the one-byte vocabulary.
    fn wrapped_up(schema: serde_json::Value, start: &str) -> String {
        let vocab = Vocab::bytes().expect("vocab");
        let mut c = Constraint::new(&vocab, &schema).expect("schema");
        for b in start.bytes() {
            c.accept(u32::from(b)).expect("the start fits");
        }
        let mut out = start.to_string();
        for _ in 0..200 {
            let t = c.closing().expect("a token");
            if t == BYTE_EOS {
                return out;
            }
            c.accept(t).expect("allowed");
            out.push(t as u8 as char);
        }
        panic!("not closed within 200 tokens: {out}");
    }

    #[test]
    fn a_looping_json_answer_is_wrapped_up_whole_and_in_its_shape() {
        let schema = serde_json::json!({
            "type": "object", "additionalProperties": false, "required": ["a", "b", "ok"],
            "properties": {
                "a": {"type": "string", "maxLength": 60},
                "b": {"type": "array", "minItems": 1, "maxItems": 3,
                      "items": {"type": "string", "minLength": 1, "maxLength": 10}},
                "ok": {"type": "boolean"}
            }
        });
        for (start, want) in [
            (r#"{"a": "la la la la"#, r#"{"a": "la la la la", "b": [""#),
            // An escaped quote does not close the string.
            (r#"{"a": "say \"hi"#, r#"{"a": "say \"hi", "b": [""#),
            (
                r#"{"a": "x", "b": ["one", "tw"#,
                r#"{"a": "x", "b": ["one", "tw"]"#,
            ),
        ] {
            let out = wrapped_up(schema.clone(), start);
            assert!(out.starts_with(want), "{out}");
            let v: serde_json::Value = serde_json::from_str(&out).expect(&out);
            assert!(v["b"].as_array().is_some_and(|b| !b.is_empty()), "{out}");
            assert!(v["ok"].is_boolean(), "{out}");
        }
        // A grammar's answer (not JSON) is not wrapped up this way.
        let vocab = Vocab::bytes().expect("vocab");
        assert!(!Constraint::of_grammar(&vocab, "start: \"a\"")
            .expect("grammar")
            .is_json());
    }

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
