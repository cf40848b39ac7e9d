//! The demo's one-model baselines (standard, chain of thought, SPP,
//! self-refine) from the task text alone, the stories of Trivia Creative
//! Writing (for the team's leader too), and the steps that grade: the ACT+
//! re-scoring of stored entries and the LLM judge.

use super::glossary;
use super::request::*;
use super::text::*;
use super::writing::{fit, proposal, Offer};
use super::Me;
use crate::engine::coordinators::act::contract::*;
use serde_json::json;

/// Characters of the demo's stories.
const CHARACTERS: [&str; 8] = [
    "Mara", "Theo", "Ines", "Jonah", "Priya", "Sam", "Lena", "Omar",
];

/// A short story about `topic` that gives each member's question and what
/// it knows a scene (the demo knows no trivia answers).
pub fn story(topic: &str, questions: &[String], offers: &[Offer], limit: usize) -> String {
    let mut parts = vec![
        format!("Title: Questions at {topic}"),
        format!("It began as an ordinary day in the world of {topic}, until a handful of questions started going round the room."),
    ];
    for (i, q) in questions.iter().enumerate() {
        let who = CHARACTERS[i % CHARACTERS.len()];
        let mut scene = format!("{who} could not stop wondering: \"{}\"", q.trim());
        if let Some((_, _, content)) = offers.get(i) {
            if let Some(first) = sentences(content).into_iter().find(|s| word_count(s) > 3) {
                scene.push_str(&format!(
                    " {who} remembered something useful: {}",
                    decapitalise(&first)
                ));
            }
        }
        parts.push(fit(
            &sentences(&scene),
            limit / (questions.len() + 2).max(1),
        ));
    }
    parts.push(format!("By nightfall every question had found its place in the story of {topic}, and the friends agreed to look the answers up together in the morning."));
    let out = parts.join("\n");
    if word_count(&out) <= limit {
        out
    } else {
        clip(&out, limit)
    }
}

/// A trivia task's topic ("… a story about X that incorporates …").
fn story_topic(task: &str) -> Option<String> {
    let (_, rest) = task.split_once("story about ")?;
    let topic = rest.split(" that ").next().unwrap_or(rest);
    Some(bare(topic).to_string()).filter(|t| !t.is_empty())
}

/// The questions of a trivia task (after "questions:", each ending in "?").
fn story_questions(task: &str) -> Vec<String> {
    let rest = task.split_once("questions:").map_or("", |(_, r)| r);
    rest.split_inclusive('?')
        .map(|q| q.trim().to_string())
        .filter(|q| q.ends_with('?') && q.len() > 1)
        .collect()
}

/// The requests of a task: the list after its colon, else its sentences.
fn requests(task: &str) -> Vec<String> {
    let body = match task.split_once(':') {
        Some((_, rest)) if rest.contains(';') => rest,
        _ => task,
    };
    body.split(';')
        .flat_map(sentences)
        .map(|s| bare(&s).trim().to_string())
        .filter(|s| !content_words(s).is_empty())
        .collect()
}

/// The one model's deliverable: a story without answers, or a proposal
/// with one offering per request.
fn write(task: &str) -> String {
    if let Some(topic) = story_topic(task) {
        let questions = story_questions(task);
        return story(&topic, &questions, &[], 450);
    }
    let reqs = requests(task);
    let offers: Vec<_> = reqs.iter().map(|r| single_offer(r)).collect();
    proposal(task, &reqs, &offers, 450, "")
}

/// act.single.standard / cot / spp.
pub fn single(step: &str, text: &str) -> String {
    let task = if step == STEP_STANDARD {
        sec(text, H_TEAM_TASK)
    } else {
        last_sec(text, H_TEAM_TASK)
    };
    let answer = write(task);
    let reqs = if story_topic(task).is_some() {
        story_questions(task)
    } else {
        requests(task)
    };
    match step {
        STEP_COT => format!(
            "Plan: 1. Find the {} requests in the task. 2. Give each one a concrete answer. 3. Tie them together into one deliverable and check every request is there.\nFinal answer: {answer}",
            reqs.len()
        ),
        STEP_SPP => {
            let personas: Vec<String> = reqs
                .iter()
                .map(|r| {
                    let k: Vec<String> = content_words(r).into_iter().take(2).collect();
                    format!("a {} specialist", k.join(" "))
                })
                .collect();
            format!(
                "Personas: {}.\nDiscussion: each persona gives its request one concrete answer; together they check that none is missing.\nFinal answer: {answer}",
                capitalise(&list(&personas))
            )
        }
        _ => answer,
    }
}

/// The requests a draft leaves out (none of their first content words
/// occurs in it).
fn missing(task: &str, draft: &str) -> Vec<String> {
    let dw = words(draft);
    let reqs = if story_topic(task).is_some() {
        story_questions(task)
    } else {
        requests(task)
    };
    reqs.into_iter()
        .filter(|r| {
            let k: Vec<String> = content_words(r).into_iter().take(3).collect();
            !k.is_empty() && overlap(&k, &dw) == 0
        })
        .collect()
}

/// act.single.feedback.
pub fn self_feedback(text: &str) -> String {
    let gaps = missing(sec(text, H_TEAM_TASK), last_sec(text, H_DRAFT));
    if gaps.is_empty() {
        "The draft covers every request; it could name more concrete options.".into()
    } else {
        format!("Missing: {}.", gaps.join("; "))
    }
}

/// act.single.refine: the draft written again when it missed requests,
/// else unchanged.
pub fn self_refine(text: &str) -> String {
    let task = sec(text, H_TEAM_TASK);
    let draft = sec(text, H_DRAFT);
    if missing(task, draft).is_empty() && !draft.is_empty() {
        draft.to_string()
    } else {
        write(task)
    }
}

/// act.plus.rescore: each stored entry scored again by how many of its
/// keywords (else its first content words) the current task holds, in the
/// step's shape (`{"scores": [{"id", "score"}]}`).
pub fn rescore(text: &str) -> String {
    let me = Me::read(text);
    let task = words(&format!("{} {}", me.current, me.subject));
    let mut scores = Vec::new();
    for line in last_sec(text, H_ENTRIES).lines() {
        let Some(rest) = line.trim().strip_prefix('[') else {
            continue;
        };
        let Some((id, rest)) = rest.split_once("] ") else {
            continue;
        };
        let rest = rest.rsplit_once(" (was ").map_or(rest, |(r, _)| r);
        let keys: Vec<String> = match rest.rsplit_once(" — keywords: ") {
            Some((_, k)) if !k.trim().is_empty() => {
                k.split(',').map(|k| k.trim().to_string()).collect()
            }
            Some((s, _)) => content_words(s).into_iter().take(4).collect(),
            None => content_words(rest).into_iter().take(4).collect(),
        };
        let hits = keys
            .iter()
            .filter(|k| overlap(&words(k), &task) > 0)
            .count();
        scores.push(json!({"id": id, "score": (2 + 2 * hits).min(10)}));
    }
    json!({ "scores": scores }).to_string()
}

/// act.tool_judge: the question's sentences are its sub-tasks; one is
/// done when the output shares at least half of its content words.
pub fn tool_judge(text: &str) -> String {
    let output = words(last_sec(text, H_OUTPUT));
    let question = sec(text, H_QUESTION);
    let subtasks: Vec<serde_json::Value> = question
        .split_inclusive(['.', '?', '!'])
        .map(str::trim)
        .filter(|s| content_words(s).len() >= 2)
        .take(8)
        .map(|s| {
            let cw = content_words(s);
            let done = 2 * overlap(&cw, &output) >= cw.len();
            serde_json::json!({"subtask": s.chars().take(200).collect::<String>(), "done": done})
        })
        .collect();
    let subtasks = if subtasks.is_empty() {
        vec![serde_json::json!({"subtask": "answer the question", "done": !output.is_empty()})]
    } else {
        subtasks
    };
    serde_json::json!({ "subtasks": subtasks }).to_string()
}

/// act.judge: an expected component is present when one of its
/// alternatives shares at least half of its content words with the output;
/// the reply is the step's shape (`{"reasoning", "score"}`).
pub fn judge(text: &str) -> String {
    let output = words(last_sec(text, H_OUTPUT));
    let mut lines = Vec::new();
    let mut found = 0;
    for (i, line) in sec(text, H_COMPONENTS)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
    {
        let body = line
            .trim()
            .split_once(". ")
            .filter(|(n, _)| n.chars().all(|c| c.is_ascii_digit()))
            .map_or(line.trim(), |(_, b)| b);
        let present = body.split(" | ").any(|alt| {
            let cw = content_words(alt);
            !cw.is_empty() && 2 * overlap(&cw, &output) >= cw.len()
        });
        if present {
            found += 1;
        }
        lines.push(format!(
            "{}. {}",
            i + 1,
            if present { "present" } else { "missing" }
        ));
    }
    serde_json::json!({"reasoning": lines.join("; "), "score": found}).to_string()
}

/// The glossary terms a single model recognises in a request (by name
/// only: it has no break time).
pub fn single_offer(request: &str) -> Offer {
    let named: Vec<String> = glossary::triggered(request, 2)
        .into_iter()
        .take(2)
        .map(|t| t.term.to_string())
        .collect();
    let with = if named.is_empty() {
        "a clear, concrete recommendation".to_string()
    } else {
        list(&named)
    };
    let content = if named.is_empty() {
        String::new()
    } else {
        format!(
            "{}, explained simply with clear options.",
            capitalise(&list(&named))
        )
    };
    (
        String::new(),
        format!("For \"{}\", I would answer with {with}.", bare(request)),
        content,
    )
}
