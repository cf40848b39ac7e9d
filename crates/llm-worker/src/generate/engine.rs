//! A loaded model and generation one step at a time: the worker yields to
//! its message loop between steps, so a cancel lands before the next token
//! and progress is reported during a long prefill.
//!
//! Prefill: the prompt is read as one batch (up to `PREFILL_BATCH` tokens),
//! one layer per step, so every weight is read once per batch rather than
//! once per token, and progress and cancel still land between layers.
//!
//! Prefix cache: the weights are shared (`model::Model`) and each slot holds
//! one conversation's keys and values (`model::Cache`) with its tokens; a
//! request whose prompt extends a slot's tokens (the same agent's next turn,
//! whose prompt is its last prompt plus the answer and a new message) feeds
//! only the new tokens.
//!
//! Each next token comes from `sampler` (llama.cpp's chain and defaults;
//! greedy at temperature 0), and an answer whose tail is one block written
//! again and again stops there (`repeat`, `Finish::Repeat`); one held to a
//! JSON Schema has the list or object the loop is in closed instead (each
//! next token the one that closes it soonest, `Constraint::closing`), then
//! writes on: it ends whole, and `repeat` says it looped.

use crate::generate::constrain::{Constraint, Vocab};
use crate::generate::repeat::looping_tail;
use crate::generate::sampler::{Sampler, SamplerConfig};
use crate::gguf::inspect::{inspect, Meta, MEMORY_BUDGET};
use crate::gguf::template::Template;
use crate::gguf::tokenizer::Tok;
use crate::model::split::{Part, Peers};
use crate::model::{Cache, Model, Pass};
use crate::protocol::{ChatTurn, GenParams, ModelInfo};
use candle_core::{DType, Tensor};
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

#[derive(Default)]
struct Slot {
    cache: Cache,
    /// The tokens whose keys and values the cache holds.
    tokens: Vec<u32>,
    used: u64,
    /// A pass is extending the cache layer by layer: until it ends, the
    /// cache's layers hold different lengths.
    open: bool,
}

impl Slot {
    fn reset(&mut self) {
        self.cache.clear();
        self.tokens.clear();
        self.open = false;
    }
}

pub struct Engine {
    model: Model,
    slots: Vec<Slot>,
    max_slots: usize,
    tok: Tok,
    template: Template,
    stops: Vec<u32>,
    pub info: ModelInfo,
    clock: u64,
    /// The vocabulary as constrained decoding reads it (made on the first
    /// request with a schema).
    vocab: Option<Result<Vocab, String>>,
}

/// What one step did.
#[derive(Debug, PartialEq)]
pub enum Step {
    Prefill { done: usize, total: usize },
    Token { text: String },
    Done(Finish),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// The model ended its turn.
    Stop,
    /// The token cap (the request's, or the context's end).
    Length,
    /// The answer kept writing the same block (`repeat::looping_tail`).
    Repeat,
}

impl Finish {
    pub fn as_str(self) -> &'static str {
        match self {
            Finish::Stop => "stop",
            Finish::Length => "length",
            Finish::Repeat => "repeat",
        }
    }
}

/// One generation in progress.
pub struct Job {
    slot: usize,
    prompt: Vec<u32>,
    /// Prompt tokens found in the cache.
    pub reused: usize,
    generated: Vec<u32>,
    /// Text already sent as deltas.
    sent: String,
    next: Option<u32>,
    max_new: usize,
    sampler: Sampler,
    finished: Option<Finish>,
    /// The prompt batch being read, layer by layer.
    pass: Option<Pass>,
    /// The schema or grammar the answer is held to, while it is.
    constraint: Option<Constraint>,
    /// Whether the answer was asked to be held, and whether it has been
    /// from its first token (a failure lets it go, said by `held`).
    asked_held: bool,
    let_go: Option<String>,
    /// The answer looped while held to a JSON Schema: it is being closed
    /// until fewer than this many lists and objects are open (the one the
    /// loop was in is closed), then the model writes on.
    wrapping: Option<usize>,
    /// It looped at least once (it ends `repeat`, whole).
    looped: bool,
}

impl Job {
    pub fn prompt_tokens(&self) -> usize {
        self.prompt.len()
    }
    pub fn output_tokens(&self) -> usize {
        self.generated.len()
    }
    /// The tokens written so far.
    pub fn generated(&self) -> &[u32] {
        &self.generated
    }
    /// Prompt tokens the model must still read.
    pub fn to_prefill(&self) -> usize {
        self.prompt.len() - self.reused
    }
    /// The answer was held to its schema (or grammar) from first token to last.
    pub fn held(&self) -> bool {
        self.asked_held && self.let_go.is_none()
    }
    /// Why the schema could not be held, if it was asked and was not.
    pub fn let_go(&self) -> Option<&str> {
        self.let_go.as_deref()
    }
}

fn err(e: candle_core::Error) -> String {
    format!("the model failed: {e}")
}

/// The job's next token from the model's last logits; its context so far
/// (prompt and answer) is what the repetition penalty reads.
fn sample(job: &mut Job, logits: &Tensor) -> Result<u32, String> {
    let mut logits: Vec<f32> = logits
        .to_dtype(DType::F32)
        .and_then(|l| l.to_vec1())
        .map_err(err)?;
    let held = match job.constraint.as_mut() {
        None => None,
        // A looping answer held to its schema: wrapped up, not sampled.
        Some(c) if job.wrapping.is_some() => Some(c.closing()),
        // The model's own pick when the shape takes it (one token checked),
        // the whole mask only when it does not, as llama.cpp's sampler
        // does: greedy, the pick is the one the masked logits give.
        Some(c) => {
            let own = job.sampler.sample(&logits, &job.prompt, &job.generated);
            Some(match c.takes(own) {
                Ok(true) => Ok(own),
                Ok(false) => c
                    .mask(&mut logits)
                    .map(|()| job.sampler.sample(&logits, &job.prompt, &job.generated)),
                Err(e) => Err(e),
            })
        }
    };
    let token = match held {
        Some(Ok(t)) => t,
        None => job.sampler.sample(&logits, &job.prompt, &job.generated),
        Some(Err(e)) => {
            job.let_go = Some(e);
            job.constraint = None;
            job.sampler.sample(&logits, &job.prompt, &job.generated)
        }
    };
    if let Some(c) = job.constraint.as_mut() {
        if let Err(e) = c.accept(token) {
            job.let_go = Some(e);
            job.constraint = None;
        }
    }
    // The list or object the loop was in is closed: the model writes on.
    let depth = job.constraint.as_ref().and_then(Constraint::depth);
    if let (Some(open), Some(now)) = (job.wrapping, depth) {
        if now < open {
            job.wrapping = None;
        }
    }
    Ok(token)
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
            slots: vec![Slot::default()],
            max_slots,
            tok,
            template,
            stops,
            info,
            clock: 0,
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
        for s in &mut self.slots {
            s.reset();
        }
    }

    /// Renders and tokenizes the conversation and picks the cache to use.
    pub fn start(&mut self, turns: &[ChatTurn], params: &GenParams) -> Result<Job, String> {
        let prompt = self.tokens_for(&self.render(turns)?)?;
        let ctx = self.info.context as usize;
        if prompt.len() + 1 >= ctx {
            return Err(format!(
                "The prompt has {} tokens and this model reads at most {ctx}: shorten the task, or use a model with a longer context.",
                prompt.len()
            ));
        }
        let max_new = (params.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS).max(1) as usize)
            .min(ctx - prompt.len() - 1);
        let (slot, reused) = self.pick_slot(&prompt);
        let held = match (&params.schema, &params.grammar) {
            (Some(schema), _) => Some(self.vocab().and_then(|v| Constraint::new(v, schema))),
            (None, Some(lark)) => Some(self.vocab().and_then(|v| Constraint::of_grammar(v, lark))),
            (None, None) => None,
        };
        let (constraint, let_go) = match held {
            Some(Ok(c)) => (Some(c), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        Ok(Job {
            slot,
            prompt,
            reused,
            generated: Vec::new(),
            sent: String::new(),
            next: None,
            max_new,
            sampler: Sampler::new(SamplerConfig::from_params(params), params.seed),
            finished: None,
            pass: None,
            constraint,
            asked_held: params.schema.is_some() || params.grammar.is_some(),
            let_go,
            wrapping: None,
            looped: false,
        })
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

    /// The prompt's tokens. Where a cache's text begins the prompt (an
    /// agent's next turn: its last prompt and the answer it wrote), its
    /// tokens are kept as they are and only the rest is tokenized: the
    /// tokens a model writes are not always those its tokenizer would make
    /// of the same text, and the cache holds the written ones.
    fn tokens_for(&self, text: &str) -> Result<Vec<u32>, String> {
        let mut best: Option<&Slot> = None;
        let mut best_len = 0;
        for s in &self.slots {
            if s.tokens.len() <= best.map_or(0, |b| b.tokens.len()) {
                continue;
            }
            let cached = self.tok.decode_all(&s.tokens);
            if cached.len() < text.len() && text.starts_with(&cached) {
                best = Some(s);
                best_len = cached.len();
            }
        }
        match best {
            Some(s) => {
                let mut tokens = s.tokens.clone();
                tokens.extend(self.tok.encode(&text[best_len..])?);
                Ok(tokens)
            }
            None => self.tok.encode(text),
        }
    }

    /// The cache whose tokens are the longest strict prefix of `prompt`;
    /// else a new one while there is room; else the least recently used.
    fn pick_slot(&mut self, prompt: &[u32]) -> (usize, usize) {
        self.clock += 1;
        // A job dropped mid-pass (a cancel) left its cache half-extended.
        for s in self.slots.iter_mut().filter(|s| s.open) {
            s.reset();
        }
        let best = self
            .slots
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
                let i = match self.slots.iter().position(|s| s.tokens.is_empty()) {
                    Some(i) => i,
                    None if self.slots.len() < self.max_slots => {
                        self.slots.push(Slot::default());
                        self.slots.len() - 1
                    }
                    None => self
                        .slots
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, s)| s.used)
                        .map(|(i, _)| i)
                        .unwrap_or(0),
                };
                self.slots[i].reset();
                (i, 0)
            }
        };
        self.slots[i].used = self.clock;
        (i, reused)
    }

    /// Runs a whole forward pass of `tokens` on a slot (a decode step).
    fn feed(&mut self, slot: usize, tokens: &[u32]) -> Result<Tensor, String> {
        let s = &mut self.slots[slot];
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
        let s = &mut self.slots[job.slot];
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
            let fed = self.slots[job.slot].tokens.len();
            let done = match (&logits, &job.pass) {
                (None, Some(pass)) => {
                    fed + (pass.end() - fed) * pass.layers_done() / self.model.layers()
                }
                _ => fed,
            };
            if let Some(logits) = logits {
                if fed == job.prompt.len() {
                    job.next = Some(sample(job, &logits)?);
                }
            }
            return Ok(Step::Prefill {
                done: done - job.reused,
                total: job.to_prefill(),
            });
        }
        let token = job.next.take().unwrap_or_default();
        if self.stops.contains(&token) {
            // A wrapped-up answer ends whole, but was cut where it looped.
            let finish = if job.looped {
                Finish::Repeat
            } else {
                Finish::Stop
            };
            job.finished = Some(finish);
            let tail = self.unsent(job, true);
            return Ok(if tail.is_empty() {
                Step::Done(finish)
            } else {
                Step::Token { text: tail }
            });
        }
        job.generated.push(token);
        // At the cap, the cap is the reason (a loop ending there too is
        // cut all the same).
        let end = if job.generated.len() >= job.max_new {
            Some(Finish::Length)
        } else if job.wrapping.is_some() || looping_tail(&job.generated).is_none() {
            None
        } else if let Some(open) = job.constraint.as_ref().and_then(Constraint::depth) {
            // Held to a JSON Schema, the loop is cut: the list or object it
            // is in is closed (the answer whole if it is the answer itself).
            job.wrapping = Some(open);
            job.looped = true;
            None
        } else {
            Some(Finish::Repeat)
        };
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
        job.next = Some(sample(job, &logits)?);
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
