//! Task exploration (§3.4.2): an agent rewrites its current subject from
//! the meeting; the reply's task is read leniently, and a reply with none
//! keeps the current subject (flagged).

use crate::engine::coordinators::act::contract::*;
use crate::engine::coordinators::act::memory;
use crate::engine::coordinators::act::prompts;
use crate::engine::coordinators::act::reading;
use crate::engine::coordinators::act::team::Act;
use crate::engine::model::reply::{read_value, Repair, RepairKind};
use crate::engine::run::RunError;
use serde_json::Value;

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
            prompts::explore(
                &act.prompts,
                &s,
                TEAM_NAME,
                &act.team_task_text(),
                &act.task.deliverable,
                transcript,
            )?,
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
}
