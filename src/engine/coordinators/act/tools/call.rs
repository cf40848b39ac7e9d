//! One tool call of a member's plan: its arguments read by the tool's own
//! reader (anything wrong is the output the member reads, never a guess),
//! run on the run's workspace (file system; a write goes through the run,
//! so the Files tab shows it and a replay rebuilds it), on the platform's
//! Python (the notebook, one per run), through the search endpoint (the
//! web), or `submit_task`. Returns whether it
//! ran, and its output.

use super::registry::{BROWSE, SEARCH, SUBMIT};
use crate::engine::coordinators::act::contract::ToolSubtask;
use crate::engine::coordinators::act::team::Act;
use crate::engine::domains::agentverse::{filesystem, notebook, web};
use crate::engine::domains::srdd::run::Runner;
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

/// The run's notebook (a run resource, made on its first cell).
#[derive(Default)]
pub struct RunNotebook(pub RefCell<notebook::Notebook>);

fn run_notebook(act: &Act<'_>) -> Rc<RunNotebook> {
    match act.ctx.resource::<RunNotebook>() {
        Some(n) => n,
        None => {
            let n = Rc::new(RunNotebook::default());
            act.ctx.insert_resource(n.clone());
            n
        }
    }
}

pub async fn run(act: &Act<'_>, agent: &str, t: &ToolSubtask) -> (bool, String) {
    let name = t.tool.as_str();
    let result = if filesystem::TOOLS.contains(&name) {
        files(act, agent, name, &t.arguments)
    } else if notebook::TOOLS.contains(&name) {
        cell(act, name, &t.arguments).await
    } else if name == SUBMIT {
        submit(&t.arguments)
    } else if name == SEARCH || name == BROWSE {
        browse(act, name, &t.arguments).await
    } else {
        Err(format!("{name} is not a tool this run can call"))
    };
    match result {
        Ok(out) => (true, out),
        Err(why) => (false, format!("error: {why}")),
    }
}

fn files(act: &Act<'_>, agent: &str, tool: &str, args: &Value) -> Result<String, String> {
    let call = filesystem::read_call(tool, args)?;
    let outcome = filesystem::run(&act.ctx.files(), &call)?;
    if let Some((path, text)) = &outcome.write {
        act.ctx
            .write_file(agent, path, text, None)
            .map_err(|r| format!("the workspace refused it: {r}"))?;
    }
    Ok(outcome.output)
}

async fn cell(act: &Act<'_>, tool: &str, args: &Value) -> Result<String, String> {
    let nb = run_notebook(act);
    match notebook::read_call(tool, args)? {
        notebook::Call::Print => Ok(nb.0.borrow().print()),
        notebook::Call::Execute {
            code,
            cell_index,
            reset,
        } => {
            let runner = act
                .ctx
                .resource::<Runner>()
                .ok_or("this run has no Python to run cells in")?;
            let (files, folder, k) = {
                let mut book = nb.0.borrow_mut();
                let k = book.place(&code, cell_index, reset)?;
                let ws: Vec<(String, String)> = act
                    .ctx
                    .files()
                    .files()
                    .map(|(p, v)| (p.to_string(), v.text.clone()))
                    .collect();
                let (files, folder) = book.program(k, ws);
                (files, folder, k)
            };
            let ran = runner.0.run(files, folder).await?;
            Ok(nb.0.borrow_mut().record(k, &ran))
        }
    }
}

async fn browse(act: &Act<'_>, tool: &str, args: &Value) -> Result<String, String> {
    let call = web::read_call(tool, args)?;
    let w = act
        .ctx
        .resource::<web::Web>()
        .ok_or("no search endpoint is set (Settings, or --search-url)")?;
    web::run(&w, &call).await
}

fn submit(args: &Value) -> Result<String, String> {
    let status = args.get("status").and_then(Value::as_str).unwrap_or("");
    if !["pending", "finished"].contains(&status) {
        return Err(format!(
            "{SUBMIT}'s \"status\" must be \"pending\" or \"finished\", not {:?}",
            status
        ));
    }
    let conclusion = args
        .get("conclusion")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim();
    Ok(format!("submitted ({status}): {conclusion}"))
}
