//! The production meeting (§3.6): every member gives its opinion with its
//! knowledge (h(K, T_{i,j}, T_{i,0}, G)); with tools, each may plan up to
//! three tool sub-tasks on different tools; the leader drafts the
//! deliverable and checks it (the word limit in code, the rest by the
//! leader); when the check finds issues, every member reasserts its opinion
//! with them and the leader drafts again, until the check passes or the
//! round cap is reached (then the last draft is final, not accepted).

use super::contract::*;
use super::prompts;
use super::team::{Act, Meeting};
use super::tools;
use crate::engine::domains::creative::word_count;
use crate::engine::model::reply::json_object;
use crate::engine::run::{Audience, RunError};
use futures::future::join_all;

/// The deliverable, whether it was accepted, and the rounds run.
pub struct Production {
    pub output: String,
    pub accepted: bool,
    pub rounds: u32,
}

pub async fn production_meeting(act: &Act<'_>) -> Result<Production, RunError> {
    let n = act.member_count();
    let leader = act.leader.get();
    let leader_id = act.leader_id();
    let team_task = act.team_task_text();
    let deliverable = act.task.deliverable.clone();
    let cap = act.limits().production_rounds.max(1) as u32;
    let mut opinions: Vec<String> = join_all((0..n).map(|i| {
        let s = act.speaker(i, STEP_PROD_OPINION);
        let id = act.member_id(i);
        let prompt = prompts::production_opinion(&s, &team_task, &deliverable);
        async move {
            let opinion = act
                .say(&id, STEP_PROD_OPINION, prompt, Audience::Public)
                .await?;
            tools::use_tools(act, i, &opinion).await
        }
    }))
    .await
    .into_iter()
    .collect::<Result<_, _>>()?;
    let mut previous: Option<(String, String)> = None;
    let mut last = Production {
        output: String::new(),
        accepted: false,
        rounds: 0,
    };
    for round in 1..=cap {
        let meeting = Meeting {
            index: MEETING_PRODUCTION + round - 1,
            lines: (0..n)
                .map(|i| (act.member_id(i), opinions[i].clone()))
                .collect(),
        };
        let s = act.speaker(leader, STEP_DRAFT);
        let draft = act
            .say(
                &leader_id,
                STEP_DRAFT,
                prompts::draft(
                    &s,
                    &act.task,
                    &team_task,
                    &act.tasks_text(true),
                    &act.transcript(&meeting),
                    previous.as_ref().map(|(d, i)| (d.as_str(), i.as_str())),
                ),
                Audience::Public,
            )
            .await?;
        let words = word_count(&draft);
        act.ctx.note(
            &leader_id,
            STORE_DRAFT,
            Some(&round.to_string()),
            &DraftRecord {
                round,
                text: draft.clone(),
                words,
            },
        );
        let check = check(act, round, &draft, &team_task).await?;
        last = Production {
            output: draft.clone(),
            accepted: check.ok,
            rounds: round,
        };
        if check.ok || round == cap {
            break;
        }
        let issues = check
            .issues
            .iter()
            .map(|i| format!("- {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let before = opinions.clone();
        opinions = join_all((0..n).map(|i| {
            let s = act.speaker(i, STEP_REASSERT);
            let id = act.member_id(i);
            let prompt = prompts::reassert(&s, &team_task, &before[i], &draft, &issues);
            async move {
                let opinion = act
                    .say(&id, STEP_REASSERT, prompt, Audience::Public)
                    .await?;
                // Tools again (§3.6: steps 2–4 repeat), when the set has any.
                tools::use_tools(act, i, &opinion).await
            }
        }))
        .await
        .into_iter()
        .collect::<Result<_, _>>()?;
        previous = Some((draft, issues));
    }
    Ok(last)
}

/// The leader's check of a draft: the word limit is counted here (a draft
/// over it is never accepted, whatever the leader says); coverage,
/// contribution and clarity are the leader's call.
async fn check(act: &Act<'_>, round: u32, draft: &str, team_task: &str) -> Result<Check, RunError> {
    let leader = act.leader.get();
    let leader_id = act.leader_id();
    let s = act.speaker(leader, STEP_CHECK);
    let reply = act
        .say(
            &leader_id,
            STEP_CHECK,
            prompts::check(&s, team_task, &act.tasks_text(true), draft),
            Audience::Public,
        )
        .await?;
    let (mut check, note) = match json_object::<Check>(&reply) {
        Some(c) => (c, None),
        None => (
            Check {
                ok: false,
                issues: vec![reply.trim().chars().take(300).collect()],
            },
            Some("the check was not JSON: read as not passed, the reply as the issue".to_string()),
        ),
    };
    if check.ok {
        check.issues.clear();
    } else if check.issues.is_empty() {
        check
            .issues
            .push("The leader did not pass the draft.".into());
    }
    let words = word_count(draft);
    let over = act.task.word_limit.is_some_and(|w| words > w as usize);
    if over {
        check.ok = false;
        check.issues.push(format!(
            "The draft has {words} words; the limit is {}.",
            act.task.word_limit.unwrap_or_default()
        ));
    }
    act.ctx.note(
        &leader_id,
        STORE_CHECK,
        Some(&round.to_string()),
        &CheckRecord {
            round,
            ok: check.ok,
            issues: check.issues.clone(),
            over_limit: over,
            note,
        },
    );
    Ok(check)
}
