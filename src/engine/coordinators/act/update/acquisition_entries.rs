//! The episodes and entries of an acquisition reply: each about a speaker
//! of the meeting (self and unknown speakers dropped), capped per speaker
//! and in length, keywords and importance repaired, an entry's source (where
//! its information came from) kept; every repair flagged.

use super::acquisition_json::{speaker_key, speaker_of};
use super::Acquired;
use crate::engine::coordinators::act::contract::*;
use crate::engine::coordinators::act::memory;
use crate::engine::coordinators::act::reading;
use crate::engine::model::reply::Repair;
use serde_json::Value;

/// The episodes and entries of an acquisition reply (as
/// [`read_acquisition_json`] gives it), capped and repaired; every repair
/// is added to `repairs`.
///
/// [`read_acquisition_json`]: super::read_acquisition_json
pub fn read_acquisition(
    value: Option<&Value>,
    owner: &str,
    meeting: u32,
    limits: &Limits,
    resolve: &dyn Fn(&str) -> Option<String>,
    repairs: &mut Vec<Repair>,
) -> Acquired {
    let mut out = Acquired::default();
    let Some(v) = value else {
        return out;
    };
    let list = |key: &str| {
        v.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let reader = Reader {
        owner,
        meeting,
        limits,
        resolve,
    };
    out.episodes = reader.episodes(list("episodes"), repairs);
    let entries = reader.entries(list("knowledge"), repairs);
    out.knowledge = most_important_per_speaker(&entries, limits.entries, repairs);
    out
}

/// What reading one acquisition reply needs: whose memory it is, of which
/// meeting, the caps, and how a speaker's name maps to an agent id.
struct Reader<'a> {
    owner: &'a str,
    meeting: u32,
    limits: &'a Limits,
    resolve: &'a dyn Fn(&str) -> Option<String>,
}

impl Reader<'_> {
    /// The agent an item is about; `None` (flagged) for the owner itself or
    /// an unknown speaker.
    fn subject_of(&self, item: &Value, repairs: &mut Vec<Repair>) -> Option<String> {
        let name = speaker_of(item).unwrap_or_default();
        match (self.resolve)(&name) {
            Some(id) if id == self.owner => {
                repairs.push(reading::dropped(
                    "an entry about the agent itself was dropped",
                ));
                None
            }
            Some(id) => Some(id),
            None => {
                let (name, _) = reading::cap_chars(&name, 40);
                repairs.push(reading::dropped(format!(
                    "an entry about an unknown speaker \"{name}\" was dropped"
                )));
                None
            }
        }
    }

    /// The episodes, cut in length and capped per speaker.
    fn episodes(&self, items: Vec<Value>, repairs: &mut Vec<Repair>) -> Vec<Episode> {
        let limits = self.limits;
        let mut episodes = Vec::new();
        let mut per_speaker: std::collections::HashMap<String, usize> = Default::default();
        for item in items {
            let Some(about) = self.subject_of(&item, repairs) else {
                continue;
            };
            let text = item.get("text").and_then(Value::as_str).unwrap_or("");
            let (text, cut) = memory::truncate_words(text, limits.episode_words);
            if text.is_empty() {
                repairs.push(reading::dropped("an empty episode was dropped"));
                continue;
            }
            let count = per_speaker.entry(about.clone()).or_default();
            if *count >= limits.episodes {
                repairs.push(reading::clamped(format!(
                    "more than {} episodes about {about}: the rest dropped",
                    limits.episodes
                )));
                continue;
            }
            *count += 1;
            let mut ef = Vec::new();
            if cut {
                let flag = format!("cut to {} words", limits.episode_words);
                repairs.push(reading::clamped(format!("an episode was {flag}")));
                ef.push(flag);
            }
            episodes.push(Episode {
                id: String::new(),
                owner: self.owner.into(),
                about,
                meeting: self.meeting,
                text,
                flags: ef,
            });
        }
        episodes
    }

    /// The knowledge entries about known speakers, each repaired (not yet
    /// capped per speaker).
    fn entries(&self, items: Vec<Value>, repairs: &mut Vec<Repair>) -> Vec<Knowledge> {
        let mut entries: Vec<Knowledge> = Vec::new();
        for item in items {
            let Some(source) = self.subject_of(&item, repairs) else {
                continue;
            };
            entries.extend(self.entry(&item, source, repairs));
        }
        entries
    }

    /// One knowledge entry: its summary cut, its keywords, importance and
    /// source repaired (each repair flagged on it); `None` without a summary.
    fn entry(&self, item: &Value, source: String, repairs: &mut Vec<Repair>) -> Option<Knowledge> {
        let summary = item
            .get("summary")
            .or_else(|| item.get("brief_summary"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string();
        if summary.is_empty() {
            repairs.push(reading::dropped("an entry without a summary was dropped"));
            return None;
        }
        let (summary, cut) = memory::truncate_words(&summary, SUMMARY_WORDS);
        let (keywords, mut kr) = memory::keywords(item.get("keywords"), self.limits.keywords);
        if cut {
            kr.push(reading::clamped(format!(
                "a summary was cut to {SUMMARY_WORDS} words"
            )));
        }
        let (importance, imr) = memory::importance(item.get("importance"));
        kr.extend(imr);
        let (origin, or) = origin_of(item.get("source"));
        kr.extend(or);
        if speaker_key(item).is_some_and(|(k, _)| k == "source") {
            // As such entries were read before the source was asked for
            // apart from the speaker: kept, and now flagged.
            kr.push(reading::shape(
                "an entry named no speaker: its \"source\" was taken as its speaker",
            ));
        }
        let mut kf = reading::details(&kr);
        kf.extend(memory::few_keywords(&keywords));
        repairs.extend(kr);
        Some(Knowledge {
            id: String::new(),
            owner: self.owner.into(),
            source,
            source_name: String::new(),
            origin,
            meeting: self.meeting,
            trial: 0,
            summary,
            keywords,
            importance,
            order: 0,
            flags: kf,
        })
    }
}

/// At most `cap` entries per speaker: the most important (stable: reply
/// order on ties), speakers in the order they first appear.
fn most_important_per_speaker(
    entries: &[Knowledge],
    cap: usize,
    repairs: &mut Vec<Repair>,
) -> Vec<Knowledge> {
    let mut kept: Vec<Knowledge> = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    for e in entries {
        if !sources.contains(&e.source) {
            sources.push(e.source.clone());
        }
    }
    for s in sources {
        let mut of: Vec<&Knowledge> = entries.iter().filter(|e| e.source == s).collect();
        if of.len() > cap {
            repairs.push(reading::clamped(format!(
                "{} entries about {s}: the {} most important kept",
                of.len(),
                cap
            )));
            of.sort_by_key(|k| std::cmp::Reverse(k.importance));
            of.truncate(cap);
        }
        let keep: Vec<Knowledge> = entries
            .iter()
            .filter(|e| e.source == s && of.iter().any(|k| std::ptr::eq(*k, *e)))
            .cloned()
            .collect();
        kept.extend(keep);
    }
    kept
}

/// The longest summary kept (words): a brief summary is a sentence or two.
const SUMMARY_WORDS: usize = 120;

/// The longest source kept (chars).
const ORIGIN_CHARS: usize = 80;

/// Where an entry's information came from, as its `"source"` names it (a
/// list of texts is joined, flagged); empty when it names none, as replies
/// from before the source was asked for do (not a repair: nothing is made
/// up, and the speaker is the one the entry was heard from).
fn origin_of(v: Option<&Value>) -> (String, Vec<Repair>) {
    let mut repairs = Vec::new();
    let text = match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) if !a.is_empty() && a.iter().all(Value::is_string) => {
            repairs.push(reading::shape("a source was a list: joined"));
            let names: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
            names.join(", ")
        }
        Some(_) => {
            repairs.push(reading::dropped("a source that was not text was dropped"));
            String::new()
        }
    };
    let (text, cut) = reading::cap_chars(reading::visible(&text).trim(), ORIGIN_CHARS);
    if cut {
        repairs.push(reading::clamped(format!(
            "a source was cut to {ORIGIN_CHARS} characters"
        )));
    }
    (text, repairs)
}

#[cfg(test)]
mod tests {
    use super::super::read_acquisition_json;
    use super::*;

    /// The entries of `reply` for owner a1 (Agent B is a2), and the repairs.
    fn entries(reply: &str) -> (Vec<Knowledge>, Vec<Repair>) {
        let read = read_acquisition_json(reply).expect("readable");
        let mut repairs = read.repairs;
        let resolve = |n: &str| match n {
            "Agent A" => Some("a1".to_string()),
            "Agent B" | "B" => Some("a2".to_string()),
            _ => None,
        };
        let out = read_acquisition(
            Some(&read.value),
            "a1",
            1,
            &Limits::default(),
            &resolve,
            &mut repairs,
        );
        (out.knowledge, repairs)
    }

    #[test]
    fn an_entrys_source_is_kept_apart_from_its_speaker() {
        // As asked: filed under its speaker, its source kept, nothing repaired.
        let (k, r) = entries(
            r#"{"knowledge": [{"subject": "Agent B", "summary": "Sourdough is bread.", "keywords": ["bread", "sourdough"], "source": "Omar", "importance": 8}]}"#,
        );
        assert_eq!((k[0].source.as_str(), k[0].origin.as_str()), ("a2", "Omar"));
        assert!(r.is_empty() && k[0].flags.is_empty(), "{r:?}");
        // In a speaker's group, an entry's source does not move it.
        let (k, _) = entries(
            r#"[{"subject": "Agent B", "knowledge": [{"brief_summary": "Sourdough is bread.", "keywords": ["bread", "sourdough"], "source": "Omar", "importance": 8}]}]"#,
        );
        assert_eq!((k[0].source.as_str(), k[0].origin.as_str()), ("a2", "Omar"));
        // A speaker under another key wins over the source too.
        let (k, r) = entries(
            r#"{"knowledge": [{"speaker": "Agent B", "summary": "Sourdough is bread.", "keywords": ["bread", "sourdough"], "source": "Omar", "importance": 8}]}"#,
        );
        assert_eq!((k[0].source.as_str(), k[0].origin.as_str()), ("a2", "Omar"));
        assert!(r.is_empty(), "{r:?}");
        // An older reply, without a source: read as before, no source, no flag.
        let (k, r) = entries(
            r#"{"knowledge": [{"subject": "B", "summary": "Oolong is a tea.", "keywords": ["oolong", "tea"], "importance": 6}]}"#,
        );
        assert_eq!((k[0].source.as_str(), k[0].origin.as_str()), ("a2", ""));
        assert!(r.is_empty() && k[0].flags.is_empty(), "{r:?}");
        // A source and no speaker: the source is taken as the speaker, flagged.
        let (k, r) = entries(
            r#"{"knowledge": [{"source": "Agent B", "summary": "Oolong is a tea.", "keywords": ["oolong", "tea"], "importance": 6}]}"#,
        );
        assert_eq!(
            (k[0].source.as_str(), k[0].origin.as_str()),
            ("a2", "Agent B")
        );
        assert!(
            r.iter().any(|x| x.detail.contains("taken as its speaker")),
            "{r:?}"
        );
        assert!(k[0]
            .flags
            .iter()
            .any(|f| f.contains("taken as its speaker")));
        // A source that is not text is dropped, flagged; a list is joined.
        let (k, r) = entries(
            r#"{"knowledge": [{"subject": "Agent B", "summary": "A is b.", "keywords": ["a", "b"], "source": 3, "importance": 6}, {"subject": "Agent B", "summary": "C is d.", "keywords": ["c", "d"], "source": ["Omar", "Mia"], "importance": 6}]}"#,
        );
        assert_eq!(k[0].origin, "");
        assert_eq!(k[1].origin, "Omar, Mia");
        assert_eq!(r.len(), 2, "{r:?}");
    }
}
