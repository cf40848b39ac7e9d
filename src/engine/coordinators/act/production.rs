//! The production meeting (§3.6): every member gives its opinion with its
//! knowledge (h(K, T_{i,j}, T_{i,0}, G)); with tools, each may plan up to
//! three tool sub-tasks on different tools; the leader drafts the
//! deliverable and checks it (the word limit in code, the rest by the
//! leader); when the check finds issues, every member reasserts its opinion
//! with them and the leader drafts again, until the check passes or the
//! round cap is reached (then the last draft is final, not accepted): 3
//! rounds by default, 10 for a tool task (`ActOptions::production_rounds`).

use super::contract::*;
use super::prompts::{self, Prompt, Speaker};
use super::reading;
use super::team::{Act, Meeting};
use super::tools;
use crate::engine::domains::creative::word_count;
use crate::engine::model::reply::{says_no_problem, Read};
use crate::engine::run::{Audience, RunError};
use futures::future::join_all;
use serde_json::Value;

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
    let cap = act.options.production_rounds() as u32;
    let mut opinions = members_say(act, STEP_PROD_OPINION, |_, s| {
        prompts::production_opinion(&act.prompts, s, &team_task, &deliverable)
    })
    .await?;
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
                    &act.prompts,
                    &s,
                    &act.task,
                    (&team_task, &act.tasks_text(true)),
                    &act.transcript(&meeting),
                    previous.as_ref().map(|(d, i)| (d.as_str(), i.as_str())),
                )?,
                Audience::Public,
            )
            .await?
            .text;
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
        // Tools again (§3.6: steps 2–4 repeat), when the set has any.
        opinions = members_say(act, STEP_REASSERT, |i, s| {
            prompts::reassert(&act.prompts, s, &team_task, &before[i], (&draft, &issues))
        })
        .await?;
        previous = Some((draft, issues));
    }
    Ok(last)
}

/// Every member speaks at `step` (its prompt built from its index and
/// speaker), publicly and together, then uses tools on what it said.
async fn members_say(
    act: &Act<'_>,
    step: &str,
    prompt: impl Fn(usize, &Speaker) -> Result<Prompt, RunError>,
) -> Result<Vec<String>, RunError> {
    join_all((0..act.member_count()).map(|i| {
        let s = act.speaker(i, step);
        let id = act.member_id(i);
        let prompt = prompt(i, &s);
        async move {
            let opinion = act.say(&id, step, prompt?, Audience::Public).await?;
            tools::use_tools(act, i, &opinion.text).await
        }
    }))
    .await
    .into_iter()
    .collect()
}

/// The leader's check of a draft: the word limit is counted here (a draft
/// over it is never accepted, whatever the leader says); coverage,
/// contribution and clarity are the leader's call.
async fn check(act: &Act<'_>, round: u32, draft: &str, team_task: &str) -> Result<Check, RunError> {
    let leader = act.leader.get();
    let leader_id = act.leader_id();
    let s = act.speaker(leader, STEP_CHECK);
    let said = act
        .say(
            &leader_id,
            STEP_CHECK,
            prompts::check(&act.prompts, &s, team_task, &act.tasks_text(true), draft)?,
            Audience::Public,
        )
        .await?;
    let Read {
        value: mut check,
        repairs,
    } = read_check(&said.text);
    act.repaired(said.call, &repairs);
    let note = (!repairs.is_empty()).then(|| reading::details(&repairs).join("; "));
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

/// The longest issue kept (chars).
const ISSUE_CHARS: usize = 300;

/// The leader's check in a reply: `{"ok": bool, "issues": [...]}`, also
/// wrapped or as the first item of a list; "ok" as a text ("true", "yes")
/// and one text of issues are mapped. A check without a readable "ok",
/// or a reply that cannot be read, does not pass (a stated default), the
/// reply's text as the issue when there is no list.
pub fn read_check(reply: &str) -> Read<Check> {
    let fits = |v: &Value| v.get("ok").is_some() || v.get("issues").is_some();
    let read = match reading::object_in(reply, &fits, "\"ok\"") {
        Ok(r) => r,
        Err(why) => {
            let (issue, _) = reading::cap_chars(reply.trim(), ISSUE_CHARS);
            return Read {
                value: Check {
                    ok: false,
                    issues: vec![issue],
                },
                repairs: vec![reading::default(format!(
                    "the check could not be read ({why}): taken as not passed, the reply as the issue"
                ))],
            };
        }
    };
    let mut repairs = read.repairs;
    let v = &read.value;
    let ok = match v.get("ok") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(t)) => match t.trim().to_lowercase().as_str() {
            "true" | "yes" | "pass" | "passed" => {
                repairs.push(reading::shape("\"ok\" was a text: read as true"));
                true
            }
            "false" | "no" | "fail" | "failed" => {
                repairs.push(reading::shape("\"ok\" was a text: read as false"));
                false
            }
            _ => {
                repairs.push(reading::default(
                    "\"ok\" could not be read: taken as not passed",
                ));
                false
            }
        },
        _ => {
            repairs.push(reading::default(
                "the check had no readable \"ok\": taken as not passed",
            ));
            false
        }
    };
    let mut issues = Vec::new();
    match v.get("issues") {
        Some(Value::Array(a)) => {
            for i in a {
                let text = match i {
                    Value::String(t) => t.trim().to_string(),
                    Value::Null => continue,
                    other => other.to_string(),
                };
                let (text, cut) = reading::cap_chars(&text, ISSUE_CHARS);
                if cut {
                    repairs.push(reading::clamped(format!(
                        "an issue was cut to {ISSUE_CHARS} characters"
                    )));
                }
                if !text.is_empty() {
                    issues.push(text);
                }
            }
        }
        Some(Value::String(t)) if !t.trim().is_empty() => {
            repairs.push(reading::shape(
                "the issues were one text: read as one issue",
            ));
            issues.push(reading::cap_chars(t.trim(), ISSUE_CHARS).0);
        }
        _ => {}
    }
    // "Passed" with issues listed says two things: the issues win (the
    // check exists to catch them), flagged. "None" and the like are no issue.
    issues.retain(|i| !says_no_problem(i));
    let ok = if ok && !issues.is_empty() {
        repairs.push(reading::shape(format!(
            "the check passed the draft but listed {}: taken as not passed, the issues kept",
            crate::engine::base::words::count(issues.len(), "issue")
        )));
        false
    } else {
        ok
    };
    Read {
        value: Check { ok, issues },
        repairs: reading::folded(repairs),
    }
}

#[cfg(test)]
mod tests {
    use super::read_check;

    #[test]
    fn a_check_that_passes_with_issues_listed_is_not_passed_and_is_flagged() {
        let r = read_check(r#"{"ok": true, "issues": ["Agent C missing"]}"#);
        assert!(!r.value.ok, "the issue is not dropped in silence");
        assert_eq!(r.value.issues, vec!["Agent C missing".to_string()]);
        assert_eq!(r.repairs.len(), 1);
        assert!(
            r.repairs[0]
                .detail
                .contains("passed the draft but listed 1 issue"),
            "{:?}",
            r.repairs
        );
        // "None" is no issue: a pass, nothing flagged.
        let r = read_check(r#"{"ok": true, "issues": ["None."]}"#);
        assert!(r.value.ok && r.value.issues.is_empty() && r.repairs.is_empty());
        let r = read_check(r#"{"ok": true, "issues": []}"#);
        assert!(r.value.ok && r.repairs.is_empty());
    }
}
