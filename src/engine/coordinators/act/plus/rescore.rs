//! ACT+'s re-scoring (A16): when the team takes on a new complex task,
//! each agent scores its stored entries again (0–10) for its new task.
//! The prompt is **bounded however large the bank grows**: it shows at
//! most [`RESCORE_ENTRIES`] entries, the ones top-c ranks first (by
//! importance; ties: the later trial, then the later meeting, then
//! insertion order, as `memory::Store::select`), each on one line of at
//! most [`RESCORE_LINE_CHARS`] characters; so the entries take at most
//! [`RESCORE_ENTRIES_CHARS`]. Entries not shown keep their score, as do
//! shown ones the reply misses (flagged).

use super::super::contract::*;
use super::super::memory;
use super::super::prompts::{self, Speaker};
use super::super::reading;
use super::super::team::Act;
use crate::engine::model::reply::{read_value, Read, RepairKind, Unreadable};
use crate::engine::run::RunError;
use serde_json::Value;

/// Entries a re-scoring prompt shows at most: twice the paper's c (20),
/// so that what top-c picks after re-scoring was looked at again.
pub const RESCORE_ENTRIES: usize = 40;
/// The longest line of one entry (its id, summary, keywords and old
/// score); a longer summary is cut ("…").
pub const RESCORE_LINE_CHARS: usize = 240;
/// The bound on the prompt's entries, whatever the bank holds: the lines
/// and the line breaks between them.
pub const RESCORE_ENTRIES_CHARS: usize = RESCORE_ENTRIES * (RESCORE_LINE_CHARS + 1);
/// An entry whose id is longer is never shown (its line could not hold
/// it): it keeps its score. The build's ids are like `a1.k123`.
const ID_CHARS: usize = 64;
/// The longest keyword list shown on a line.
const KEYWORDS_CHARS: usize = 80;

/// The entries a re-scoring prompt shows, best first: the first
/// [`RESCORE_ENTRIES`] in top-c's order (importance, then the later
/// trial, the later meeting, the earlier insertion).
pub fn candidates(knowledge: &[Knowledge]) -> Vec<&Knowledge> {
    let mut all: Vec<&Knowledge> = knowledge
        .iter()
        .filter(|k| k.id.chars().count() <= ID_CHARS)
        .collect();
    all.sort_by(|a, b| {
        b.importance
            .cmp(&a.importance)
            .then(memory::newer_first(a, b))
    });
    all.truncate(RESCORE_ENTRIES);
    all
}

/// One entry as the prompt lists it: `[id] summary — keywords: … (was n)`,
/// on one line of at most [`RESCORE_LINE_CHARS`].
fn line(k: &Knowledge) -> String {
    let head = format!("[{}] ", k.id);
    let tail = format!(" (was {})", k.importance);
    let keywords = one_line(&k.keywords.join(", "));
    let (keywords, _) = reading::cap_chars(&keywords, KEYWORDS_CHARS);
    let keywords = if keywords.is_empty() {
        String::new()
    } else {
        format!(" — keywords: {keywords}")
    };
    let fixed = [&head, &keywords, &tail]
        .iter()
        .map(|s| s.chars().count())
        .sum::<usize>();
    let room = RESCORE_LINE_CHARS.saturating_sub(fixed);
    let summary = one_line(&k.summary);
    let summary = if summary.chars().count() <= room {
        summary
    } else {
        let (cut, _) = reading::cap_chars(&summary, room.saturating_sub(1));
        format!("{cut}…")
    };
    let whole = format!("{head}{summary}{keywords}{tail}");
    reading::cap_chars(&whole, RESCORE_LINE_CHARS).0
}

/// The text on one line: line breaks and runs of spaces become one
/// space, hidden characters are dropped.
fn one_line(text: &str) -> String {
    let spaced = text.split_whitespace().collect::<Vec<_>>().join(" ");
    reading::visible(&spaced)
}

/// The `# Stored knowledge` section of a re-scoring prompt for these
/// entries, and the entries it shows (at most [`RESCORE_ENTRIES_CHARS`]
/// chars, however many are given).
pub fn rescore_entries(knowledge: &[Knowledge]) -> (String, Vec<&Knowledge>) {
    let shown = candidates(knowledge);
    let text = shown.iter().map(|k| line(k)).collect::<Vec<_>>().join("\n");
    (text, shown)
}

/// Re-scores agent `i`'s entries for its new task: the bounded prompt,
/// the scores read (an unreadable one keeps the old score, flagged), the
/// `rescore` note with the shown entries' scores.
pub(super) async fn rescore(act: &Act<'_>, i: usize) -> Result<(), RunError> {
    let agent = act.member(i);
    if agent.store.knowledge.is_empty() {
        return Ok(());
    }
    let held = agent.store.knowledge.len();
    let (entries, shown) = rescore_entries(&agent.store.knowledge);
    let ids: Vec<String> = shown.iter().map(|k| k.id.clone()).collect();
    // Who the agent is for its new task; its entries follow, so no top-c
    // block (it would repeat them).
    let s = Speaker {
        knowledge: format!("Expertise: {}", agent.store.expertise.join(", ")),
        name: agent.name.clone(),
        expertise: agent.store.expertise.clone(),
        initial: agent.initial.clone(),
        current: agent.current.clone(),
    };
    let said = act
        .ask(
            &agent.id,
            STEP_RESCORE,
            prompts::rescore(&s, &entries, ids.len(), held),
        )
        .await?;
    let (scores, mut repairs, read_ok) = match read_scores(&said.text, &ids) {
        Ok(read) => (read.value, read.repairs, true),
        Err(why) => (
            serde_json::Map::new(),
            vec![reading::default(format!(
                "the scores could not be read ({why}): every entry keeps its score"
            ))],
            false,
        ),
    };
    let mut out = Vec::new();
    let mut missing = 0;
    {
        let mut members = act.members.borrow_mut();
        for k in members[i].store.knowledge.iter_mut() {
            if !ids.contains(&k.id) {
                continue;
            }
            match scores.get(&k.id) {
                Some(v) => {
                    let (score, repair) = memory::importance(Some(v));
                    match repair {
                        // An unreadable score keeps the old one.
                        Some(r) if r.kind == RepairKind::Default => {
                            repairs.push(reading::default(format!(
                                "the score of {} could not be read: it keeps {}",
                                k.id, k.importance
                            )));
                        }
                        Some(r) => {
                            repairs.push(r);
                            k.importance = score;
                        }
                        None => k.importance = score,
                    }
                }
                None => missing += 1,
            }
            out.push((k.id.clone(), k.importance));
        }
    }
    if missing > 0 && read_ok {
        repairs.push(reading::default(format!(
            "{missing} entries were not re-scored and keep their score"
        )));
    }
    let repairs = reading::folded(repairs);
    act.repaired(said.call, &repairs);
    act.ctx.note(
        &agent.id,
        STORE_RESCORE,
        None,
        &RescoreRecord {
            scores: out,
            held,
            note: (!repairs.is_empty()).then(|| reading::details(&repairs).join("; ")),
        },
    );
    Ok(())
}
/// The scores in a re-scoring reply, by entry id: `{"scores": {"<id>": 7}}`;
/// also the map bare or wrapped, or a list of `{"id", "score"}` objects.
pub fn read_scores(
    reply: &str,
    ids: &[String],
) -> Result<Read<serde_json::Map<String, Value>>, Unreadable> {
    let read = read_value(reply)?;
    let is_map_of_ids = |v: &Value| {
        v.as_object()
            .is_some_and(|o| !o.is_empty() && o.keys().all(|k| ids.contains(k)))
    };
    let fits = |v: &Value| v.get("scores").is_some_and(Value::is_object);
    if let Ok(r) = reading::object_that(read.clone(), &fits, "\"scores\"") {
        let map = r
            .value
            .get("scores")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        return Ok(Read {
            value: map,
            repairs: r.repairs,
        });
    }
    let Read { value, repairs } = read;
    if is_map_of_ids(&value) {
        let map = value.as_object().cloned().unwrap_or_default();
        return Ok(Read {
            value: map,
            repairs,
        }
        .with(reading::shape(
            "the scores were a bare map of ids: read as \"scores\"",
        )));
    }
    let list = value
        .get("scores")
        .filter(|v| v.is_array())
        .or_else(|| value.is_array().then_some(&value))
        .and_then(Value::as_array);
    if let Some(items) = list {
        let mut map = serde_json::Map::new();
        for item in items {
            let id = item.get("id").and_then(Value::as_str);
            let score = item.get("score").or_else(|| item.get("importance"));
            if let (Some(id), Some(score)) = (id, score) {
                map.insert(id.to_string(), score.clone());
            }
        }
        if !map.is_empty() {
            return Ok(Read {
                value: map,
                repairs,
            }
            .with(reading::shape(
                "the scores were a list of {\"id\", \"score\"}: read as a map",
            )));
        }
    }
    Err(Unreadable("the JSON has no \"scores\" by entry id".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(order: u32, importance: u8, trial: u32, meeting: u32, words: usize) -> Knowledge {
        Knowledge {
            id: format!("a1.k{order}"),
            owner: "a1".into(),
            source: "a2".into(),
            source_name: "Agent B".into(),
            origin: String::new(),
            meeting,
            trial,
            summary: format!(
                "Topic{order} is a practice.\n{}",
                "explained at length with examples ".repeat(words / 5)
            ),
            keywords: vec![
                "a keyword forty characters long, nearly".into(),
                "another long keyword about the practice".into(),
                "third".into(),
                "fourth".into(),
            ],
            importance,
            order,
            flags: vec![],
        }
    }

    fn speaker() -> Speaker {
        let task = AgentTask {
            subject: "Recommend a tea that helps me relax in the evening without caffeine".into(),
            details: vec!["I drink strong black tea all day and want something soothing.".into()],
        };
        Speaker {
            name: "Agent A".into(),
            expertise: vec!["herbal infusions".into(), "evening rituals".into()],
            initial: task.clone(),
            current: task,
            knowledge: "Expertise: herbal infusions, evening rituals".into(),
        }
    }

    /// The user message of the re-scoring prompt for a store.
    fn prompt(store: &[Knowledge]) -> String {
        let (entries, shown) = rescore_entries(store);
        prompts::rescore(&speaker(), &entries, shown.len(), store.len()).1
    }

    #[test]
    fn the_rescoring_prompt_is_bounded_however_large_the_bank_grows() {
        let empty = prompt(&[]).chars().count();
        for n in [10usize, 1_000, 10_000] {
            // Summaries of 120 words (acquisition's cap), scores 0–10.
            let store: Vec<Knowledge> = (0..n as u32)
                .map(|i| entry(i, (i % 11) as u8, i / 500, 1 + i % 2, 120))
                .collect();
            let (entries, shown) = rescore_entries(&store);
            assert_eq!(shown.len(), n.min(RESCORE_ENTRIES));
            assert!(entries.chars().count() <= RESCORE_ENTRIES_CHARS, "{n}");
            for l in entries.lines() {
                assert!(l.chars().count() <= RESCORE_LINE_CHARS, "{l}");
                assert!(l.starts_with("[a1.k") && l.contains(" (was "), "{l}");
            }
            let whole = prompt(&store).chars().count();
            assert!(whole <= empty + RESCORE_ENTRIES_CHARS + 120, "{n}: {whole}");
            println!("re-scoring prompt, {n} entries: {whole} chars");
        }
        // A line that cannot hold its summary cuts it, keeping the id,
        // the keywords and the old score.
        let (one, _) = rescore_entries(std::slice::from_ref(&entry(7, 5, 0, 1, 400)));
        assert!(one.starts_with("[a1.k7] Topic7 is a practice. explained"));
        assert!(one.contains("… — keywords: a keyword forty"));
        assert!(one.ends_with(" (was 5)"));
        // An absurd id is never shown (it keeps its score).
        let mut odd = entry(1, 10, 0, 1, 5);
        odd.id = "x".repeat(500);
        assert!(candidates(&[odd]).is_empty());
    }

    #[test]
    fn equal_scores_prefer_the_later_trial_then_the_later_meeting() {
        let store = vec![
            entry(0, 7, 0, 2, 5),
            entry(1, 7, 2, 1, 5),
            entry(2, 7, 1, 2, 5),
            entry(3, 9, 0, 1, 5),
            entry(4, 7, 2, 2, 5),
            entry(5, 7, 2, 2, 5),
            entry(6, 3, 3, 2, 5),
        ];
        let ids: Vec<&str> = candidates(&store).iter().map(|k| k.id.as_str()).collect();
        // The 9 first; the 7s by trial 2 (meeting 2 before 1; equal:
        // inserted first), 1, 0; the 3 last.
        assert_eq!(
            ids,
            ["a1.k3", "a1.k4", "a1.k5", "a1.k1", "a1.k2", "a1.k0", "a1.k6"]
        );
        // More equal scores than the prompt shows: the latest are shown.
        let many: Vec<Knowledge> = (0..(3 * RESCORE_ENTRIES) as u32)
            .map(|i| entry(i, 6, i / 20, 1 + i % 2, 5))
            .collect();
        let shown = candidates(&many);
        assert_eq!(shown.len(), RESCORE_ENTRIES);
        let oldest_shown = shown.iter().map(|k| k.trial).min().unwrap_or(0);
        let newest_hidden = many
            .iter()
            .filter(|k| !shown.iter().any(|s| s.id == k.id))
            .map(|k| k.trial)
            .max()
            .unwrap_or(0);
        assert!(oldest_shown >= newest_hidden);
        assert_eq!(shown[0].trial, 5);
        assert_eq!(shown[0].meeting, 2);
        // Top-c breaks ties the same way.
        let top = memory::Store {
            knowledge: store.clone(),
            ..memory::Store::default()
        };
        let picked: Vec<&str> = top.select(3, true).iter().map(|k| k.id.as_str()).collect();
        assert_eq!(picked, ["a1.k3", "a1.k4", "a1.k5"]);
    }
}
