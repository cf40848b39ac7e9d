//! ACT+'s re-scoring (A16, §4.1 "importance scores were recalculated"):
//! when the team takes on a new complex task, each agent scores its
//! stored entries again (0–10) for its new task, in batches. Each
//! prompt is **bounded however large the bank grows**: it shows at most
//! [`RESCORE_ENTRIES`] entries not yet shown for this task, the ones
//! top-c ranks first (`memory::top_c_order`: importance, then the later
//! trial, the later meeting, the earlier insertion), each on one line of
//! at most [`RESCORE_LINE_CHARS`] characters; so the entries take at most
//! [`RESCORE_ENTRIES_CHARS`]. Batches go on while an entry not yet shown
//! could still enter top-c on its old score (fewer than c fresh scores,
//! or the best unseen ranks ahead of the c-th fresh one), at most
//! [`RESCORE_BATCHES`] of them; then any entry that kept an old score
//! (never shown, or missed by the reply) and still ranks ahead of the
//! c-th fresh score is put just below it, recorded: so an old score never
//! outranks a fresh one it was not judged against. With fewer than c
//! fresh scores (a reply that scored nothing), old scores stay (flagged).

use super::super::contract::*;
use super::super::memory;
use super::super::prompts::{self, Speaker};
use super::super::reading;
use super::super::team::Act;
use crate::engine::model::reply::{read_value, Read, RepairKind, Unreadable};
use crate::engine::model::shape::ReplySchema;
use crate::engine::run::RunError;
use serde_json::Value;

/// Entries a re-scoring prompt shows at most: twice the paper's c (20).
pub const RESCORE_ENTRIES: usize = 40;
/// Re-scoring prompts an agent gets at most for one task (so at most
/// `RESCORE_BATCHES × RESCORE_ENTRIES` entries judged again).
pub const RESCORE_BATCHES: usize = 5;
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
/// [`RESCORE_ENTRIES`] not in `seen`, in top-c's order (importance, then
/// the later trial, the later meeting, the earlier insertion).
pub fn candidates<'a>(knowledge: &'a [Knowledge], seen: &[String]) -> Vec<&'a Knowledge> {
    let mut all = unseen(knowledge, seen);
    all.truncate(RESCORE_ENTRIES);
    all
}

/// The entries a prompt can show and has not, in top-c's order.
fn unseen<'a>(knowledge: &'a [Knowledge], seen: &[String]) -> Vec<&'a Knowledge> {
    let mut all: Vec<&Knowledge> = knowledge
        .iter()
        .filter(|k| k.id.chars().count() <= ID_CHARS && !seen.contains(&k.id))
        .collect();
    all.sort_by(|a, b| memory::top_c_order(a, b));
    all
}

/// The c-th best of the entries scored for this task (`fresh`), in
/// top-c's order; None while fewer than c are.
fn cth_fresh<'a>(knowledge: &'a [Knowledge], fresh: &[String], c: usize) -> Option<&'a Knowledge> {
    let mut scored: Vec<&Knowledge> = knowledge.iter().filter(|k| fresh.contains(&k.id)).collect();
    scored.sort_by(|a, b| memory::top_c_order(a, b));
    scored.get(c.max(1) - 1).copied()
}

/// Whether an entry not yet shown (`seen`) could still enter top-c on its
/// old score: fewer than c entries have a fresh score, or the best unseen
/// one ranks ahead of the c-th fresh one (a tie goes to the newer, as in
/// `memory::Store::select`).
pub fn could_enter(knowledge: &[Knowledge], fresh: &[String], seen: &[String], c: usize) -> bool {
    let Some(best) = unseen(knowledge, seen).first().copied() else {
        return false;
    };
    match cth_fresh(knowledge, fresh, c) {
        None => true,
        Some(cth) => memory::top_c_order(best, cth) == std::cmp::Ordering::Less,
    }
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
/// entries (those not in `seen`), and the entries it shows (at most
/// [`RESCORE_ENTRIES_CHARS`] chars, however many are given).
pub fn rescore_entries<'a>(
    knowledge: &'a [Knowledge],
    seen: &[String],
) -> (String, Vec<&'a Knowledge>) {
    let shown = candidates(knowledge, seen);
    let text = shown.iter().map(|k| line(k)).collect::<Vec<_>>().join("\n");
    (text, shown)
}

/// Re-scores agent `i`'s entries for its new task, batch by batch (see
/// the module's doc): the bounded prompts, the scores read (an unreadable
/// one keeps the old score, flagged), a `rescore` note per batch, the
/// last saying why it stopped and which stale scores it lowered.
pub(super) async fn rescore(act: &Act<'_>, i: usize) -> Result<(), RunError> {
    let agent = act.member(i);
    if agent.store.knowledge.is_empty() {
        return Ok(());
    }
    let c = act.limits().c;
    let held = agent.store.knowledge.len();
    // Who the agent is for its new task; its entries follow, so no top-c
    // block (it would repeat them).
    let s = Speaker {
        knowledge: format!("Expertise: {}", agent.store.expertise.join(", ")),
        name: agent.name.clone(),
        expertise: agent.store.expertise.clone(),
        initial: agent.initial.clone(),
        current: agent.current.clone(),
    };
    let mut seen: Vec<String> = Vec::new();
    let mut fresh: Vec<String> = Vec::new();
    for batch in 0..RESCORE_BATCHES {
        let knowledge = act.members.borrow()[i].store.knowledge.clone();
        let (entries, shown) = rescore_entries(&knowledge, &seen);
        let ids: Vec<String> = shown.iter().map(|k| k.id.clone()).collect();
        let (mut record, scored) = one_batch(act, i, &s, (batch, held), (&entries, &ids)).await?;
        seen.extend(ids);
        let none = scored.is_empty();
        fresh.extend(scored);
        let knowledge = act.members.borrow()[i].store.knowledge.clone();
        let stopped = if none {
            Some("the reply scored no entry")
        } else if unseen(&knowledge, &seen).is_empty() {
            Some("every entry was shown")
        } else if !could_enter(&knowledge, &fresh, &seen, c) {
            Some("no entry left unseen could enter top-c")
        } else if batch + 1 == RESCORE_BATCHES {
            Some("the cap of batches")
        } else {
            None
        };
        if stopped.is_some() {
            record.lowered = lower_stale(act, i, &fresh, c);
        }
        record.stopped = stopped.map(str::to_string);
        act.ctx.note(&agent.id, STORE_RESCORE, None, &record);
        if stopped.is_some() {
            break;
        }
    }
    Ok(())
}

/// One re-scoring prompt for the entries `ids` (shown as `entries`):
/// asked, read and applied; its record (the shown entries with their
/// scores after it) and the ids that got a score for this task.
async fn one_batch(
    act: &Act<'_>,
    i: usize,
    s: &Speaker,
    (batch, held): (usize, usize),
    (entries, ids): (&str, &[String]),
) -> Result<(RescoreRecord, Vec<String>), RunError> {
    let agent_id = act.member_id(i);
    // Held to the shape, a reply scores each entry shown, by its id.
    let shown_ids = |schema: ReplySchema| {
        schema
            .with_enum("/properties/scores/items/properties/id", ids)
            .with_items("scores", ids.len(), ids.len())
    };
    let said = act
        .ask_narrowed(
            &agent_id,
            STEP_RESCORE,
            prompts::rescore(&act.prompts, s, entries, (ids.len(), held), batch)?,
            shown_ids,
        )
        .await?;
    let (scores, mut repairs, read_ok) = match read_scores(&said.text, ids) {
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
    let mut fresh = Vec::new();
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
                        other => {
                            repairs.extend(other);
                            k.importance = score;
                            fresh.push(k.id.clone());
                        }
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
    let record = RescoreRecord {
        scores: out,
        held,
        note: (!repairs.is_empty()).then(|| reading::details(&repairs).join("; ")),
        batch: batch + 1,
        lowered: Vec::new(),
        stopped: None,
    };
    Ok((record, fresh))
}

/// Once re-scoring stops with at least c fresh scores: every entry that
/// kept an old score (never shown, or missed by the reply) and still
/// ranks ahead of the c-th fresh one is put one below it, so top-c picks
/// only entries judged for this task (when that one is 0, an older 0 can
/// still win a tie by being newer). The entries lowered, with their new
/// scores.
fn lower_stale(act: &Act<'_>, i: usize, fresh: &[String], c: usize) -> Vec<(String, u8)> {
    let mut members = act.members.borrow_mut();
    let knowledge = &mut members[i].store.knowledge;
    let Some(cth) = cth_fresh(knowledge, fresh, c).cloned() else {
        return Vec::new();
    };
    let below = cth.importance.saturating_sub(1);
    let mut lowered = Vec::new();
    for k in knowledge.iter_mut() {
        if !fresh.contains(&k.id) && memory::top_c_order(k, &cth) == std::cmp::Ordering::Less {
            k.importance = below.min(k.importance);
            lowered.push((k.id.clone(), k.importance));
        }
    }
    lowered
}

/// The scores in a re-scoring reply, by entry id: the step's shape,
/// `{"scores": [{"id": "<id>", "score": 7}]}`; also the list bare, the
/// earlier form `{"scores": {"<id>": 7}}` (runs recorded before the step
/// had a shape) or that map bare, each read with a shape repair.
pub fn read_scores(
    reply: &str,
    ids: &[String],
) -> Result<Read<serde_json::Map<String, Value>>, Unreadable> {
    let Read { value, repairs } = read_value(reply)?;
    let read = |map: serde_json::Map<String, Value>, repairs: Vec<_>, how: Option<&str>| {
        let r = Read {
            value: map,
            repairs,
        };
        match how {
            Some(how) => r.with(reading::shape(how)),
            None => r,
        }
    };
    if let Some(items) = value.get("scores").and_then(Value::as_array) {
        return Ok(read(by_id(items), repairs, None));
    }
    if let Some(items) = value.as_array() {
        return Ok(read(
            by_id(items),
            repairs,
            Some("the scores were a bare list: read as \"scores\""),
        ));
    }
    if let Some(map) = value.get("scores").and_then(Value::as_object) {
        return Ok(read(
            map.clone(),
            repairs,
            Some("the scores were a map by id (the earlier form): read by id"),
        ));
    }
    let is_map_of_ids = value
        .as_object()
        .is_some_and(|o| !o.is_empty() && o.keys().all(|k| ids.contains(k)));
    if is_map_of_ids {
        let map = value.as_object().cloned().unwrap_or_default();
        return Ok(read(
            map,
            repairs,
            Some("the scores were a bare map of ids: read by id"),
        ));
    }
    Err(Unreadable("the JSON has no \"scores\" by entry id".into()))
}

/// A list of `{"id", "score"}` items by id (an item without both is left
/// out: its entry is counted as not re-scored).
fn by_id(items: &[Value]) -> serde_json::Map<String, Value> {
    let mut map = serde_json::Map::new();
    for item in items {
        let id = item.get("id").and_then(Value::as_str);
        let score = item.get("score").or_else(|| item.get("importance"));
        if let (Some(id), Some(score)) = (id, score) {
            map.insert(id.to_string(), score.clone());
        }
    }
    map
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
        let (entries, shown) = rescore_entries(store, &[]);
        prompts::rescore(
            &prompts::of_run(&Default::default()).expect("the defaults"),
            &speaker(),
            &entries,
            (shown.len(), store.len()),
            0,
        )
        .expect("rendered")
        .1
    }

    #[test]
    fn the_rescoring_prompt_is_bounded_however_large_the_bank_grows() {
        let empty = prompt(&[]).chars().count();
        for n in [10usize, 1_000, 10_000] {
            // Summaries of 120 words (acquisition's cap), scores 0–10.
            let store: Vec<Knowledge> = (0..n as u32)
                .map(|i| entry(i, (i % 11) as u8, i / 500, 1 + i % 2, 120))
                .collect();
            let (entries, shown) = rescore_entries(&store, &[]);
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
        let (one, _) = rescore_entries(std::slice::from_ref(&entry(7, 5, 0, 1, 400)), &[]);
        assert!(one.starts_with("[a1.k7] Topic7 is a practice. explained"));
        assert!(one.contains("… — keywords: a keyword forty"));
        assert!(one.ends_with(" (was 5)"));
        // An absurd id is never shown (it keeps its score).
        let mut odd = entry(1, 10, 0, 1, 5);
        odd.id = "x".repeat(500);
        assert!(candidates(&[odd], &[]).is_empty());
    }

    #[test]
    fn scores_are_read_in_the_steps_shape_and_the_earlier_forms_flagged() {
        let ids = vec!["a1.k1".to_string(), "a1.k2".to_string()];
        let r = read_scores(
            r#"{"scores": [{"id": "a1.k1", "score": 7}, {"id": "a1.k2", "score": 3}]}"#,
            &ids,
        )
        .expect("read");
        assert!(r.repairs.is_empty(), "{:?}", r.repairs);
        assert_eq!(r.value["a1.k1"], 7);
        assert_eq!(r.value["a1.k2"], 3);
        for earlier in [
            r#"{"scores": {"a1.k1": 7, "a1.k2": 3}}"#,
            r#"{"a1.k1": 7, "a1.k2": 3}"#,
            r#"[{"id": "a1.k1", "score": 7}, {"id": "a1.k2", "score": 3}]"#,
        ] {
            let r = read_scores(earlier, &ids).expect("read");
            assert_eq!(r.value["a1.k1"], 7, "{earlier}");
            assert!(
                r.repairs.iter().any(|x| x.kind == RepairKind::Shape),
                "{earlier}: {:?}",
                r.repairs
            );
        }
        assert!(read_scores(r#"{"verdict": "fine"}"#, &ids).is_err());
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
        let ids: Vec<&str> = candidates(&store, &[])
            .iter()
            .map(|k| k.id.as_str())
            .collect();
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
        let shown = candidates(&many, &[]);
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

    #[test]
    fn only_entries_that_could_enter_top_c_are_rescored_next() {
        let ids = |v: &[u32]| -> Vec<String> { v.iter().map(|i| format!("a1.k{i}")).collect() };
        // Fresh: k0 = 6 (trial 0) and k1 = 8; unseen: k2 = 6 from trial 4,
        // k3 = 6 from trial 0 inserted later, k4 = 5.
        let mut store = vec![
            entry(0, 6, 0, 1, 5),
            entry(1, 8, 0, 1, 5),
            entry(2, 6, 4, 1, 5),
            entry(3, 6, 0, 1, 5),
            entry(4, 5, 0, 1, 5),
        ];
        let fresh = ids(&[0, 1]);
        // Fewer fresh scores than c: any unseen entry could enter.
        assert!(could_enter(&store, &fresh, &ids(&[0, 1]), 3));
        // c = 2, the 2nd fresh is k0 (6, trial 0): an unseen 6 from a
        // later trial wins the tie, so it could enter.
        assert!(could_enter(&store, &fresh, &ids(&[0, 1]), 2));
        // Without it: the same 6, same trial and meeting, inserted later,
        // loses the tie; nothing left could enter.
        assert!(!could_enter(&store, &fresh, &ids(&[0, 1, 2]), 2));
        store[3].importance = 7;
        assert!(could_enter(&store, &fresh, &ids(&[0, 1, 2]), 2));
        // Nothing unseen: nothing could.
        assert!(!could_enter(&store, &fresh, &ids(&[0, 1, 2, 3, 4]), 2));
    }
}
