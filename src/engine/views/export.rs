//! Exports that are folds over the log: the transcript as Markdown and the
//! usage table as CSV. (The run file itself is `RunDoc::to_json_pretty`; the
//! graph is `html::graph::render`.)

use super::transcript::{EntryKind, Transcript};
use super::usage::{Tally, UsageView};
use super::Fold;
use crate::engine::base::words::clip;
use crate::engine::model::pricing::PriceTable;
use crate::engine::run::{Audience, RunDoc};

/// The transcript as Markdown: a heading per phase, one section per message.
pub fn transcript_markdown(doc: &RunDoc) -> String {
    let t = Transcript::of(&doc.events);
    let mut md = format!(
        "# Roundtable run: {}\n\n- Coordinator: {}\n- Model: {}\n- Run id: {}\n\n",
        first_line(&doc.config.task),
        doc.config.coordinator,
        doc.config.model_label(),
        doc.config.run_id
    );
    for e in &t.entries {
        match &e.kind {
            EntryKind::Phase { label } => md.push_str(&format!("## {label}\n\n")),
            EntryKind::Message { from, to, text, .. } => {
                let to = match to {
                    None => " (private)".to_string(),
                    Some(Audience::Public) => " → everyone".to_string(),
                    Some(Audience::To(list)) => format!(" → {}", t.names_of(list)),
                };
                md.push_str(&format!(
                    "**{}**{to}\n\n{}\n\n",
                    t.name_of(from),
                    text.trim()
                ));
            }
            EntryKind::Tool {
                agent,
                tool,
                args,
                output,
                ..
            } => {
                let out = output
                    .as_ref()
                    .map(|(_, o)| o.as_str())
                    .unwrap_or("(no result)");
                md.push_str(&format!(
                    "*{} called `{tool}` with `{args}`:*\n\n```\n{}\n```\n\n",
                    t.name_of(agent),
                    out.trim()
                ));
            }
            EntryKind::Handoff { from, to, reason } => md.push_str(&format!(
                "*{} hands over to {}*{}\n\n",
                t.name_of(from),
                t.name_of(to),
                if reason.is_empty() {
                    String::new()
                } else {
                    format!(": {reason}")
                }
            )),
            EntryKind::Notice { text, .. } => md.push_str(&format!("> {text}\n\n")),
        }
    }
    md
}

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    clip(line, 81)
}

/// Quotes a CSV field when needed (RFC 4180), and defuses spreadsheet
/// formulas in text that came from a model.
pub fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// Usage by agent, phase and model as CSV.
pub fn usage_csv(u: &UsageView, names: &Transcript, prices: &PriceTable) -> String {
    let mut out = String::from(
        "group,name,calls,input_tokens,output_tokens,estimated,replayed_calls,cost_usd\n",
    );
    let mut row = |group: &str, name: &str, t: &Tally| {
        let (cost, complete) = t.cost(prices);
        out.push_str(&format!(
            "{group},{},{},{},{},{},{},{}\n",
            csv_field(name),
            t.calls,
            t.input_tokens,
            t.output_tokens,
            t.is_estimated(),
            t.replayed_calls,
            if complete {
                format!("{cost:.6}")
            } else {
                String::new()
            }
        ));
    };
    row("total", "all", &u.total);
    for (a, t) in &u.by_agent {
        row("agent", names.name_of(a), t);
    }
    for (p, t) in &u.by_phase {
        row("phase", u.phase_label(p), t);
    }
    for (m, t) in &u.by_model {
        row("model", m, t);
    }
    out
}

/// A file name from a run's task: lowercase words joined by dashes.
pub fn file_stem(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(40)
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while out.contains("--") {
        out = out.replace("--", "-");
    }
    let out = out.trim_matches('-').to_string();
    if out.is_empty() {
        "run".into()
    } else {
        out
    }
}

/// A name not `taken`: `base`, else `base (2)`, `base (3)`… (an import
/// never overwrites a stored pool, bank or set of the same name).
pub fn free_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|i| format!("{base} ({i})"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| base.to_string())
}

/// An imported file's name without its `.json` and `kind` suffixes
/// (`team.pool.json` → `team`), or `imported`.
pub fn import_stem(file_name: &str, kind: &str) -> String {
    let stem = file_name
        .trim_end_matches(".json")
        .trim_end_matches(kind)
        .trim();
    if stem.is_empty() {
        "imported".into()
    } else {
        stem.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_defuses() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
    }

    #[test]
    fn file_stems_are_short_lowercase_words() {
        assert_eq!(
            file_stem("Plan a 3-day trip to Paris!"),
            "plan-a-3-day-trip-to-paris"
        );
        assert_eq!(file_stem("../../etc/passwd"), "etc-passwd");
        assert_eq!(file_stem("<>?"), "run");
        assert!(file_stem(&"word ".repeat(30)).chars().count() <= 40);
        assert_eq!(import_stem("team.pool.json", ".pool"), "team");
        assert_eq!(import_stem(".bank.json", ".bank"), "imported");
        let taken = ["a", "a (2)"];
        assert_eq!(free_name("a", |n| taken.contains(&n)), "a (3)");
        assert_eq!(free_name("b", |n| taken.contains(&n)), "b");
    }
}
