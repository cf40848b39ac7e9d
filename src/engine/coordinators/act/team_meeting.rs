//! The team meeting D₁ (§3.4.1): every member gives its opinion on how its
//! task contributes (concurrently; each sees only G₀ and its own task and
//! knowledge), then its advice after hearing all opinions (concurrently),
//! then the leader **fuses** the tasks into the team's complex task G.

use super::contract::*;
use super::prompts;
use super::team::{Act, Meeting};
use crate::engine::model::reply::json_object;
use crate::engine::run::{Audience, RunError};
use futures::future::join_all;

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
                prompts::team_opinion(&s, &draft),
                Audience::Public,
            )
            .await
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
                prompts::team_advice(&s, &draft, &opinions_text),
                Audience::Public,
            )
            .await
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
/// and details, the opinions, the advice and its own knowledge.
pub async fn fuse(act: &Act<'_>, opinions: &str, advice: &str) -> Result<TeamTask, RunError> {
    let leader = act.leader.get();
    let s = act.speaker(leader, STEP_FUSE);
    let id = act.member_id(leader);
    let reply = act
        .say(
            &id,
            STEP_FUSE,
            prompts::fuse(&s, &act.tasks_text(false), opinions, advice),
            Audience::Public,
        )
        .await?;
    let (g, flags) = read_team_task(&reply);
    let (g, flags) = if g.subject.is_empty() {
        let mut f = flags;
        f.push("no team task could be read: G₀ is kept".into());
        (act.team_task.borrow().clone(), f)
    } else {
        (g, flags)
    };
    *act.team_task.borrow_mut() = g.clone();
    act.ctx.note(
        &id,
        STORE_COMPLEX_TASK,
        Some("fused"),
        &ComplexTaskRecord {
            stage: "fused".into(),
            task: g.clone(),
            flags,
        },
    );
    Ok(g)
}

/// G in a fusion reply: its fields as text (a list is joined), else the
/// reply's first line that is not markup as the subject and the rest as
/// the description; flags say what was repaired.
pub fn read_team_task(reply: &str) -> (TeamTask, Vec<String>) {
    let text = |v: Option<&serde_json::Value>| -> String {
        match v {
            Some(serde_json::Value::String(s)) => s.trim().to_string(),
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .filter_map(|x| x.as_str().map(str::trim))
                .collect::<Vec<_>>()
                .join("; "),
            _ => String::new(),
        }
    };
    if let Some(v) = json_object::<serde_json::Value>(reply) {
        let g = TeamTask {
            subject: text(v.get("subject")),
            detail: text(v.get("detail")),
            description: text(v.get("description")),
        };
        let flags = if v.get("detail").is_some_and(|d| d.is_array()) {
            vec!["the detail was a list: joined".to_string()]
        } else {
            Vec::new()
        };
        if !g.subject.is_empty() {
            return (g, flags);
        }
    }
    let mut lines = reply.lines().map(str::trim).filter(|l| {
        !l.is_empty() && !l.starts_with('{') && !l.starts_with('}') && !l.starts_with("```")
    });
    let subject = lines.next().unwrap_or_default().to_string();
    let g = TeamTask {
        subject,
        detail: String::new(),
        description: lines.collect::<Vec<_>>().join("\n"),
    };
    (
        g,
        vec!["the fusion was not JSON with a subject: its first line was taken".into()],
    )
}
