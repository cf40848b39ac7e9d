//! The tools ACT's members may call (§4.3: AgentVerse's nine, and its
//! `submit_task`), by AgentVerse's names and arguments, described in our
//! own words; and which of them this run can offer. A tool it cannot run
//! is not offered, and the tool list says why (a browser has no shell; the
//! web needs a search endpoint; the notebook needs the platform's Python).

use crate::engine::domains::agentverse::{filesystem, notebook};
use serde_json::{json, Value};

pub const BROWSE: &str = "WebEnv_browse_website";
pub const SEARCH: &str = "WebEnv_search_and_browse";
pub const SHELL: &str = "shell_command_executor";
pub const SUBMIT: &str = "submit_task";

/// The ten, in AgentVerse's order (`submit_task` last).
pub const ALL: [&str; 10] = [
    notebook::EXECUTE,
    notebook::PRINT,
    BROWSE,
    SEARCH,
    filesystem::MODIFY,
    filesystem::TREE,
    filesystem::READ,
    filesystem::WRITE,
    SHELL,
    SUBMIT,
];

/// One tool: what it does and its arguments (a JSON Schema object).
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    pub parameters: Value,
}

fn text(description: &str) -> Value {
    json!({"type": "string", "maxLength": 4000, "description": description})
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

/// The tool named `name`, if it is one of [`ALL`].
pub fn tool(name: &str) -> Option<Tool> {
    let index = |d: &str| json!({"type": "integer", "description": d});
    let (name, description, parameters) = match name {
        notebook::EXECUTE => (
            notebook::EXECUTE,
            "Add a notebook cell (or overwrite the one at cell_index, negative from the end) and run it; returns its output.",
            object(
                json!({"code": text("Python code, printing what you want to see"), "cell_index": index("the cell to overwrite; leave it out to add one"), "reset": {"type": "boolean", "description": "restart the kernel first"}}),
                &["code"],
            ),
        ),
        notebook::PRINT => (
            notebook::PRINT,
            "Show every notebook cell with its output.",
            object(json!({}), &[]),
        ),
        BROWSE => (
            BROWSE,
            "Read the text of a web page, for the goals given.",
            object(
                json!({"url": text("an http or https address"), "goals_to_browse": text("what to look for on the page")}),
                &["url", "goals_to_browse"],
            ),
        ),
        SEARCH => (
            SEARCH,
            "Search the web and read what the first results say, for the goals given.",
            object(
                json!({"search_query": text("the query"), "goals_to_browse": text("what to look for in the results"), "region": text("a region code such as en-US")}),
                &["search_query", "goals_to_browse"],
            ),
        ),
        filesystem::MODIFY => (
            filesystem::MODIFY,
            "Replace lines start_index to end_index of a file (Python slice bounds) with new_content.",
            object(
                json!({"filepath": text("the file's path in the workspace"), "new_content": text("the new lines"), "start_index": index("first line replaced"), "end_index": index("line after the last replaced")}),
                &["filepath", "new_content"],
            ),
        ),
        filesystem::TREE => (
            filesystem::TREE,
            "List the workspace's folders and files.",
            object(json!({}), &[]),
        ),
        filesystem::READ => (
            filesystem::READ,
            "Read a workspace file, from a line on.",
            object(
                json!({"filepath": text("the file's path in the workspace"), "start_index": index("the first line to read")}),
                &["filepath"],
            ),
        ),
        filesystem::WRITE => (
            filesystem::WRITE,
            "Write a workspace file whole (created, or replaced).",
            object(
                json!({"filepath": text("the file's path in the workspace"), "content": text("the whole text")}),
                &["filepath", "content"],
            ),
        ),
        SHELL => (
            SHELL,
            "Run a shell command.",
            object(json!({"command": text("the command")}), &["command"]),
        ),
        SUBMIT => (
            SUBMIT,
            "Say your part is done (finished) or cannot be (pending), with your conclusion.",
            object(
                json!({"status": {"type": "string", "enum": ["pending", "finished"]}, "conclusion": text("what you found or did, or what stopped you")}),
                &["status", "conclusion"],
            ),
        ),
        _ => return None,
    };
    Some(Tool {
        name,
        description,
        parameters,
    })
}

/// What this run can run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Abilities {
    /// The platform's Python (the notebook).
    pub python: bool,
    /// A search endpoint (the web tools).
    pub web: bool,
}

/// The tools a run asked for that it can offer, and the others with why
/// not (unknown names too).
pub fn offered(asked: &[String], can: Abilities) -> (Vec<Tool>, Vec<(String, String)>) {
    let mut tools = Vec::new();
    let mut not = Vec::new();
    for name in asked {
        let why = match name.as_str() {
            SHELL => Some(
                "a browser has no shell, so it is never offered here; the notebook runs Python",
            ),
            BROWSE | SEARCH if !can.web => {
                Some("no search endpoint is set (Settings, or --search-url)")
            }
            notebook::EXECUTE | notebook::PRINT if !can.python => {
                Some("this run has no Python to run cells in")
            }
            _ => None,
        };
        match (why, tool(name)) {
            (Some(why), _) => not.push((name.clone(), why.to_string())),
            (None, Some(t)) => tools.push(t),
            (None, None) => not.push((name.clone(), "no such tool".to_string())),
        }
    }
    (tools, not)
}

/// The tool list as a prompt gives it: each offered tool with its
/// arguments, then the ones not offered and why.
pub fn listing(tools: &[Tool], not: &[(String, String)]) -> String {
    let mut out: Vec<String> = tools
        .iter()
        .map(|t| {
            let args: Vec<String> = t.parameters["properties"]
                .as_object()
                .map(|props| {
                    props
                        .iter()
                        .map(|(k, v)| {
                            let required = t.parameters["required"]
                                .as_array()
                                .is_some_and(|r| r.iter().any(|x| x == k));
                            format!(
                                "{k}{}: {}",
                                if required { "" } else { " (optional)" },
                                v["description"]
                                    .as_str()
                                    .unwrap_or(v["type"].as_str().unwrap_or(""))
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let args = if args.is_empty() {
                "no arguments".to_string()
            } else {
                args.join("; ")
            };
            format!("- {}: {} Arguments: {args}.", t.name, t.description)
        })
        .collect();
    for (name, why) in not {
        out.push(format!("- {name}: not offered ({why})."));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_a_closed_schema_and_what_cannot_run_says_why() {
        for name in ALL {
            let t = tool(name).expect(name);
            assert_eq!(t.parameters["type"], "object", "{name}");
            assert_eq!(t.parameters["additionalProperties"], false, "{name}");
        }
        assert_eq!(tool("calculator"), None);
        let asked: Vec<String> = ALL
            .iter()
            .map(|s| s.to_string())
            .chain(["teleport".to_string()])
            .collect();
        let (tools, not) = offered(
            &asked,
            Abilities {
                python: true,
                web: false,
            },
        );
        let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                notebook::EXECUTE,
                notebook::PRINT,
                filesystem::MODIFY,
                filesystem::TREE,
                filesystem::READ,
                filesystem::WRITE,
                SUBMIT
            ]
        );
        let why: Vec<&str> = not.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(why, [BROWSE, SEARCH, SHELL, "teleport"]);
        let l = listing(&tools, &not);
        assert!(
            l.contains("- FileSystemEnv_write_to_file: Write a workspace file whole"),
            "{l}"
        );
        assert!(
            l.contains("start_index (optional): first line replaced"),
            "{l}"
        );
        assert!(
            l.contains("- shell_command_executor: not offered (a browser has no shell"),
            "{l}"
        );
        assert!(
            l.contains("- WebEnv_search_and_browse: not offered (no search endpoint"),
            "{l}"
        );
        // Without Python, no notebook; with the web, the web.
        let (tools, _) = offered(
            &asked,
            Abilities {
                python: false,
                web: true,
            },
        );
        assert!(tools.iter().all(|t| !t.name.starts_with("PythonNotebook")));
        assert!(tools.iter().any(|t| t.name == SEARCH));
    }
}
