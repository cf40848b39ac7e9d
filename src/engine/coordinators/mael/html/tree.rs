//! The call tree: every task with who got it from whom, the judgement, the
//! decomposition, each solution version with the critique rounds between
//! them, the ratings of the backward pass and the step rewards; subtasks
//! nested under their task.

use super::reward_badge;
use crate::engine::coordinators::mael::contract::*;
use crate::engine::coordinators::mael::software::SCALE_PARTS;
use crate::engine::coordinators::mael::view::{MaelView, TaskItem};
use crate::engine::views::html::esc;
use crate::engine::views::html::markdown::to_safe_html;
use std::fmt::Write;

pub const TREE_EMPTY: &str = "The call tree grows here as the root hands out subtasks.";

fn who(view: &MaelView, id: &str) -> String {
    if id == USER {
        return "<span class=\"muted\">you</span>".into();
    }
    format!(
        "<span class=\"tp-author\" style=\"--agent:{}\">{}</span>",
        view.marks.color(id),
        esc(view.name_of(id))
    )
}

fn rewards(t: &TaskItem) -> String {
    t.rewards
        .iter()
        .map(|(k, r)| {
            format!(
                "<span class=\"ml-step-reward\">{} {}</span>",
                k.id(),
                reward_badge(*r)
            )
        })
        .collect()
}

fn task_html(view: &MaelView, t: &TaskItem, collapsed: &[String], out: &mut String) {
    let r = &t.record;
    let rounds = t.critiques.iter().map(|(_, c)| c.round).max().unwrap_or(0);
    let _ = write!(
        out,
        "<details class=\"ml-task\"{} data-task=\"{}\" data-seq=\"{}\"><summary><code class=\"ml-id\">{}</code> {} <span class=\"muted small\">from {}</span>{}{}</summary>",
        if collapsed.contains(&r.id) { "" } else { " open" },
        esc(&r.id),
        t.seq,
        esc(&r.id),
        who(view, &r.solver),
        who(view, &r.assigner),
        if rounds > 0 {
            format!(" <span class=\"chip small\" title=\"critique rounds\">↻ {rounds}</span>")
        } else {
            String::new()
        },
        rewards(t)
    );
    let _ = write!(
        out,
        "<div class=\"ml-task-body\"><p class=\"ml-text\">{}</p>",
        esc(&r.text)
    );
    if let Some(j) = &t.judgement {
        let verdict = if j.solvable {
            "solves it alone"
        } else {
            "splits it"
        };
        let _ = write!(
            out,
            "<p class=\"small ml-judge\"><strong>Judge:</strong> {verdict}"
        );
        if !j.reason.is_empty() {
            let _ = write!(out, " — {}", esc(&j.reason));
        }
        if let Some(n) = &j.note {
            let _ = write!(out, " <span class=\"muted\">({})</span>", esc(n));
        }
        out.push_str("</p>");
    }
    if let Some(d) = &t.decomposition {
        if !d.subtasks.is_empty() {
            let how = match d.mode {
                Split::Modules => "independent modules, worked on at the same time",
                Split::Pipeline => "a pipeline: stage by stage, each seeing the ones before",
            };
            let _ = write!(
                out,
                "<p class=\"small ml-split\" data-mode=\"{}\">Split into {}</p>",
                d.mode.id(),
                how
            );
        }
        if let Some(n) = &d.note {
            let _ = write!(out, "<p class=\"small muted\">Decompose: {}</p>", esc(n));
        }
    }
    // Versions interleaved with the critiques that checked them.
    for (_, s) in &t.solutions {
        let rating = t.ratings.iter().find(|x| x.version == s.version);
        let _ = write!(
            out,
            "<div class=\"ml-solution\" data-version=\"{}\"><header class=\"small\"><strong>{}</strong> v{}{}</header><div class=\"md\">{}</div></div>",
            s.version,
            match s.kind {
                SolutionKind::Aggregate => "Aggregated",
                SolutionKind::Solve if s.version == 0 => "Solution",
                SolutionKind::Solve => "Refined",
            },
            s.version,
            rating
                .map(|x| match x.score {
                    Some(score) => format!(" · rated {} <span class=\"muted\">by the {}</span>", reward_badge(score), esc(&x.by)),
                    None => format!(" · <span class=\"muted\" title=\"{}\">not rated</span>", esc(&x.reason)),
                })
                .unwrap_or_default(),
            to_safe_html(&s.text)
        );
        for (_, c) in t.critiques.iter().filter(|(_, c)| c.version == s.version) {
            let _ = write!(
                out,
                "<div class=\"ml-critique {}\" data-round=\"{}\"><span class=\"small\"><strong>Critique, round {}:</strong> {}</span>{}</div>",
                if c.adequate { "ok" } else { "bad" },
                c.round,
                c.round,
                if c.adequate { "adequate" } else { "not adequate" },
                if c.feedback.trim().is_empty() {
                    String::new()
                } else {
                    format!("<p class=\"small\">{}</p>", esc(&c.feedback))
                }
            );
        }
    }
    let children: Vec<&TaskItem> = view.children(&r.id).collect();
    if !children.is_empty() {
        out.push_str("<div class=\"ml-children\">");
        for c in children {
            task_html(view, c, collapsed, out);
        }
        out.push_str("</div>");
    }
    out.push_str("</div></details>");
}

/// The whole tree, from the root task; the tasks in `collapsed` (ids) are
/// shown closed.
pub fn tree_html(view: &MaelView, collapsed: &[String]) -> String {
    let Some(root) = view.tasks.iter().find(|t| t.record.parent.is_none()) else {
        return format!("<p class=\"muted empty-note\">{TREE_EMPTY}</p>");
    };
    let mut out = String::new();
    if let Some(r) = &view.result {
        let _ = write!(
            out,
            "<div class=\"ml-result\"><strong>Score {}</strong> <span class=\"muted small\">({}; gold {})</span> · {} steps · {} critique round{} · {} experience{} learned</div>",
            reward_badge(r.score),
            esc(&r.dataset),
            esc(&r.gold),
            r.steps,
            r.rounds,
            if r.rounds == 1 { "" } else { "s" },
            r.learned,
            if r.learned == 1 { "" } else { "s" }
        );
    }
    if let Some(r) = view.result.as_ref().filter(|r| !r.parts.is_empty()) {
        software_html(r, &view.iterations, &mut out);
    }
    if let Some(p) = &view.program {
        program_html(p, &mut out);
    }
    out.push_str("<div class=\"ml-tree\">");
    task_html(view, root, collapsed, &mut out);
    out.push_str("</div>");
    out
}

/// An SRDD project's figures (Table 2's, Table 3's), what scored it, and
/// its quality after each step that wrote files (Fig. 4).
fn software_html(r: &ResultRecord, iterations: &[IterationRecord], out: &mut String) {
    let is_software = r.parts.iter().any(|(n, _)| n == SCALE_PARTS[0]);
    if !is_software {
        return;
    }
    let parts: Vec<String> = r
        .parts
        .iter()
        .map(|(n, v)| match SCALE_PARTS.contains(&n.as_str()) {
            true => format!("{} {v:.0}", esc(n)),
            false => format!("{} {v:.2}", esc(n)),
        })
        .collect();
    let _ = write!(
        out,
        "<div class=\"ml-program ml-software\"><p class=\"small\">{}</p>",
        parts.join(" · ")
    );
    if let Some(by) = &r.scored_by {
        let _ = write!(out, "<p class=\"small muted\">Scored by {}</p>", esc(by));
    }
    if !iterations.is_empty() {
        let q: Vec<String> = iterations
            .iter()
            .map(|i| {
                format!(
                    "<span title=\"{} of {}\">{:.0}%</span>",
                    i.step.id(),
                    esc(&i.task),
                    i.quality * 100.0
                )
            })
            .collect();
        let _ = write!(
            out,
            "<p class=\"small ml-iterations\">Quality after each step that wrote files: {}</p>",
            q.join(" → ")
        );
    }
    out.push_str("</div>");
}

/// A HumanEval answer's run: the verdict, how the completion was read
/// (flagged when repaired), and the completion itself (as text).
fn program_html(p: &crate::engine::domains::tasks::humaneval::Checked, out: &mut String) {
    let _ = write!(
        out,
        "<div class=\"ml-program\" data-passed=\"{}\"><strong>Tests: {}</strong>",
        p.verdict.passed,
        esc(&p.verdict.result)
    );
    let marks: Vec<String> = (p.unreadable.iter())
        .map(|why| {
            format!(
                "<li class=\"repair-mark\" data-unreadable=\"1\">no code read: {}; the prompt ran alone</li>",
                esc(why)
            )
        })
        .chain(
            (p.repairs.iter())
                .map(|r| {
                    let what = if r.kind.unreadable() { "unreadable" } else { "repaired" };
                    format!("<li class=\"repair-mark\">{what}: {}</li>", esc(&r.detail))
                }),
        )
        .collect();
    if !marks.is_empty() {
        let _ = write!(
            out,
            "<ul class=\"ml-program-reading\">{}</ul>",
            marks.concat()
        );
    }
    let _ = write!(
        out,
        "<details><summary>The completion that ran</summary><pre><code>{}</code></pre></details></div>",
        esc(&p.completion)
    );
}
