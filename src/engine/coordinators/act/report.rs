//! The paper's tables from run logs: per variant the mean ROUGE-L and
//! ROUGE-1 recall (×100, Tables 3 / 6), words, the judge's score (Table 4;
//! parse failures counted apart), trivia recall (Table 7), how many drafts
//! were accepted, the share of a tool task's sub-tasks completed (§4.3,
//! App. B; judgements that could not be read counted apart); the token
//! share per phase (Table 14); and the replies
//! its steps had to repair, in all and per step kind. The CLI's
//! `act-batch` and the app's batch both print these.

use super::contract::*;
use super::view::ActView;
use crate::engine::run::event::LoggedEvent;
use crate::engine::views::repairs::{self, RepairSum};
use crate::engine::views::Fold;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub variant: String,
    pub runs: usize,
    /// Runs that finished with a result.
    pub scored: usize,
    pub rouge_l: Option<f64>,
    pub rouge1: Option<f64>,
    pub words: Option<f64>,
    pub judge: Option<f64>,
    pub judge_failures: usize,
    pub trivia: Option<f64>,
    /// A tool task's sub-tasks completed, per run, in percent (the mean).
    #[serde(default)]
    pub completion: Option<f64>,
    /// Tool judgements that could not be read (not measured).
    #[serde(default)]
    pub completion_unmeasured: usize,
    pub accepted: usize,
    pub tokens: u64,
    /// Replies, repaired and unreadable replies over the variant's runs,
    /// in all and per step kind: in JSON `replies`, `repaired`,
    /// `unreadable` and `repaired_by_step` beside the other figures.
    #[serde(flatten)]
    pub repairs: RepairSum,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseShare {
    pub phase: String,
    pub tokens: u64,
    /// Of all tokens of the variant's runs, in percent.
    pub share: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub rows: Vec<Row>,
    /// Per variant, the token share per phase.
    pub shares: Vec<(String, Vec<PhaseShare>)>,
}

fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// The report of runs, each `(variant id, its events)`, variants in first
/// appearance order.
pub fn report<'a>(runs: impl IntoIterator<Item = (&'a str, &'a [LoggedEvent])>) -> Report {
    let mut by_variant: Vec<(String, Vec<ActView>, RepairSum)> = Vec::new();
    for (variant, events) in runs {
        let view = ActView::of(events);
        let at = match by_variant.iter().position(|(v, ..)| v == variant) {
            Some(i) => i,
            None => {
                by_variant.push((variant.to_string(), Vec::new(), RepairSum::default()));
                by_variant.len() - 1
            }
        };
        let (_, views, repaired) = &mut by_variant[at];
        views.push(view);
        repaired.add_run(events);
    }
    let mut out = Report::default();
    for (variant, views, repaired) in &by_variant {
        let results: Vec<&ResultRecord> = views.iter().filter_map(|v| v.result.as_ref()).collect();
        let rouge = |f: fn(&crate::engine::domains::creative::score::TeamRouge) -> f64| {
            mean(
                &results
                    .iter()
                    .filter_map(|r| r.scores.rouge.as_ref().map(|x| 100.0 * f(x)))
                    .collect::<Vec<_>>(),
            )
        };
        let judged: Vec<&ActView> = views.iter().filter(|v| v.judge.is_some()).collect();
        out.rows.push(Row {
            variant: variant.clone(),
            runs: views.len(),
            scored: results.len(),
            rouge_l: rouge(|r| r.rouge_l.recall),
            rouge1: rouge(|r| r.rouge1.recall),
            words: mean(&results.iter().map(|r| r.words as f64).collect::<Vec<_>>()),
            judge: mean(
                &judged
                    .iter()
                    .filter_map(|v| v.judge.as_ref().and_then(|j| j.score).map(f64::from))
                    .collect::<Vec<_>>(),
            ),
            judge_failures: judged
                .iter()
                .filter(|v| v.judge.as_ref().is_some_and(|j| j.score.is_none()))
                .count(),
            trivia: mean(
                &results
                    .iter()
                    .filter_map(|r| r.scores.trivia_recall.map(|t| 100.0 * t))
                    .collect::<Vec<_>>(),
            ),
            completion: mean(
                &views
                    .iter()
                    .filter_map(|v| {
                        v.tool_judge
                            .as_ref()
                            .and_then(|j| j.rate)
                            .map(|r| 100.0 * r)
                    })
                    .collect::<Vec<_>>(),
            ),
            completion_unmeasured: views
                .iter()
                .filter(|v| v.tool_judge.as_ref().is_some_and(|j| j.rate.is_none()))
                .count(),
            accepted: results.iter().filter(|r| r.accepted).count(),
            tokens: views.iter().map(ActView::total_tokens).sum(),
            repairs: repaired.clone(),
        });
        let total: u64 = views.iter().map(ActView::total_tokens).sum();
        let mut shares: Vec<PhaseShare> = Vec::new();
        for v in views {
            for t in &v.tokens {
                let tokens = t.input + t.output;
                match shares.iter_mut().find(|s| s.phase == t.phase) {
                    Some(s) => s.tokens += tokens,
                    None => shares.push(PhaseShare {
                        phase: t.phase.clone(),
                        tokens,
                        share: 0.0,
                    }),
                }
            }
        }
        for s in &mut shares {
            s.share = if total == 0 {
                0.0
            } else {
                100.0 * s.tokens as f64 / total as f64
            };
        }
        out.shares.push((variant.clone(), shares));
    }
    out
}

fn cell(x: Option<f64>) -> String {
    x.map_or_else(|| "—".into(), |v| format!("{v:.2}"))
}

impl Report {
    /// Tables 3 / 6 / 7 in one (text).
    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<22} {:>5} {:>8} {:>8} {:>8} {:>7} {:>8} {:>8} {:>9} {:>12}\n",
            "variant",
            "runs",
            "ROUGE-L",
            "ROUGE-1",
            "words",
            "judge",
            "trivia%",
            "done%",
            "accepted",
            "repaired"
        );
        for r in &self.rows {
            out.push_str(&format!(
                "{:<22} {:>5} {:>8} {:>8} {:>8} {:>7} {:>8} {:>8} {:>9} {:>12}\n",
                r.variant,
                r.runs,
                cell(r.rouge_l),
                cell(r.rouge1),
                cell(r.words),
                cell(r.judge),
                cell(r.trivia),
                cell(r.completion),
                format!("{}/{}", r.accepted, r.scored),
                r.repairs.label()
            ));
        }
        out
    }

    /// The replies repaired per step kind (rows) and variant (columns),
    /// "N of M" (text; empty when no run got a reply).
    pub fn repairs_table(&self) -> String {
        let columns: Vec<(&str, &RepairSum)> = self
            .rows
            .iter()
            .map(|r| (r.variant.as_str(), &r.repairs))
            .collect();
        repairs::by_step_table(&columns)
    }

    /// Table 14's shape: the token share of each phase per variant.
    pub fn share_table(&self) -> String {
        let phases = [
            PHASE_DECOMPOSE,
            PHASE_GENERATION,
            PHASE_TEAM,
            PHASE_BREAK,
            PHASE_PRODUCTION,
            PHASE_EVALUATION,
        ];
        let mut out = format!("{:<22}", "tokens per phase (%)");
        for p in phases {
            out.push_str(&format!(" {:>12}", p.replace('_', " ")));
        }
        out.push('\n');
        for (variant, shares) in &self.shares {
            out.push_str(&format!("{variant:<22}"));
            for p in phases {
                let s = shares.iter().find(|s| s.phase == p).map(|s| s.share);
                out.push_str(&format!(
                    " {:>12}",
                    s.map_or("—".into(), |v| format!("{v:.1}"))
                ));
            }
            out.push('\n');
        }
        out
    }

    /// CSV: one line per variant.
    pub fn csv(&self) -> String {
        let mut out = String::from("variant,runs,scored,rouge_l,rouge1,words,judge,judge_failures,trivia,completion,completion_unmeasured,accepted,tokens,replies,repaired,unreadable\n");
        let f = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.4}"));
        for r in &self.rows {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                r.variant,
                r.runs,
                r.scored,
                f(r.rouge_l),
                f(r.rouge1),
                f(r.words),
                f(r.judge),
                r.judge_failures,
                f(r.trivia),
                f(r.completion),
                r.completion_unmeasured,
                r.accepted,
                r.tokens,
                r.repairs.total.replies,
                r.repairs.total.repaired,
                r.repairs.total.unreadable
            ));
        }
        out
    }
}
