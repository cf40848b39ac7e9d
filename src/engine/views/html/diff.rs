//! Text differences as HTML: a prompt template against its default, or the
//! templates two runs were told differently.

use super::esc;
use crate::engine::views::diff::{lines, Change};
use std::collections::BTreeMap;
use std::fmt::Write;

/// `old` → `new` line by line, in a `<pre>`: each line marked kept,
/// added (`+`) or removed (`−`).
pub fn lines_html(old: &str, new: &str) -> String {
    let mut h = String::from("<pre class=\"line-diff\" tabindex=\"0\">");
    for c in lines(old, new) {
        let (class, mark, text) = match c {
            Change::Same(t) => ("same", " ", t),
            Change::Added(t) => ("added", "+", t),
            Change::Removed(t) => ("removed", "−", t),
        };
        let _ = writeln!(
            h,
            "<span class=\"{class}\"><span class=\"mark\" aria-hidden=\"true\">{mark}</span>{}</span>",
            esc(text)
        );
    }
    h.push_str("</pre>");
    h
}

/// The templates that differ between two runs of one coordinator (`a` and
/// `b`: each run's edits; a template a run did not edit is its default):
/// their names, with each run's text.
pub fn differing(
    a: &BTreeMap<String, String>,
    b: &BTreeMap<String, String>,
    default_of: &dyn Fn(&str) -> Option<String>,
) -> Vec<(String, String, String)> {
    let mut names: Vec<&str> = a.keys().chain(b.keys()).map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .filter_map(|n| {
            let ta = a.get(n).cloned().or_else(|| default_of(n))?;
            let tb = b.get(n).cloned().or_else(|| default_of(n))?;
            (ta != tb).then(|| (n.to_string(), ta, tb))
        })
        .collect()
}

/// The prompt differences between two runs (`a_label` → `b_label`), one
/// block per template; empty when they were told the same.
pub fn prompt_diff_html(
    (a_label, a): (&str, &BTreeMap<String, String>),
    (b_label, b): (&str, &BTreeMap<String, String>),
    default_of: &dyn Fn(&str) -> Option<String>,
) -> String {
    let changed = differing(a, b, default_of);
    if changed.is_empty() {
        return String::new();
    }
    let mut h = format!(
        "<section class=\"prompt-diff\" aria-label=\"How the runs' prompts differ\"><h3>Prompts differ: {} template{} <span class=\"muted small\">(− {} · + {})</span></h3>",
        changed.len(),
        if changed.len() == 1 { "" } else { "s" },
        esc(a_label),
        esc(b_label)
    );
    for (name, ta, tb) in changed {
        let _ = write!(
            h,
            "<details open class=\"prompt-diff-item\"><summary><code>{}</code></summary>{}</details>",
            esc(&name),
            lines_html(&ta, &tb)
        );
    }
    h.push_str("</section>");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_templates_told_differently_are_shown_escaped() {
        let defaults = |n: &str| match n {
            "t.a" => Some("Plan the trip.".to_string()),
            "t.b" => Some("Check <it>.".to_string()),
            _ => None,
        };
        let edits = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        // The same edit in both, or an edit equal to the default: no diff.
        let same = edits(&[("t.a", "Plan the trip.")]);
        assert_eq!(
            prompt_diff_html(("A", &same), ("B", &BTreeMap::new()), &defaults),
            ""
        );
        let cheap = edits(&[("t.b", "Check <it>.\nPrefer cheap.")]);
        let h = prompt_diff_html(("paper's", &BTreeMap::new()), ("mine", &cheap), &defaults);
        assert!(h.contains("Prompts differ: 1 template"), "{h}");
        assert!(h.contains("<code>t.b</code>"));
        assert!(h.contains("<span class=\"same\"><span class=\"mark\" aria-hidden=\"true\"> </span>Check &lt;it&gt;.</span>"), "{h}");
        assert!(h.contains("<span class=\"added\"><span class=\"mark\" aria-hidden=\"true\">+</span>Prefer cheap.</span>"), "{h}");
        assert!(!h.contains("t.a"));
    }
}
