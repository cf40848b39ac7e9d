//! CommonGen-Hard's composite metric (the paper scores grammar, fluency,
//! relevance, logical consistency and concept coverage). Roundtable's
//! reading:
//!
//! - **Concept coverage** is computed (`commongen::coverage`, on the
//!   answer's final sentences only), in [0, 1].
//! - The other four are judged by the run's model as the `judge` agent,
//!   one request per criterion with its own rubric, at temperature 0; the
//!   reply is read like the evaluator's (`read::rating`: 0–10 → [0, 1]),
//!   asked again once when it cannot be read.
//! - The **composite** is the mean of the five parts. A criterion whose
//!   rating could not be read even when asked again is left out of the
//!   mean (never an invented score) and named in the record; the reply is
//!   flagged (`Default`).
//!
//! The judge sees the concepts and the final text, never the workflow.

use super::contract::*;
use super::read;
use super::steps::ask_again;
use crate::engine::domains::tasks::{commongen, Gold, Task};
use crate::engine::model::reply::{Repair, RepairKind};
use crate::engine::model::{ChatRequest, Message};
use crate::engine::prompts::{vars, Prompts};
use crate::engine::run::{RunCtx, RunError};
use futures::future::join_all;
use serde::{Deserialize, Serialize};

/// The judged criteria: (name, what a 10 means, what a 0 means).
pub const CRITERIA: [(&str, &str, &str); 4] = [
    (
        "grammar",
        "every sentence is grammatical: agreement, tense, articles and punctuation are right",
        "most sentences are broken",
    ),
    (
        "fluency",
        "it reads naturally, as a fluent writer would put it, with no awkward or repeated wording",
        "it is a list of words or hard to read",
    ),
    (
        "relevance",
        "every sentence is about a scene that the given concepts belong to; nothing is padding",
        "the text is off the point of the concepts",
    ),
    (
        "logic",
        "the events and descriptions are consistent with each other and with common sense",
        "it contradicts itself or describes impossible things",
    ),
];

/// The parts and the composite of one answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    /// Concept coverage, computed.
    pub coverage: f64,
    /// Each judged criterion in [0, 1]; None when its rating was not read.
    pub judged: Vec<(String, Option<f64>)>,
    /// The mean of coverage and the criteria read.
    pub composite: f64,
}

impl Quality {
    /// Every part by name (coverage first), the ones read.
    pub fn parts(&self) -> Vec<(String, f64)> {
        std::iter::once(("coverage".to_string(), self.coverage))
            .chain(
                self.judged
                    .iter()
                    .filter_map(|(n, v)| v.map(|v| (n.clone(), v))),
            )
            .collect()
    }
}

/// The composite of the parts read.
pub fn composite(coverage: f64, judged: &[(String, Option<f64>)]) -> f64 {
    let read: Vec<f64> = judged.iter().filter_map(|(_, v)| *v).collect();
    (coverage + read.iter().sum::<f64>()) / (1 + read.len()) as f64
}

/// The request for one criterion (the template `mael.quality.user`).
pub fn quality_prompt(
    p: &Prompts,
    criterion: (&str, &str, &str),
    concepts: &[String],
    text: &str,
) -> Result<String, RunError> {
    let (name, high, low) = criterion;
    Ok(p.render(
        "mael.quality.user",
        vars! { criterion => name, high, low, concepts => concepts.join(", "), text => text.trim() },
    )?)
}

const RATING_JSON: &str = "{\"score\": <0-10>, \"reason\": \"one sentence\"}";

/// Judges `answer` on a CommonGen task; None for other tasks.
pub async fn judge(
    ctx: &RunCtx,
    p: &Prompts,
    task: &Task,
    answer: &str,
) -> Result<Option<Quality>, RunError> {
    let Gold::Concepts(concepts) = &task.gold else {
        return Ok(None);
    };
    let coverage = commongen::coverage(concepts, answer);
    let text = commongen::final_sentences(concepts, answer);
    let system = p.render("mael.quality.system", vars! {})?;
    let mut asks = Vec::new();
    for &c in &CRITERIA {
        let mut req = ChatRequest::new(vec![
            Message::system(system.clone()),
            Message::user(quality_prompt(p, c, concepts, &text)?),
        ])
        .with_step(STEP_QUALITY)
        .with_schema(super::read::rating_schema(STEP_QUALITY));
        req.params.temperature = Some(0.0);
        asks.push(async move { rate((ctx, p), req).await.map(|r| (c.0.to_string(), r)) });
    }
    let judged: Vec<(String, Option<f64>)> =
        join_all(asks).await.into_iter().collect::<Result<_, _>>()?;
    let quality = Quality {
        coverage,
        composite: composite(coverage, &judged),
        judged,
    };
    ctx.note(JUDGE, STORE_QUALITY, None, &quality);
    Ok(Some(quality))
}

/// One criterion's rating, or None when neither reply could be read.
async fn rate((ctx, p): (&RunCtx, &Prompts), req: ChatRequest) -> Result<Option<f64>, RunError> {
    let (call, response) = ctx.chat(JUDGE, req.clone()).await?;
    let why = match read::rating(&response.text) {
        Ok(r) => {
            ctx.repaired(call, &r.repairs);
            return Ok(Some(r.value.0));
        }
        Err(why) => why,
    };
    let (call, reply) = ask_again((ctx, p), JUDGE, &req, call, &why, RATING_JSON).await?;
    match read::rating(&reply) {
        Ok(r) => {
            ctx.repaired(call, &r.repairs);
            Ok(Some(r.value.0))
        }
        Err(again) => {
            ctx.repaired(
                call,
                &[Repair::new(
                    RepairKind::Default,
                    format!("the rating could not be read, even when asked again ({again}): the criterion is left out of the composite"),
                )],
            );
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_composite_is_the_mean_of_the_parts_read() {
        let j = |v: [Option<f64>; 4]| -> Vec<(String, Option<f64>)> {
            CRITERIA
                .iter()
                .zip(v)
                .map(|(c, v)| (c.0.to_string(), v))
                .collect()
        };
        assert!((composite(0.5, &j([Some(1.0); 4])) - 0.9).abs() < 1e-12);
        // An unread criterion is left out, not scored 0 or 0.5.
        let some = j([Some(1.0), None, Some(0.0), Some(0.5)]);
        assert!((composite(1.0, &some) - 2.5 / 4.0).abs() < 1e-12);
        assert_eq!(composite(0.25, &j([None; 4])), 0.25);
        let q = Quality {
            coverage: 1.0,
            composite: composite(1.0, &some),
            judged: some,
        };
        let names: Vec<String> = q.parts().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["coverage", "grammar", "relevance", "logic"]);
    }
}
