//! The prefix cache: each slot holds one conversation's keys and values
//! (`model::Cache`) with its tokens, so a request whose prompt extends a
//! slot's tokens (the same agent's next turn: its last prompt, the answer
//! and a new message) reads only the new tokens. Slots are kept up to what
//! the memory budget holds; the least recently used one is reused.

use crate::gguf::tokenizer::Tok;
use crate::model::Cache;

#[derive(Default)]
pub(super) struct Slot {
    pub(super) cache: Cache,
    /// The tokens whose keys and values the cache holds.
    pub(super) tokens: Vec<u32>,
    used: u64,
    /// A pass is extending the cache layer by layer: until it ends, the
    /// cache's layers hold different lengths.
    pub(super) open: bool,
}

impl Slot {
    pub(super) fn reset(&mut self) {
        self.cache.clear();
        self.tokens.clear();
        self.open = false;
    }
}

pub(super) struct Slots {
    list: Vec<Slot>,
    max: usize,
    clock: u64,
}

impl Slots {
    /// One empty slot, room for `max`.
    pub(super) fn new(max: usize) -> Slots {
        Slots {
            list: vec![Slot::default()],
            max,
            clock: 0,
        }
    }

    pub(super) fn get(&mut self, i: usize) -> &mut Slot {
        &mut self.list[i]
    }

    pub(super) fn tokens(&self, i: usize) -> usize {
        self.list[i].tokens.len()
    }

    /// Forgets every cached prompt.
    pub(super) fn clear(&mut self) {
        for s in &mut self.list {
            s.reset();
        }
    }

    /// The prompt's tokens. Where a cache's text begins the prompt (an
    /// agent's next turn: its last prompt and the answer it wrote), its
    /// tokens are kept as they are and only the rest is tokenized: the
    /// tokens a model writes are not always those its tokenizer would make
    /// of the same text, and the cache holds the written ones.
    pub(super) fn tokens_for(&self, tok: &Tok, text: &str) -> Result<Vec<u32>, String> {
        let mut best: Option<&Slot> = None;
        let mut best_len = 0;
        for s in &self.list {
            if s.tokens.len() <= best.map_or(0, |b| b.tokens.len()) {
                continue;
            }
            let cached = tok.decode_all(&s.tokens);
            if cached.len() < text.len() && text.starts_with(&cached) {
                best = Some(s);
                best_len = cached.len();
            }
        }
        match best {
            Some(s) => {
                let mut tokens = s.tokens.clone();
                tokens.extend(tok.encode(&text[best_len..])?);
                Ok(tokens)
            }
            None => tok.encode(text),
        }
    }

    /// The cache whose tokens are the longest strict prefix of `prompt`;
    /// else a new one while there is room; else the least recently used.
    /// Returns the slot and the prompt tokens it already holds.
    pub(super) fn pick(&mut self, prompt: &[u32]) -> (usize, usize) {
        self.clock += 1;
        // A job dropped mid-pass (a cancel) left its cache half-extended.
        for s in self.list.iter_mut().filter(|s| s.open) {
            s.reset();
        }
        let best = self
            .list
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                !s.tokens.is_empty()
                    && s.tokens.len() < prompt.len()
                    && prompt.starts_with(&s.tokens)
            })
            .max_by_key(|(_, s)| s.tokens.len())
            .map(|(i, s)| (i, s.tokens.len()));
        let (i, reused) = match best {
            Some(hit) => hit,
            None => {
                let i = match self.list.iter().position(|s| s.tokens.is_empty()) {
                    Some(i) => i,
                    None if self.list.len() < self.max => {
                        self.list.push(Slot::default());
                        self.list.len() - 1
                    }
                    None => self
                        .list
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, s)| s.used)
                        .map(|(i, _)| i)
                        .unwrap_or(0),
                };
                self.list[i].reset();
                (i, 0)
            }
        };
        self.list[i].used = self.clock;
        (i, reused)
    }
}
