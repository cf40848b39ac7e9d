//! The pool inspector: what a pool holds per agent and step kind (count,
//! mean reward), the reward histogram and the 2-D projection of the
//! embeddings coloured by reward for one agent and step kind, its entries,
//! and the score breakdown of a query's top entries.

use super::reward_badge;
use crate::engine::base::words::count;
use crate::engine::coordinators::mael::contract::StepKind;
use crate::engine::coordinators::mael::experience::{Experience, Hit, Pool};
use crate::engine::coordinators::mael::projection::pca2;
use crate::engine::views::html::esc;
use std::fmt::Write;

/// Entries of `agent` (all agents when empty) and `step` (all when None).
pub fn selected<'a>(
    pool: &'a Pool,
    agent: &'a str,
    step: Option<StepKind>,
) -> impl Iterator<Item = (usize, &'a Experience)> {
    pool.entries.iter().enumerate().filter(move |(_, e)| {
        (agent.is_empty() || e.agent == agent) && step.is_none_or(|s| e.step == s)
    })
}

/// Count and mean reward per agent × step kind.
pub fn summary_html(pool: &Pool) -> String {
    let mut agents: Vec<&str> = pool.entries.iter().map(|e| e.agent.as_str()).collect();
    agents.sort_unstable();
    agents.dedup();
    if agents.is_empty() {
        return "<p class=\"muted empty-note\">This pool is empty: a learning run (or any run that learns) fills it.</p>".into();
    }
    let mut h = format!(
        "<p class=\"small muted\">{} from {} · vectors: {}</p><table class=\"tp-table ml-pool-summary\"><thead><tr><th scope=\"col\">agent</th>",
        count(pool.len(), "experience"),
        count(pool.traces().len(), "task"),
        esc(&pool.embedder.label())
    );
    for k in StepKind::ALL {
        let _ = write!(h, "<th scope=\"col\">{}</th>", k.id());
    }
    h.push_str("</tr></thead><tbody>");
    for a in agents {
        let _ = write!(h, "<tr><th scope=\"row\">{}</th>", esc(a));
        for k in StepKind::ALL {
            let rs: Vec<f64> = selected(pool, a, Some(k)).map(|(_, e)| e.reward).collect();
            if rs.is_empty() {
                h.push_str("<td class=\"muted\">—</td>");
            } else {
                let mean = rs.iter().sum::<f64>() / rs.len() as f64;
                let _ = write!(
                    h,
                    "<td>{} <span class=\"muted small\">× {}</span></td>",
                    reward_badge(mean),
                    rs.len()
                );
            }
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table>");
    h
}

/// Rewards in ten bins, as bars.
pub fn histogram_svg(rewards: &[f64]) -> String {
    let mut bins = [0usize; 10];
    for r in rewards {
        bins[((r * 10.0).floor() as usize).min(9)] += 1;
    }
    let max = bins.iter().copied().max().unwrap_or(0).max(1);
    let mut s = String::from("<svg class=\"ml-histogram\" viewBox=\"0 0 220 90\" role=\"img\" aria-label=\"Reward histogram\">");
    for (i, n) in bins.iter().enumerate() {
        let h = 60.0 * *n as f64 / max as f64;
        let _ = write!(
            s,
            "<rect class=\"ml-bar b{i}\" x=\"{}\" y=\"{:.1}\" width=\"18\" height=\"{h:.1}\"><title>{:.1}–{:.1}: {n}</title></rect>",
            10 + i * 20,
            70.0 - h,
            i as f64 / 10.0,
            (i + 1) as f64 / 10.0
        );
    }
    s.push_str("<text class=\"ml-axis\" x=\"10\" y=\"84\">0</text><text class=\"ml-axis\" x=\"200\" y=\"84\">1</text><text class=\"ml-axis\" x=\"80\" y=\"84\">reward</text></svg>");
    s
}

/// The selected entries' vectors on their first two principal components,
/// coloured by reward (red low, green high).
pub fn projection_svg(pool: &Pool, agent: &str, step: Option<StepKind>) -> String {
    let picked: Vec<(usize, &Experience)> = selected(pool, agent, step).take(3000).collect();
    if picked.len() < 3 {
        return "<p class=\"muted small\">Too few entries to project.</p>".into();
    }
    let vectors: Vec<&[f32]> = picked.iter().map(|(i, _)| pool.vector(*i)).collect();
    let pts = pca2(&vectors);
    let (minx, maxx) = pts
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (miny, maxy) = pts
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let sx = |x: f32| 10.0 + 200.0 * ((x - minx) / (maxx - minx).max(1e-6));
    let sy = |y: f32| 10.0 + 140.0 * ((y - miny) / (maxy - miny).max(1e-6));
    let mut s = String::from("<svg class=\"ml-projection\" viewBox=\"0 0 220 160\" role=\"img\" aria-label=\"The entries' embeddings projected on two axes, coloured by reward\">");
    for ((_, e), p) in picked.iter().zip(&pts) {
        let hue = (e.reward * 120.0).round();
        let _ = write!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" style=\"fill:hsl({hue},65%,45%)\"><title>{} · {} · reward {:.2}</title></circle>",
            sx(p.0),
            sy(p.1),
            esc(&e.id),
            e.step.id(),
            e.reward
        );
    }
    s.push_str("</svg>");
    s
}

/// The newest `limit` selected entries.
pub fn entries_html(pool: &Pool, agent: &str, step: Option<StepKind>, limit: usize) -> String {
    let picked: Vec<(usize, &Experience)> = selected(pool, agent, step).collect();
    let mut h = format!(
        "<p class=\"small muted\">{} entries{}</p><ol class=\"ml-entries\" reversed>",
        picked.len(),
        if picked.len() > limit {
            format!(", the newest {limit} shown")
        } else {
            String::new()
        }
    );
    for (_, e) in picked.iter().rev().take(limit) {
        let _ = write!(
            h,
            "<li><details><summary>{} <code>{}</code> {} <span class=\"muted small\">{}</span></summary><p class=\"small\"><strong>Input</strong></p><pre>{}</pre><p class=\"small\"><strong>Output</strong></p><pre>{}</pre></details></li>",
            reward_badge(e.reward),
            e.step.id(),
            esc(&e.agent),
            esc(&e.task_id),
            esc(&e.input),
            esc(&e.output)
        );
    }
    h.push_str("</ol>");
    h
}

/// A query's top entries with the score's parts.
pub fn query_html(pool: &Pool, hits: &[Hit]) -> String {
    if hits.is_empty() {
        return "<p class=\"muted small\">No entry of this agent and step kind.</p>".into();
    }
    let mut h = String::from("<table class=\"tp-table ml-hits\"><thead><tr><th scope=\"col\">#</th><th scope=\"col\">experience</th><th scope=\"col\">similarity</th><th scope=\"col\">reward</th><th scope=\"col\">score</th></tr></thead><tbody>");
    for (i, hit) in hits.iter().enumerate() {
        let e = &pool.entries[hit.index];
        let _ = write!(
            h,
            "<tr><td>{}</td><td><details><summary><code>{}</code> {}</summary><pre>{}</pre></details></td><td>{:.3}</td><td>{}</td><td><strong>{:.3}</strong></td></tr>",
            i + 1,
            esc(&e.id),
            e.step.id(),
            esc(&e.input),
            hit.similarity,
            reward_badge(hit.reward),
            hit.score
        );
    }
    h.push_str("</tbody></table>");
    h
}
