//! An agent's private memory (§3.2): its fixed expertise keywords, and per
//! other speaker a collection of episodes and knowledge entries, each entry
//! scored 0–10 by the owner. `select` is top-c retrieval: the c most
//! important entries (ties: newer meeting first, then insertion order),
//! or the c most recent when the importance score is ablated. The block a
//! prompt gets is the expertise (always, not counted in c) plus those.

use super::contract::{Episode, Knowledge};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Store {
    pub expertise: Vec<String>,
    pub episodes: Vec<Episode>,
    pub knowledge: Vec<Knowledge>,
}

impl Store {
    /// Entries chosen for a prompt: by importance (else by recency), best
    /// first, at most `c`.
    pub fn select(&self, c: usize, by_importance: bool) -> Vec<&Knowledge> {
        let mut all: Vec<&Knowledge> = self.knowledge.iter().collect();
        if by_importance {
            all.sort_by(|a, b| {
                b.importance
                    .cmp(&a.importance)
                    .then(b.meeting.cmp(&a.meeting))
                    .then(a.order.cmp(&b.order))
            });
        } else {
            all.sort_by(|a, b| b.meeting.cmp(&a.meeting).then(b.order.cmp(&a.order)));
        }
        all.truncate(c);
        all
    }

    /// The next insertion number.
    pub fn next_order(&self) -> u32 {
        self.knowledge
            .iter()
            .map(|k| k.order.saturating_add(1))
            .max()
            .unwrap_or(0)
    }

    /// The sources the store holds collections for, in first-seen order.
    pub fn sources(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in self
            .episodes
            .iter()
            .map(|e| &e.about)
            .chain(self.knowledge.iter().map(|k| &k.source))
        {
            if !out.contains(s) {
                out.push(s.clone());
            }
        }
        out
    }
}

/// The knowledge block of a prompt: the expertise, then the chosen entries
/// (with their keywords unless `keywords` is off), each with its source
/// and importance.
pub fn render(
    expertise: &[String],
    chosen: &[&Knowledge],
    keywords: bool,
    name_of: &dyn Fn(&str) -> String,
) -> String {
    let mut out = format!("Expertise: {}", expertise.join(", "));
    if chosen.is_empty() {
        out.push_str("\n(no acquired knowledge yet)");
    }
    for k in chosen {
        out.push_str(&format!(
            "\n- [{}] {} (from {}, importance {})",
            k.id,
            k.summary.trim(),
            if k.source_name.is_empty() {
                name_of(&k.source)
            } else {
                k.source_name.clone()
            },
            k.importance
        ));
        if keywords && !k.keywords.is_empty() {
            out.push_str(&format!(" — keywords: {}", k.keywords.join(", ")));
        }
    }
    out
}

/// The first `max` words of `text`, and whether it was cut.
pub fn truncate_words(text: &str, max: usize) -> (String, bool) {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() <= max {
        (words.join(" "), false)
    } else {
        (words[..max].join(" "), true)
    }
}

/// An importance score read from a model: a number, a numeric string, a
/// float (rounded); clamped to 0–10. Missing or unreadable → 5, flagged.
pub fn importance(v: Option<&serde_json::Value>) -> (u8, Option<String>) {
    let raw = match v {
        Some(serde_json::Value::Number(n)) => n.as_f64(),
        Some(serde_json::Value::String(s)) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    match raw {
        Some(x) if x.is_finite() => {
            let r = x.round();
            let clamped = r.clamp(0.0, 10.0);
            let flag = (clamped != r).then(|| format!("importance {x} clamped to {clamped}"));
            (clamped as u8, flag)
        }
        _ => (
            5,
            Some("importance missing or unreadable: 5 assumed".into()),
        ),
    }
}

/// Keywords read from a model: an array of strings or one comma-separated
/// string; trimmed, empty ones dropped, at most `max`. Flags what changed.
pub fn keywords(v: Option<&serde_json::Value>, max: usize) -> (Vec<String>, Vec<String>) {
    let mut flags = Vec::new();
    let mut list: Vec<String> = match v {
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        Some(serde_json::Value::String(s)) => s.split([',', ';']).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    list = list
        .into_iter()
        .map(|k| k.trim().trim_matches('"').to_string())
        .filter(|k| !k.is_empty())
        .collect();
    if list.len() > max {
        flags.push(format!("{} keywords cut to {max}", list.len()));
        list.truncate(max);
    }
    if list.len() < 2 {
        flags.push(format!(
            "only {} keyword{}",
            list.len(),
            if list.len() == 1 { "" } else { "s" }
        ));
    }
    (list, flags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(id: u32, importance: u8, meeting: u32) -> Knowledge {
        Knowledge {
            id: format!("k{id}"),
            owner: "a1".into(),
            source: "a2".into(),
            meeting,
            source_name: String::new(),
            summary: format!("s{id}"),
            keywords: vec!["x".into(), "y".into()],
            importance,
            order: id,
            flags: vec![],
        }
    }

    #[test]
    fn top_c_takes_the_most_important_with_newer_meetings_first_on_ties() {
        let mut s = Store::default();
        for i in 0..25u32 {
            s.knowledge.push(entry(i, (i % 11) as u8, 1 + i % 2));
        }
        let chosen = s.select(20, true);
        assert_eq!(chosen.len(), 20);
        let min_chosen = chosen.iter().map(|k| k.importance).min().unwrap_or(0);
        let left_out: Vec<_> = s
            .knowledge
            .iter()
            .filter(|k| !chosen.iter().any(|c| c.id == k.id))
            .collect();
        assert_eq!(left_out.len(), 5);
        assert!(left_out.iter().all(|k| k.importance <= min_chosen));
        // Ties: importance 10 is held by k10 (meeting 1) and k21 (meeting 2).
        assert_eq!(chosen[0].id, "k21");
        assert_eq!(chosen[1].id, "k10");
        assert_eq!(s.select(20, true), chosen, "deterministic");
        // − importance: the most recent, whatever their score.
        let recent = s.select(3, false);
        assert_eq!(
            recent.iter().map(|k| k.id.as_str()).collect::<Vec<_>>(),
            ["k23", "k21", "k19"]
        );
        let block = render(&["tea".into()], &chosen[..1], false, &|s| s.to_uppercase());
        assert!(block.starts_with("Expertise: tea\n- [k21] s21 (from A2, importance 10)"));
        assert!(!block.contains("keywords"));
        assert!(render(&["tea".into()], &[], true, &|s| s.into()).contains("Expertise: tea"));
    }

    #[test]
    fn model_numbers_and_keywords_are_repaired_and_flagged() {
        assert_eq!(importance(Some(&json!("12"))).0, 10);
        assert_eq!(importance(Some(&json!(11.6))).0, 10);
        assert_eq!(importance(Some(&json!("-3"))).0, 0);
        assert_eq!(importance(Some(&json!(7))), (7, None));
        assert_eq!(importance(None).0, 5);
        assert!(importance(Some(&json!("high"))).1.is_some());
        let (k, flags) = keywords(Some(&json!("a, b ,c,d,e")), 4);
        assert_eq!(k, ["a", "b", "c", "d"]);
        assert_eq!(flags.len(), 1);
        assert_eq!(keywords(Some(&json!(["one"])), 4).1, ["only 1 keyword"]);
        assert_eq!(truncate_words("a b c", 2), ("a b".into(), true));
        assert_eq!(truncate_words("a  b", 2), ("a b".into(), false));
    }
}
