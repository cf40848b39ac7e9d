//! Tokens and cost per agent, per phase and per model.

use super::Fold;
use crate::engine::model::pricing::PriceTable;
use crate::engine::model::Usage;
use crate::engine::run::event::{LoggedEvent, RunEvent};
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub calls: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Calls whose usage was estimated (the provider reported none).
    pub estimated_calls: u32,
    pub retries: u32,
    /// Calls answered from a recorded log (fork): counted, never charged.
    pub replayed_calls: u32,
    /// Tokens by model, so cost can be computed with any price table.
    by_model: BTreeMap<String, (u64, u64)>,
}

impl Tally {
    fn add(&mut self, model: &str, u: &Usage, retries: u32, replayed: bool) {
        self.calls += 1;
        if replayed {
            self.replayed_calls += 1;
            return;
        }
        self.input_tokens += u.input_tokens;
        self.output_tokens += u.output_tokens;
        self.retries += retries;
        if u.estimated {
            self.estimated_calls += 1;
        }
        let e = self.by_model.entry(model.to_string()).or_default();
        e.0 += u.input_tokens;
        e.1 += u.output_tokens;
    }

    pub fn is_estimated(&self) -> bool {
        self.estimated_calls > 0
    }

    pub fn total_tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }

    /// Cost in USD and whether every model had a price.
    pub fn cost(&self, prices: &PriceTable) -> (f64, bool) {
        let mut total = 0.0;
        let mut complete = true;
        for (model, (i, o)) in &self.by_model {
            let u = Usage::counted(*i, *o);
            match prices.cost(model, &u) {
                Some(c) => total += c,
                None => complete = false,
            }
        }
        (total, complete)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct UsageView {
    pub total: Tally,
    /// Keyed by agent id, in order of first use.
    pub by_agent: Vec<(String, Tally)>,
    pub by_phase: Vec<(String, Tally)>,
    pub by_model: Vec<(String, Tally)>,
    /// Calls that waited for a free slot (all parallel calls taken) and the
    /// time they waited, in ms: apart from the latencies, which are the
    /// model's time.
    pub queued: (u32, u64),
    /// Agents waiting for a slot, since when.
    waiting: HashMap<String, u64>,
    phase_labels: HashMap<String, String>,
    phase_stack: Vec<String>,
    calls: HashMap<u32, (String, String, String)>,
}

fn bucket<'a>(v: &'a mut Vec<(String, Tally)>, key: &str) -> &'a mut Tally {
    match v.iter().position(|(k, _)| k == key) {
        Some(p) => &mut v[p].1,
        None => {
            v.push((key.to_string(), Tally::default()));
            let last = v.len() - 1;
            &mut v[last].1
        }
    }
}

impl UsageView {
    pub fn phase_label<'a>(&'a self, phase: &'a str) -> &'a str {
        self.phase_labels
            .get(phase)
            .map(String::as_str)
            .unwrap_or(phase)
    }
}

impl Fold for UsageView {
    fn apply(&mut self, ev: &LoggedEvent) {
        match &ev.event {
            RunEvent::PhaseStarted { phase, label } => {
                self.phase_labels.insert(phase.clone(), label.clone());
                self.phase_stack.push(phase.clone());
            }
            RunEvent::PhaseEnded { phase } => {
                if let Some(p) = self.phase_stack.iter().rposition(|p| p == phase) {
                    self.phase_stack.remove(p);
                }
            }
            RunEvent::LlmQueued { agent } => {
                self.waiting.insert(agent.clone(), ev.t_ms);
            }
            RunEvent::LlmRequest {
                call, agent, model, ..
            } => {
                if let Some(since) = self.waiting.remove(agent) {
                    self.queued.0 += 1;
                    self.queued.1 += ev.t_ms.saturating_sub(since);
                }
                let phase = self
                    .phase_stack
                    .last()
                    .cloned()
                    .unwrap_or_else(|| "(none)".into());
                self.calls
                    .insert(*call, (agent.clone(), phase, model.clone()));
            }
            RunEvent::LlmResponse {
                call,
                response,
                retries,
                ..
            } => {
                if let Some((agent, phase, model)) = self.calls.remove(call) {
                    let (u, r, replayed) = (&response.usage, *retries, response.replayed);
                    self.total.add(&model, u, r, replayed);
                    bucket(&mut self.by_agent, &agent).add(&model, u, r, replayed);
                    bucket(&mut self.by_phase, &phase).add(&model, u, r, replayed);
                    bucket(&mut self.by_model, &model).add(&model, u, r, replayed);
                }
            }
            _ => {}
        }
    }
}
