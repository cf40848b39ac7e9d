//! Break time D₂ (§3.5), per member and concurrently: the member reflects
//! on the team meeting and picks knowledge to deepen; it **generates an
//! expert** for it (the expert's initial task is that knowledge, its
//! expertise comes from the same step as the members'); it asks, the
//! expert answers, and it follows up until it has no further question or
//! the cap of question / answer pairs is reached. The expert sees only its
//! own task, its expertise and the 1:1 conversation. Then the member
//! explores its task and acquires knowledge from the conversation (the
//! expert is the source). Experts leave when break time ends.

use super::contract::*;
use super::generation;
use super::prompts;
use super::team::{Act, Agent, Meeting};
use super::update;
use crate::engine::model::reply::json_object;
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
    let (reply, s) = act
        .ask_member(i, STEP_REFLECT, |s| {
            prompts::reflect(s, &act.team_task_text(), transcript)
        })
        .await?;
    let (reflection, mut flags) = read_reflection(&reply);
    let reflection = match reflection {
        Some(r) => r,
        None => {
            let deepen = s
                .expertise
                .first()
                .cloned()
                .unwrap_or_else(|| s.current.subject.clone());
            flags.push(format!(
                "no knowledge to deepen could be read: \"{deepen}\" (its expertise) was taken"
            ));
            Reflection {
                reflection: reply.trim().to_string(),
                questions: vec![format!("What should I know about {deepen} for my task?")],
                deepen,
            }
        }
    };
    // One line, no commas (speaker lists are comma-separated), ≤ 60 chars.
    let deepen: String = reflection
        .deepen
        .replace([',', '\n', ';'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(60)
        .collect();
    if reflection.deepen.chars().count() > 60 || reflection.deepen.contains([',', '\n', ';']) {
        flags.push("the knowledge to deepen was shortened to one line of 60 characters".into());
    }
    let deepen = if deepen.is_empty() {
        s.current.subject.chars().take(60).collect()
    } else {
        deepen
    };
    let mut questions: Vec<String> = reflection
        .questions
        .iter()
        .map(|q| q.trim().to_string())
        .filter(|q| !q.is_empty())
        .collect();
    if questions.is_empty() {
        questions.push(format!("What should I know about {deepen} for my task?"));
    }
    // The expert: its initial task is the knowledge to deepen.
    // Named after its member and the team's task number, so that an ACT+
    // bank's knowledge from earlier experts keeps its own source.
    let expert_id = format!("{member}.x{}", act.trial.get());
    let expert_name = format!("Expert on {deepen}");
    let expert_task = AgentTask {
        subject: deepen.clone(),
        details: questions.clone(),
    };
    act.ctx.add_agent(&expert_id, ROLE_EXPERT, &expert_name);
    act.experts
        .borrow_mut()
        .push(Agent::new(&expert_id, &expert_name, expert_task.clone()));
    let expertise = generation::expertise(act, &expert_id, &expert_name, &expert_task).await?;
    act.ctx
        .handoff(&member, &expert_id, &format!("break time: {deepen}"));

    let to = Audience::To(vec![member.clone(), expert_id.clone()]);
    let mut meeting = Meeting {
        index: MEETING_BREAK,
        lines: Vec::new(),
    };
    let cap = act.limits().break_pairs.max(1);
    let mut question = questions[0].clone();
    let mut pairs = 0;
    let mut ended = "cap";
    loop {
        act.ctx.post(&member, to.clone(), &question, None);
        meeting.lines.push((member.clone(), question.clone()));
        let conversation = act.transcript(&meeting);
        let answer = act
            .say(
                &expert_id,
                STEP_ANSWER,
                prompts::answer(&expert_name, &expertise, &expert_task, &conversation),
                to.clone(),
            )
            .await?;
        meeting.lines.push((expert_id.clone(), answer));
        pairs += 1;
        if pairs >= cap {
            break;
        }
        let (reply, _) = act
            .ask_member(i, STEP_FOLLOWUP, |s| {
                prompts::followup(s, &deepen, &act.transcript(&meeting))
            })
            .await?;
        match next_question(&reply) {
            Some(q) => question = q,
            None => {
                ended = "no further questions";
                break;
            }
        }
    }
    act.ctx.note(
        &member,
        STORE_BREAK,
        Some(&expert_id),
        &BreakRecord {
            member: member.clone(),
            expert: expert_id.clone(),
            deepen,
            pairs,
            ended: ended.into(),
            flags,
        },
    );
    act.ctx.handoff(&expert_id, &member, "break time is over");
    update::after_meeting(act, &meeting, &[i], "after_break_time").await
}

/// The reflection in a reply: `deepen` (text) and `questions` (a list, or
/// one string); None without a topic to deepen.
pub fn read_reflection(reply: &str) -> (Option<Reflection>, Vec<String>) {
    let mut flags = Vec::new();
    let Some(v) = json_object::<Value>(reply) else {
        return (None, vec!["the reflection was not JSON".into()]);
    };
    let deepen = v
        .get("deepen")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    if deepen.is_empty() {
        return (None, flags);
    }
    let questions = match v.get("questions") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|q| q.as_str().map(str::to_string))
            .collect(),
        Some(Value::String(q)) => {
            flags.push("the questions were one text: read as one question".into());
            vec![q.clone()]
        }
        _ => Vec::new(),
    };
    let reflection = v
        .get("reflection")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    (
        Some(Reflection {
            reflection,
            deepen,
            questions,
        }),
        flags,
    )
}

/// The follow-up's question, or None when the member has none.
pub fn next_question(reply: &str) -> Option<String> {
    if let Some(v) = json_object::<Value>(reply) {
        if v.get("done").and_then(Value::as_bool) == Some(true) {
            return None;
        }
        return v
            .get("question")
            .and_then(Value::as_str)
            .map(|q| q.trim().to_string())
            .filter(|q| !q.is_empty());
    }
    let lower = reply.to_lowercase();
    if lower.contains("no further question")
        || lower.contains("no more question")
        || reply.trim().is_empty()
    {
        return None;
    }
    Some(reply.trim().to_string())
}
