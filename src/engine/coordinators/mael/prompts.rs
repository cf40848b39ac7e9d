//! MAEL's prompts, written for Roundtable after the structure of the
//! paper's workflow (§2.1): one system prompt per decision step, and the
//! request layout of `contract.rs`. Replies that steer the workflow are
//! small JSON objects; solutions are free text ending with the answer.

use super::contract::*;
use crate::engine::prompts::{vars, Prompts, TemplateSpec, Var};
use crate::engine::run::RunError;

/// The default templates (`roundtable prompts --coordinator mael`).
pub const DEFAULTS: &str = include_str!("mael.prompts");

/// Every template of MAEL, with the variables its step gives. A step's
/// input (its task block and what follows) is not a template: it is what
/// a pool stores and retrieves by.
pub static TEMPLATES: [TemplateSpec; 12] = [
    TemplateSpec::new(
        "mael.judge.system",
        "The judge: solve the task alone, or split it (JSON)",
        &[],
    ),
    TemplateSpec::new(
        "mael.decompose.system",
        "The decomposer: subtasks for the neighbours (JSON)",
        &[],
    ),
    TemplateSpec::new(
        "mael.solve.system",
        "The solver: an answer, or a refinement after feedback",
        &[],
    ),
    TemplateSpec::new(
        "mael.solve.software",
        "The solver on a software task: the files it writes (JSON)",
        &[],
    ),
    TemplateSpec::new(
        "mael.aggregate.software",
        "The aggregator on a software task: the files that join the parts (JSON)",
        &[],
    ),
    TemplateSpec::new(
        "mael.critique.system",
        "The critic: is the solution adequate, and what to fix (JSON)",
        &[],
    ),
    TemplateSpec::new(
        "mael.aggregate.system",
        "The aggregator: the subtasks' solutions merged",
        &[],
    ),
    TemplateSpec::new(
        "mael.evaluate.system",
        "The evaluator that rates each solution version 0-10 (JSON)",
        &[],
    ),
    TemplateSpec::new(
        "mael.quality.system",
        "CommonGen-Hard's judge of one quality 0-10 (JSON)",
        &[],
    ),
    TemplateSpec::new(
        "mael.quality.user",
        "The quality judge's request: the criterion, its anchors, the concepts and the text",
        &[
            Var::required(
                "criterion",
                "the quality judged (grammar, fluency, relevance, logic)",
            ),
            Var::optional("high", "what a 10 means"),
            Var::optional("low", "what a 0 means"),
            Var::required("concepts", "the task's concepts, comma-separated"),
            Var::required("text", "the answer's text"),
        ],
    ),
    TemplateSpec::new(
        "mael.ask_again",
        "Added to a request whose reply could not be read, before it is asked once more",
        &[
            Var::optional("why", "why the reply could not be read"),
            Var::required("expected", "the JSON the step expects"),
        ],
    ),
    TemplateSpec::new(
        "mael.unread_feedback",
        "The feedback a solver gets when its critique could not be read",
        &[],
    ),
];

/// The templates of a run: the defaults with its edits.
pub fn of_run(edits: &std::collections::BTreeMap<String, String>) -> Result<Prompts, RunError> {
    Ok(Prompts::new(DEFAULTS, &TEMPLATES, edits)?)
}

/// The system prompt of a step: the team, then what the step asks.
pub fn system(p: &Prompts, kind: StepKind) -> Result<String, RunError> {
    let name = format!("mael.{}.system", kind.tag().trim_start_matches("mael."));
    Ok(p.render(&name, vars! {})?)
}

/// The system prompt of a step on a software task: solve and aggregate
/// write files; the other steps are as on any task.
pub fn software_system(p: &Prompts, kind: StepKind) -> Result<String, RunError> {
    match kind {
        StepKind::Solve => Ok(p.render("mael.solve.software", vars! {})?),
        StepKind::Aggregate => Ok(p.render("mael.aggregate.software", vars! {})?),
        _ => system(p, kind),
    }
}

pub fn evaluator_system(p: &Prompts) -> Result<String, RunError> {
    Ok(p.render("mael.evaluate.system", vars! {})?)
}

/// What is added to a request asked again: why, and the JSON expected.
pub fn ask_again(p: &Prompts, why: &str, expected: &str) -> Result<String, RunError> {
    Ok(p.render("mael.ask_again", vars! { why, expected })?)
}

/// The feedback when a critique could not be read.
pub fn unread_feedback(p: &Prompts) -> Result<String, RunError> {
    Ok(p.render("mael.unread_feedback", vars! {})?)
}

fn task_block(task: &str, parent: Option<&str>) -> String {
    let mut s = format!("{TASK_HEADING}\n{}\n", task.trim());
    if let Some(p) = parent {
        s.push_str(&format!("\n{PARENT_HEADING}\n{}\n", p.trim()));
    }
    s
}

pub fn judge(task: &str) -> String {
    task_block(task, None)
}

/// `neighbours`: (id, name) of the agents the subtasks can go to.
pub fn decompose(task: &str, neighbours: &[(String, String)]) -> String {
    let mut s = task_block(task, None);
    s.push_str(&format!("\n{NEIGHBOURS_HEADING}\n"));
    for (id, name) in neighbours {
        s.push_str(&format!("- {id}: {name}\n"));
    }
    s
}

/// A first attempt (`previous` None) or a refinement with the critic's
/// feedback; `context` (the earlier stages' results, the project's files)
/// goes between the task and the previous attempt.
pub fn solve(task: &str, context: &str, previous: Option<(&str, &str)>) -> String {
    let mut s = task_block(task, None);
    s.push_str(context);
    if let Some((solution, feedback)) = previous {
        s.push_str(&format!(
            "\n{PREVIOUS_HEADING}\n{}\n\n{FEEDBACK_HEADING}\n{}\n",
            solution.trim(),
            feedback.trim()
        ));
    }
    s
}

/// A pipeline stage's context: the stages before it, (text, solution) each.
pub fn earlier(stages: &[(String, String)]) -> String {
    if stages.is_empty() {
        return String::new();
    }
    let mut s = format!("\n{EARLIER_HEADING}\n");
    for (i, (text, solution)) in stages.iter().enumerate() {
        s.push_str(&format!(
            "## Stage {}: {}\n{}\n\n",
            i + 1,
            text.trim(),
            solution.trim()
        ));
    }
    s
}

/// `run`: what running the project gave (a software task), else empty.
pub fn critique(subtask: &str, solution: &str, run: &str) -> String {
    format!(
        "{}\n{CHECK_HEADING}\n{}\n{run}",
        task_block(subtask, None),
        solution.trim()
    )
}

/// `parts`: (subtask text, its solution); `context`: the project's files
/// on a software task, else empty.
pub fn aggregate(task: &str, parts: &[(String, String)], context: &str) -> String {
    let mut s = task_block(task, None);
    s.push_str(context);
    s.push_str(&format!("\n{SUBSOLUTIONS_HEADING}\n"));
    for (i, (sub, sol)) in parts.iter().enumerate() {
        s.push_str(&format!(
            "## Subtask {}: {}\n{}\n\n",
            i + 1,
            sub.trim(),
            sol.trim()
        ));
    }
    s
}

pub fn evaluate(task: &str, parent: Option<&str>, solution: &str) -> String {
    format!(
        "{}\n{RATE_HEADING}\n{}\n",
        task_block(task, parent),
        solution.trim()
    )
}

/// Longest input or output of an example kept in a prompt.
const EXAMPLE_CHARS: usize = 1_500;

fn clip(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() <= EXAMPLE_CHARS {
        return s.to_string();
    }
    let cut: String = s.chars().take(EXAMPLE_CHARS).collect();
    format!("{cut} …")
}

/// A retrieved experience, appended to a step's input as a worked example
/// (quoted, so its own headings stay inside it; see `contract::example_of`).
pub fn example(input: &str, output: &str, reward: f64) -> String {
    format!(
        "\n{EXAMPLE_HEADING} (reward {reward:.2})\nA step you took before on a similar input, and how well it turned out.\n{EXAMPLE_INPUT}\n{}\n{EXAMPLE_OUTPUT}\n{}\n",
        quote(&clip(input)),
        quote(&clip(output))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edits(v: serde_json::Value) -> std::collections::BTreeMap<String, String> {
        serde_json::from_value(v).expect("name → text")
    }

    #[test]
    fn every_default_template_is_declared_and_renders() {
        let p = of_run(&Default::default()).expect("the defaults are valid");
        for kind in StepKind::ALL {
            assert!(system(&p, kind)
                .expect("rendered")
                .starts_with("You are one agent in a team"));
        }
        assert_eq!(
            ask_again(&p, "no JSON", "{\"a\": 1}").expect("rendered"),
            "\n\nYour previous reply could not be read (no JSON). Reply with the JSON object only: {\"a\": 1}"
        );
        // An edit is used; one that drops what the step gives is refused.
        let p = of_run(&edits(
            serde_json::json!({"mael.solve.system": "Solve it."}),
        ))
        .expect("an edit");
        assert_eq!(system(&p, StepKind::Solve).expect("rendered"), "Solve it.");
        assert!(of_run(&edits(serde_json::json!({"mael.ask_again": "Again."}))).is_err());
    }
}
