//! An agent's private memory (§3.2): its fixed expertise keywords, and per
//! other speaker a collection of episodes and knowledge entries, each entry
//! scored 0–10 by the owner. `select` is top-c retrieval: the c most
//! important entries (ties: the later trial, then the later meeting, then
//! insertion order),
//! or the c most recent when the importance score is ablated. The block a
//! prompt gets is the expertise (always, not counted in c) plus those.

use super::contract::keyword::has_word;
use super::contract::{Episode, Knowledge};
use super::reading;
use crate::engine::model::reply::Repair;
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
            all.sort_by(|a, b| top_c_order(a, b));
        } else {
            all.sort_by_key(|k| std::cmp::Reverse((k.trial, k.meeting, k.order)));
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
        sources_of(&self.episodes, &self.knowledge)
    }
}

/// The sources episodes and knowledge are about, in first-seen order
/// (episodes first, then knowledge).
pub fn sources_of(episodes: &[Episode], knowledge: &[Knowledge]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in episodes
        .iter()
        .map(|e| &e.about)
        .chain(knowledge.iter().map(|k| &k.source))
    {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}

/// Top-c's order: the more important first, ties by [`newer_first`].
pub fn top_c_order(a: &Knowledge, b: &Knowledge) -> std::cmp::Ordering {
    b.importance.cmp(&a.importance).then(newer_first(a, b))
}

/// Top-c's tie-break between entries of equal importance: the later
/// trial (ACT+'s complex task) first, then the later meeting, then the
/// earlier insertion.
pub fn newer_first(a: &Knowledge, b: &Knowledge) -> std::cmp::Ordering {
    b.trial
        .cmp(&a.trial)
        .then(b.meeting.cmp(&a.meeting))
        .then(a.order.cmp(&b.order))
}

/// The knowledge block of a prompt: the expertise, then the chosen entries
/// (with their keywords unless `keywords` is off), each with the speaker it
/// was heard from, where that speaker had it from (when another), and its
/// importance.
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
        let speaker = if k.source_name.is_empty() {
            name_of(&k.source)
        } else {
            k.source_name.clone()
        };
        let origin = k.origin.trim();
        let via = if origin.is_empty() || origin.eq_ignore_ascii_case(&speaker) {
            String::new()
        } else {
            format!(", source {origin}")
        };
        out.push_str(&format!(
            "\n- [{}] {} (from {speaker}{via}, importance {})",
            k.id,
            k.summary.trim(),
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

/// An importance score read from a model: a number or a numeric string on
/// 0–10; a fraction strictly between 0 and 1 is a 0–1 scale (0.8 is 8, not
/// 1); other fractions rounded; clamped to 0–10. Missing or unreadable →
/// 5. Anything but a whole number in 0–10 is flagged, saying what was done.
pub fn importance(v: Option<&serde_json::Value>) -> (u8, Option<Repair>) {
    let raw = match v {
        Some(serde_json::Value::Number(n)) => n.as_f64(),
        Some(serde_json::Value::String(s)) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    match raw {
        Some(x) if x > 0.0 && x < 1.0 => {
            let r = (x * 10.0).round();
            (
                r as u8,
                Some(reading::shape(format!(
                    "importance {x} is on a 0–1 scale: read as {r} of 10"
                ))),
            )
        }
        Some(x) if x.is_finite() => {
            let r = x.round();
            let clamped = r.clamp(0.0, 10.0);
            let flag = if clamped != r {
                Some(reading::clamped(format!(
                    "importance {x} clamped to {clamped}"
                )))
            } else if r != x {
                Some(reading::shape(format!("importance {x} rounded to {r}")))
            } else {
                None
            };
            (clamped as u8, flag)
        }
        _ => (
            5,
            Some(reading::default(
                "importance missing or unreadable: 5 assumed",
            )),
        ),
    }
}

pub use super::contract::keyword::KEYWORD_CHARS;

/// Keywords read from a model: an array of strings, or one text split at
/// commas, semicolons, line breaks and list bullets; trimmed, those with no
/// word in them (`keyword::has_word`) dropped, each at most
/// [`KEYWORD_CHARS`] chars, at most `max`. The repairs say what changed.
pub fn keywords(v: Option<&serde_json::Value>, max: usize) -> (Vec<String>, Vec<Repair>) {
    let mut repairs = Vec::new();
    let list: Vec<String> = match v {
        Some(serde_json::Value::Array(a)) => {
            let strings: Vec<String> = a
                .iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect();
            if strings.len() < a.len() {
                repairs.push(reading::dropped(format!(
                    "{} keywords that were not text dropped",
                    a.len() - strings.len()
                )));
            }
            strings
        }
        Some(serde_json::Value::String(s)) => {
            let items = split_keywords(s);
            if items.len() > 1 {
                repairs.push(reading::shape(
                    "the keywords were one text: split at commas, semicolons, line breaks and bullets",
                ));
            }
            items
        }
        _ => Vec::new(),
    };
    let (list, more) = keyword_list(list, max);
    repairs.extend(more);
    (list, repairs)
}

/// The keywords in a text: split at line breaks, commas, semicolons and
/// bullets, list marks trimmed; preambles dropped, and labels ("Here are
/// my keywords: tea, …", "Expertise: tea, …") with them.
pub fn split_keywords(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for t in reading::content_lines(text) {
        let line = reading::strip_markup(t);
        let body = match line.split_once(':') {
            Some((head, tail)) if reading::is_preamble(line) || is_label(head) => tail,
            _ if reading::is_preamble(line) => continue,
            _ => line,
        };
        for k in body.split([',', ';', '•', '·']) {
            // Blanks between separators are the split's, not keywords.
            let k = reading::strip_markup(k);
            if has_word(k) && !reading::is_preamble(k) {
                out.push(k.to_string());
            }
        }
    }
    out
}

/// "Keywords", "My expertise", "Expertise keywords" before a colon.
fn is_label(head: &str) -> bool {
    let h = head.to_lowercase();
    h.split_whitespace().count() <= 3 && (h.contains("keyword") || h.contains("expertise"))
}

/// Keywords trimmed (marks and quotes), empty ones dropped, each cut to
/// [`KEYWORD_CHARS`], at most `max`.
pub fn keyword_list(list: Vec<String>, max: usize) -> (Vec<String>, Vec<Repair>) {
    let mut repairs = Vec::new();
    let mut out: Vec<String> = Vec::new();
    let (mut cut, mut blank) = (0, 0);
    for k in list {
        // What the shape admits (`keyword::has_word`) is kept: trimmed of
        // its marks and list numbering, or, were that to leave nothing
        // ("2)"), as it was written.
        let k = reading::visible(&k);
        if !has_word(&k) {
            blank += 1;
            continue;
        }
        let trimmed = reading::strip_markup(k.trim_end_matches('.'));
        let k = if trimmed.is_empty() {
            k.as_str()
        } else {
            trimmed
        };
        let (k, was_cut) = reading::cap_chars(k, KEYWORD_CHARS);
        if was_cut {
            cut += 1;
        }
        out.push(k);
    }
    if blank > 0 {
        repairs.push(reading::dropped(format!(
            "{blank} keyword{} with no word in {} dropped",
            if blank == 1 { "" } else { "s" },
            if blank == 1 { "it" } else { "them" }
        )));
    }
    if cut > 0 {
        repairs.push(reading::clamped(format!(
            "{cut} keyword{} cut to {KEYWORD_CHARS} characters",
            if cut == 1 { "" } else { "s" }
        )));
    }
    if out.len() > max {
        repairs.push(reading::clamped(format!(
            "{} keywords cut to {max}",
            out.len()
        )));
        out.truncate(max);
    }
    (out, repairs)
}

/// The note for fewer than two keywords (the prompt asks for two to four);
/// not a repair: nothing was changed.
pub fn few_keywords(list: &[String]) -> Option<String> {
    (list.len() < 2).then(|| {
        format!(
            "only {} keyword{}",
            list.len(),
            if list.len() == 1 { "" } else { "s" }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::reply::RepairKind;
    use serde_json::json;

    fn entry(id: u32, importance: u8, meeting: u32) -> Knowledge {
        Knowledge {
            id: format!("k{id}"),
            owner: "a1".into(),
            source: "a2".into(),
            meeting,
            trial: 0,
            source_name: String::new(),
            origin: String::new(),
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
        // A 0–1 scale is read as such and flagged (it was 1, unflagged).
        let (x, flag) = importance(Some(&json!(0.8)));
        assert_eq!(x, 8);
        assert_eq!(flag.map(|r| r.kind), Some(RepairKind::Shape));
        assert_eq!(importance(Some(&json!("0.25"))).0, 3);
        // A rounded fraction is said; whole 0, 1 and 10 are the 0–10 scale.
        let (x, flag) = importance(Some(&json!(7.5)));
        assert_eq!((x, flag.map(|r| r.kind)), (8, Some(RepairKind::Shape)));
        assert_eq!(importance(Some(&json!(1))), (1, None));
        assert_eq!(importance(Some(&json!(0))), (0, None));
        assert_eq!(importance(Some(&json!(10.0))), (10, None));
        assert_eq!(importance(None).0, 5);
        assert!(importance(Some(&json!("high"))).1.is_some());
        let (k, repairs) = keywords(Some(&json!("a, b ,c,d,e")), 4);
        assert_eq!(k, ["a", "b", "c", "d"]);
        assert_eq!(repairs.len(), 2, "split, and cut to 4: {repairs:?}");
        let (k, repairs) = keywords(Some(&json!(["one"])), 4);
        assert!(repairs.is_empty());
        assert_eq!(few_keywords(&k).as_deref(), Some("only 1 keyword"));
        assert_eq!(
            split_keywords("Sure! Here are my keywords:\n- interior design\n* lighting; wood\n3. space planning"),
            ["interior design", "lighting", "wood", "space planning"]
        );
        assert_eq!(split_keywords("Expertise: tea, water"), ["tea", "water"]);
        let one = "a single keyword phrase without any commas that runs on and on for far too long";
        let (k, repairs) = keywords(Some(&json!(one)), 4);
        assert_eq!(k.len(), 1);
        assert!(k[0].chars().count() <= KEYWORD_CHARS);
        assert_eq!(
            repairs[0].kind,
            crate::engine::model::reply::RepairKind::Clamped
        );
        assert_eq!(truncate_words("a b c", 2), ("a b".into(), true));
        assert_eq!(truncate_words("a  b", 2), ("a b".into(), false));
    }
}
