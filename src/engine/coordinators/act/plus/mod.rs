//! ACT+ (§4.1): knowledge carried over from one complex task to the next.
//! The bank holds the team's agents with their stores; a new complex task's
//! parts go one-to-one to the agents whose keyword embeddings are most
//! similar to them (greedy on the best pair), each agent's expertise is
//! generated again for its new task (its acquired collections stay), and
//! it re-scores its stored entries for the new task (`rescore`: the
//! entries top-c ranks first, a bounded prompt however large the bank);
//! from then on it gets its top c as always. The embedder is the run's
//! (the provider's, or the built-in lexical one, labelled as such).

mod rescore;

pub use rescore::{
    candidates, could_enter, read_scores, rescore_entries, RESCORE_BATCHES, RESCORE_ENTRIES,
    RESCORE_ENTRIES_CHARS, RESCORE_LINE_CHARS,
};

use super::contract::*;
use super::generation;
use super::team::{Act, Agent};
use crate::engine::model::embed::{dot, Embedder, LexicalEmbedder};
use crate::engine::run::RunError;
use futures::future::join_all;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

pub const BANK_FORMAT: &str = "roundtable-act-bank";
pub const BANK_VERSION: u32 = 1;

/// The carried-over team: its agents with their stores, after `trials`
/// complex tasks. Stored in IndexedDB by the app, in a file by the CLI.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BankData {
    pub format: String,
    pub version: u32,
    pub name: String,
    pub trials: u32,
    pub agents: Vec<Agent>,
}

impl BankData {
    pub fn empty(name: &str) -> BankData {
        BankData {
            format: BANK_FORMAT.into(),
            version: BANK_VERSION,
            name: name.into(),
            trials: 0,
            agents: Vec::new(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a bank file; a file of another kind or version, or with
    /// inconsistent entries, is refused with what is wrong.
    pub fn from_json(text: &str) -> Result<BankData, String> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| format!("The file is not JSON ({e})."))?;
        if v.get("format").and_then(Value::as_str) != Some(BANK_FORMAT) {
            return Err(
                "This is not an ACT knowledge bank (its \"format\" is not roundtable-act-bank)."
                    .into(),
            );
        }
        match v.get("version").and_then(Value::as_u64) {
            Some(1) => {}
            other => {
                return Err(format!(
                    "This knowledge bank has version {other:?}; this build reads version {BANK_VERSION}."
                ))
            }
        }
        let bank: BankData = serde_json::from_value(v)
            .map_err(|e| format!("The knowledge bank is damaged ({e})."))?;
        let mut agent_ids = std::collections::HashSet::new();
        for a in &bank.agents {
            if a.id.trim().is_empty() || !agent_ids.insert(a.id.clone()) {
                return Err(format!(
                    "The knowledge bank is damaged: an agent id is empty or repeated (\"{}\").",
                    a.id
                ));
            }
            let mut ids = std::collections::HashSet::new();
            for k in &a.store.knowledge {
                if k.owner != a.id
                    || k.importance > 10
                    || k.order > 1_000_000
                    || !ids.insert(k.id.clone())
                {
                    return Err(format!(
                        "The knowledge bank is damaged: entry {} of {} (owner {}, importance {}, order {}) is inconsistent or repeated.",
                        k.id, a.id, k.owner, k.importance, k.order
                    ));
                }
            }
        }
        Ok(bank)
    }
}

/// The bank a run reads and writes (a run resource).
pub struct Bank {
    pub data: RefCell<BankData>,
    pub embedder: Rc<dyn Embedder>,
}

impl Bank {
    pub fn lexical(data: BankData) -> Bank {
        Bank {
            data: RefCell::new(data),
            embedder: Rc::new(LexicalEmbedder),
        }
    }
}

/// The bank's agents take the new parts, or None when it holds no team of
/// the right size (the run then generates a new one).
pub async fn take_over(act: &Act<'_>, bank: &Bank, tasks: &[AgentTask]) -> Result<bool, RunError> {
    let (agents, trials, name) = {
        let d = bank.data.borrow();
        (d.agents.clone(), d.trials, d.name.clone())
    };
    if agents.is_empty() {
        return Ok(false);
    }
    if agents.len() != tasks.len() {
        // Never overwrite what a bank learned with an unrelated team.
        return Err(RunError::new(
            "config",
            format!(
                "The knowledge bank \"{name}\" holds a team of {} agents; this task has {} parts. Pick a task with {} parts, or another (or a new) bank.",
                agents.len(),
                tasks.len(),
                agents.len()
            ),
        ));
    }
    act.trial.set(trials);
    let cancel = act.ctx.cancel_token();
    let task_texts: Vec<String> = tasks
        .iter()
        .map(|t| format!("{} {}", t.subject, t.details.join(" ")))
        .collect();
    let task_vecs = bank.embedder.embed(&task_texts, cancel).await?;
    let mut sims = vec![vec![0.0f64; tasks.len()]; agents.len()];
    for (a, agent) in agents.iter().enumerate() {
        let keywords = keywords_of(agent);
        if keywords.is_empty() {
            continue;
        }
        let vecs = bank.embedder.embed(&keywords, cancel).await?;
        for (t, tv) in task_vecs.iter().enumerate() {
            sims[a][t] = vecs
                .iter()
                .map(|kv| f64::from(dot(kv, tv)))
                .fold(f64::MIN, f64::max);
        }
    }
    let pairs = assign(&sims);
    // Member i holds part i.
    let mut slots: Vec<Option<Agent>> = vec![None; tasks.len()];
    for (a, agent) in agents.iter().enumerate() {
        let t = pairs[a];
        act.ctx.add_agent(&agent.id, ROLE_MEMBER, &agent.name);
        act.ctx.note(
            &agent.id,
            STORE_ASSIGNMENT,
            None,
            &AssignmentRecord {
                agent: agent.id.clone(),
                part: t,
                similarity: sims[a][t],
                embedder: bank.embedder.id().label(),
            },
        );
        let mut m = agent.clone();
        m.initial = tasks[t].clone();
        m.current = tasks[t].clone();
        if let Some(slot) = slots.get_mut(t) {
            *slot = Some(m);
        }
    }
    let members: Vec<Agent> = slots.into_iter().flatten().collect();
    *act.members.borrow_mut() = members;
    for i in 0..act.member_count() {
        act.note_task(i, "initial", Vec::new());
        let store = act.members.borrow()[i].store.clone();
        for k in &store.knowledge {
            act.ctx.note(&k.owner, STORE_KNOWLEDGE, Some(&k.id), k);
        }
        for e in &store.episodes {
            act.ctx.note(&e.owner, STORE_EPISODE, Some(&e.id), e);
        }
    }
    // New expertise for the new task; the acquired collections stay.
    generation::members_expertise(act).await?;
    let n = act.member_count();
    join_all((0..n).map(|i| rescore::rescore(act, i)))
        .await
        .into_iter()
        .collect::<Result<(), _>>()?;
    Ok(true)
}

/// Every keyword an agent holds: expertise and acquired.
pub fn keywords_of(agent: &Agent) -> Vec<String> {
    let mut out: Vec<String> = agent.store.expertise.clone();
    for k in &agent.store.knowledge {
        for w in &k.keywords {
            if !out.contains(w) {
                out.push(w.clone());
            }
        }
    }
    out
}

/// One-to-one: repeatedly the most similar free (agent, part) pair (ties:
/// lower agent, then lower part). Returns the part of each agent.
pub fn assign(sims: &[Vec<f64>]) -> Vec<usize> {
    let n = sims.len();
    let mut part_of = vec![usize::MAX; n];
    let mut taken = vec![false; n];
    for _ in 0..n {
        let mut best: Option<(usize, usize, f64)> = None;
        for (a, row) in sims.iter().enumerate() {
            if part_of[a] != usize::MAX {
                continue;
            }
            for (t, &s) in row.iter().enumerate() {
                if taken.get(t).copied().unwrap_or(true) {
                    continue;
                }
                if best.is_none_or(|(_, _, b)| s > b) {
                    best = Some((a, t, s));
                }
            }
        }
        if let Some((a, t, _)) = best {
            part_of[a] = t;
            taken[t] = true;
        }
    }
    part_of
}

/// After the run: the team and its stores go back to the bank.
pub fn store_back(act: &Act<'_>, bank: &Bank) {
    let mut data = bank.data.borrow_mut();
    data.agents = act.members.borrow().clone();
    data.trials += 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_go_one_to_one_to_the_most_similar_agents() {
        let sims = vec![
            vec![0.9, 0.95, 0.1],
            vec![0.2, 0.99, 0.3],
            vec![0.5, 0.4, 0.45],
        ];
        // Best pair (1,1); then (0,0) 0.9; then (2,2).
        assert_eq!(assign(&sims), vec![0, 1, 2]);
        let bank = BankData::empty("t");
        assert_eq!(BankData::from_json(&bank.to_json()), Ok(bank));
        assert!(BankData::from_json("{}")
            .unwrap_err()
            .contains("not an ACT knowledge bank"));
        assert!(
            BankData::from_json("{\"format\": \"roundtable-act-bank\", \"version\": 9}")
                .unwrap_err()
                .contains("version")
        );
    }
}
