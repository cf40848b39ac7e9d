//! The episodes and entries of an acquisition reply: each about a speaker
//! of the meeting (self and unknown speakers dropped), capped per speaker
//! and in length, keywords and importance repaired; every repair flagged.

use super::acquisition_json::speaker_of;
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
    let subject_of = |item: &Value, repairs: &mut Vec<Repair>| -> Option<String> {
        let name = speaker_of(item).unwrap_or_default();
        match resolve(&name) {
            Some(id) if id == owner => {
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
    };
    let mut per_speaker: std::collections::HashMap<String, usize> = Default::default();
    for item in list("episodes") {
        let Some(about) = subject_of(&item, repairs) else {
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
        out.episodes.push(Episode {
            id: String::new(),
            owner: owner.into(),
            about,
            meeting,
            text,
            flags: ef,
        });
    }
    let mut entries: Vec<Knowledge> = Vec::new();
    for item in list("knowledge") {
        let Some(source) = subject_of(&item, repairs) else {
            continue;
        };
        let summary = item
            .get("summary")
            .or_else(|| item.get("brief_summary"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string();
        if summary.is_empty() {
            repairs.push(reading::dropped("an entry without a summary was dropped"));
            continue;
        }
        let (summary, cut) = memory::truncate_words(&summary, SUMMARY_WORDS);
        let (keywords, mut kr) = memory::keywords(item.get("keywords"), limits.keywords);
        if cut {
            kr.push(reading::clamped(format!(
                "a summary was cut to {SUMMARY_WORDS} words"
            )));
        }
        let (importance, imr) = memory::importance(item.get("importance"));
        kr.extend(imr);
        let mut kf = reading::details(&kr);
        kf.extend(memory::few_keywords(&keywords));
        repairs.extend(kr);
        entries.push(Knowledge {
            id: String::new(),
            owner: owner.into(),
            source,
            source_name: String::new(),
            meeting,
            summary,
            keywords,
            importance,
            order: 0,
            flags: kf,
        });
    }
    // At most N per speaker: the most important (stable: reply order on ties).
    let mut kept: Vec<Knowledge> = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    for e in &entries {
        if !sources.contains(&e.source) {
            sources.push(e.source.clone());
        }
    }
    for s in sources {
        let mut of: Vec<&Knowledge> = entries.iter().filter(|e| e.source == s).collect();
        if of.len() > limits.entries {
            repairs.push(reading::clamped(format!(
                "{} entries about {s}: the {} most important kept",
                of.len(),
                limits.entries
            )));
            of.sort_by_key(|k| std::cmp::Reverse(k.importance));
            of.truncate(limits.entries);
        }
        let keep: Vec<Knowledge> = entries
            .iter()
            .filter(|e| e.source == s && of.iter().any(|k| std::ptr::eq(*k, *e)))
            .cloned()
            .collect();
        kept.extend(keep);
    }
    out.knowledge = kept;
    out
}

/// The longest summary kept (words): a brief summary is a sentence or two.
const SUMMARY_WORDS: usize = 120;
