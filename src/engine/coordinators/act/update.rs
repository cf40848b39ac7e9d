//! After a meeting (§3.4.2), every agent updates itself from the same
//! snapshot (the task it held during the meeting, the knowledge it had
//! before it): **task exploration** rewrites its current subject (details
//! and the initial task never change), and **knowledge acquisition**
//! stores episodes and scored entries about every other speaker. The two
//! are independent, so they run concurrently, and so do the agents.

use super::contract::*;
use super::memory;
use super::prompts;
use super::team::{Act, Meeting};
use crate::engine::model::reply::json_object;
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
/// what the repair of the reply did.
pub async fn explore_task(
    act: &Act<'_>,
    i: usize,
    transcript: &str,
) -> Result<(String, Vec<String>), RunError> {
    let s = act.speaker(i, STEP_EXPLORE);
    let current = s.current.subject.clone();
    let reply = act
        .ask(
            &act.member_id(i),
            STEP_EXPLORE,
            prompts::explore(&s, &act.team_task_text(), transcript),
        )
        .await?;
    Ok(read_subject(&reply, &current))
}

/// The subject in an exploration reply: its `"task"`, else the first
/// string of its JSON, else its first line that is not markup; the
/// current subject when there is none; at most 60 words.
pub fn read_subject(reply: &str, current: &str) -> (String, Vec<String>) {
    let mut flags = Vec::new();
    let subject = match json_object::<Value>(reply) {
        Some(v) => match v.get("task").and_then(Value::as_str) {
            Some(t) => t.to_string(),
            None => {
                flags.push("the reply had no \"task\": its first text was taken".into());
                v.as_object()
                    .and_then(|o| o.values().find_map(Value::as_str))
                    .unwrap_or("")
                    .to_string()
            }
        },
        None => {
            flags.push("the reply was not JSON: its first line was taken".into());
            reply
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with('{') && !l.starts_with("```"))
                .unwrap_or("")
                .to_string()
        }
    };
    let (subject, cut) = memory::truncate_words(subject.trim(), SUBJECT_WORDS);
    if cut {
        flags.push(format!("the task was cut to {SUBJECT_WORDS} words"));
    }
    if subject.is_empty() {
        flags.push("no task could be read: the current one is kept".into());
        return (current.to_string(), flags);
    }
    (subject, flags)
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
    let mut reply = act.ask(&owner, STEP_ACQUIRE, prompt.clone()).await?;
    let mut flags = Vec::new();
    let mut value = json_object::<Value>(&reply);
    if value.is_none() {
        flags.push("the reply was not JSON: asked again once".to_string());
        let retry = (
            prompt.0,
            format!(
                "{}\n\nYour previous reply could not be read. Reply with the JSON object only.",
                prompt.1
            ),
        );
        reply = act.ask(&owner, STEP_ACQUIRE, retry).await?;
        value = json_object::<Value>(&reply);
        if value.is_none() {
            flags.push("the second reply was not JSON either: nothing stored".into());
        }
    }
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
        &mut flags,
    );
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

/// The episodes and entries of an acquisition reply, capped and repaired.
pub fn read_acquisition(
    value: Option<&Value>,
    owner: &str,
    meeting: u32,
    limits: &Limits,
    resolve: &dyn Fn(&str) -> Option<String>,
    flags: &mut Vec<String>,
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
    let subject_of = |item: &Value, flags: &mut Vec<String>| -> Option<String> {
        let name = item
            .get("subject")
            .or_else(|| item.get("source"))
            .and_then(Value::as_str)
            .unwrap_or("");
        match resolve(name) {
            Some(id) if id == owner => {
                flags.push("an entry about the agent itself was dropped".into());
                None
            }
            Some(id) => Some(id),
            None => {
                flags.push(format!(
                    "an entry about an unknown speaker \"{name}\" was dropped"
                ));
                None
            }
        }
    };
    let mut per_speaker: std::collections::HashMap<String, usize> = Default::default();
    for item in list("episodes") {
        let Some(about) = subject_of(&item, flags) else {
            continue;
        };
        let text = item.get("text").and_then(Value::as_str).unwrap_or("");
        let (text, cut) = memory::truncate_words(text, limits.episode_words);
        if text.is_empty() {
            flags.push("an empty episode was dropped".into());
            continue;
        }
        let count = per_speaker.entry(about.clone()).or_default();
        if *count >= limits.episodes {
            flags.push(format!(
                "more than {} episodes about {about}: the rest dropped",
                limits.episodes
            ));
            continue;
        }
        *count += 1;
        let mut ef = Vec::new();
        if cut {
            ef.push(format!("cut to {} words", limits.episode_words));
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
        let Some(source) = subject_of(&item, flags) else {
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
            flags.push("an entry without a summary was dropped".into());
            continue;
        }
        let (keywords, mut kf) = memory::keywords(item.get("keywords"), limits.keywords);
        let (importance, imf) = memory::importance(item.get("importance"));
        kf.extend(imf);
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
            flags.push(format!(
                "{} entries about {s}: the {} most important kept",
                of.len(),
                limits.entries
            ));
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
