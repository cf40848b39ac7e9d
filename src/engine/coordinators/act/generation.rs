//! Before the first meeting: **decompose** the complex task into one task
//! per agent (given by a task set, or split by the facilitator), then
//! **generate agents**, each with up to N_k expertise keywords that never
//! change (§3.3). G₀, the draft of the team's complex task, is every
//! initial task side by side (the team meeting fuses it).

use super::contract::*;
use super::memory;
use super::prompts;
use super::reading;
use super::team::{member_id, Act, Agent};
use crate::engine::model::reply::{read_value, Read, Repair, RepairKind, Unreadable};
use crate::engine::model::shape::ReplySchema;
use crate::engine::run::RunError;
use futures::future::join_all;
use serde_json::Value;

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
    let prompt = prompts::decompose(&act.prompts, &act.task.text, l)?;
    // Held to the shape: exactly one task per member, each its subject first.
    let one_each = |s: ReplySchema| {
        s.with_items("tasks", l, l)
            .in_order_at("/properties/tasks/items", &["subject", "details"])
    };
    let mut said = act
        .ask_narrowed(FACILITATOR, STEP_DECOMPOSE, prompt.clone(), one_each)
        .await?;
    let mut read = read_tasks(&said.text);
    if let Err(why) = &read {
        act.repaired(
            said.call,
            &[Repair::new(
                RepairKind::AskedAgain,
                format!("the tasks could not be read ({why}): asked again once"),
            )],
        );
        said = act
            .ask_narrowed(
                FACILITATOR,
                STEP_DECOMPOSE,
                prompts::again(&act.prompts, &prompt)?,
                one_each,
            )
            .await?;
        read = read_tasks(&said.text);
    }
    let Read {
        value: mut tasks,
        mut repairs,
    } = read.unwrap_or_else(|why| Read {
        value: Vec::new(),
        repairs: vec![reading::default(format!(
            "the tasks could not be read ({why}): every agent takes a part of the whole task"
        ))],
    });
    if tasks.len() > l {
        repairs.push(reading::clamped(format!(
            "{} tasks cut to {l}",
            tasks.len()
        )));
        tasks.truncate(l);
    }
    if tasks.len() < l && !tasks.is_empty() {
        repairs.push(reading::default(format!(
            "fewer than {l} tasks: the rest take the whole task"
        )));
    }
    while tasks.len() < l {
        let k = tasks.len() + 1;
        tasks.push(AgentTask {
            subject: format!("Part {k} of: {}", act.task.text),
            details: Vec::new(),
        });
    }
    let repairs = reading::folded(repairs);
    act.repaired(said.call, &repairs);
    act.ctx.note(
        FACILITATOR,
        STORE_PARTS,
        None,
        &PartsRecord {
            parts: tasks.clone(),
            by: "decomposed".into(),
            note: (!repairs.is_empty()).then(|| reading::details(&repairs).join("; ")),
        },
    );
    Ok(tasks)
}

/// The longest task subject kept (words).
const TASK_WORDS: usize = 60;

/// The tasks of a decomposition reply: `{"tasks": [...]}` (or another
/// wrapping of the list), each a `{"subject", "details"}` object or a
/// text; else, from a reply that is not JSON, its lines that are not
/// preambles. Unreadable when no task has a subject.
pub fn read_tasks(reply: &str) -> Result<Read<Vec<AgentTask>>, Unreadable> {
    let mut repairs = Vec::new();
    let mut tasks = Vec::new();
    match read_value(reply) {
        Ok(read) => {
            let list = reading::list_under(read, "tasks")?;
            repairs = list.repairs;
            let Some(items) = list.value.as_array() else {
                return Err(Unreadable("the JSON's \"tasks\" is not a list".into()));
            };
            let (mut texts, mut others) = (0, 0);
            for item in items {
                match item {
                    Value::String(s) => {
                        texts += 1;
                        tasks.push(AgentTask {
                            subject: s.trim().to_string(),
                            details: Vec::new(),
                        });
                    }
                    Value::Object(o) => {
                        let (subject, _) = reading::text_of(
                            o.get("subject")
                                .or_else(|| o.get("task"))
                                .or_else(|| o.get("title")),
                        );
                        let details = match o.get("details") {
                            Some(Value::String(d)) if !d.trim().is_empty() => {
                                vec![d.trim().to_string()]
                            }
                            Some(Value::Array(a)) => a
                                .iter()
                                .filter_map(|d| d.as_str().map(|d| d.trim().to_string()))
                                .filter(|d| !d.is_empty())
                                .collect(),
                            _ => Vec::new(),
                        };
                        tasks.push(AgentTask { subject, details });
                    }
                    _ => others += 1,
                }
            }
            if texts > 0 {
                repairs.push(reading::shape(format!(
                    "{texts} task{} were texts, not objects: taken as subjects",
                    if texts == 1 { "" } else { "s" }
                )));
            }
            if others > 0 {
                repairs.push(reading::dropped(format!(
                    "{others} items of the list were neither tasks nor texts: dropped"
                )));
            }
        }
        Err(why) => {
            let lines = reading::usable_lines(reply);
            if lines.is_empty() {
                return Err(why);
            }
            repairs.push(reading::shape(format!(
                "the reply was not JSON: its {} lines were read as tasks",
                lines.len()
            )));
            tasks = lines
                .into_iter()
                .map(|subject| AgentTask {
                    subject,
                    details: Vec::new(),
                })
                .collect();
        }
    }
    let before = tasks.len();
    tasks.retain(|t| !reading::visible(&t.subject).is_empty());
    if tasks.is_empty() {
        return Err(Unreadable("the reply names no task with a subject".into()));
    }
    if tasks.len() < before {
        repairs.push(reading::dropped(format!(
            "tasks without a subject dropped: {}",
            before - tasks.len()
        )));
    }
    for t in &mut tasks {
        let (subject, cut) = memory::truncate_words(&reading::visible(&t.subject), TASK_WORDS);
        if cut {
            repairs.push(reading::clamped(format!(
                "a task was cut to {TASK_WORDS} words"
            )));
        }
        t.subject = subject;
    }
    Ok(Read {
        value: tasks,
        repairs,
    })
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
    members_expertise(act).await
}

/// Asks every member, together, for expertise keywords for its initial
/// task, and stores them.
pub async fn members_expertise(act: &Act<'_>) -> Result<(), RunError> {
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
    let said = act
        .ask(
            id,
            STEP_EXPERTISE,
            prompts::expertise(&act.prompts, name, TEAM_NAME, task, max)?,
        )
        .await?;
    let (mut keywords, mut repairs, why) = match read_expertise(&said.text, max) {
        Ok(read) => (
            read.value,
            read.repairs,
            "no keyword could be read".to_string(),
        ),
        Err(why) => (
            Vec::new(),
            Vec::new(),
            format!("the expertise could not be read ({why})"),
        ),
    };
    if keywords.is_empty() {
        let first: Vec<&str> = task.subject.split_whitespace().take(3).collect();
        keywords = vec![reading::cap_chars(&first.join(" "), memory::KEYWORD_CHARS).0];
        repairs.push(reading::default(format!(
            "{why}: the task's first words stand in"
        )));
    }
    act.repaired(said.call, &repairs);
    act.ctx.note(
        id,
        STORE_EXPERTISE,
        None,
        &ExpertiseRecord {
            agent: id.into(),
            keywords: keywords.clone(),
            flags: reading::details(&repairs),
        },
    );
    Ok(keywords)
}

/// The expertise keywords in a reply: `{"expertise": [...]}` (or another
/// wrapping of the list, or one text); from a reply that is not JSON, its
/// text split at commas, semicolons, line breaks and bullets. Each at most
/// 40 chars, at most `max` (maybe none).
pub fn read_expertise(reply: &str, max: usize) -> Result<Read<Vec<String>>, Unreadable> {
    match read_value(reply) {
        Ok(read) => {
            let list = reading::list_under(read, "expertise")?;
            let (keywords, more) = memory::keywords(Some(&list.value), max);
            let mut repairs = list.repairs;
            repairs.extend(more);
            Ok(Read {
                value: keywords,
                repairs,
            })
        }
        Err(why) => {
            let items = memory::split_keywords(reply);
            let (keywords, more) = memory::keyword_list(items, max);
            if keywords.is_empty() {
                return Err(why);
            }
            let mut repairs = vec![reading::shape(
                "the reply was not JSON: read as a list split at commas, semicolons, line breaks and bullets",
            )];
            repairs.extend(more);
            Ok(Read {
                value: keywords,
                repairs,
            })
        }
    }
}

/// G₀: every initial task, side by side.
pub fn draft_team_task(act: &Act<'_>) -> TeamTask {
    TeamTask {
        subject: act.task.text.clone(),
        detail: act.tasks_text(true),
        description: String::new(),
    }
}
