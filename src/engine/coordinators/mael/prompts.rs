//! MAEL's prompts, written for Roundtable after the structure of the
//! paper's workflow (§2.1): one system prompt per decision step, and the
//! request layout of `contract.rs`. Replies that steer the workflow are
//! small JSON objects; solutions are free text ending with the answer.

use super::contract::*;

const TEAM: &str =
    "You are one agent in a team connected as a graph. Tasks travel along its edges: \
an agent may solve a task itself, or split it and hand the parts to its neighbours, check what \
they send back and merge it.";

/// Whether to solve the task or split it.
const JUDGE_ROLE: &str = "Decide whether you can solve the task well on your own, in one answer, \
or whether it is better split into parts for your neighbours. Reply with one JSON object: \
{\"solvable\": true or false, \"reason\": \"one sentence\"}.";

/// How to split a task among the neighbours.
const DECOMPOSE_ROLE: &str =
    "Split the task into independent subtasks, one for each part that can \
be worked on separately (at most one per neighbour unless the task needs more), and give each \
to the neighbour best suited to it (one of those listed, by id). Each subtask must make sense \
on its own: repeat the numbers and names it needs. Reply with one JSON object: \
{\"subtasks\": [{\"task\": \"...\", \"agent\": \"<a neighbour's id>\"}, ...]}.";

/// How to solve a task (or refine an attempt).
const SOLVE_ROLE: &str = "Solve the task yourself, carefully and completely. Show the short \
reasoning that matters, then end with a line \"Answer: <your answer>\". When feedback on an \
earlier attempt is given, fix exactly what it points out.";

/// How to check a solution.
const CRITIQUE_ROLE: &str = "Check the solution against its task. Is it correct and complete? \
Reply with one JSON object: {\"adequate\": true, \"feedback\": \"\"} when it is, or \
{\"adequate\": false, \"feedback\": \"<what is wrong and how to fix it>\"} when it is not.";

/// How to merge the subtasks' solutions.
const AGGREGATE_ROLE: &str = "Merge the solutions of the subtasks into one solution of the whole \
task. Use their results, check that they fit together, and end with a line \"Answer: <your \
answer>\".";

/// The system prompt of a step: the team, then what the step asks.
pub fn system(kind: StepKind) -> String {
    let role = match kind {
        StepKind::Judge => JUDGE_ROLE,
        StepKind::Decompose => DECOMPOSE_ROLE,
        StepKind::Solve => SOLVE_ROLE,
        StepKind::Critique => CRITIQUE_ROLE,
        StepKind::Aggregate => AGGREGATE_ROLE,
    };
    format!("{TEAM}\n\n{role}")
}

pub const EVALUATOR_SYSTEM: &str = "You rate how good a solution to a task is, as a whole number \
from 0 (useless or wrong) to 10 (correct and complete). Reply with one JSON object: {\"score\": \
<0-10>, \"reason\": \"one sentence\"}.";

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

/// A first attempt (`previous` None) or a refinement with the critic's feedback.
pub fn solve(task: &str, previous: Option<(&str, &str)>) -> String {
    let mut s = task_block(task, None);
    if let Some((solution, feedback)) = previous {
        s.push_str(&format!(
            "\n{PREVIOUS_HEADING}\n{}\n\n{FEEDBACK_HEADING}\n{}\n",
            solution.trim(),
            feedback.trim()
        ));
    }
    s
}

pub fn critique(subtask: &str, solution: &str) -> String {
    format!(
        "{}\n{CHECK_HEADING}\n{}\n",
        task_block(subtask, None),
        solution.trim()
    )
}

/// `parts`: (subtask text, its solution).
pub fn aggregate(task: &str, parts: &[(String, String)]) -> String {
    let mut s = task_block(task, None);
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
