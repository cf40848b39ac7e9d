//! Tool use in the production meeting (§3.6 (2), eq. 9), only when the task
//! set defines tools: after its opinion, a member plans at most three
//! sub-tasks, each on a different tool, and the tools' results are added
//! to its opinion. Two built-in tools: `calculator` (arithmetic) and
//! `word_count`.

use super::contract::*;
use super::prompts;
use super::team::Act;
use crate::engine::model::demo::arith;
use crate::engine::model::reply::json_object;
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
    let (reply, _) = act
        .ask_member(i, STEP_INSTRUCT, |s| {
            prompts::instruct(s, opinion, &act.options.tools)
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
    let (subtasks, flags) = plan(&reply, &allowed);
    act.ctx.note(
        &id,
        STORE_TOOL_PLAN,
        None,
        &ToolPlanRecord {
            subtasks: subtasks.clone(),
            flags,
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

/// The sub-tasks of an instruct reply: known tools only, each at most once,
/// at most three; what was dropped is flagged.
pub fn plan(reply: &str, allowed: &[String]) -> (Vec<ToolSubtask>, Vec<String>) {
    let mut flags = Vec::new();
    let items: Vec<Value> = json_object::<Value>(reply)
        .and_then(|v| v.get("subtasks").and_then(Value::as_array).cloned())
        .unwrap_or_else(|| {
            flags.push("the plan was not JSON: no tool used".into());
            Vec::new()
        });
    let mut out: Vec<ToolSubtask> = Vec::new();
    for item in items {
        let Ok(t) = serde_json::from_value::<ToolSubtask>(item) else {
            flags.push("a sub-task without a tool was dropped".into());
            continue;
        };
        if !allowed.contains(&t.tool) {
            flags.push(format!("unknown tool \"{}\" dropped", t.tool));
        } else if out.iter().any(|o| o.tool == t.tool) {
            flags.push(format!(
                "tool \"{}\" asked twice: the second dropped",
                t.tool
            ));
        } else if out.len() >= MAX_SUBTASKS {
            flags.push(format!(
                "more than {MAX_SUBTASKS} sub-tasks: \"{}\" dropped",
                t.tool
            ));
        } else {
            out.push(t);
        }
    }
    (out, flags)
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
        let (plan, flags) = plan(reply, &allowed);
        assert_eq!(
            plan.iter().map(|t| t.tool.as_str()).collect::<Vec<_>>(),
            ["calculator", "word_count", "search"]
        );
        assert_eq!(flags.len(), 3, "{flags:?}");
        assert_eq!(run_tool("calculator", "2*3"), (true, "6".into()));
        assert!(!run_tool("calculator", "two").0);
        assert!(super::plan("no json", &allowed).0.is_empty());
    }
}
