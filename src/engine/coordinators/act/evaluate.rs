//! The evaluation phase: the deliverable scored by the task's metric (ROUGE
//! per part against its reference solutions, recall the headline; or trivia
//! recall), its words, and optionally the LLM judge (0–4 expected
//! components; a reply with no score is a recorded parse failure, not 0).
//! Only this phase reads the references.

use super::contract::*;
use super::prompts;
use super::reading;
use super::team::Act;
use crate::engine::domains::creative::score::{self, Scores};
use crate::engine::domains::creative::ComplexTask;
use crate::engine::model::reply::Repair;
use crate::engine::run::{RunError, RunEvent};

pub async fn evaluate(
    act: &Act<'_>,
    full: &ComplexTask,
    output: &str,
) -> Result<(Scores, Option<u32>), RunError> {
    let scores = score::score(full, output, act.options.stem);
    let emit = |name: &str, value: f64, detail: serde_json::Value| {
        act.ctx.emit(RunEvent::ScoreComputed {
            name: name.into(),
            value,
            agent: None,
            detail,
        });
    };
    if let Some(r) = &scores.rouge {
        for (name, prf) in [
            ("rouge1", r.rouge1),
            ("rouge2", r.rouge2),
            ("rougeL", r.rouge_l),
        ] {
            emit(
                name,
                prf.recall,
                serde_json::json!({"precision": prf.precision, "fmeasure": prf.fmeasure, "stemmed": act.options.stem}),
            );
        }
    }
    if let Some(t) = scores.trivia_recall {
        emit("trivia_recall", t, serde_json::Value::Null);
    }
    emit("words", scores.words as f64, serde_json::Value::Null);
    let judge = if act.options.judge && !full.parts.is_empty() {
        judge(act, full, output).await?
    } else {
        None
    };
    // A tool task is judged by the share of its question's sub-tasks the
    // output completes (§4.3, App. B).
    if act.options.judge && act.options.is_tool_task() && full.parts.is_empty() {
        tool_judge(act, full, output).await?;
    }
    Ok((scores, judge))
}

/// The LLM judge: one expected component per part (its references joined
/// with " | ", any of them counts; a "|" inside a reference becomes "/").
async fn judge(act: &Act<'_>, full: &ComplexTask, output: &str) -> Result<Option<u32>, RunError> {
    act.ctx.add_agent(JUDGE, ROLE_JUDGE, "Judge");
    let components: Vec<String> = full
        .parts
        .iter()
        .map(|p| {
            p.references
                .iter()
                .map(|r| r.replace('|', "/"))
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect();
    let said = act
        .ask(
            JUDGE,
            STEP_JUDGE,
            prompts::judge(&act.prompts, output, &components)?,
        )
        .await?;
    let reply = said.text;
    let (score, repairs) = read_judge_reply(&reply, components.len() as u32);
    act.repaired(said.call, &repairs);
    let note = (!repairs.is_empty()).then(|| {
        repairs
            .iter()
            .map(|r| r.detail.clone())
            .collect::<Vec<_>>()
            .join("; ")
    });
    act.ctx.note(
        JUDGE,
        STORE_JUDGE,
        None,
        &JudgeRecord {
            score,
            reply: reply.clone(),
            note,
        },
    );
    if let Some(s) = score {
        act.ctx.emit(RunEvent::ScoreComputed {
            name: "judge_score".into(),
            value: f64::from(s),
            agent: Some(JUDGE.into()),
            detail: serde_json::json!({"max": components.len()}),
        });
    }
    Ok(score)
}

/// The completion rate of a tool task's sub-tasks: listed and checked by
/// the judge, counted here; an unreadable reply is not measured (flagged).
async fn tool_judge(act: &Act<'_>, full: &ComplexTask, output: &str) -> Result<(), RunError> {
    act.ctx.add_agent(JUDGE, ROLE_JUDGE, "Judge");
    let said = act
        .ask(
            JUDGE,
            STEP_TOOL_JUDGE,
            prompts::tool_judge(&act.prompts, &full.text, output)?,
        )
        .await?;
    let (subtasks, repairs) = read_tool_judge(&said.text);
    act.repaired(said.call, &repairs);
    let rate = (!subtasks.is_empty())
        .then(|| subtasks.iter().filter(|s| s.done).count() as f64 / subtasks.len() as f64);
    act.ctx.note(
        JUDGE,
        STORE_TOOL_JUDGE,
        None,
        &ToolJudgeRecord {
            subtasks: subtasks.clone(),
            rate,
            note: (!repairs.is_empty()).then(|| reading::details(&repairs).join("; ")),
        },
    );
    if let Some(r) = rate {
        act.ctx.emit(RunEvent::ScoreComputed {
            name: "completion_rate".into(),
            value: r,
            agent: Some(JUDGE.into()),
            detail: serde_json::json!({"subtasks": subtasks.len(), "done": subtasks.iter().filter(|s| s.done).count()}),
        });
    }
    Ok(())
}

/// The sub-tasks of a tool judge's reply; none (with a `Default` repair)
/// when it holds no readable list. A `done` that is not true or false is
/// dropped with its sub-task, flagged.
pub fn read_tool_judge(reply: &str) -> (Vec<SubtaskCheck>, Vec<Repair>) {
    let read = crate::engine::model::reply::read_value(reply)
        .and_then(|r| reading::list_under(r, "subtasks"));
    let (items, mut repairs) = match read {
        Ok(r) => match r.value {
            serde_json::Value::Array(items) => (items, r.repairs),
            _ => (
                Vec::new(),
                vec![reading::default(
                    "the judge's \"subtasks\" were not a list: not measured",
                )],
            ),
        },
        Err(why) => (
            Vec::new(),
            vec![reading::default(format!(
                "the judgement could not be read ({why}): not measured"
            ))],
        ),
    };
    let mut out = Vec::new();
    for item in items.iter().take(8) {
        let subtask = item
            .get("subtask")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .trim();
        match (
            subtask.is_empty(),
            item.get("done").and_then(|v| v.as_bool()),
        ) {
            (false, Some(done)) => out.push(SubtaskCheck {
                subtask: reading::cap_chars(subtask, 200).0,
                done,
            }),
            _ => repairs.push(reading::dropped(
                "a sub-task without its text or a true/false \"done\" was dropped",
            )),
        }
    }
    if items.len() > 8 {
        repairs.push(reading::clamped(
            "more than eight sub-tasks: the first eight kept",
        ));
    }
    if out.is_empty() && repairs.is_empty() {
        repairs.push(reading::default(
            "the judge listed no sub-task: not measured",
        ));
    }
    (out, reading::folded(repairs))
}

/// The judge's score from its reply: the JSON object its shape asks for
/// (`{"reasoning": …, "score": N}`, read by the shared reader, its repairs
/// kept), else — a run recorded before the judge had a shape, a provider
/// that ignored it — the text's "Score: N" ([`read_judge`]). Each repair
/// is flagged: a clamp or a fraction as clamped, no score as a default.
pub fn read_judge_reply(reply: &str, max: u32) -> (Option<u32>, Vec<Repair>) {
    let fits = |v: &serde_json::Value| v.get("score").is_some();
    let Ok(read) = reading::object_in(reply, &fits, "\"score\"") else {
        let (score, note) = read_judge(reply, max);
        return (score, note.into_iter().map(|n| flag(score, n)).collect());
    };
    let mut repairs = read.repairs;
    let value = match read.value.get("score") {
        Some(serde_json::Value::Number(n)) => n.as_f64(),
        Some(serde_json::Value::String(t)) => {
            let n = t.trim().parse::<f64>().ok();
            if n.is_some() {
                repairs.push(reading::shape("\"score\" was a text: read as its number"));
            }
            n
        }
        _ => None,
    };
    let (score, note) = graded(value.filter(|v| *v >= 0.0), max);
    repairs.extend(note.map(|n| flag(score, n)));
    (score, repairs)
}

/// A judge's note as a repair: clamped when a score was kept, else the
/// stated default (no score).
fn flag(score: Option<u32>, note: String) -> Repair {
    match score {
        Some(_) => reading::clamped(note),
        None => reading::default(note),
    }
}

/// The judge's score: the number after the last "score" label ("Score: 3",
/// "score 2/4", "the score is 3"), or a reply that is a number alone ("3",
/// "3/4"). Any other number in the reply is not a score ("component 4 is
/// closest"): no score is a parse failure (None, flagged), never a guess.
/// Above `max` it is clamped, a fraction is read down to a whole count,
/// each flagged.
pub fn read_judge(reply: &str, max: u32) -> (Option<u32>, Option<String>) {
    let lower = reply.to_lowercase();
    let labelled = lower
        .rfind("score")
        .and_then(|i| lower.get(i + "score".len()..))
        .and_then(number_after_label);
    let alone = || {
        let text = lower.trim().trim_end_matches('.');
        let (n, rest) = leading_number(text)?;
        let rest = rest.trim();
        let fraction_of = rest
            .strip_prefix('/')
            .is_some_and(|d| !d.trim().is_empty() && d.trim().chars().all(|c| c.is_ascii_digit()));
        (rest.is_empty() || fraction_of).then_some(n)
    };
    graded(labelled.or_else(alone), max)
}

/// A score read as a whole count of at most `max`: clamped above it, a
/// fraction read down, none a parse failure; each with its note.
fn graded(value: Option<f64>, max: u32) -> (Option<u32>, Option<String>) {
    match value {
        None => (
            None,
            Some("the reply held no score: a parse failure, not counted".into()),
        ),
        Some(v) if v > f64::from(max) => (Some(max), Some(format!("score {v} clamped to {max}"))),
        Some(v) if v.fract() != 0.0 => (
            Some(v.floor() as u32),
            Some(format!("a fractional score {v} read as {}", v.floor())),
        ),
        Some(v) => (Some(v as u32), None),
    }
}

/// The number a score label is followed by: ": 3", " 2/4", " is 3", "=3".
fn number_after_label(after: &str) -> Option<f64> {
    let text = after.trim_start_matches(|c: char| c == ':' || c == '=' || c.is_whitespace());
    let text = text.strip_prefix("is ").unwrap_or(text).trim_start();
    leading_number(text).map(|(n, _)| n)
}

/// A number at the start of `text` ("3", "2.5"; a full stop after it ends
/// a sentence) and what follows it.
fn leading_number(text: &str) -> Option<(f64, &str)> {
    let int_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    if int_end == 0 {
        return None;
    }
    let rest = &text[int_end..];
    let frac_len = rest
        .strip_prefix('.')
        .map(|f| f.find(|c: char| !c.is_ascii_digit()).unwrap_or(f.len()))
        .unwrap_or(0);
    let end = if frac_len > 0 {
        int_end + 1 + frac_len
    } else {
        int_end
    };
    let n = text[..end].parse().ok()?;
    Some((n, &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_judgement_is_read_and_what_cannot_be_read_is_not_measured() {
        let (s, r) = read_tool_judge(
            r#"{"subtasks": [{"subtask": "BMI", "done": true}, {"subtask": "routine", "done": false}]}"#,
        );
        assert_eq!(s.len(), 2);
        assert!(s[0].done && !s[1].done);
        assert!(r.is_empty(), "{r:?}");
        let (s, r) = read_tool_judge(
            r#"{"subtasks": [{"subtask": "BMI", "done": "yes"}, {"subtask": "x", "done": true}]}"#,
        );
        assert_eq!(s.len(), 1);
        assert_eq!(r.len(), 1, "{r:?}");
        let (s, r) = read_tool_judge("It did well.");
        assert!(s.is_empty());
        assert!(r
            .iter()
            .any(|x| x.kind == crate::engine::model::reply::RepairKind::Default));
        let (s, r) = read_tool_judge(r#"{"subtasks": []}"#);
        assert!(
            s.is_empty() && !r.is_empty(),
            "an empty list is not measured"
        );
    }

    #[test]
    fn the_judges_score_is_read_defensively() {
        assert_eq!(read_judge("Two are there.\nScore: 3", 4), (Some(3), None));
        let (s, note) = read_judge("5", 4);
        assert_eq!(s, Some(4));
        assert!(note.is_some());
        let (s, note) = read_judge("I cannot tell.", 4);
        assert_eq!(s, None);
        assert!(note.unwrap_or_default().contains("parse failure"));
        assert_eq!(
            read_judge("Components 1 and 2 are present: score 2/4", 4).0,
            Some(2)
        );
        assert_eq!(read_judge("The score is 3.", 4), (Some(3), None));
        assert_eq!(read_judge("3/4", 4), (Some(3), None));
    }

    #[test]
    fn a_number_that_is_not_a_score_is_never_read_as_one() {
        // No label, and the reply is not a number: "component 4" is not a
        // score of 4 (the top score); nothing is counted, and it is flagged.
        let (s, note) = read_judge(
            "None of the components are present (component 4 is closest)",
            4,
        );
        assert_eq!(s, None);
        assert!(note.unwrap_or_default().contains("parse failure"));
        // A fraction is read down to a whole count, flagged, not silently cut.
        let (s, note) = read_judge("Score: 2.5", 4);
        assert_eq!(s, Some(2));
        assert!(note.unwrap_or_default().contains("fractional score 2.5"));
    }

    #[test]
    fn the_judges_shaped_reply_is_read_and_every_repair_flagged() {
        use crate::engine::model::reply::RepairKind;
        let kinds = |r: &[Repair]| r.iter().map(|r| r.kind.clone()).collect::<Vec<_>>();
        // The shape asked for: read as it is, nothing to flag.
        let (s, r) = read_judge_reply(r#"{"reasoning": "1 and 3 are there.", "score": 2}"#, 4);
        assert_eq!((s, r), (Some(2), vec![]));
        // Above the count: clamped, flagged.
        let (s, r) = read_judge_reply(r#"{"reasoning": "all", "score": 9}"#, 4);
        assert_eq!((s, kinds(&r)), (Some(4), vec![RepairKind::Clamped]));
        // A number as text: read, flagged as a shape repair.
        let (s, r) = read_judge_reply(r#"{"reasoning": "", "score": "3"}"#, 4);
        assert_eq!((s, kinds(&r)), (Some(3), vec![RepairKind::Shape]));
        // A score that is no number, or below zero: no score, flagged.
        for bad in [
            r#"{"score": "many"}"#,
            r#"{"score": -1}"#,
            r#"{"score": null}"#,
        ] {
            let (s, r) = read_judge_reply(bad, 4);
            assert_eq!((s, kinds(&r)), (None, vec![RepairKind::Default]), "{bad}");
        }
        // No JSON: the text's "Score: N" (runs from before the shape).
        assert_eq!(
            read_judge_reply("Two are there.\nScore: 3", 4),
            (Some(3), vec![])
        );
        let (s, r) = read_judge_reply("component 4 is closest", 4);
        assert_eq!((s, kinds(&r)), (None, vec![RepairKind::Default]));
    }
}
