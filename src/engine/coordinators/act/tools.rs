//! Tool use in the production meeting (§3.6 (2), eq. 9), only when the task
//! set defines tools: after its opinion, a member plans at most three
//! sub-tasks, each on a different tool, and the tools' results are added
//! to its opinion. Two built-in tools: `calculator` (arithmetic) and
//! `word_count`.

use super::contract::*;
use super::prompts;
use super::reading;
use super::team::Act;
use crate::engine::model::demo::arith;
use crate::engine::model::reply::{read_value, Read, Repair};
use crate::engine::run::{RunError, RunEvent};
use serde_json::Value;

pub const TOOLS: [&str; 2] = ["calculator", "word_count"];
pub const MAX_SUBTASKS: usize = 3;

/// The opinion, with the results of the tools the member asked for.
pub async fn use_tools(act: &Act<'_>, i: usize, opinion: &str) -> Result<String, RunError> {
    if act.options.tools.is_empty() {
        return Ok(opinion.to_string());
    }
    let id = act.member_id(i);
    let (said, _) = act
        .ask_member(i, STEP_INSTRUCT, |s| {
            prompts::instruct(&act.prompts, s, opinion, &act.options.tools)
        })
        .await?;
    // Only the tools this build has.
    let allowed: Vec<String> = act
        .options
        .tools
        .iter()
        .filter(|t| TOOLS.contains(&t.as_str()))
        .cloned()
        .collect();
    let (subtasks, repairs) = plan(&said.text, &allowed);
    act.repaired(said.call, &repairs);
    act.ctx.note(
        &id,
        STORE_TOOL_PLAN,
        None,
        &ToolPlanRecord {
            subtasks: subtasks.clone(),
            flags: reading::details(&repairs),
        },
    );
    let mut out = opinion.to_string();
    for (n, t) in subtasks.iter().enumerate() {
        let call_id = format!("{id}.tool{n}");
        act.ctx.emit(RunEvent::ToolCalled {
            id: call_id.clone(),
            agent: id.clone(),
            tool: t.tool.clone(),
            args: serde_json::json!({"input": t.input}),
            call: None,
        });
        let (ok, output) = run_tool(&t.tool, &t.input);
        act.ctx.emit(RunEvent::ToolReturned {
            id: call_id,
            agent: id.clone(),
            ok,
            output: output.clone(),
        });
        out.push_str(&format!("\n\n[{}: {}] {}", t.tool, t.input, output));
    }
    Ok(out)
}

/// The longest tool input kept (chars).
const INPUT_CHARS: usize = 500;

/// The sub-tasks of an instruct reply (`{"subtasks": [...]}`, or another
/// wrapping of the list): known tools only, each at most once, at most
/// three; an input that is not text is written as JSON. A reply that
/// cannot be read uses no tool (a stated default). Every repair is
/// returned.
pub fn plan(reply: &str, allowed: &[String]) -> (Vec<ToolSubtask>, Vec<Repair>) {
    let read = read_value(reply).and_then(|r| reading::list_under(r, "subtasks"));
    let (items, mut repairs) = match read {
        Ok(Read {
            value: Value::Array(items),
            repairs,
        }) => (items, repairs),
        Ok(_) => (
            Vec::new(),
            vec![reading::default(
                "the plan's \"subtasks\" were not a list: no tool used",
            )],
        ),
        Err(why) => (
            Vec::new(),
            vec![reading::default(format!(
                "the plan could not be read ({why}): no tool used"
            ))],
        ),
    };
    let mut out: Vec<ToolSubtask> = Vec::new();
    for item in items {
        let Some(tool) = item.get("tool").and_then(Value::as_str).map(str::trim) else {
            repairs.push(reading::dropped("a sub-task without a tool was dropped"));
            continue;
        };
        let input = match item.get("input") {
            Some(Value::String(t)) => t.clone(),
            None | Some(Value::Null) => String::new(),
            Some(other) => {
                repairs.push(reading::shape("an input was not text: written as JSON"));
                other.to_string()
            }
        };
        let (input, cut) = reading::cap_chars(&input, INPUT_CHARS);
        if cut {
            repairs.push(reading::clamped(format!(
                "an input was cut to {INPUT_CHARS} characters"
            )));
        }
        let (name, _) = reading::cap_chars(tool, 40);
        if !allowed.iter().any(|a| a == tool) {
            repairs.push(reading::dropped(format!("unknown tool \"{name}\" dropped")));
        } else if out.iter().any(|o| o.tool == tool) {
            repairs.push(reading::dropped(format!(
                "tool \"{name}\" asked twice: the second dropped"
            )));
        } else if out.len() >= MAX_SUBTASKS {
            repairs.push(reading::clamped(format!(
                "more than {MAX_SUBTASKS} sub-tasks: \"{name}\" dropped"
            )));
        } else {
            out.push(ToolSubtask {
                tool: tool.to_string(),
                input,
            });
        }
    }
    (out, reading::folded(repairs))
}

/// Runs a built-in tool.
pub fn run_tool(tool: &str, input: &str) -> (bool, String) {
    match tool {
        "calculator" => match arith::eval(input) {
            Ok(v) => (true, arith::format_number(v)),
            Err(e) => (false, format!("cannot compute \"{input}\": {e}")),
        },
        "word_count" => (true, format!("{} words", input.split_whitespace().count())),
        other => (false, format!("no tool named {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_three_sub_tasks_each_on_a_different_known_tool() {
        let allowed: Vec<String> = ["calculator", "word_count", "search", "map"]
            .map(String::from)
            .to_vec();
        let reply = r#"{"subtasks": [
            {"tool": "calculator", "input": "2*3"},
            {"tool": "calculator", "input": "4"},
            {"tool": "word_count", "input": "a b"},
            {"tool": "teleport", "input": "x"},
            {"tool": "search", "input": "tea"},
            {"tool": "map", "input": "cafe"}]}"#;
        let (plan, repairs) = plan(reply, &allowed);
        assert_eq!(
            plan.iter().map(|t| t.tool.as_str()).collect::<Vec<_>>(),
            ["calculator", "word_count", "search"]
        );
        assert_eq!(repairs.len(), 3, "{repairs:?}");
        assert_eq!(run_tool("calculator", "2*3"), (true, "6".into()));
        assert!(!run_tool("calculator", "two").0);
        assert!(super::plan("no json", &allowed).0.is_empty());
    }
}
