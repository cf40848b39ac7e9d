//! Tool use in the production meeting (§3.6 (2), eq. 9; §4.3), only when
//! the run names tools: after its opinion, a member plans at most three
//! sub-tasks (Table 26: small, specific, executable, measurable), each on a
//! different tool, with the tool's arguments; the tools run and their
//! results are added to its opinion. The production loop gives a tool task
//! up to 10 rounds (`Limits::tool_rounds`), so a member plans and calls
//! again with what its tools returned before.
//!
//! The tools are AgentVerse's (`registry`): the notebook on the platform's
//! Python, the file system on the run's workspace (the Files tab), the web
//! through a search endpoint, `submit_task`; the shell is never offered.
//! `call` runs one.

mod call;
pub mod registry;

use super::contract::*;
use super::prompts;
use super::reading;
use super::team::Act;
use crate::engine::model::reply::{read_value, Read, Repair};
use crate::engine::model::shape::ReplySchema;
use crate::engine::run::{RunError, RunEvent};
use registry::{Abilities, Tool};
use serde_json::{json, Value};

pub const MAX_SUBTASKS: usize = 3;

/// What this run can run: Python when the platform gave one.
fn abilities(act: &Act<'_>) -> Abilities {
    Abilities {
        python: act
            .ctx
            .resource::<crate::engine::domains::srdd::run::Runner>()
            .is_some(),
        web: act
            .ctx
            .resource::<crate::engine::domains::agentverse::web::Web>()
            .is_some(),
    }
}

/// The instruct reply's shape for these tools: each sub-task one tool's
/// name with that tool's own arguments.
pub fn plan_schema(tools: &[Tool]) -> ReplySchema {
    let mut shape = ReplySchema::of::<ToolPlan>(STEP_INSTRUCT);
    let cases: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({
                "type": "object",
                "properties": {
                    "task": {"type": "string", "maxLength": 300},
                    "tool": {"type": "string", "enum": [t.name]},
                    "arguments": t.parameters,
                },
                "required": ["task", "tool", "arguments"],
                "additionalProperties": false,
            })
        })
        .collect();
    if let Some(items) = shape.schema.pointer_mut("/properties/subtasks/items") {
        *items = match cases.len() {
            1 => cases[0].clone(),
            _ => json!({ "anyOf": cases }),
        };
    }
    if let Some(list) = shape.schema.pointer_mut("/properties/subtasks") {
        list["maxItems"] = json!(MAX_SUBTASKS.min(tools.len()));
    }
    shape
}

/// The instruct step's shape with every tool a run could offer (the
/// shell never is): what the step declares; each request narrows it to
/// the tools it offers.
pub fn widest_plan_schema() -> ReplySchema {
    let all: Vec<String> = registry::ALL.iter().map(|t| t.to_string()).collect();
    let (tools, _) = registry::offered(
        &all,
        Abilities {
            python: true,
            web: true,
        },
    );
    plan_schema(&tools)
}

/// The opinion, with the results of the tools the member asked for.
pub async fn use_tools(act: &Act<'_>, i: usize, opinion: &str) -> Result<String, RunError> {
    if act.options.tools.is_empty() {
        return Ok(opinion.to_string());
    }
    let id = act.member_id(i);
    let (tools, not) = registry::offered(&act.options.tools, abilities(act));
    if tools.is_empty() {
        return Ok(opinion.to_string());
    }
    let listing = registry::listing(&tools, &not);
    let s = act.speaker(i, STEP_INSTRUCT);
    let prompt = prompts::instruct(&act.prompts, &s, opinion, &listing)?;
    let shape = plan_schema(&tools);
    let said = act
        .ask_narrowed(&id, STEP_INSTRUCT, prompt, |_| shape)
        .await?;
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    let (subtasks, repairs) = plan(&said.text, &names);
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
        let call_id = format!("{id}.tool{}.{n}", act.ctx.event_count());
        act.ctx.emit(RunEvent::ToolCalled {
            id: call_id.clone(),
            agent: id.clone(),
            tool: t.tool.clone(),
            args: t.arguments.clone(),
            call: Some(said.call),
        });
        let (ok, output) = call::run(act, &id, t).await;
        act.ctx.emit(RunEvent::ToolReturned {
            id: call_id,
            agent: id.clone(),
            ok,
            output: output.clone(),
        });
        let what = if t.task.is_empty() { &t.tool } else { &t.task };
        out.push_str(&format!("\n\n[{}: {what}] {output}", t.tool));
    }
    Ok(out)
}

/// The sub-tasks of an instruct reply (`{"subtasks": [...]}`, or another
/// wrapping of the list): offered tools only, each at most once, at most
/// three; arguments that are not an object are refused by the tool when it
/// runs (its reader says why). A reply that cannot be read uses no tool (a
/// stated default). Every repair is returned.
pub fn plan(reply: &str, offered: &[String]) -> (Vec<ToolSubtask>, Vec<Repair>) {
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
        let task = item.get("task").and_then(Value::as_str).unwrap_or("");
        let (task, _) = reading::cap_chars(task.trim(), 300);
        let arguments = match item.get("arguments") {
            Some(v) => v.clone(),
            None => {
                repairs.push(reading::shape(format!(
                    "the sub-task on \"{}\" gave no arguments: the tool ran with none",
                    reading::cap_chars(tool, 40).0
                )));
                json!({})
            }
        };
        let (name, _) = reading::cap_chars(tool, 40);
        if !offered.iter().any(|a| a == tool) {
            repairs.push(reading::dropped(format!(
                "\"{name}\" is not an offered tool: dropped"
            )));
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
                task,
                tool: tool.to_string(),
                arguments,
                input: String::new(),
            });
        }
    }
    (out, reading::folded(repairs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::domains::agentverse::{filesystem, notebook};

    #[test]
    fn at_most_three_sub_tasks_each_on_a_different_offered_tool() {
        let offered: Vec<String> = [
            notebook::EXECUTE,
            filesystem::WRITE,
            filesystem::READ,
            registry::SUBMIT,
        ]
        .map(String::from)
        .to_vec();
        let reply = r#"{"subtasks": [
            {"task": "the sum is printed", "tool": "PythonNotebook_execute_cell", "arguments": {"code": "print(2*3)"}},
            {"task": "again", "tool": "PythonNotebook_execute_cell", "arguments": {"code": "4"}},
            {"task": "notes kept", "tool": "FileSystemEnv_write_to_file", "arguments": {"filepath": "a.md", "content": "x"}},
            {"task": "a shell", "tool": "shell_command_executor", "arguments": {"command": "ls"}},
            {"task": "read", "tool": "FileSystemEnv_read_from_file"},
            {"task": "done", "tool": "submit_task", "arguments": {"status": "finished", "conclusion": "ok"}}]}"#;
        let (plan, repairs) = plan(reply, &offered);
        assert_eq!(
            plan.iter().map(|t| t.tool.as_str()).collect::<Vec<_>>(),
            [notebook::EXECUTE, filesystem::WRITE, filesystem::READ]
        );
        assert_eq!(plan[0].task, "the sum is printed");
        assert_eq!(plan[0].arguments["code"], "print(2*3)");
        assert_eq!(plan[2].arguments, json!({}), "no arguments given: none");
        assert_eq!(repairs.len(), 4, "{repairs:?}");
        assert!(super::plan("no json", &offered).0.is_empty());
    }

    #[test]
    fn the_plan_shape_holds_each_sub_task_to_its_tools_arguments() {
        let (tools, _) = registry::offered(
            &[filesystem::WRITE.to_string(), notebook::EXECUTE.to_string()],
            Abilities {
                python: true,
                web: false,
            },
        );
        let shape = plan_schema(&tools);
        let items = &shape.schema["properties"]["subtasks"]["items"];
        assert_eq!(items["anyOf"].as_array().map(Vec::len), Some(2), "{items}");
        assert_eq!(
            items["anyOf"][0]["properties"]["tool"]["enum"],
            json!([filesystem::WRITE])
        );
        assert_eq!(
            items["anyOf"][0]["properties"]["arguments"]["required"],
            json!(["filepath", "content"])
        );
        assert_eq!(shape.schema["properties"]["subtasks"]["maxItems"], 2);
        let good = json!({"subtasks": [{"task": "t", "tool": filesystem::WRITE, "arguments": {"filepath": "a", "content": "b"}}]});
        assert_eq!(shape.check(&good), Ok(()));
        let bad = json!({"subtasks": [{"task": "t", "tool": filesystem::WRITE, "arguments": {"code": "b"}}]});
        assert!(shape.check(&bad).is_err());
        assert!(shape.room().is_some(), "a held plan has room to be whole");
    }
}
