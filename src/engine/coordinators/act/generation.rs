//! Before the first meeting: **decompose** the complex task into one task
//! per agent (given by a task set, or split by the facilitator), then
//! **generate agents**, each with up to N_k expertise keywords that never
//! change (§3.3). G₀, the draft of the team's complex task, is every
//! initial task side by side (the team meeting fuses it).

use super::contract::*;
use super::prompts;
use super::team::{member_id, Act, Agent};
use crate::engine::model::reply::json_object;
use crate::engine::run::RunError;
use futures::future::join_all;

/// The agents' initial tasks.
pub async fn decompose(act: &Act<'_>) -> Result<Vec<AgentTask>, RunError> {
    let given: Vec<AgentTask> = act
        .task
        .parts
        .iter()
        .map(|p| AgentTask {
            subject: p.subject.clone(),
            details: p.details.clone(),
        })
        .collect();
    if !given.is_empty() {
        act.ctx.note(
            FACILITATOR,
            STORE_PARTS,
            None,
            &PartsRecord {
                parts: given.clone(),
                by: "task set".into(),
                note: None,
            },
        );
        return Ok(given);
    }
    let l = act.options.team_size.clamp(2, 8);
    act.ctx
        .add_agent(FACILITATOR, ROLE_FACILITATOR, "Facilitator");
    let reply = act
        .ask(
            FACILITATOR,
            STEP_DECOMPOSE,
            prompts::decompose(&act.task.text, l),
        )
        .await?;
    let (mut tasks, mut note) = match json_object::<Decomposition>(&reply) {
        Some(d) => (
            d.tasks
                .into_iter()
                .filter(|t| !t.subject.trim().is_empty())
                .collect::<Vec<_>>(),
            None,
        ),
        None => (
            reply
                .lines()
                .map(|l| l.trim().trim_start_matches(['-', '*', ' ']).trim())
                .filter(|l| !l.is_empty())
                .map(|l| AgentTask {
                    subject: l.to_string(),
                    details: Vec::new(),
                })
                .collect(),
            Some("the reply was not JSON; its lines were read as tasks".to_string()),
        ),
    };
    if tasks.len() > l {
        note = Some(format!("{} tasks cut to {l}", tasks.len()));
        tasks.truncate(l);
    }
    while tasks.len() < l {
        let k = tasks.len() + 1;
        note = Some(format!(
            "fewer than {l} tasks: the rest take the whole task"
        ));
        tasks.push(AgentTask {
            subject: format!("Part {k} of: {}", act.task.text),
            details: Vec::new(),
        });
    }
    act.ctx.note(
        FACILITATOR,
        STORE_PARTS,
        None,
        &PartsRecord {
            parts: tasks.clone(),
            by: "decomposed".into(),
            note,
        },
    );
    Ok(tasks)
}

/// Adds a member per task; their expertise comes concurrently.
pub async fn generate_agents(act: &Act<'_>, tasks: Vec<AgentTask>) -> Result<(), RunError> {
    {
        let mut members = act.members.borrow_mut();
        for (i, t) in tasks.into_iter().enumerate() {
            let (id, name) = member_id(i);
            act.ctx.add_agent(&id, ROLE_MEMBER, &name);
            members.push(Agent::new(&id, &name, t));
        }
    }
    for i in 0..act.member_count() {
        act.note_task(i, "initial", Vec::new());
    }
    let ids: Vec<(String, String, AgentTask)> = act
        .members
        .borrow()
        .iter()
        .map(|a| (a.id.clone(), a.name.clone(), a.initial.clone()))
        .collect();
    let replies = join_all(
        ids.iter()
            .map(|(id, name, task)| expertise(act, id, name, task)),
    )
    .await;
    for (i, r) in replies.into_iter().enumerate() {
        act.members.borrow_mut()[i].store.expertise = r?;
    }
    Ok(())
}

/// Asks for an agent's expertise keywords (members and experts alike);
/// at most N_k, recorded with what the repair did.
pub async fn expertise(
    act: &Act<'_>,
    id: &str,
    name: &str,
    task: &AgentTask,
) -> Result<Vec<String>, RunError> {
    let max = act.limits().keywords;
    let reply = act
        .ask(
            id,
            STEP_EXPERTISE,
            prompts::expertise(name, "the team", task, max),
        )
        .await?;
    let value = json_object::<serde_json::Value>(&reply);
    let (mut keywords, mut flags) =
        super::memory::keywords(value.as_ref().and_then(|v| v.get("expertise")), max);
    flags.retain(|f| !f.starts_with("only"));
    if value.is_none() {
        let (k, _) = super::memory::keywords(Some(&serde_json::Value::String(reply.clone())), max);
        keywords = k;
        flags.push("the reply was not JSON; read as a comma-separated list".into());
    }
    if keywords.is_empty() {
        keywords = task
            .subject
            .split_whitespace()
            .take(3)
            .map(str::to_string)
            .collect::<Vec<_>>();
        keywords = vec![keywords.join(" ")];
        flags.push("no keyword could be read: the task's first words stand in".into());
    }
    act.ctx.note(
        id,
        STORE_EXPERTISE,
        None,
        &ExpertiseRecord {
            agent: id.into(),
            keywords: keywords.clone(),
            flags,
        },
    );
    Ok(keywords)
}

/// G₀: every initial task, side by side.
pub fn draft_team_task(act: &Act<'_>) -> TeamTask {
    TeamTask {
        subject: act.task.text.clone(),
        detail: act.tasks_text(true),
        description: String::new(),
    }
}
