//! Break time D₂ (§3.5), per member and concurrently: the member reflects
//! on the team meeting, picks knowledge to deepen and formulates the set
//! of questions it lacks answers to (at most the cap); it **generates an
//! expert** for it (the expert's initial task is that knowledge, its
//! expertise comes from the same step as the members'); it asks its
//! questions in order, the expert answering each, and then, after each
//! answer, asks a further, deeper question (`{"question": …}`) or says it
//! is done (`{"done": true}`), told how many questions the cap still
//! allows, until it is done or the cap of question / answer pairs is
//! reached. Every turn is posted to the
//! pair and kept in the 1:1's transcript. The expert sees only its
//! own task, its expertise and the 1:1 conversation. Then the member
//! explores its task and acquires knowledge from the conversation (the
//! expert is the source). Experts leave when break time ends.

use super::contract::*;
use super::generation;
use super::prompts;
use super::prompts::Speaker;
use super::reading;
use super::team::{Act, Agent, Meeting};
use super::update;
use crate::engine::model::reply::{read_value, Read, Repair, RepairKind, Unreadable};
use crate::engine::run::{Audience, RunError};
use futures::future::join_all;
use serde_json::Value;

pub async fn break_time(act: &Act<'_>, team_meeting: &Meeting) -> Result<(), RunError> {
    let transcript = act.transcript(team_meeting);
    let n = act.member_count();
    let work = (0..n).map(|i| one_to_one(act, i, &transcript));
    join_all(work).await.into_iter().collect()
}

async fn one_to_one(act: &Act<'_>, i: usize, transcript: &str) -> Result<(), RunError> {
    let member = act.member_id(i);
    let plan = reflect(act, i, transcript).await?;
    let expert = BreakExpert::join(act, &member, &plan).await?;
    let talk = converse(act, i, &member, &expert, &plan).await?;
    act.ctx.note(
        &member,
        STORE_BREAK,
        Some(&expert.id),
        &BreakRecord {
            member: member.clone(),
            expert: expert.id.clone(),
            deepen: plan.deepen,
            pairs: talk.pairs,
            planned: talk.planned,
            ended: talk.ended.into(),
            flags: plan.flags,
        },
    );
    act.ctx.handoff(&expert.id, &member, "break time is over");
    update::after_meeting(act, &talk.meeting, &[i], "after_break_time").await
}

/// What a member takes into its 1:1: the knowledge to deepen, its
/// questions (asked in order, at most the cap), and what reading them took.
struct BreakPlan {
    deepen: String,
    questions: Vec<String>,
    flags: Vec<String>,
}

/// The member's reflection on the team meeting, read into its plan for
/// the 1:1 (defaults stated and flagged where the reply falls short).
async fn reflect(act: &Act<'_>, i: usize, transcript: &str) -> Result<BreakPlan, RunError> {
    let cap = act.limits().break_pairs.max(1);
    let (said, s) = act
        .ask_member(i, STEP_REFLECT, |s| {
            prompts::reflect(&act.prompts, s, &act.team_task_text(), transcript, cap)
        })
        .await?;
    let (reflection, mut repairs) = reflection_or_expertise(&said.text, &s);
    let deepen = one_line_deepen(&reflection.deepen, &s.current.subject, &mut repairs);
    let questions = questions_to_ask(&reflection.questions, &deepen, cap, &mut repairs);
    let repairs = reading::folded(repairs);
    act.repaired(said.call, &repairs);
    let flags = reading::details(&repairs);
    Ok(BreakPlan {
        deepen,
        questions,
        flags,
    })
}

/// The reflection in the reply; when none can be read, the reply's text
/// with the member's first expertise (or its subject) to deepen, flagged.
fn reflection_or_expertise(reply: &str, s: &Speaker) -> (Reflection, Vec<Repair>) {
    match read_reflection(reply) {
        Ok(read) => (read.value, read.repairs),
        Err(why) => {
            let deepen = s
                .expertise
                .first()
                .cloned()
                .unwrap_or_else(|| s.current.subject.clone());
            (
                Reflection {
                    reflection: reading::cap_chars(reply.trim(), QUESTION_CHARS).0,
                    questions: Vec::new(),
                    deepen: deepen.clone(),
                },
                vec![reading::default(format!(
                    "no knowledge to deepen could be read ({why}): \"{deepen}\" (its expertise) was taken"
                ))],
            )
        }
    }
}

/// The knowledge to deepen as one line, no commas (speaker lists are
/// comma-separated), ≤ 60 chars; the member's subject when it is empty.
fn one_line_deepen(deepen: &str, subject: &str, repairs: &mut Vec<Repair>) -> String {
    let one_line = reading::visible(deepen)
        .replace([',', '\n', ';'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let (capped, cut) = reading::cap_chars(&one_line, DEEPEN_CHARS);
    if cut || deepen.contains([',', '\n', ';']) {
        repairs.push(reading::clamped(format!(
            "the knowledge to deepen was shortened to one line of {DEEPEN_CHARS} characters"
        )));
    }
    if capped.is_empty() {
        reading::cap_chars(subject, DEEPEN_CHARS).0
    } else {
        capped
    }
}

/// The reflection's questions, cut in length, the first `cap` of them
/// (more are flagged); one about `deepen` when it asked none (flagged
/// unless a default was already stated).
fn questions_to_ask(
    asked: &[String],
    deepen: &str,
    cap: usize,
    repairs: &mut Vec<Repair>,
) -> Vec<String> {
    let mut questions: Vec<String> = Vec::new();
    for q in asked {
        let (q, cut) = reading::cap_chars(&reading::visible(q), QUESTION_CHARS);
        if cut {
            repairs.push(reading::clamped(format!(
                "a question was cut to {QUESTION_CHARS} characters"
            )));
        }
        if !q.is_empty() {
            questions.push(q);
        }
    }
    if questions.len() > cap {
        repairs.push(reading::clamped(format!(
            "the reflection planned {} questions: the first {cap}, as many as a 1:1 allows, are asked",
            questions.len()
        )));
        questions.truncate(cap);
    }
    if questions.is_empty() {
        let q = format!("What should I know about {deepen} for my task?");
        if !repairs.iter().any(|r| r.kind == RepairKind::Default) {
            repairs.push(reading::default(format!(
                "the reflection asked no question: \"{q}\" was asked"
            )));
        }
        questions.push(q);
    }
    questions
}

/// The expert a member consults: its initial task is the knowledge to
/// deepen.
struct BreakExpert {
    id: String,
    name: String,
    task: AgentTask,
    expertise: Vec<String>,
}

impl BreakExpert {
    /// Adds the expert to the run and the act, generates its expertise and
    /// hands the member over to it. Named after its member and the team's
    /// task number, so that an ACT+ bank's knowledge from earlier experts
    /// keeps its own source.
    async fn join(act: &Act<'_>, member: &str, plan: &BreakPlan) -> Result<Self, RunError> {
        let deepen = &plan.deepen;
        let id = format!("{member}.x{}", act.trial.get());
        let name = format!("Expert on {deepen}");
        let task = AgentTask {
            subject: deepen.clone(),
            details: plan.questions.clone(),
        };
        act.ctx.add_agent(&id, ROLE_EXPERT, &name);
        act.experts
            .borrow_mut()
            .push(Agent::new(&id, &name, task.clone()));
        let expertise = generation::expertise(act, &id, &name, &task).await?;
        act.ctx
            .handoff(member, &id, &format!("break time: {deepen}"));
        Ok(BreakExpert {
            id,
            name,
            task,
            expertise,
        })
    }
}

/// A 1:1 as it went: what was said, the question / answer pairs (how
/// many of them the planned questions), and why it ended.
struct BreakTalk {
    meeting: Meeting,
    pairs: usize,
    planned: usize,
    ended: &'static str,
}

/// The 1:1: the member asks its planned questions in order, the expert
/// answering each; then it asks follow-ups until it is done or the cap of
/// pairs is reached.
async fn converse(
    act: &Act<'_>,
    i: usize,
    member: &str,
    expert: &BreakExpert,
    plan: &BreakPlan,
) -> Result<BreakTalk, RunError> {
    let to = Audience::To(vec![member.to_string(), expert.id.clone()]);
    let mut meeting = Meeting {
        index: MEETING_BREAK,
        lines: Vec::new(),
    };
    let cap = act.limits().break_pairs.max(1);
    // The plan holds one question at least, at most the cap.
    let mut planned = plan.questions.iter().take(cap).cloned();
    let Some(mut question) = planned.next() else {
        return Ok(BreakTalk {
            meeting,
            pairs: 0,
            planned: 0,
            ended: "no question could be read",
        });
    };
    let mut asked_planned = 1;
    let mut pairs = 0;
    let mut ended = "cap";
    loop {
        act.ctx.post(member, to.clone(), &question, None);
        meeting.lines.push((member.to_string(), question.clone()));
        let conversation = act.transcript(&meeting);
        let answer = act
            .say(
                &expert.id,
                STEP_ANSWER,
                prompts::answer(
                    &act.prompts,
                    &expert.name,
                    &expert.expertise,
                    &expert.task,
                    &conversation,
                )?,
                to.clone(),
            )
            .await?;
        meeting.lines.push((expert.id.clone(), answer.text));
        pairs += 1;
        if pairs >= cap {
            break;
        }
        if let Some(q) = planned.next() {
            question = q;
            asked_planned += 1;
            continue;
        }
        let (said, _) = act
            .ask_member(i, STEP_FOLLOWUP, |s| {
                prompts::followup(
                    &act.prompts,
                    s,
                    &plan.deepen,
                    &act.transcript(&meeting),
                    cap - pairs,
                )
            })
            .await?;
        let (next, repairs) = next_question(&said.text);
        act.repaired(said.call, &repairs);
        match next {
            Some(q) => question = q,
            None => {
                ended = if repairs.iter().any(|r| r.kind == RepairKind::Default) {
                    "no question could be read"
                } else {
                    "no further questions"
                };
                break;
            }
        }
    }
    Ok(BreakTalk {
        meeting,
        pairs,
        planned: asked_planned,
        ended,
    })
}

/// The longest knowledge to deepen kept (chars): one line, also the
/// expert's name.
const DEEPEN_CHARS: usize = 60;
/// The longest question kept (chars).
const QUESTION_CHARS: usize = 600;

/// The reflection in a reply: `deepen` (text) and `questions` (a list, or
/// one text), also wrapped or as the first item of a list. Unreadable
/// without a topic to deepen.
pub fn read_reflection(reply: &str) -> Result<Read<Reflection>, Unreadable> {
    let fits = |v: &Value| {
        v.get("deepen")
            .and_then(Value::as_str)
            .is_some_and(|d| !d.trim().is_empty())
    };
    let read = reading::object_in(reply, &fits, "\"deepen\" topic")?;
    let v = &read.value;
    let mut repairs = read.repairs.clone();
    let deepen = v
        .get("deepen")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    let questions = match v.get("questions").or_else(|| v.get("question")) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|q| q.as_str().map(str::to_string))
            .collect(),
        Some(Value::String(q)) => {
            repairs.push(reading::shape(
                "the questions were one text: read as one question",
            ));
            vec![q.clone()]
        }
        _ => Vec::new(),
    };
    let (reflection, _) = reading::text_of(v.get("reflection"));
    Ok(Read {
        value: Reflection {
            reflection,
            deepen,
            questions,
        },
        repairs,
    })
}

/// Whether a follow-up's text says the member has no more questions.
fn says_done(text: &str) -> bool {
    let lower = text.to_lowercase();
    let t = lower.trim().trim_end_matches(['.', '!']).trim();
    matches!(t, "none" | "n/a" | "no" | "nothing" | "done")
        || [
            "no further question",
            "no more question",
            "no other question",
            "no questions",
            "nothing further",
            "nothing else to ask",
        ]
        .iter()
        .any(|p| lower.contains(p))
}

/// The follow-up's question, or None when the member has none, with what
/// reading it took. `{"done": true}` ends the 1:1; `{"question": "…"}`
/// goes on. A reply with neither ends it too, flagged (a stated
/// default); a reply that is not JSON is read as its text (a question, or
/// "no further questions"), flagged.
pub fn next_question(reply: &str) -> (Option<String>, Vec<Repair>) {
    let fits = |v: &Value| v.get("question").is_some() || v.get("done").is_some();
    let question = |q: &str, mut repairs: Vec<Repair>| -> (Option<String>, Vec<Repair>) {
        let (q, cut) = reading::cap_chars(&reading::visible(q), QUESTION_CHARS);
        if cut {
            repairs.push(reading::clamped(format!(
                "the question was cut to {QUESTION_CHARS} characters"
            )));
        }
        (Some(q), repairs)
    };
    match read_value(reply) {
        Ok(read) => {
            let read = match reading::object_that(read, &fits, "\"question\" or \"done\"") {
                Ok(r) => r,
                Err(why) => {
                    return (
                        None,
                        vec![reading::default(format!(
                            "ended the 1:1 because the follow-up could not be read ({why})"
                        ))],
                    )
                }
            };
            let mut repairs = read.repairs;
            let v = &read.value;
            let done = match v.get("done") {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s))
                    if matches!(s.trim().to_lowercase().as_str(), "true" | "yes") =>
                {
                    repairs.push(reading::shape("\"done\" was a text: read as true"));
                    true
                }
                _ => false,
            };
            let asked = v
                .get("question")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|q| !q.is_empty());
            match (done, asked) {
                (true, _) => (None, repairs),
                // "No further questions." in the question's place is done.
                (false, Some(q)) if says_done(q) => {
                    repairs.push(reading::shape(
                        "the question said there were none: read as done",
                    ));
                    (None, repairs)
                }
                (false, Some(q)) => question(q, repairs),
                (false, None) => {
                    repairs.push(reading::default(
                        "ended the 1:1 because the follow-up had no question and did not say it was done",
                    ));
                    (None, repairs)
                }
            }
        }
        Err(why) => {
            if says_done(reply) {
                return (
                    None,
                    vec![reading::shape(
                        "the follow-up was not JSON: read as no further questions",
                    )],
                );
            }
            let text = reading::usable_lines(reply).join(" ");
            if text.is_empty() {
                return (
                    None,
                    vec![reading::default(format!(
                        "ended the 1:1 because the follow-up could not be read ({why}; nothing but a preamble)"
                    ))],
                );
            }
            question(
                &text,
                vec![reading::shape(
                    "the follow-up was not JSON: its text was taken as the question",
                )],
            )
        }
    }
}
