//! One answer being written: what a step did (`Step`), why an answer
//! ended (`Finish`), and the job itself — its prompt, the tokens written,
//! its sampler and the shape it is held to. `Job::sample` picks each next
//! token under the job's constraint; `Job::ends_after` says whether the
//! token just written ends the answer (the cap, or a loop: cut when the
//! answer is free, closed and written on when it is held to a JSON Schema).

use crate::generate::constrain::Constraint;
use crate::generate::engine::err;
use crate::generate::repeat::looping_tail;
use crate::generate::sampler::{Sampler, SamplerConfig};
use crate::model::Pass;
use crate::protocol::GenParams;
use candle_core::{DType, Tensor};

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
    pub(super) slot: usize,
    pub(super) prompt: Vec<u32>,
    /// Prompt tokens found in the cache.
    pub reused: usize,
    pub(super) generated: Vec<u32>,
    /// Text already sent as deltas.
    pub(super) sent: String,
    pub(super) next: Option<u32>,
    max_new: usize,
    sampler: Sampler,
    pub(super) finished: Option<Finish>,
    /// The prompt batch being read, layer by layer.
    pub(super) pass: Option<Pass>,
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
    /// A job on cache `slot` (holding `reused` of the prompt's tokens),
    /// writing at most `max_new` tokens, held to `held` when the request
    /// asked for a shape (its error, when the shape could not be made).
    pub(super) fn new(
        slot: usize,
        prompt: Vec<u32>,
        reused: usize,
        max_new: usize,
        params: &GenParams,
        held: Option<Result<Constraint, String>>,
    ) -> Job {
        let (constraint, let_go) = match held {
            Some(Ok(c)) => (Some(c), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        Job {
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
        }
    }

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

    /// How an answer that meets a stop token ends: a wrapped-up answer
    /// ends whole, but was cut where it looped.
    pub(super) fn stopped(&self) -> Finish {
        if self.looped {
            Finish::Repeat
        } else {
            Finish::Stop
        }
    }

    /// Whether the token just written ends the answer. At the cap, the cap
    /// is the reason (a loop ending there too is cut all the same). A loop
    /// ends a free answer; held to a JSON Schema, the list or object the
    /// loop is in is closed instead (the answer whole if it is the answer
    /// itself), and the answer goes on.
    pub(super) fn ends_after(&mut self) -> Option<Finish> {
        if self.generated.len() >= self.max_new {
            Some(Finish::Length)
        } else if self.wrapping.is_some() || looping_tail(&self.generated).is_none() {
            None
        } else if let Some(open) = self.constraint.as_ref().and_then(Constraint::depth) {
            self.wrapping = Some(open);
            self.looped = true;
            None
        } else {
            Some(Finish::Repeat)
        }
    }

    /// The next token from the model's last logits; the context so far
    /// (prompt and answer) is what the repetition penalty reads.
    pub(super) fn sample(&mut self, logits: &Tensor) -> Result<u32, String> {
        let mut logits: Vec<f32> = logits
            .to_dtype(DType::F32)
            .and_then(|l| l.to_vec1())
            .map_err(err)?;
        let held = match self.constraint.as_mut() {
            None => None,
            // A looping answer held to its schema: wrapped up, not sampled.
            Some(c) if self.wrapping.is_some() => Some(c.closing()),
            // The model's own pick when the shape takes it (one token
            // checked), the whole mask only when it does not, as llama.cpp's
            // sampler does: greedy, the pick is the one the masked logits give.
            Some(c) => {
                let own = self.sampler.sample(&logits, &self.prompt, &self.generated);
                Some(match c.takes(own) {
                    Ok(true) => Ok(own),
                    Ok(false) => c
                        .mask(&mut logits)
                        .map(|()| self.sampler.sample(&logits, &self.prompt, &self.generated)),
                    Err(e) => Err(e),
                })
            }
        };
        let token = match held {
            Some(Ok(t)) => t,
            None => self.sampler.sample(&logits, &self.prompt, &self.generated),
            Some(Err(e)) => {
                self.let_go = Some(e);
                self.constraint = None;
                self.sampler.sample(&logits, &self.prompt, &self.generated)
            }
        };
        if let Some(c) = self.constraint.as_mut() {
            if let Err(e) = c.accept(token) {
                self.let_go = Some(e);
                self.constraint = None;
            }
        }
        // The list or object the loop was in is closed: the model writes on.
        let depth = self.constraint.as_ref().and_then(Constraint::depth);
        if let (Some(open), Some(now)) = (self.wrapping, depth) {
            if now < open {
                self.wrapping = None;
            }
        }
        Ok(token)
    }
}
