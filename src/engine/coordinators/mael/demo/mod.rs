//! The demo model's MAEL team: it plays every role (judge, decompose,
//! solve, critique, aggregate, evaluate) from its request only, scripted,
//! on the built-in shopping problems, and never sees a gold answer.
//!
//! It is a careless solver on purpose: pricing a line with a deal, it
//! overlooks the deal (a systematic slip) unless the request tells it
//! better: the critic's feedback on an earlier attempt, or a retrieved
//! worked example of the same kind of deal that applied it and was
//! rewarded. Its critic notices the slip only now and then (on a third of
//! the lines, by a fixed rule on the line's text), so without experience
//! some answers stay wrong; with a pool that holds good examples, the
//! solver gets them right the first time. That is the paper's effect,
//! produced by the mechanism a user can inspect, not by the score.
//!
//! On CommonGen-Hard it writes a sentence with the first half of the
//! concepts; its critic lists the missing ones. On a software task (SRDD)
//! it writes a small real program (`software`). On other sets it says it
//! cannot solve the task.

mod shopping;
mod software;

use super::contract::*;
use crate::engine::domains::tasks::builtin::{parse_items, Deal, Item};
use crate::engine::domains::tasks::gsm8k::format_number;
use crate::engine::model::demo::Reply;
use crate::engine::model::ChatRequest;
use shopping::{line_solution, number_in, same_kind, Pricing};

/// The answer for a MAEL step, or None when the step is not MAEL's.
pub fn answer(req: &ChatRequest) -> Option<Reply> {
    let step = req.step.as_deref()?;
    let text = req.last_user().unwrap_or_default();
    let task = section(text, TASK_HEADING).unwrap_or_default();
    if let Some(reply) = software_step(step, text, task) {
        return Some(Reply::text(reply));
    }
    let reply = match step {
        STEP_JUDGE => judge(task),
        STEP_DECOMPOSE => decompose(task, &neighbours(text)),
        STEP_SOLVE => solve(text, task),
        STEP_CRITIQUE => critique(text, task),
        STEP_AGGREGATE => aggregate(text),
        STEP_EVALUATE => evaluate(text, task),
        STEP_QUALITY => quality(text),
        _ => return None,
    };
    Some(Reply::text(reply))
}

/// A step on a software task, when the task is one.
fn software_step(step: &str, text: &str, task: &str) -> Option<String> {
    software::software_of(task)?;
    match step {
        STEP_JUDGE => Some(software::judge(task)),
        STEP_DECOMPOSE => software::decompose(task, &neighbours(text)),
        STEP_SOLVE => software::solve(text, task),
        STEP_CRITIQUE => software::critique(text, task),
        STEP_AGGREGATE => software::aggregate(text, task),
        STEP_EVALUATE => software::evaluate(text, task),
        _ => None,
    }
}

/// The concepts of a CommonGen task, when it is one.
fn concepts(task: &str) -> Option<Vec<String>> {
    let (_, list) = task.split_once("these concepts:")?;
    Some(
        list.trim()
            .trim_end_matches('.')
            .split(',')
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty())
            .collect(),
    )
}

fn judge(task: &str) -> String {
    let items = parse_items(task);
    let (solvable, reason) = if items.len() > 1 {
        (
            false,
            format!(
                "The order has {} lines; each can be priced on its own.",
                items.len()
            ),
        )
    } else if concepts(task).is_some_and(|c| c.len() > 12) {
        (
            false,
            "Many concepts: two halves can be written separately.".to_string(),
        )
    } else {
        (true, "It is a single, small piece of work.".to_string())
    };
    serde_json::json!({"solvable": solvable, "reason": reason}).to_string()
}

/// The ids of the neighbours a decomposition request lists (`- a2: Name`).
fn neighbours(text: &str) -> Vec<String> {
    section(text, NEIGHBOURS_HEADING)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- ")?.split_once(':'))
        .map(|(id, _)| id.trim().to_string())
        .collect()
}

/// A CommonGen-Hard criterion, judged by simple rules on the request's
/// text: grammar by whether sentences start and end as sentences do,
/// relevance by the share of the concepts used, fluency and logic by
/// fixed middling marks (the demo cannot read for sense).
fn quality(text: &str) -> String {
    let criterion = text
        .lines()
        .find_map(|l| l.strip_prefix(QUALITY_HEADING))
        .unwrap_or_default()
        .trim();
    let body = section(text, TEXT_HEADING).unwrap_or_default().trim();
    let concepts: Vec<String> = section(text, CONCEPTS_HEADING)
        .unwrap_or_default()
        .split(',')
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect();
    let score = match criterion {
        "grammar" => {
            let capital = body.chars().next().is_some_and(char::is_uppercase);
            6 + 2 * u32::from(capital) + 2 * u32::from(body.ends_with('.'))
        }
        "relevance" => {
            let c = crate::engine::domains::tasks::commongen::coverage(&concepts, body);
            (c * 10.0).round() as u32
        }
        _ => 7,
    };
    serde_json::json!({"score": score, "reason": format!("The demo's rule for {criterion}.")})
        .to_string()
}

/// Splits the task and gives the parts to the listed neighbours in turn.
fn decompose(task: &str, neighbours: &[String]) -> String {
    let items = parse_items(task);
    let subtasks: Vec<String> = if !items.is_empty() {
        items
            .iter()
            .map(|i| format!("Find the cost of {}.", i.text()))
            .collect()
    } else if let Some(c) = concepts(task) {
        let half = c.len().div_ceil(2);
        c.chunks(half.max(1))
            .map(|part| {
                format!(
                    "Write a sentence that uses these concepts: {}.",
                    part.join(", ")
                )
            })
            .collect()
    } else {
        vec![task.trim().to_string()]
    };
    let subtasks: Vec<serde_json::Value> = (subtasks.iter().enumerate())
        .map(|(i, t)| match neighbours.get(i % neighbours.len().max(1)) {
            Some(agent) => serde_json::json!({"task": t, "agent": agent}),
            None => serde_json::json!({ "task": t }),
        })
        .collect();
    serde_json::json!({"mode": "modules", "subtasks": subtasks}).to_string()
}

/// How the solver prices lines this time: it applies deals when the
/// feedback says so, or when a rewarded example of the same kind of deal did.
fn pricing(input: &str, item: &Item) -> Pricing {
    if let Some(feedback) = section(input, FEEDBACK_HEADING) {
        let f = feedback.to_lowercase();
        if ["offer", "free", "% off", "half price", "deal", "discount"]
            .iter()
            .any(|w| f.contains(w))
        {
            return Pricing::Careful("the feedback");
        }
    }
    if let Some((ex_input, ex_output, reward)) = example_of(input) {
        let ex_task = section(&ex_input, TASK_HEADING).unwrap_or_default();
        let ex_items = parse_items(ex_task);
        let applied = ex_items.len() == 1
            && same_kind(ex_items[0].deal, item.deal)
            && number_in(&ex_output).is_some_and(|n| (n - ex_items[0].cost()).abs() < 1e-6);
        if applied && reward >= 0.5 {
            return Pricing::Careful("the worked example");
        }
    }
    Pricing::Careless
}

fn solve(input: &str, task: &str) -> String {
    let items = parse_items(task);
    if !items.is_empty() {
        let mut lines = Vec::new();
        let mut costs = Vec::new();
        for item in &items {
            let (text, cost) = line_solution(item, pricing(input, item));
            lines.push(text);
            costs.push(cost);
        }
        let total: f64 = costs.iter().sum();
        if costs.len() > 1 {
            let sum: Vec<String> = costs
                .iter()
                .map(|c| format!("${}", format_number(*c)))
                .collect();
            lines.push(format!(
                "Total: {} = ${}.",
                sum.join(" + "),
                format_number(total)
            ));
        }
        return format!("{}\nAnswer: {}", lines.join("\n"), format_number(total));
    }
    if let Some(c) = concepts(task) {
        let use_all = section(input, FEEDBACK_HEADING).is_some();
        let n = if use_all {
            c.len()
        } else {
            c.len().div_ceil(2)
        };
        return shopping::sentence(&c[..n]);
    }
    "(Offline demo model: a scripted stand-in that can only work the built-in shopping problems and CommonGen concept lists.)\nAnswer: 0".into()
}

fn critique(input: &str, task: &str) -> String {
    let solution = section(input, CHECK_HEADING).unwrap_or_default();
    let items = parse_items(task);
    if items.len() == 1 {
        let item = &items[0];
        let right = item.cost();
        let given = number_in(solution);
        let wrong = given.is_none_or(|g| (g - right).abs() > 1e-6);
        // A hurried reviewer: it looks closely at only a third of the lines.
        let looks = shopping::attention(task);
        if wrong && looks {
            let why = if item.deal != Deal::None
                && given.is_some_and(|g| (g - item.cost_without_deal()).abs() < 1e-6)
            {
                format!(
                    "the {} was ignored; apply the deal to the price",
                    shopping::deal_words(item.deal)
                )
            } else {
                "the arithmetic does not add up; price the line again".to_string()
            };
            return serde_json::json!({"adequate": false, "feedback": format!("Not right: {why}.")}).to_string();
        }
        return serde_json::json!({"adequate": true, "feedback": ""}).to_string();
    }
    if let Some(c) = concepts(task) {
        let missing = crate::engine::domains::tasks::commongen::missing(&c, solution);
        if !missing.is_empty() {
            return serde_json::json!({"adequate": false, "feedback": format!("Missing concepts: {}.", missing.join(", "))}).to_string();
        }
    }
    serde_json::json!({"adequate": true, "feedback": ""}).to_string()
}

fn aggregate(input: &str) -> String {
    let parts = section(input, SUBSOLUTIONS_HEADING).unwrap_or_default();
    let blocks: Vec<&str> = parts
        .split("## Subtask ")
        .filter(|b| !b.trim().is_empty())
        .collect();
    let numbers: Vec<f64> = blocks.iter().filter_map(|b| number_in(b)).collect();
    if !numbers.is_empty() && numbers.len() == blocks.len() {
        let total: f64 = numbers.iter().sum();
        let sum = numbers
            .iter()
            .map(|n| format!("${}", format_number(*n)))
            .collect::<Vec<_>>()
            .join(" + ");
        return format!(
            "Adding the lines: {sum} = ${}.\nAnswer: {}",
            format_number(total),
            format_number(total)
        );
    }
    // Text parts (CommonGen): joined.
    blocks
        .iter()
        .map(|b| {
            b.lines()
                .skip(1)
                .collect::<Vec<_>>()
                .join(" ")
                .trim()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn evaluate(input: &str, task: &str) -> String {
    let solution = section(input, RATE_HEADING).unwrap_or_default();
    let items = parse_items(task);
    let (score, reason) = if !items.is_empty() {
        let right: f64 = items.iter().map(Item::cost).sum();
        match number_in(solution) {
            Some(n) if (n - right).abs() < 1e-6 => {
                (9, "The prices and the deals are right.".to_string())
            }
            Some(_) => (
                3,
                "The total is off: a deal or a line is priced wrongly.".to_string(),
            ),
            None => (1, "No total is given.".to_string()),
        }
    } else if let Some(c) = concepts(task) {
        let cov = crate::engine::domains::tasks::commongen::coverage(&c, solution);
        (
            (cov * 10.0).round() as i32,
            format!("It uses {:.0}% of the concepts.", cov * 100.0),
        )
    } else {
        (
            5,
            "The offline demo model cannot judge this kind of task.".to_string(),
        )
    };
    serde_json::json!({"score": score, "reason": reason}).to_string()
}
