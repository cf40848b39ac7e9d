//! The evaluation phase: the deliverable scored by the task's metric (ROUGE
//! per part against its reference solutions, recall the headline; or trivia
//! recall), its words, and optionally the LLM judge (0–4 expected
//! components; a reply with no score is a recorded parse failure, not 0).
//! Only this phase reads the references.

use super::contract::*;
use super::prompts;
use super::team::Act;
use crate::engine::domains::creative::score::{self, Scores};
use crate::engine::domains::creative::ComplexTask;
use crate::engine::model::reply::{Repair, RepairKind};
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
        .ask(JUDGE, STEP_JUDGE, prompts::judge(output, &components))
        .await?;
    let reply = said.text;
    let (score, note) = read_judge(&reply, components.len() as u32);
    if let Some(n) = &note {
        let kind = if score.is_some() {
            RepairKind::Clamped
        } else {
            RepairKind::Default
        };
        act.repaired(said.call, &[Repair::new(kind, n.clone())]);
    }
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

/// The judge's score: the number after the last "Score:", else the last
/// integer of the reply; above `max` it is clamped (flagged); none is a
/// parse failure (None), never 0.
pub fn read_judge(reply: &str, max: u32) -> (Option<u32>, Option<String>) {
    let lower = reply.to_lowercase();
    let tail = lower
        .rfind("score")
        .and_then(|i| lower.get(i..))
        .unwrap_or(lower.as_str());
    let number = |text: &str, last: bool| -> Option<u64> {
        let nums: Vec<u64> = text
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .filter_map(|s| s.parse().ok())
            .collect();
        if last {
            nums.last().copied()
        } else {
            nums.first().copied()
        }
    };
    let n = number(tail, false).or_else(|| number(&lower, true));
    match n {
        None => (
            None,
            Some("the reply held no score: a parse failure, not counted".into()),
        ),
        Some(v) if v > u64::from(max) => (Some(max), Some(format!("score {v} clamped to {max}"))),
        Some(v) => (Some(v as u32), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
