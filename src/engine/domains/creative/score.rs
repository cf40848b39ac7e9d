//! Scoring a team's output against a complex task: ROUGE as the paper
//! does it (per part the best over its reference solutions, averaged over
//! parts; reference = target, output = prediction) and trivia recall.

use super::{trivia, ComplexTask, Metric};
use crate::engine::domains::rouge;
use serde::{Deserialize, Serialize};

/// Precision, recall and F of one ROUGE type, averaged over parts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Prf {
    pub precision: f64,
    pub recall: f64,
    pub fmeasure: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TeamRouge {
    pub rouge1: Prf,
    pub rouge2: Prf,
    #[serde(rename = "rougeL")]
    pub rouge_l: Prf,
}

/// Per part, for each ROUGE type, the reference with the highest recall
/// (its precision and F come with it); then the mean over parts.
pub fn team_rouge(task: &ComplexTask, output: &str, stem: bool) -> TeamRouge {
    let mut sum = TeamRouge::default();
    let parts: Vec<_> = task
        .parts
        .iter()
        .filter(|p| !p.references.is_empty())
        .collect();
    if parts.is_empty() {
        return sum;
    }
    let prediction = rouge::Prediction::new(output, stem);
    for part in &parts {
        let scores: Vec<rouge::Scores> = part
            .references
            .iter()
            .map(|r| prediction.score(r))
            .collect();
        let best = |get: fn(&rouge::Scores) -> rouge::Score| {
            scores
                .iter()
                .map(get)
                .fold(None::<rouge::Score>, |acc, s| match acc {
                    Some(a) if a.recall >= s.recall => Some(a),
                    _ => Some(s),
                })
                .unwrap_or(rouge::Score {
                    precision: 0.0,
                    recall: 0.0,
                    fmeasure: 0.0,
                })
        };
        add(&mut sum.rouge1, best(|s| s.rouge1));
        add(&mut sum.rouge2, best(|s| s.rouge2));
        add(&mut sum.rouge_l, best(|s| s.rouge_l));
    }
    let n = parts.len() as f64;
    for p in [&mut sum.rouge1, &mut sum.rouge2, &mut sum.rouge_l] {
        p.precision /= n;
        p.recall /= n;
        p.fmeasure /= n;
    }
    sum
}

fn add(acc: &mut Prf, s: rouge::Score) {
    acc.precision += s.precision;
    acc.recall += s.recall;
    acc.fmeasure += s.fmeasure;
}

/// The headline figures of an output, by the task's metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rouge: Option<TeamRouge>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trivia_recall: Option<f64>,
    pub words: usize,
}

pub fn score(task: &ComplexTask, output: &str, stem: bool) -> Scores {
    Scores {
        rouge: (task.metric() == Metric::Rouge).then(|| team_rouge(task, output, stem)),
        trivia_recall: (task.metric() == Metric::TriviaRecall)
            .then(|| trivia::recall(task, output)),
        words: super::word_count(output),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::domains::creative::{CreativeSet, Part};

    fn task(parts: Vec<Vec<&str>>) -> ComplexTask {
        ComplexTask {
            set: CreativeSet::Builtin,
            id: "t".into(),
            text: "t".into(),
            deliverable: "proposal".into(),
            word_limit: None,
            parts: parts
                .into_iter()
                .map(|refs| Part {
                    subject: "s".into(),
                    details: vec![],
                    references: refs.into_iter().map(String::from).collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn each_part_takes_its_best_reference_and_parts_are_averaged() {
        let t = task(vec![
            vec!["green tea bar", "oolong flight"],
            vec!["quiet nook"],
        ]);
        let out = "An oolong flight and a green tea bar.";
        let r = team_rouge(&t, out, false);
        // Part 1: both references fully recalled → 1; part 2: none → 0.
        assert!((r.rouge1.recall - 0.5).abs() < 1e-12, "{r:?}");
        let only_one = task(vec![vec!["green tea bar", "quiet nook"]]);
        assert!((team_rouge(&only_one, out, false).rouge1.recall - 1.0).abs() < 1e-12);
        let s = score(&t, out, false);
        assert_eq!(s.words, 8);
        assert!(s.trivia_recall.is_none() && s.rouge.is_some());
        assert_eq!(team_rouge(&task(vec![]), out, false), TeamRouge::default());
    }
}
