//! A loaded model and generation one step at a time: the worker yields to
//! its message loop between steps, so a cancel lands before the next token
//! and progress is reported during a long prefill.
//!
//! Prefill: the prompt is read as one batch (up to `PREFILL_BATCH` tokens),
//! one layer per step, so every weight is read once per batch rather than
//! once per token, and progress and cancel still land between layers.
//!
//! The weights are shared (`model::Model`); each conversation's keys and
//! values are in a slot of the prefix cache (`slots`). Each next token
//! comes from the job (`job`: the sampler under the answer's shape, and the
//! check that ends or closes an answer that loops).

use crate::generate::constrain::{Constraint, Vocab};
use crate::generate::job::{Finish, Job, Step};
use crate::generate::slots::Slots;
use crate::gguf::inspect::{inspect, Meta, MEMORY_BUDGET};
use crate::gguf::template::Template;
use crate::gguf::tokenizer::Tok;
use crate::model::split::{Part, Peers};
use crate::model::Model;
use crate::protocol::{ChatTurn, GenParams, ModelInfo};
use candle_core::Tensor;
use std::io::{Read, Seek};

pub use crate::gguf::inspect::MAX_CONTEXT;
/// Prompt tokens read in one batch (the attention scores of a batch are
/// batch × context floats per head).
pub const PREFILL_BATCH: usize = 512;
/// Default answer length when the request names none.
pub const DEFAULT_MAX_TOKENS: u32 = 512;
/// Caches kept at most, fewer when the memory budget holds fewer full
/// contexts.
pub const SLOTS: usize = 4;

pub struct Engine {
    model: Model,
    slots: Slots,
    tok: Tok,
    template: Template,
    stops: Vec<u32>,
    pub info: ModelInfo,
    /// The vocabulary as constrained decoding reads it (made on the first
    /// request with a schema).
    vocab: Option<Result<Vocab, String>>,
}

/// A forward pass's error, as the request's answer says it.
pub(super) fn err(e: candle_core::Error) -> String {
    format!("the model failed: {e}")
}

impl Engine {
    /// Reads, checks and loads a GGUF model (`file_bytes`: the file's length).
    pub fn load<R: Read + Seek>(reader: &mut R, file_bytes: u64) -> Result<Engine, String> {
        Self::load_with_budget(reader, file_bytes, MEMORY_BUDGET)
    }

    pub fn load_with_budget<R: Read + Seek>(
        reader: &mut R,
        file_bytes: u64,
        budget: u64,
    ) -> Result<Engine, String> {
        Self::load_part(reader, file_bytes, budget, Part::WHOLE)
    }

    /// Loads the leader's share of every matrix (`part` 0 of several);
    /// `set_peers` then gives it the workers holding the others.
    pub fn load_part<R: Read + Seek>(
        reader: &mut R,
        file_bytes: u64,
        budget: u64,
        part: Part,
    ) -> Result<Engine, String> {
        let (content, mut info) = inspect(reader, file_bytes, budget)?;
        info.simd = crate::model::quant::BUILD.to_string();
        let meta = Meta(&content.metadata);
        let tok = Tok::from_meta(&meta)?;
        let token = |key: &str| {
            meta.u32(key)
                .and_then(|id| tok.inner.id_to_token(id))
                .unwrap_or_default()
        };
        let (bos, eos) = (
            token("tokenizer.ggml.bos_token_id"),
            token("tokenizer.ggml.eos_token_id"),
        );
        let template = Template::new(meta.str("tokenizer.chat_template"), &bos, &eos);
        let mut stops: Vec<u32> = [
            "<|im_end|>",
            "<|endoftext|>",
            "<|eot_id|>",
            "<|end_of_text|>",
        ]
        .iter()
        .filter_map(|t| tok.id(t))
        .collect();
        if let Some(id) = meta.u32("tokenizer.ggml.eos_token_id") {
            stops.push(id);
        }
        let model =
            Model::load_part(&content, reader, &info.arch, MAX_CONTEXT, part).map_err(err)?;
        let base = info.memory_bytes.saturating_sub(info.kv_bytes);
        let max_slots =
            (budget.saturating_sub(base) / info.kv_bytes.max(1)).clamp(1, SLOTS as u64) as usize;
        Ok(Engine {
            model,
            slots: Slots::new(max_slots),
            tok,
            template,
            stops,
            info,
            vocab: None,
        })
    }

    /// Runs every forward pass with `peers` (the other parts' workers).
    pub fn set_peers(&mut self, peers: Box<dyn Peers>) -> Result<(), String> {
        self.model.set_peers(peers).map_err(err)?;
        self.info.workers = self.model.workers() as u32;
        Ok(())
    }

    /// Where a split pass's time went (none on one worker).
    pub fn shares(&self) -> Option<crate::model::split::Shares> {
        self.model.shares()
    }

    /// Takes the weights of `whole` (this model, every row, on this worker
    /// alone) in place of its share and its peers, keeping the
    /// conversations' caches: a generation goes on where it was.
    pub fn adopt_whole(&mut self, whole: Engine) {
        self.model = whole.model;
        self.info.workers = 1;
    }

    /// Whether a worker holding part of the model stopped answering.
    pub fn peers_broken(&self) -> bool {
        self.model.peers_broken()
    }

    /// Products exchanged with the peers so far, and the time it took.
    pub fn exchanged(&self) -> (u64, f64) {
        self.model.exchanged()
    }

    /// The widest product's input and output for a batch, in floats.
    pub fn exchange_floats(&self) -> (usize, usize) {
        self.model.exchange_floats(PREFILL_BATCH)
    }

    pub fn template_source(&self) -> &str {
        &self.template.source
    }

    pub fn render(&self, turns: &[ChatTurn]) -> Result<String, String> {
        self.template.render(turns)
    }

    pub fn tokenizer(&self) -> &Tok {
        &self.tok
    }

    /// The tokens that end an answer.
    pub fn stops(&self) -> &[u32] {
        &self.stops
    }

    /// Forgets every cached prompt.
    pub fn clear_cache(&mut self) {
        self.slots.clear();
    }

    /// Renders and tokenizes the conversation and picks the cache to use.
    pub fn start(&mut self, turns: &[ChatTurn], params: &GenParams) -> Result<Job, String> {
        let prompt = self.slots.tokens_for(&self.tok, &self.render(turns)?)?;
        let ctx = self.info.context as usize;
        if prompt.len() + 1 >= ctx {
            return Err(format!(
                "The prompt has {} tokens and this model reads at most {ctx}: shorten the task, or use a model with a longer context.",
                prompt.len()
            ));
        }
        let max_new = (params.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS).max(1) as usize)
            .min(ctx - prompt.len() - 1);
        let (slot, reused) = self.slots.pick(&prompt);
        let held = match (&params.schema, &params.grammar) {
            (Some(schema), _) => Some(self.vocab().and_then(|v| Constraint::new(v, schema))),
            (None, Some(lark)) => Some(self.vocab().and_then(|v| Constraint::of_grammar(v, lark))),
            (None, None) => None,
        };
        Ok(Job::new(slot, prompt, reused, max_new, params, held))
    }

    /// The vocabulary constrained decoding reads, made once.
    fn vocab(&mut self) -> Result<&Vocab, String> {
        if self.vocab.is_none() {
            let eos = self.stops.first().copied().unwrap_or(0);
            self.vocab = Some(Vocab::new(&self.tok, eos));
        }
        match self.vocab.as_ref() {
            Some(Ok(v)) => Ok(v),
            Some(Err(e)) => Err(e.clone()),
            None => Err("no vocabulary".into()),
        }
    }

    /// Runs a whole forward pass of `tokens` on a slot (a decode step).
    fn feed(&mut self, slot: usize, tokens: &[u32]) -> Result<Tensor, String> {
        let s = self.slots.get(slot);
        match self.model.forward(tokens, &mut s.cache) {
            Ok(logits) => {
                s.tokens.extend_from_slice(tokens);
                Ok(logits)
            }
            // A failed pass leaves the cache in an unknown state: forget it.
            Err(e) => {
                s.reset();
                Err(err(e))
            }
        }
    }

    /// One layer of the prompt batch; the batch's logits after its last.
    fn prefill_layer(&mut self, job: &mut Job) -> Result<Option<Tensor>, String> {
        let s = self.slots.get(job.slot);
        let result = (|| {
            let mut pass = match job.pass.take() {
                Some(p) => p,
                None => {
                    let fed = s.tokens.len();
                    let end = (fed + PREFILL_BATCH).min(job.prompt.len());
                    s.open = true;
                    self.model.begin(&job.prompt[fed..end], &s.cache)?
                }
            };
            self.model.layer(&mut pass, &mut s.cache)?;
            if pass.layers_done() < self.model.layers() {
                job.pass = Some(pass);
                return Ok(None);
            }
            let (fed, end) = (s.tokens.len(), pass.end());
            let logits = self.model.finish(pass)?;
            s.tokens.extend_from_slice(&job.prompt[fed..end]);
            s.open = false;
            Ok(Some(logits))
        })();
        result.map_err(|e| {
            s.reset();
            job.pass = None;
            err(e)
        })
    }

    /// Reads the next chunk of the prompt, or makes the next token.
    pub fn step(&mut self, job: &mut Job) -> Result<Step, String> {
        if let Some(f) = job.finished {
            return Ok(Step::Done(f));
        }
        if job.next.is_none() {
            // Prefill: the cache holds a prefix of the prompt; a batch of
            // the rest is read one layer per step.
            let logits = self.prefill_layer(job)?;
            let fed = self.slots.tokens(job.slot);
            let done = match (&logits, &job.pass) {
                (None, Some(pass)) => {
                    fed + (pass.end() - fed) * pass.layers_done() / self.model.layers()
                }
                _ => fed,
            };
            if let Some(logits) = logits {
                if fed == job.prompt.len() {
                    job.next = Some(job.sample(&logits)?);
                }
            }
            return Ok(Step::Prefill {
                done: done - job.reused,
                total: job.to_prefill(),
            });
        }
        let token = job.next.take().unwrap_or_default();
        if self.stops.contains(&token) {
            let finish = job.stopped();
            job.finished = Some(finish);
            let tail = self.unsent(job, true);
            return Ok(if tail.is_empty() {
                Step::Done(finish)
            } else {
                Step::Token { text: tail }
            });
        }
        job.generated.push(token);
        let end = job.ends_after();
        if let Some(f) = end {
            // Everything written is kept and sent: the deltas add up to
            // the answer's text.
            job.finished = Some(f);
            return Ok(Step::Token {
                text: self.unsent(job, true),
            });
        }
        let delta = self.unsent(job, false);
        let logits = self.feed(job.slot, &[token])?;
        job.next = Some(job.sample(&logits)?);
        Ok(Step::Token { text: delta })
    }

    /// The answer's text not yet sent. A character split across tokens
    /// waits for its last byte, unless this is the end (`last`).
    fn unsent(&self, job: &mut Job, last: bool) -> String {
        let text = self.tok.decode(&job.generated);
        if !text.starts_with(&job.sent) || (!last && text.ends_with('\u{FFFD}')) {
            return String::new();
        }
        let delta = text[job.sent.len()..].to_string();
        job.sent.push_str(&delta);
        delta
    }

    /// Runs a whole generation, handing each delta to `sink` (tests, bench).
    pub fn generate(
        &mut self,
        turns: &[ChatTurn],
        params: &GenParams,
        sink: &mut dyn FnMut(&str),
    ) -> Result<(Job, Finish), String> {
        let mut job = self.start(turns, params)?;
        loop {
            match self.step(&mut job)? {
                Step::Token { text } => sink(&text),
                Step::Prefill { .. } => {}
                Step::Done(f) => return Ok((job, f)),
            }
        }
    }

    /// The full text of a job's answer.
    pub fn text(&self, job: &Job) -> String {
        self.tok.decode(&job.generated)
    }
}
