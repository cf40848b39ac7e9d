//! Experience pools (MAEL §2.2–2.3): every decision step of a learning run
//! becomes an experience (s = the agent's input, a = its output, r = its
//! reward) in the pool of the agent that took it; later steps retrieve by
//! `α·similarity + (1−α)·reward` among the acting agent's entries of the
//! same step kind. A [`Pool`] holds one team's experiences (every agent's,
//! each tagged with its agent) with their embeddings packed as f32, and
//! knows its embedder: vectors of different embedders are never compared.
//!
//! The file format (export / import, `pool` CLI) is
//! `{"format": "roundtable.experience-pool", "version": 1,
//!   "embedder": {"id", "dims"}, "experiences": [{"id", "agent", "step",
//!   "task_id", "input", "output", "reward", "embedding": [..], "dataset"?,
//!   "depth"?}], "tasks"?: [{"id", "key"}]}` (`tasks`: what it learned
//! from, see [`Learned`]; files from before it have none); imports are
//! validated entry by entry and refused whole.

use super::contract::{Polarity, Scoring, StepKind};
use crate::engine::domains::tasks::Task;
use crate::engine::model::embed::{dot, normalize, EmbedderId};
use serde::{Deserialize, Serialize};

pub const FORMAT: &str = "roundtable.experience-pool";
pub const VERSION: u32 = 1;
/// The most experiences one file may hold.
pub const MAX_ENTRIES: usize = 200_000;

/// One step of one agent, with its reward.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Experience {
    pub id: String,
    pub agent: String,
    pub step: StepKind,
    /// The root task of the run it came from (a "trace" is all of one task's).
    pub task_id: String,
    pub input: String,
    pub output: String,
    pub reward: f64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub dataset: String,
    /// How deep in the task tree the step was (0 = the root task).
    #[serde(default)]
    pub depth: u32,
}

/// A task a pool learned from: its id and its content key
/// ([`Task::key`]), so an evaluation can refuse the pool's training tasks
/// whatever file or position they come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Learned {
    pub id: String,
    pub key: String,
}

/// A retrieval result with its score's parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// Index in the pool.
    pub index: usize,
    pub id: String,
    pub similarity: f64,
    pub reward: f64,
    pub score: f64,
}

/// Why a pool cannot be used or changed as asked.
#[derive(Clone, Debug, PartialEq)]
pub enum PoolError {
    /// Vectors of another embedder (or length).
    Embedder { pool: EmbedderId, other: EmbedderId },
    /// A file that is not a pool, or a bad entry in it (nothing is stored).
    Invalid(String),
}

impl PoolError {
    pub fn user_message(&self) -> String {
        match self {
            PoolError::Embedder { pool, other } => format!(
                "This pool's vectors come from {}, not from {}: they cannot be compared. Re-embed the pool with the embedder in use, or switch back to its embedder.",
                pool.label(),
                other.label()
            ),
            PoolError::Invalid(why) => format!("Not a valid experience pool: {why}. Nothing was stored."),
        }
    }
}

/// One team's experiences and their unit vectors.
#[derive(Clone, Debug, PartialEq)]
pub struct Pool {
    pub embedder: EmbedderId,
    pub entries: Vec<Experience>,
    /// `entries.len() × dims` floats.
    vectors: Vec<f32>,
    /// The tasks it learned from, in order (a learning run adds its task
    /// even when none of its steps was stored).
    pub learned: Vec<Learned>,
}

/// The score of an entry (Table 4's variants flip either part).
pub fn score(similarity: f64, reward: f64, s: &Scoring) -> f64 {
    let sim = match s.similarity {
        Polarity::High => similarity,
        Polarity::Low => 1.0 - similarity,
    };
    let r = match s.reward {
        Polarity::High => reward,
        Polarity::Low => 1.0 - reward,
    };
    s.alpha * sim + (1.0 - s.alpha) * r
}

/// Better first: higher score, then higher reward, then the earlier entry.
fn better(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    b.score
        .total_cmp(&a.score)
        .then(b.reward.total_cmp(&a.reward))
        .then(a.index.cmp(&b.index))
}

impl Pool {
    pub fn new(embedder: EmbedderId) -> Pool {
        Pool {
            embedder,
            entries: Vec::new(),
            vectors: Vec::new(),
            learned: Vec::new(),
        }
    }

    /// Records that a run learned from `task` (once per task).
    pub fn note_learned(&mut self, task: &Task) {
        let key = task.key();
        if !self.learned.iter().any(|l| l.key == key) {
            self.learned.push(Learned {
                id: task.id.clone(),
                key,
            });
        }
    }

    /// Whether the pool learned from `task`: by its key; a pool from
    /// before keys were kept knows only ids (its traces', `<id>@<run>`).
    pub fn has_learned(&self, task: &Task) -> bool {
        let key = task.key();
        if self.learned.iter().any(|l| l.key == key) {
            return true;
        }
        let prefix = format!("{}@", task.id);
        self.learned.is_empty() && self.entries.iter().any(|e| e.task_id.starts_with(&prefix))
    }

    /// The ids of `tasks` the pool learned from (an evaluation on them
    /// would measure recall, not learning).
    pub fn overlap(&self, tasks: &[Task]) -> Vec<String> {
        tasks
            .iter()
            .filter(|t| self.has_learned(t))
            .map(|t| t.id.clone())
            .collect()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn dims(&self) -> usize {
        self.embedder.dims
    }

    /// The unit vector of entry `i`.
    pub fn vector(&self, i: usize) -> &[f32] {
        let d = self.dims();
        &self.vectors[i * d..(i + 1) * d]
    }

    /// The packed vectors (entry-major).
    pub fn packed(&self) -> &[f32] {
        &self.vectors
    }

    /// Adds an experience with its vector (normalised here). A vector of
    /// the wrong length, or with a non-finite number, is refused.
    pub fn push(&mut self, exp: Experience, mut vector: Vec<f32>) -> Result<(), PoolError> {
        if vector.len() != self.dims() {
            return Err(PoolError::Invalid(format!(
                "experience {} has a vector of {} numbers, not {}",
                exp.id,
                vector.len(),
                self.dims()
            )));
        }
        if vector.iter().any(|x| !x.is_finite()) || !exp.reward.is_finite() {
            return Err(PoolError::Invalid(format!(
                "experience {} holds a number that is not finite",
                exp.id
            )));
        }
        normalize(&mut vector);
        self.entries.push(Experience {
            reward: exp.reward.clamp(0.0, 1.0),
            ..exp
        });
        self.vectors.extend_from_slice(&vector);
        Ok(())
    }

    /// Refuses a query or merge with vectors of another embedder.
    pub fn check_embedder(&self, other: &EmbedderId) -> Result<(), PoolError> {
        if &self.embedder != other {
            return Err(PoolError::Embedder {
                pool: self.embedder.clone(),
                other: other.clone(),
            });
        }
        Ok(())
    }

    /// The best `k` entries among those `keep` accepts, for the unit
    /// vector `query`, best first (ties: higher reward, then earlier).
    pub fn rank(
        &self,
        query: &[f32],
        scoring: &Scoring,
        k: usize,
        keep: impl Fn(&Experience) -> bool,
    ) -> Vec<Hit> {
        if k == 0 || query.len() != self.dims() {
            return Vec::new();
        }
        let mut best: Vec<Hit> = Vec::with_capacity(k + 1);
        for (i, e) in self.entries.iter().enumerate() {
            if !keep(e) {
                continue;
            }
            let similarity = dot(query, self.vector(i)) as f64;
            let hit = Hit {
                index: i,
                id: String::new(),
                similarity,
                reward: e.reward,
                score: score(similarity, e.reward, scoring),
            };
            if best.len() == k && better(&hit, &best[k - 1]) != std::cmp::Ordering::Less {
                continue;
            }
            let at = best
                .binary_search_by(|h| better(h, &hit))
                .unwrap_or_else(|at| at);
            best.insert(at, hit);
            best.truncate(k);
        }
        for h in &mut best {
            h.id = self.entries[h.index].id.clone();
        }
        best
    }

    /// The runs this pool learned from: one trace per task, with the task's
    /// root input (its description as the root agent first saw it), the
    /// vector of that input and the reward of its final answer.
    pub fn traces(&self) -> Vec<Trace> {
        let mut out: Vec<Trace> = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            let t = match out.iter_mut().position(|t| t.task_id == e.task_id) {
                Some(p) => &mut out[p],
                None => {
                    out.push(Trace {
                        task_id: e.task_id.clone(),
                        root: None,
                        final_reward: None,
                        steps: 0,
                    });
                    out.last_mut().expect("just pushed")
                }
            };
            t.steps += 1;
            if e.depth == 0 {
                if t.root.is_none() {
                    t.root = Some(i);
                }
                if matches!(e.step, StepKind::Aggregate | StepKind::Solve) {
                    t.final_reward = Some(e.reward);
                }
            }
        }
        out
    }

    /// The best trace for a task whose root input has vector `query`:
    /// `score(cos(root inputs), final reward)`, ties as in [`Pool::rank`].
    pub fn best_trace(&self, query: &[f32], scoring: &Scoring) -> Option<(Trace, Hit)> {
        let mut best: Option<(Trace, Hit)> = None;
        for t in self.traces() {
            let (Some(root), Some(reward)) = (t.root, t.final_reward) else {
                continue;
            };
            let similarity = dot(query, self.vector(root)) as f64;
            let hit = Hit {
                index: root,
                id: t.task_id.clone(),
                similarity,
                reward,
                score: score(similarity, reward, scoring),
            };
            if best
                .as_ref()
                .is_none_or(|(_, b)| better(&hit, b) == std::cmp::Ordering::Less)
            {
                best = Some((t, hit));
            }
        }
        best
    }

    /// Adds every entry of `other` whose id this pool does not have yet.
    pub fn merge(&mut self, other: &Pool) -> Result<usize, PoolError> {
        self.check_embedder(&other.embedder)?;
        let mut ids: std::collections::HashSet<String> =
            self.entries.iter().map(|x| x.id.clone()).collect();
        let mut added = 0;
        for (i, e) in other.entries.iter().enumerate() {
            if !ids.insert(e.id.clone()) {
                continue;
            }
            self.push(e.clone(), other.vector(i).to_vec())?;
            added += 1;
        }
        for l in &other.learned {
            if !self.learned.iter().any(|m| m.key == l.key) {
                self.learned.push(l.clone());
            }
        }
        Ok(added)
    }

    /// The pool as its file (embeddings as number arrays).
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Entry<'a> {
            #[serde(flatten)]
            exp: &'a Experience,
            embedding: &'a [f32],
        }
        let experiences: Vec<Entry> = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, exp)| Entry {
                exp,
                embedding: self.vector(i),
            })
            .collect();
        serde_json::json!({
            "format": FORMAT,
            "version": VERSION,
            "embedder": self.embedder,
            "experiences": experiences,
            "tasks": self.learned,
        })
        .to_string()
    }

    /// Reads a pool file, checking every entry: a bad one refuses the
    /// whole file, with the entry named.
    pub fn from_json(text: &str) -> Result<Pool, PoolError> {
        #[derive(Deserialize)]
        struct File {
            format: String,
            version: u32,
            embedder: EmbedderId,
            experiences: Vec<serde_json::Value>,
            #[serde(default)]
            tasks: Vec<Learned>,
        }
        #[derive(Deserialize)]
        struct Entry {
            #[serde(flatten)]
            exp: Experience,
            embedding: Vec<f32>,
        }
        let bad = |s: String| PoolError::Invalid(s);
        let file: File = serde_json::from_str(text)
            .map_err(|e| bad(format!("the file is not a pool file ({e})")))?;
        if file.format != FORMAT {
            return Err(bad(format!(
                "its format is \"{}\", not \"{FORMAT}\"",
                file.format
            )));
        }
        if file.version > VERSION {
            return Err(bad(format!(
                "it was written by a newer Roundtable (version {})",
                file.version
            )));
        }
        if file.embedder.dims == 0 || file.embedder.dims > 8192 {
            return Err(bad(format!(
                "its vectors have {} dimensions",
                file.embedder.dims
            )));
        }
        if file.experiences.len() > MAX_ENTRIES {
            return Err(bad(format!(
                "it holds {} experiences (at most {MAX_ENTRIES})",
                file.experiences.len()
            )));
        }
        if file.tasks.len() > MAX_ENTRIES {
            return Err(bad(format!(
                "it lists {} learned tasks (at most {MAX_ENTRIES})",
                file.tasks.len()
            )));
        }
        let mut pool = Pool::new(file.embedder);
        pool.learned = file.tasks;
        let mut ids = std::collections::HashSet::new();
        for (n, v) in file.experiences.into_iter().enumerate() {
            let at = |why: String| bad(format!("experience {} {why}", n + 1));
            let e: Entry =
                serde_json::from_value(v).map_err(|e| at(format!("is not valid ({e})")))?;
            if e.exp.id.trim().is_empty() || e.exp.agent.trim().is_empty() {
                return Err(at("has no id or no agent".into()));
            }
            if !ids.insert(e.exp.id.clone()) {
                return Err(at(format!("repeats the id {}", e.exp.id)));
            }
            if !(0.0..=1.0).contains(&e.exp.reward) {
                return Err(at(format!(
                    "has the reward {}, outside [0, 1]",
                    e.exp.reward
                )));
            }
            pool.push(e.exp, e.embedding).map_err(|e| match e {
                PoolError::Invalid(why) => at(format!("is not usable: {why}")),
                other => other,
            })?;
        }
        Ok(pool)
    }
}

/// One past task's experiences, as task-wise retrieval sees them.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub task_id: String,
    /// The first root step (its input describes the task).
    pub root: Option<usize>,
    /// The reward of the root's final answer.
    pub final_reward: Option<f64>,
    pub steps: usize,
}

/// A synthetic pool for the benchmarks (native and in Chromium): `n`
/// entries of one agent and step kind with random unit vectors of `dims`
/// and random rewards, and `queries` random unit query vectors; the same
/// for a seed everywhere.
pub fn bench_pool(n: usize, dims: usize, queries: usize) -> (Pool, Vec<Vec<f32>>) {
    let mut rng = crate::engine::model::retry::SplitMix::new(50_000);
    let vector = |rng: &mut crate::engine::model::retry::SplitMix| -> Vec<f32> {
        (0..dims).map(|_| rng.unit() as f32 * 2.0 - 1.0).collect()
    };
    let mut pool = Pool::new(EmbedderId {
        id: "bench".into(),
        dims,
    });
    for i in 0..n {
        let v = vector(&mut rng);
        let exp = Experience {
            id: format!("e{i}"),
            agent: "a1".into(),
            step: StepKind::Solve,
            task_id: format!("t{}", i / 10),
            input: String::new(),
            output: String::new(),
            reward: rng.unit(),
            dataset: String::new(),
            depth: 1,
        };
        // Random numbers in [-1, 1) are finite and of the right length.
        let _ = pool.push(exp, v);
    }
    let qs = (0..queries)
        .map(|_| {
            let mut q = vector(&mut rng);
            normalize(&mut q);
            q
        })
        .collect();
    (pool, qs)
}

#[cfg(test)]
mod tests;
