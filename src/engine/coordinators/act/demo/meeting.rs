//! The demo team before its first meeting and in it: the facilitator's
//! split, expertise, and the team meeting (opinion, advice, the leader's
//! fusion).

use super::glossary;
use super::request::*;
use super::text::*;
use super::Me;
use crate::engine::coordinators::act::contract::*;
use crate::engine::coordinators::act::memory::truncate_words;
use crate::engine::coordinators::act::team_meeting::G_SUBJECT_WORDS;
use serde_json::{json, Value};

/// What a part can be about when the task has fewer clauses than agents.
const ASPECTS: [&str; 6] = [
    "who the regulars are and what the community needs",
    "the space, its lighting and its seating",
    "what is on offer and the quality of the menu",
    "the budget and how it runs day to day",
    "how people hear about it",
    "how it is checked and improved",
];

/// act.decompose: the task's clauses (merged or split to the count asked
/// for), topped up with aspects of the task; never fewer than asked.
pub fn decompose(text: &str) -> String {
    let task = last_sec(text, H_TEAM_TASK);
    let n = number_after(instruction(text), "exactly ")
        .unwrap_or(4)
        .clamp(1, 12);
    let mut parts = clauses(task, n);
    while parts.len() > n {
        // Merge the adjacent pair that is shortest together.
        let i = (0..parts.len() - 1)
            .min_by_key(|&i| word_count(&parts[i]) + word_count(&parts[i + 1]))
            .unwrap_or(0);
        let next = parts.remove(i + 1);
        parts[i] = format!("{} and {}", parts[i], decapitalise(&next));
    }
    let topic: Vec<String> = content_words(task).into_iter().take(3).collect();
    let topic = if topic.is_empty() {
        "the task".to_string()
    } else {
        list(&topic)
    };
    let mut k = 0;
    while parts.len() < n {
        let round = if k >= ASPECTS.len() {
            format!(" (round {})", k / ASPECTS.len() + 1)
        } else {
            String::new()
        };
        parts.push(format!(
            "Work out {} for {topic}{round}",
            ASPECTS[k % ASPECTS.len()]
        ));
        k += 1;
    }
    let detail = format!("It serves the whole task: {}.", bare(&clip(task, 30)));
    let tasks: Vec<Value> = parts
        .iter()
        .map(|p| json!({"subject": capitalise(bare(p)), "details": [detail]}))
        .collect();
    json!({ "tasks": tasks }).to_string()
}

/// The clauses of a task: the list after a colon, else its sentences,
/// split further at commas and "and" while there are fewer than `n`.
fn clauses(task: &str, n: usize) -> Vec<String> {
    let body = match task.split_once(':') {
        Some((_, rest)) if rest.contains(';') => rest,
        _ => task,
    };
    let mut parts: Vec<String> = body
        .split(';')
        .flat_map(sentences)
        .map(|s| bare(&s).trim().to_string())
        .filter(|s| !content_words(s).is_empty())
        .collect();
    while parts.len() < n {
        let split = parts.iter().enumerate().find_map(|(i, p)| {
            [", ", " and ", " that also ", " which ", " while ", " with "]
                .iter()
                .find_map(|sep| {
                    let (a, b) = p.split_once(sep)?;
                    (content_words(a).len() >= 2 && content_words(b).len() >= 2)
                        .then(|| (i, a.trim().to_string(), capitalise(b.trim())))
                })
        });
        match split {
            Some((i, a, b)) => {
                parts[i] = a;
                parts.insert(i + 1, b);
            }
            None => break,
        }
    }
    parts
}

/// act.expertise: up to the number asked of the task's own words, terms
/// it names first.
pub fn expertise(text: &str) -> String {
    let task = last_sec(text, H_INITIAL);
    let max = number_after(instruction(text), "List up to ").unwrap_or(4);
    let mut out: Vec<String> = glossary::named_in(task)
        .iter()
        .map(|t| t.term.to_string())
        .collect();
    let subject = first_line(task);
    let rest: String = task.lines().skip(1).collect::<Vec<_>>().join(" ");
    for w in content_words(subject)
        .into_iter()
        .chain(content_words(&rest))
    {
        if !out.iter().any(|k| words(k).contains(&w)) {
            out.push(w);
        }
    }
    out.truncate(max);
    json!({ "expertise": out }).to_string()
}

/// The glossary terms a member recognises by name: those its own task's
/// words call for strongly.
pub fn recognised(me: &Me) -> Vec<String> {
    glossary::triggered(&format!("{} {}", me.subject, me.details.join(" ")), 2)
        .into_iter()
        .take(2)
        .map(|t| t.term.to_string())
        .collect()
}

/// act.team.opinion: the agent's task, what it builds on, its constraint,
/// and its best note.
pub fn team_opinion(text: &str) -> String {
    let me = Me::read(text);
    let mut s = vec![format!("My task is: {}.", bare(me.base_subject()))];
    let mut around = recognised(&me);
    if around.is_empty() {
        around = me.keywords().into_iter().take(2).collect();
    }
    if !around.is_empty() {
        s.push(format!("I would build my part around {}.", list(&around)));
    }
    if let Some(d) = me.details.first() {
        s.push(format!("It has to respect this: {}.", bare(d)));
    }
    if let Some(e) = me.entries.first() {
        s.push(format!("From my notes: {}", first_sentence(&e.summary)));
    }
    s.join(" ")
}

/// What an opinion is about: the first content words of its first sentence.
fn focus(opinion: &str) -> String {
    let first = first_sentence(opinion);
    let first = first.strip_prefix("My task is:").unwrap_or(&first);
    first_two(content_words(first))
}

/// act.team.advice: one schedule for every part, named by who brings it.
pub fn advice(text: &str) -> String {
    let me = Me::read(text);
    let ops = utterances(last_sec(text, H_OPINIONS), std::slice::from_ref(&me.name));
    let mine = first_two(me.keywords());
    let others: Vec<String> = ops
        .iter()
        .filter(|(n, _)| !n.is_empty() && *n != me.name)
        .take(3)
        .map(|(n, t)| format!("{n}'s {}", focus(t)))
        .collect();
    let mut s = vec![format!(
        "To keep the service feasible, one space, one team and one schedule should carry every part: my {mine} next to {}.",
        if others.is_empty() { "the others".to_string() } else { list(&others) }
    )];
    s.push("Anything that needs separate premises or extra staff should be shared or cut.".into());
    if let Some(e) = me.entries.first() {
        s.push(format!(
            "My notes suggest building on this: {}",
            first_sentence(&e.summary)
        ));
    }
    s.join(" ")
}

/// The most frequent content words of some texts (ties: first seen).
pub fn top_words(texts: &[String], n: usize) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for t in texts {
        let mut seen: Vec<String> = Vec::new();
        for w in content_words(t) {
            let plural =
                w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us");
            let w = if plural {
                w[..w.len() - 1].to_string()
            } else {
                w
            };
            if seen.contains(&w) {
                continue;
            }
            seen.push(w.clone());
            match counts.iter_mut().find(|(x, _)| *x == w) {
                Some(c) => c.1 += 1,
                None => counts.push((w, 1)),
            }
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts.into_iter().take(n).map(|(w, _)| w).collect()
}

/// The trivia topic, when the members' details name one ("Topic: …").
pub fn trivia_topic(tasks: &[(String, String, Vec<String>)]) -> Option<String> {
    tasks
        .iter()
        .flat_map(|t| t.2.iter())
        .find_map(|d| d.strip_prefix("Topic: ").map(|t| bare(t).to_string()))
}

/// act.team.fuse: every member's request as part of one service (or one
/// story), with what connects them.
pub fn fuse(text: &str) -> String {
    // The tasks come last, just before the instruction; the advice before them.
    let tasks = task_list(last_sec(text, H_TASKS));
    let advice = utterances(sec(text, H_ADVICE), &[]);
    if let Some(topic) = trivia_topic(&tasks) {
        return json!({
            "subject": format!("One short, coherent story about {topic} that works in the answers to all {} trivia questions", tasks.len()),
            "detail": tasks.iter().map(|t| t.1.clone()).collect::<Vec<_>>().join(" "),
            "description": "Each member brings one answer; the story gives every answer a natural place in its plot.",
        })
        .to_string();
    }
    let subjects: Vec<String> = tasks.iter().map(|t| t.1.clone()).collect();
    let top = top_words(&subjects, 1)
        .pop()
        .unwrap_or_else(|| "shared".into());
    let phrases: Vec<String> = subjects
        .iter()
        .map(|s| decapitalise(bare(s)))
        .filter(|p| !p.is_empty())
        .collect();
    let details: Vec<String> = tasks.iter().filter_map(|t| t.2.first().cloned()).collect();
    let link = advice
        .first()
        .map(|(_, a)| format!(" {}", first_sentence(a)))
        .unwrap_or_default();
    // Within the words the reader keeps (four long requests pass them): a
    // longer subject would be cut, and flagged as repaired.
    let subject = format!(
        "One {top} service that answers {} requests in one place: {}",
        phrases.len(),
        phrases.join("; ")
    );
    json!({
        "subject": match truncate_words(&subject, G_SUBJECT_WORDS) {
            (cut, true) => cut,
            (_, false) => subject,
        },
        "detail": details.join(" "),
        "description": format!("Every request becomes one offering of the same service, sharing one space, one team and one schedule.{link}"),
    })
    .to_string()
}
