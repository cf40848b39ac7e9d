//! What a run remembers with: the pool it reads and writes and the
//! embedder its vectors come from ([`Memory`], a resource of the run's
//! context: the app loads it from IndexedDB, the CLI from a pool file; a
//! run without one starts an empty pool with the lexical embedder), and
//! the run's retrieval ([`Recall`]): none, one past task's trace, or the
//! best entry at every step (§2.3). Every retrieval is recorded (what was
//! used and the runners-up, with the score's parts), so replay and fork
//! never need the pool.

use super::contract::*;
use super::experience::{Experience, Hit, Pool, PoolError};
use super::prompts;
use crate::engine::model::embed::{Embedder, LexicalEmbedder};
use crate::engine::model::ModelError;
use crate::engine::run::{CancelToken, RunCtx, RunError};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// A pool and its embedder.
pub struct Memory {
    /// The pool's name (where the platform keeps it).
    pub name: String,
    pub pool: RefCell<Pool>,
    pub embedder: Rc<dyn Embedder>,
    /// Times a step read the pool (none mode never does).
    reads: Cell<usize>,
}

impl Memory {
    /// `pool` with `embedder`; an empty pool takes the embedder's id, a
    /// non-empty one must have been made by it.
    pub fn new(
        name: &str,
        mut pool: Pool,
        embedder: Rc<dyn Embedder>,
    ) -> Result<Memory, PoolError> {
        if pool.is_empty() {
            pool = Pool::new(embedder.id());
        }
        pool.check_embedder(&embedder.id())?;
        Ok(Memory {
            name: name.into(),
            pool: RefCell::new(pool),
            embedder,
            reads: Cell::new(0),
        })
    }

    /// An empty pool with the built-in lexical embedder.
    pub fn lexical(name: &str) -> Memory {
        let e: Rc<dyn Embedder> = Rc::new(LexicalEmbedder);
        Memory {
            name: name.into(),
            pool: RefCell::new(Pool::new(e.id())),
            embedder: e,
            reads: Cell::new(0),
        }
    }

    pub fn reads(&self) -> usize {
        self.reads.get()
    }
}

/// Inputs embedded per request when a pool is re-embedded.
pub const REEMBED_BATCH: usize = 64;

/// `pool`'s entries with their inputs embedded again by `embedder` (in
/// batches of [`REEMBED_BATCH`]; `progress(done, total)` after each), as a
/// pool of that embedder: the way out when a pool's vectors come from
/// another embedder. The entries are kept as they are, in order; `pool`
/// is not changed, so a failure or a stop loses nothing.
pub async fn reembed(
    pool: &Pool,
    embedder: &dyn Embedder,
    cancel: &CancelToken,
    mut progress: impl FnMut(usize, usize),
) -> Result<Pool, String> {
    let mut out = Pool::new(embedder.id());
    let total = pool.len();
    for batch in pool.entries.chunks(REEMBED_BATCH) {
        if cancel.is_cancelled() {
            return Err("Re-embedding was stopped: the pool is unchanged.".into());
        }
        let inputs: Vec<String> = batch.iter().map(|e| e.input.clone()).collect();
        let vectors = embedder.embed(&inputs, cancel).await.map_err(|e| {
            format!(
                "The embedder failed: {}. The pool is unchanged.",
                e.user_message()
            )
        })?;
        if vectors.len() != batch.len() {
            return Err(format!(
                "The embedder returned {} vectors for {} inputs. The pool is unchanged.",
                vectors.len(),
                batch.len()
            ));
        }
        for (e, v) in batch.iter().zip(vectors) {
            out.push(e.clone(), v).map_err(|e| e.user_message())?;
        }
        progress(out.len(), total);
    }
    out.learned = pool.learned.clone();
    Ok(out)
}

/// How many runners-up a retrieval records besides what it uses.
const RUNNERS_UP: usize = 3;

/// One run's retrieval: the mode, the score, the vectors computed so far,
/// and (task mode) the past task it follows.
pub struct Recall {
    pub memory: Rc<Memory>,
    pub mode: Mode,
    pub scoring: Scoring,
    pub k: usize,
    /// The step inputs' vectors, by text (the backward pass reuses them).
    cache: RefCell<HashMap<String, Vec<f32>>>,
    /// Task mode: the trace chosen for this run, if the pool had one.
    trace: RefCell<Option<String>>,
}

impl Recall {
    pub fn new(memory: Rc<Memory>, mode: Mode, scoring: Scoring, k: usize) -> Recall {
        Recall {
            memory,
            mode,
            scoring,
            k: k.max(1),
            cache: RefCell::new(HashMap::new()),
            trace: RefCell::new(None),
        }
    }

    /// The unit vectors of `texts` (cached ones are not computed again).
    pub async fn vectors(
        &self,
        ctx: &RunCtx,
        texts: &[String],
    ) -> Result<Vec<Vec<f32>>, ModelError> {
        let missing: Vec<String> = {
            let cache = self.cache.borrow();
            let mut m: Vec<String> = texts
                .iter()
                .filter(|t| !cache.contains_key(*t))
                .cloned()
                .collect();
            m.dedup();
            m
        };
        if !missing.is_empty() {
            let vs = self
                .memory
                .embedder
                .embed(&missing, ctx.cancel_token())
                .await?;
            if vs.len() != missing.len() {
                return Err(ModelError::Malformed {
                    detail: format!(
                        "the embedder returned {} vectors for {} texts",
                        vs.len(),
                        missing.len()
                    ),
                });
            }
            let mut cache = self.cache.borrow_mut();
            for (t, v) in missing.into_iter().zip(vs) {
                cache.insert(t, v);
            }
        }
        let cache = self.cache.borrow();
        Ok(texts
            .iter()
            .map(|t| cache.get(t).cloned().unwrap_or_default())
            .collect())
    }

    async fn vector(&self, ctx: &RunCtx, text: &str) -> Result<Vec<f32>, ModelError> {
        Ok(self
            .vectors(ctx, &[text.to_string()])
            .await?
            .pop()
            .unwrap_or_default())
    }

    fn record(&self, hit: &Hit, used: bool) -> RetrievedRecord {
        let pool = self.memory.pool.borrow();
        let e: &Experience = &pool.entries[hit.index];
        RetrievedRecord {
            id: hit.id.clone(),
            similarity: hit.similarity,
            reward: hit.reward,
            score: hit.score,
            used,
            input: e.input.clone(),
            output: e.output.clone(),
        }
    }

    /// Task mode, before the first step: the past task whose trace the run
    /// follows, chosen from the root's input (its similarity to each past
    /// root input and that task's final reward, by the same score).
    pub async fn choose_trace(
        &self,
        ctx: &RunCtx,
        root: &str,
        root_input: &str,
    ) -> Result<(), RunError> {
        if self.mode != Mode::Task || self.memory.pool.borrow().is_empty() {
            return Ok(());
        }
        let q = self.vector(ctx, root_input).await?;
        self.memory.reads.set(self.memory.reads() + 1);
        let best = self.memory.pool.borrow().best_trace(&q, &self.scoring);
        let traces = self.memory.pool.borrow().traces().len();
        let Some((trace, hit)) = best else {
            return Ok(());
        };
        let mut rec = self.record(&hit, true);
        rec.id = trace.task_id.clone();
        *self.trace.borrow_mut() = Some(trace.task_id.clone());
        ctx.note(
            root,
            STORE_RETRIEVAL,
            Some("trace"),
            &RetrievalRecord {
                task: "t0".into(),
                step: StepKind::Judge,
                mode: Mode::Task,
                candidates: traces,
                hits: vec![rec],
                trace: Some(trace.task_id),
            },
        );
        Ok(())
    }

    /// The worked example(s) for one step of `agent` on `task`, appended
    /// to its input; none in none mode or when nothing fits. Recorded.
    pub async fn for_step(
        &self,
        ctx: &RunCtx,
        agent: &str,
        kind: StepKind,
        task: &str,
        input: &str,
    ) -> Result<Option<String>, RunError> {
        if self.mode == Mode::None {
            return Ok(None);
        }
        if self.memory.pool.borrow().is_empty() {
            return Ok(None);
        }
        let trace = self.trace.borrow().clone();
        if self.mode == Mode::Task && trace.is_none() {
            return Ok(None);
        }
        let q = self.vector(ctx, input).await?;
        self.memory.reads.set(self.memory.reads() + 1);
        let (hits, candidates) = {
            let pool = self.memory.pool.borrow();
            let n = self.k + RUNNERS_UP;
            let in_trace = |e: &Experience| trace.as_deref().is_none_or(|t| e.task_id == t);
            let mine = |e: &Experience| e.agent == agent && e.step == kind && in_trace(e);
            let count =
                |f: &dyn Fn(&Experience) -> bool| pool.entries.iter().filter(|e| f(e)).count();
            let own = count(&mine);
            if own > 0 || self.mode == Mode::Step {
                (pool.rank(&q, &self.scoring, n, mine), own)
            } else {
                // Task mode: the trace's entries of this step kind by any agent
                // (the past team may have been another graph).
                let any = |e: &Experience| e.step == kind && in_trace(e);
                (pool.rank(&q, &self.scoring, n, any), count(&any))
            }
        };
        if hits.is_empty() {
            return Ok(None);
        }
        let records: Vec<RetrievedRecord> = hits
            .iter()
            .enumerate()
            .map(|(i, h)| self.record(h, i < self.k))
            .collect();
        let example: String = records
            .iter()
            .filter(|r| r.used)
            .map(|r| prompts::example(&r.input, &r.output, r.reward))
            .collect();
        ctx.note(
            agent,
            STORE_RETRIEVAL,
            Some(task),
            &RetrievalRecord {
                task: task.into(),
                step: kind,
                mode: self.mode,
                candidates,
                hits: records,
                trace,
            },
        );
        Ok(Some(example))
    }
}
