//! The team meeting D₁ (§3.4.1): every member gives its opinion on how its
//! task contributes (concurrently; each sees only G₀ and its own task and
//! knowledge), then its advice after hearing all opinions (concurrently),
//! then the leader **fuses** the tasks into the team's complex task G.

use super::contract::*;
use super::memory;
use super::prompts;
use super::reading;
use super::team::{Act, Meeting};
use crate::engine::model::reply::{read_value, Read, Unreadable};
use crate::engine::run::{Audience, RunError};
use futures::future::join_all;
use serde_json::Value;

pub async fn team_meeting(act: &Act<'_>) -> Result<Meeting, RunError> {
    let mut meeting = Meeting {
        index: MEETING_TEAM,
        lines: Vec::new(),
    };
    let n = act.member_count();
    let draft = act.team_task_text();
    let opinions = join_all((0..n).map(|i| {
        let s = act.speaker(i, STEP_TEAM_OPINION);
        let id = act.member_id(i);
        let draft = draft.clone();
        async move {
            act.say(
                &id,
                STEP_TEAM_OPINION,
                prompts::team_opinion(&act.prompts, &s, &draft)?,
                Audience::Public,
            )
            .await
            .map(|said| said.text)
        }
    }))
    .await;
    for (i, o) in opinions.into_iter().enumerate() {
        meeting.lines.push((act.member_id(i), o?));
    }
    let opinions_text = act.transcript(&meeting);
    let advice = join_all((0..n).map(|i| {
        let s = act.speaker(i, STEP_TEAM_ADVICE);
        let id = act.member_id(i);
        let opinions_text = opinions_text.clone();
        let draft = draft.clone();
        async move {
            act.say(
                &id,
                STEP_TEAM_ADVICE,
                prompts::team_advice(&act.prompts, &s, &draft, &opinions_text)?,
                Audience::Public,
            )
            .await
            .map(|said| said.text)
        }
    }))
    .await;
    let mut advice_lines = Vec::new();
    for (i, a) in advice.into_iter().enumerate() {
        let a = a?;
        advice_lines.push((act.member_id(i), a.clone()));
        meeting.lines.push((act.member_id(i), a));
    }
    let advice_text = act.transcript(&Meeting {
        index: MEETING_TEAM,
        lines: advice_lines,
    });
    let g = fuse(act, &opinions_text, &advice_text).await?;
    meeting.lines.push((act.leader_id(), g.text()));
    Ok(meeting)
}

/// G = fuse(T₁; …; T_L): the leader's request holds every member's subject
/// and details, the opinions, the advice and its own knowledge; G's
/// subject is every member's subject with what connects them.
pub async fn fuse(act: &Act<'_>, opinions: &str, advice: &str) -> Result<TeamTask, RunError> {
    let leader = act.leader.get();
    let s = act.speaker(leader, STEP_FUSE);
    let id = act.member_id(leader);
    let said = act
        .say(
            &id,
            STEP_FUSE,
            prompts::fuse(&act.prompts, &s, &act.tasks(false), opinions, advice)?,
            Audience::Public,
        )
        .await?;
    let (g, mut repairs) = match read_team_task(&said.text) {
        Ok(read) => (read.value, read.repairs),
        Err(why) => (
            act.team_task.borrow().clone(),
            vec![reading::default(format!(
                "no team task could be read ({why}): G₀ is kept"
            ))],
        ),
    };
    repairs = reading::folded(repairs);
    act.repaired(said.call, &repairs);
    *act.team_task.borrow_mut() = g.clone();
    act.ctx.note(
        &id,
        STORE_COMPLEX_TASK,
        Some("fused"),
        &ComplexTaskRecord {
            stage: "fused".into(),
            task: g.clone(),
            flags: reading::details(&repairs),
        },
    );
    Ok(g)
}

/// The longest subject of G kept (words: every member's subject, with what
/// connects them), and of its detail and description.
pub const G_SUBJECT_WORDS: usize = 150;
const G_TEXT_WORDS: usize = 400;

/// G in a fusion reply: `{"subject", "detail", "description"}` (or another
/// wrapping of it), its fields as text (a list is joined); from a reply
/// that is not JSON, its first line that is not a preamble as the subject
/// and the rest as the description. Unreadable without a subject.
pub fn read_team_task(reply: &str) -> Result<Read<TeamTask>, Unreadable> {
    let fits = |v: &Value| {
        v.get("subject")
            .is_some_and(|s| !reading::text_of(Some(s)).0.is_empty())
    };
    let (mut g, mut repairs) = match read_value(reply) {
        Ok(read) => {
            let read = reading::object_that(read, &fits, "\"subject\"")?;
            let v = &read.value;
            let (subject, _) = reading::text_of(v.get("subject"));
            let (detail, d_list) = reading::text_of(v.get("detail"));
            let (description, s_list) = reading::text_of(v.get("description"));
            let mut repairs = read.repairs.clone();
            if d_list || s_list || v.get("subject").is_some_and(Value::is_array) {
                repairs.push(reading::shape("a field was a list: joined"));
            }
            (
                TeamTask {
                    subject,
                    detail,
                    description,
                },
                repairs,
            )
        }
        Err(why) => {
            let mut lines = reading::usable_lines(reply).into_iter();
            let Some(subject) = lines.next() else {
                return Err(why);
            };
            (
                TeamTask {
                    subject,
                    detail: String::new(),
                    description: lines.collect::<Vec<_>>().join("\n"),
                },
                vec![reading::shape(
                    "the fusion was not JSON: its first line that is not a preamble was taken as the subject",
                )],
            )
        }
    };
    for (field, text, max) in [
        ("subject", &mut g.subject, G_SUBJECT_WORDS),
        ("detail", &mut g.detail, G_TEXT_WORDS),
        ("description", &mut g.description, G_TEXT_WORDS),
    ] {
        if text.chars().any(|c| c != '\n' && reading::hidden(c)) {
            *text = text
                .lines()
                .map(reading::visible)
                .collect::<Vec<_>>()
                .join("\n");
        }
        let (cut, was_cut) = memory::truncate_words(text, max);
        if was_cut {
            *text = cut;
            repairs.push(reading::clamped(format!(
                "the {field} was cut to {max} words"
            )));
        }
    }
    Ok(Read { value: g, repairs })
}
