//! One row of the History list, with its action buttons.

use super::esc;
use crate::engine::model::pricing::format_usd;
use crate::engine::run::RunStatus;
use crate::engine::views::calls_words;
use crate::engine::views::record::RunMeta;
use crate::engine::views::repairs::RepairCount;

pub enum HistoryRow<'a> {
    Run {
        meta: &'a RunMeta,
        parent_title: Option<String>,
        date: String,
        now_ms: f64,
    },
    Unreadable {
        run_id: &'a str,
        message: &'a str,
    },
}

fn button(action: &str, id: &str, label: &str, class: &str, title: &str) -> String {
    format!("<button class=\"button small {class}\" data-action=\"{action}\" data-id=\"{}\" title=\"{}\">{label}</button>", esc(id), esc(title))
}

pub fn history_row(row: &HistoryRow) -> String {
    match row {
        HistoryRow::Unreadable { run_id, message } => format!(
            "<li class=\"run-row bad\" data-run-id=\"{id}\"><div class=\"run-main\"><span class=\"title-text\">{id}</span><p class=\"bad small\">{}</p></div><div class=\"row-actions\">{}</div></li>",
            esc(message),
            button("delete", run_id, "Delete", "danger", ""),
            id = esc(run_id)
        ),
        HistoryRow::Run { meta: m, parent_title, date, now_ms } => {
            let (class, label) = if m.is_interrupted(*now_ms) {
                ("interrupted", "Interrupted")
            } else {
                match m.status {
                    RunStatus::Running => ("running", "Running"),
                    RunStatus::Finished => ("finished", "Finished"),
                    RunStatus::Failed => ("failed", "Failed"),
                    RunStatus::Cancelled => ("cancelled", "Stopped"),
                }
            };
            let id = &m.run_id;
            let lineage = m
                .parent
                .as_ref()
                .map(|p| {
                    format!(
                        "<div class=\"small muted lineage\">↳ fork of “{}” at call {}</div>",
                        esc(parent_title.as_deref().unwrap_or(&p.run_id)),
                        p.fork_call + 1
                    )
                })
                .unwrap_or_default();
            // The calls as the status line counts them (a record from
            // before those counts were kept: its requests).
            let counted = m.answered + m.stopped + m.failed + m.unanswered > 0;
            let mut calls = if counted || m.llm_calls == 0 {
                let open = [(m.unanswered as usize, "unanswered")];
                let words = calls_words(m.answered as usize, &open, m.stopped as usize, m.failed as usize);
                format!("{} events · {}", m.events, esc(&words))
            } else {
                format!("{} events · {} call{}", m.events, m.llm_calls, if m.llm_calls == 1 { "" } else { "s" })
            };
            if m.replies > 0 {
                let count = RepairCount {
                    replies: m.replies as u32,
                    repaired: m.repaired as u32,
                    unreadable: m.unreadable as u32,
                };
                calls.push_str(&format!(
                    " · <span class=\"{}\">{}</span>",
                    if count.flagged() { "repaired-count" } else { "muted" },
                    esc(&count.summary())
                ));
            }
            let cost = m.cost_usd.map(format_usd).unwrap_or_else(|| "cost n/a".into());
            let star = format!(
                "<button class=\"star\" data-action=\"star\" data-id=\"{}\" aria-label=\"{}\" aria-pressed=\"{}\">{}</button>",
                esc(id),
                if m.starred { "Unstar" } else { "Star" },
                m.starred,
                if m.starred { "★" } else { "☆" }
            );
            let mut actions = button("open", id, "Open", "primary", "Replay, share or fork this run");
            if class == "interrupted" {
                actions.push_str(&button("continue", id, "Continue", "", "Fork from the last completed call and continue live"));
            }
            actions.push_str(&button("compare", id, "Compare", "", "Add to the comparison (two to four runs side by side)"));
            actions.push_str(&button("rename", id, "Rename", "", ""));
            actions.push_str(&button("delete", id, "Delete", "danger", ""));
            format!(
                "<li class=\"run-row\" data-run-id=\"{}\" data-status=\"{class}\">{star}<div class=\"run-main\"><span class=\"title-text\">{}</span><div class=\"run-facts small muted\"><span class=\"status-badge s-{class}\">{label}</span><span>{}</span><span>{}</span><span>{}</span><span>{calls}</span><span>{cost}</span></div>{lineage}</div><div class=\"row-actions\">{actions}</div></li>",
                esc(id),
                esc(&m.display_title()),
                esc(&match &m.variant {
                    Some(v) => format!("{} · {v}", m.coordinator),
                    None => m.coordinator.clone(),
                }),
                esc(&m.model),
                esc(date)
            )
        }
    }
}
