//! After a meeting (§3.4.2), every agent updates itself from the same
//! snapshot (the task it held during the meeting, the knowledge it had
//! before it): **task exploration** rewrites its current subject (details
//! and the initial task never change), and **knowledge acquisition**
//! stores episodes and scored entries about every other speaker. The two
//! are independent, so they run concurrently, and so do the agents.

use super::contract::*;
use super::memory;
use super::prompts;
use super::reading;
use super::team::{Act, Meeting};
use crate::engine::model::reply::{read_value, Read, Repair, RepairKind, Unreadable};
use crate::engine::run::RunError;
use futures::future::join_all;
use serde_json::Value;

/// Exploration and acquisition for `agents` (member indices) after
/// `meeting`, whose other speakers are `speakers` (ids).
pub async fn after_meeting(
    act: &Act<'_>,
    meeting: &Meeting,
    agents: &[usize],
    stage: &str,
) -> Result<(), RunError> {
    let transcript = act.transcript(meeting);
    let work = agents.iter().map(|&i| {
        let transcript = transcript.clone();
        async move {
            let explore = async {
                if act.features.exploration {
                    Some(explore_task(act, i, &transcript).await)
                } else {
                    None
                }
            };
            let acquire = async {
                if act.features.knowledge {
                    Some(acquire_knowledge(act, i, meeting, &transcript).await)
                } else {
                    None
                }
            };
            let (subject, acquired) = futures::join!(explore, acquire);
            if let Some(acquired) = acquired {
                let mut acquired = acquired?;
                for k in &mut acquired.knowledge {
                    k.source_name = act.name_of(&k.source);
                }
                let mut members = act.members.borrow_mut();
                let store = &mut members[i].store;
                let first = store.next_order();
                for (order, mut k) in (first..).zip(acquired.knowledge) {
                    k.order = order;
                    k.id = format!("{}.k{order}", k.owner);
                    note_knowledge(act, &k);
                    store.knowledge.push(k);
                }
                let base = store.episodes.len();
                for (n, mut e) in acquired.episodes.into_iter().enumerate() {
                    e.id = format!("{}.e{}", e.owner, base + n);
                    act.ctx.note(&e.owner, STORE_EPISODE, Some(&e.id), &e);
                    store.episodes.push(e);
                }
            }
            if let Some(explored) = subject {
                let (subject, flags) = explored?;
                act.members.borrow_mut()[i].current.subject = subject;
                act.note_task(i, stage, flags);
            }
            Ok::<(), RunError>(())
        }
    });
    join_all(work).await.into_iter().collect()
}

fn note_knowledge(act: &Act<'_>, k: &Knowledge) {
    act.ctx.note(&k.owner, STORE_KNOWLEDGE, Some(&k.id), k);
}

/// The longest subject kept (words); a longer one is cut, flagged.
const SUBJECT_WORDS: usize = 60;

/// T_{i,j+1} = f(T_{i,j}, T_{i,0}, D_j, K_{i,i}, G): the new subject, and
/// what the repair of the reply did (recorded against its call).
pub async fn explore_task(
    act: &Act<'_>,
    i: usize,
    transcript: &str,
) -> Result<(String, Vec<String>), RunError> {
    let s = act.speaker(i, STEP_EXPLORE);
    let current = s.current.subject.clone();
    let said = act
        .ask(
            &act.member_id(i),
            STEP_EXPLORE,
            prompts::explore(&s, &act.team_task_text(), transcript),
        )
        .await?;
    let (subject, repairs) = read_subject(&said.text, &current);
    act.repaired(said.call, &repairs);
    Ok((subject, reading::details(&repairs)))
}

/// The keys a reply may write its task under, preferred first: the one
/// asked for, then the names models give it. No other key is ever read as
/// the task: serde_json keeps an object's keys in alphabetical order, so
/// "its first text" would be `"reasoning"` before `"subject"`.
const TASK_KEYS: [&str; 9] = [
    "task",
    "new_task",
    "updated_task",
    "current_task",
    "specified_task",
    "subject",
    "title",
    "name",
    "topic",
];

/// The first of [`TASK_KEYS`] (after "task") whose value in `v` is a text
/// that is not a preamble: its key and text.
fn other_task_key(v: &Value) -> Option<(&'static str, &str)> {
    TASK_KEYS.iter().skip(1).find_map(|&k| {
        v.get(k)
            .and_then(Value::as_str)
            .filter(|t| !reading::is_preamble(t))
            .map(|t| (k, t))
    })
}

/// The subject in an exploration reply: its `"task"` (also wrapped, or the
/// first item of a list), else the text under another of [`TASK_KEYS`]
/// (`"subject"`, `"title"`…; flagged); from a reply that is not JSON, its
/// first line that is not a preamble ("Sure! Here's my task:" never is
/// the task). The current subject when there is none (a stated default,
/// flagged: JSON with none of those keys is not read); at most 60 words.
pub fn read_subject(reply: &str, current: &str) -> (String, Vec<Repair>) {
    let has_task = |v: &Value| v.get("task").and_then(Value::as_str).is_some();
    let has_other = |v: &Value| other_task_key(v).is_some();
    let (subject, mut repairs) = match read_value(reply) {
        Ok(read) => match reading::object_that(read.clone(), &has_task, "\"task\"") {
            Ok(r) => (
                r.value
                    .get("task")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                r.repairs,
            ),
            Err(why) => match reading::object_that(read, &has_other, "\"task\"") {
                Ok(r) => {
                    // `has_other` fits it: a key is found.
                    let (key, text) = other_task_key(&r.value)
                        .map(|(k, t)| (k, t.to_string()))
                        .unwrap_or_default();
                    let taken = reading::shape(format!(
                        "the reply had no \"task\": its \"{key}\" was taken"
                    ));
                    (text, r.with(taken).repairs)
                }
                Err(_) => (
                    String::new(),
                    vec![reading::default(format!(
                        "no task could be read ({why}): the current one is kept"
                    ))],
                ),
            },
        },
        Err(why) => match reading::usable_lines(reply).into_iter().next() {
            Some(line) => (
                line,
                vec![reading::shape(
                    "the reply was not JSON: its first line that is not a preamble was taken",
                )],
            ),
            None => (
                String::new(),
                vec![reading::default(format!(
                    "no task could be read ({why}; nothing but a preamble): the current one is kept"
                ))],
            ),
        },
    };
    let (subject, cut) = memory::truncate_words(&reading::visible(&subject), SUBJECT_WORDS);
    if cut {
        repairs.push(reading::clamped(format!(
            "the task was cut to {SUBJECT_WORDS} words"
        )));
    }
    if subject.is_empty() {
        if !repairs.iter().any(|r| r.kind == RepairKind::Default) {
            repairs.push(reading::default(
                "the task was empty: the current one is kept",
            ));
        }
        return (current.to_string(), repairs);
    }
    (subject, repairs)
}

/// What one acquisition stored (ids are given when stored).
#[derive(Default)]
pub struct Acquired {
    pub episodes: Vec<Episode>,
    pub knowledge: Vec<Knowledge>,
}

/// K_{i,l,j}, E_{i,l,j} = g(D_j, K_{i,i}, K_{i,l}, T_{i,j−1}, T_{i,0}): one
/// request about every other speaker. The reply is repaired as needed
/// (caps, clamps, self and unknown speakers dropped), every repair flagged;
/// a reply that is not JSON is asked again once, then stores nothing.
pub async fn acquire_knowledge(
    act: &Act<'_>,
    i: usize,
    meeting: &Meeting,
    transcript: &str,
) -> Result<Acquired, RunError> {
    let owner = act.member_id(i);
    let mut speakers: Vec<String> = Vec::new();
    for (who, _) in &meeting.lines {
        if *who != owner && !speakers.contains(who) {
            speakers.push(who.clone());
        }
    }
    if speakers.is_empty() {
        return Ok(Acquired::default());
    }
    let names: Vec<String> = speakers.iter().map(|s| act.name_of(s)).collect();
    let s = act.speaker(i, STEP_ACQUIRE);
    let prompt = prompts::acquire(&s, &names, transcript, act.limits());
    let mut said = act.ask(&owner, STEP_ACQUIRE, prompt.clone()).await?;
    let mut read = read_acquisition_json(&said.text);
    let retried = read.is_err();
    if let Err(why) = &read {
        act.repaired(
            said.call,
            &[Repair::new(
                RepairKind::AskedAgain,
                format!("the reply could not be read ({why}): asked again once"),
            )],
        );
        said = act
            .ask(&owner, STEP_ACQUIRE, reading::again(&prompt))
            .await?;
        read = read_acquisition_json(&said.text);
    }
    let (value, mut repairs) = match read {
        Ok(r) => (Some(r.value), r.repairs),
        Err(why) => (
            None,
            vec![reading::default(format!(
                "the second reply could not be read either ({why}): nothing stored"
            ))],
        ),
    };
    let resolve = |name: &str| -> Option<String> {
        let n = name.trim().to_lowercase();
        let n = n.trim_start_matches("agent ").trim();
        let found = speakers
            .iter()
            .chain(std::iter::once(&owner))
            .find(|id| {
                let full = act.name_of(id).to_lowercase();
                id.to_lowercase() == n
                    || full == name.trim().to_lowercase()
                    || full.trim_start_matches("agent ") == n
            })
            .cloned();
        // A 1:1 has one other speaker: "the expert", "Expert" name it.
        found.or_else(|| (speakers.len() == 1 && n.contains("expert")).then(|| speakers[0].clone()))
    };
    let acquired = read_acquisition(
        value.as_ref(),
        &owner,
        meeting.index,
        act.limits(),
        &resolve,
        &mut repairs,
    );
    let repairs = reading::folded(repairs);
    act.repaired(said.call, &repairs);
    let mut flags = reading::details(&repairs);
    if retried {
        // The first reply's retry is a flag of this acquisition too.
        flags.insert(
            0,
            "the first reply could not be read: asked again once".into(),
        );
    }
    act.ctx.note(
        &owner,
        STORE_ACQUISITION,
        Some(&meeting.index.to_string()),
        &AcquisitionRecord {
            meeting: meeting.index,
            episodes: acquired.episodes.len(),
            entries: acquired.knowledge.len(),
            flags,
        },
    );
    Ok(acquired)
}

/// The JSON of an acquisition reply as `{"episodes": [...], "knowledge":
/// [...]}`, each item naming its speaker in `"subject"`. Other shapes are
/// mapped (a [`RepairKind::Shape`] repair each): the object wrapped in a
/// one-key object; a list of per-speaker groups (`[{"subject", "episodes",
/// "knowledge"}]`, also wrapped: `{"result": [...]}`), whose items take the
/// group's speaker and whose episodes may be texts; a list of bare
/// episodes and entries; episodes or knowledge keyed by speaker
/// (`{"episodes": {"Agent B": [...]}}`). Anything else is unreadable.
pub fn read_acquisition_json(text: &str) -> Result<Read<Value>, Unreadable> {
    let Read {
        mut value,
        mut repairs,
    } = read_value(text)?;
    let has = |v: &Value| v.get("episodes").is_some() || v.get("knowledge").is_some();
    if !has(&value) {
        if let Some((key, inner)) = reading::only_entry(&value) {
            if inner.is_object() || inner.is_array() {
                repairs.push(reading::shape(format!(
                    "the answer was wrapped in \"{}\": unwrapped",
                    reading::key_of(key)
                )));
                value = inner.clone();
            }
        }
    }
    if value.is_object() && has(&value) {
        let mut out = serde_json::Map::new();
        for key in ["episodes", "knowledge"] {
            let items = match value.get(key) {
                Some(Value::Array(a)) => a.clone(),
                Some(Value::Object(by_speaker)) => {
                    repairs.push(reading::shape(format!(
                        "the {key} were keyed by speaker: each took its key as its speaker"
                    )));
                    let mut items = Vec::new();
                    for (speaker, list) in by_speaker {
                        let list = match list {
                            Value::Array(a) => a.clone(),
                            other => vec![other.clone()],
                        };
                        items.extend(list.into_iter().map(|x| item_of(key, x, speaker)));
                    }
                    items
                }
                Some(Value::Null) | None => Vec::new(),
                Some(_) => {
                    repairs.push(reading::dropped(format!(
                        "the \"{key}\" were not a list: dropped"
                    )));
                    Vec::new()
                }
            };
            out.insert(key.into(), Value::Array(items));
        }
        return Ok(Read {
            value: Value::Object(out),
            repairs,
        });
    }
    if let Some(groups) = value.as_array() {
        let mut episodes = Vec::new();
        let mut knowledge = Vec::new();
        for g in groups {
            let speaker = speaker_of(g).unwrap_or_default();
            if has(g) {
                for (key, out) in [("episodes", &mut episodes), ("knowledge", &mut knowledge)] {
                    let list = match g.get(key) {
                        Some(Value::Array(a)) => a.clone(),
                        Some(Value::Null) | None => Vec::new(),
                        Some(other) => vec![other.clone()],
                    };
                    out.extend(list.into_iter().map(|x| item_of(key, x, &speaker)));
                }
            } else if g.get("summary").is_some() || g.get("brief_summary").is_some() {
                knowledge.push(g.clone());
            } else if g.get("text").is_some() {
                episodes.push(g.clone());
            }
        }
        if episodes.is_empty() && knowledge.is_empty() {
            return Err(Unreadable(
                "the JSON list holds no episode or knowledge entry".into(),
            ));
        }
        repairs.push(reading::shape(format!(
            "the reply was a list of {}, not {{\"episodes\", \"knowledge\"}}: its episodes and entries were gathered",
            groups.len()
        )));
        return Ok(Read {
            value: serde_json::json!({"episodes": episodes, "knowledge": knowledge}),
            repairs,
        });
    }
    Err(Unreadable(
        "the JSON has neither \"episodes\" nor \"knowledge\"".into(),
    ))
}

/// The speaker an item or group names.
fn speaker_of(v: &Value) -> Option<String> {
    ["subject", "source", "speaker", "agent", "name", "about"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// An episode or entry of `speaker`'s group: a text becomes the episode's
/// text (the entry's summary); an object keeps its own speaker if it names
/// one.
fn item_of(key: &str, item: Value, speaker: &str) -> Value {
    match item {
        Value::String(t) if key == "episodes" => serde_json::json!({"subject": speaker, "text": t}),
        Value::String(t) => serde_json::json!({"subject": speaker, "summary": t}),
        Value::Object(mut o) => {
            if speaker_of(&Value::Object(o.clone())).is_none() {
                o.insert("subject".into(), Value::String(speaker.to_string()));
            }
            Value::Object(o)
        }
        other => other,
    }
}

/// The episodes and entries of an acquisition reply (as
/// [`read_acquisition_json`] gives it), capped and repaired; every repair
/// is added to `repairs`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_task_key_is_read_as_the_task() {
        // Keys are alphabetical: "reasoning" comes before "subject".
        let (t, r) = read_subject(
            r#"{"reasoning": "I think the team needs calm", "subject": "Tea"}"#,
            "Old",
        );
        assert_eq!(t, "Tea");
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].kind, RepairKind::Shape);
        assert!(r[0].detail.contains("\"subject\""), "{r:?}");
        // Wrapped or listed, as "task" may be.
        let (t, _) = read_subject(
            r#"{"result": {"analysis": "long", "title": "Tea room"}}"#,
            "Old",
        );
        assert_eq!(t, "Tea room");
        let (t, _) = read_subject(r#"[{"analysis": "long"}, {"title": "Tea room"}]"#, "Old");
        assert_eq!(t, "Tea room");
        // A preferred key is preferred whatever its place.
        let (t, _) = read_subject(r#"{"name": "B", "new_task": "A"}"#, "Old");
        assert_eq!(t, "A");
        // None of the keys: the stated default, flagged, whatever text there is.
        for reply in [
            r#"{"reasoning": "I think the team needs calm", "mood": "calm"}"#,
            r#"{"subject": "Sure! Here's my task:", "a": "chatter"}"#,
            r#"{"subject": 3}"#,
        ] {
            let (t, r) = read_subject(reply, "Old");
            assert_eq!(t, "Old", "{reply}");
            assert_eq!(r.len(), 1, "{reply}: {r:?}");
            assert_eq!(r[0].kind, RepairKind::Default, "{reply}");
            assert!(r[0].detail.contains("current one is kept"), "{reply}");
        }
        // "task" as asked: no repair.
        let (t, r) = read_subject(r#"{"reasoning": "x", "task": "Tea"}"#, "Old");
        assert_eq!((t.as_str(), r.len()), ("Tea", 0));
    }

    #[test]
    fn a_wrapping_key_is_echoed_capped() {
        let key = "k".repeat(100_000);
        let (t, r) = read_subject(
            &serde_json::json!({ key.clone(): {"task": "Tea"} }).to_string(),
            "Old",
        );
        assert_eq!(t, "Tea");
        let text = serde_json::json!({ key: {"episodes": [], "knowledge": []} }).to_string();
        let read = read_acquisition_json(&text).expect("read");
        for x in r.iter().chain(&read.repairs) {
            assert!(x.detail.chars().count() < 200, "{} chars", x.detail.len());
        }
        assert!(!read.repairs.is_empty());
    }
}
