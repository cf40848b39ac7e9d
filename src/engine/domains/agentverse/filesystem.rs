//! AgentVerse's FileSystemEnv on a run's workspace: `write_to_file`,
//! `read_from_file`, `modify_file` (Python's slice assignment on the
//! file's lines, negative indices and all) and `print_filesys_struture`
//! (sic: the tool's name). Pure: a call reads the workspace and says what
//! to write; the caller writes it (`RunCtx::write_file`, which may still
//! refuse it) and returns the output to the agent. Arguments come from a
//! model: anything wrong in them is an error the agent reads, never a
//! guess.

use crate::engine::base::workspace::Workspace;
use serde_json::Value;

/// The tools, by AgentVerse's names.
pub const WRITE: &str = "FileSystemEnv_write_to_file";
pub const READ: &str = "FileSystemEnv_read_from_file";
pub const MODIFY: &str = "FileSystemEnv_modify_file";
pub const TREE: &str = "FileSystemEnv_print_filesys_struture";
pub const TOOLS: [&str; 4] = [MODIFY, TREE, READ, WRITE];

/// The longest output an agent is given (characters); the rest is cut
/// with a note saying how much.
pub const OUTPUT_CHARS: usize = 4000;

/// A call, its arguments read.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    Write {
        filepath: String,
        content: String,
    },
    Read {
        filepath: String,
        start_index: Option<i64>,
    },
    Modify {
        filepath: String,
        new_content: String,
        start_index: Option<i64>,
        end_index: Option<i64>,
    },
    Tree,
}

/// What a call does: the file to write (path, whole text), if any, and
/// what the agent is told.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub write: Option<(String, String)>,
    pub output: String,
}

fn text_arg(args: &Value, name: &str, tool: &str) -> Result<String, String> {
    match args.get(name) {
        Some(Value::String(s)) => Ok(s.clone()),
        None | Some(Value::Null) => Err(format!("{tool} needs \"{name}\" (text)")),
        Some(other) => Err(format!(
            "{tool}'s \"{name}\" must be text, not {}",
            kind(other)
        )),
    }
}

fn index_arg(args: &Value, name: &str, tool: &str) -> Result<Option<i64>, String> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("{tool}'s \"{name}\" must be a whole number, not {n}")),
        Some(other) => Err(format!(
            "{tool}'s \"{name}\" must be a whole number, not {}",
            kind(other)
        )),
    }
}

/// What a JSON value is, as an error names it.
pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Reads a call of `tool` (one of [`TOOLS`]) with `args` (a JSON object).
pub fn read_call(tool: &str, args: &Value) -> Result<Call, String> {
    if !(args.is_object() || tool == TREE && args.is_null()) {
        return Err(format!(
            "{tool}'s arguments must be an object, not {}",
            kind(args)
        ));
    }
    Ok(match tool {
        WRITE => Call::Write {
            filepath: text_arg(args, "filepath", tool)?,
            content: text_arg(args, "content", tool)?,
        },
        READ => Call::Read {
            filepath: text_arg(args, "filepath", tool)?,
            start_index: index_arg(args, "start_index", tool)?,
        },
        MODIFY => Call::Modify {
            filepath: text_arg(args, "filepath", tool)?,
            new_content: text_arg(args, "new_content", tool)?,
            start_index: index_arg(args, "start_index", tool)?,
            end_index: index_arg(args, "end_index", tool)?,
        },
        TREE => Call::Tree,
        other => return Err(format!("no file-system tool named {other}")),
    })
}

/// Python's slice bounds: `i` (negative from the end) clamped to `0..=len`.
fn bound(i: i64, len: usize) -> usize {
    let len_i = len as i64;
    let i = if i < 0 { i + len_i } else { i };
    i.clamp(0, len_i) as usize
}

/// The output, cut to [`OUTPUT_CHARS`] with a note (every tool's).
pub(super) fn capped(text: &str) -> String {
    let n = text.chars().count();
    if n <= OUTPUT_CHARS {
        return text.to_string();
    }
    let kept: String = text.chars().take(OUTPUT_CHARS).collect();
    format!("{kept}\n… ({} more characters not shown)", n - OUTPUT_CHARS)
}

fn missing(path: &str) -> String {
    format!("there is no file {path} in the workspace ({TREE} lists its files)")
}

/// What `call` does on `ws`.
pub fn run(ws: &Workspace, call: &Call) -> Result<Outcome, String> {
    match call {
        Call::Write { filepath, content } => Ok(Outcome {
            write: Some((filepath.clone(), content.clone())),
            output: capped(content),
        }),
        Call::Read {
            filepath,
            start_index,
        } => {
            let v = ws.latest(filepath).ok_or_else(|| missing(filepath))?;
            let lines: Vec<&str> = v.text.split('\n').collect();
            let from = bound(start_index.unwrap_or(0), lines.len());
            Ok(Outcome {
                write: None,
                output: capped(&lines[from..].join("\n")),
            })
        }
        Call::Modify {
            filepath,
            new_content,
            start_index,
            end_index,
        } => {
            let v = ws.latest(filepath).ok_or_else(|| missing(filepath))?;
            let mut lines: Vec<&str> = v.text.split('\n').collect();
            let len = lines.len();
            // No start: the new lines go at the end; no end: at the start.
            let start = start_index.map_or(len, |i| bound(i, len));
            let end = end_index.map_or(start, |j| bound(j, len)).max(start);
            lines.splice(start..end, new_content.split('\n'));
            let text = lines.join("\n");
            Ok(Outcome {
                output: capped(&text),
                write: Some((filepath.clone(), text)),
            })
        }
        Call::Tree => Ok(Outcome {
            write: None,
            output: capped(&structure(ws)),
        }),
    }
}

/// The workspace as the tool's example shows it: `- workspace/`, then each
/// folder and file under it, four spaces a level.
pub fn structure(ws: &Workspace) -> String {
    let mut out = vec!["- workspace/".to_string()];
    for e in ws.entries() {
        out.push(format!("    {}", e.line("    ", "- ")));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ws_with(path: &str, text: &str) -> Workspace {
        let mut ws = Workspace::default();
        ws.write(path, text, "a", 0, None).unwrap();
        ws
    }

    fn modify(text: &str, new: &str, start: Option<i64>, end: Option<i64>) -> String {
        let ws = ws_with("t.txt", text);
        let call = Call::Modify {
            filepath: "t.txt".into(),
            new_content: new.into(),
            start_index: start,
            end_index: end,
        };
        let out = run(&ws, &call).unwrap();
        let (path, written) = out.write.unwrap();
        assert_eq!(path, "t.txt");
        assert_eq!(out.output, written);
        written
    }

    #[test]
    fn modify_is_pythons_slice_assignment_on_the_lines() {
        // The tool's own three examples.
        assert_eq!(
            modify("a\nb", "Hello World!", None, None),
            "a\nb\nHello World!"
        );
        assert_eq!(
            modify("a\nb", "Hello World!", Some(0), None),
            "Hello World!\na\nb"
        );
        assert_eq!(
            modify("a\nb", "Hello World!", Some(0), Some(1)),
            "Hello World!\nb"
        );
        // Negative indices count from the end; bounds past it are clamped;
        // an end before the start inserts at the start; new lines split.
        assert_eq!(modify("a\nb\nc", "X", Some(-1), None), "a\nb\nX\nc");
        assert_eq!(modify("a\nb\nc", "X\nY", Some(1), Some(99)), "a\nX\nY");
        assert_eq!(modify("a\nb\nc", "X", Some(2), Some(0)), "a\nb\nX\nc");
        assert_eq!(modify("a\nb\nc", "X", Some(-99), Some(-2)), "X\nb\nc");
    }

    #[test]
    fn read_write_and_the_tree() {
        let mut ws = ws_with("src/game.py", "l0\nl1\nl2");
        let read = |ws: &Workspace, args| run(ws, &read_call(READ, &args).unwrap());
        assert_eq!(
            read(&ws, json!({"filepath": "src/game.py", "start_index": 1}))
                .unwrap()
                .output,
            "l1\nl2"
        );
        assert_eq!(
            read(&ws, json!({"filepath": "./src/game.py"}))
                .unwrap()
                .output,
            "l0\nl1\nl2"
        );
        assert_eq!(
            read(&ws, json!({"filepath": "src/game.py", "start_index": -1}))
                .unwrap()
                .output,
            "l2"
        );
        let err = read(&ws, json!({"filepath": "nope.py"})).unwrap_err();
        assert!(
            err.contains("no file nope.py") && err.contains(TREE),
            "{err}"
        );
        let w = run(
            &ws,
            &read_call(WRITE, &json!({"filepath": "main.py", "content": "x"})).unwrap(),
        )
        .unwrap();
        assert_eq!(w.write, Some(("main.py".into(), "x".into())));
        assert_eq!(w.output, "x");
        ws.write("main.py", "x", "a", 1, None).unwrap();
        assert_eq!(
            structure(&ws),
            "- workspace/\n    - src/\n        - game.py\n    - main.py"
        );
        assert_eq!(structure(&Workspace::default()), "- workspace/");
        assert_eq!(
            run(&ws, &read_call(TREE, &json!({})).unwrap())
                .unwrap()
                .output,
            structure(&ws)
        );
        let long = run(
            &ws,
            &Call::Write {
                filepath: "l".into(),
                content: "é".repeat(OUTPUT_CHARS + 5),
            },
        )
        .unwrap();
        assert!(
            long.output.ends_with("(5 more characters not shown)"),
            "{}",
            &long.output[long.output.len() - 60..]
        );
    }

    #[test]
    fn wrong_arguments_are_named() {
        for (tool, args, says) in [
            (WRITE, json!({"filepath": "a"}), "needs \"content\""),
            (
                WRITE,
                json!({"filepath": 3, "content": "x"}),
                "\"filepath\" must be text, not a number",
            ),
            (
                READ,
                json!({"filepath": "a", "start_index": "2"}),
                "whole number, not text",
            ),
            (
                READ,
                json!({"filepath": "a", "start_index": 1.5}),
                "whole number, not 1.5",
            ),
            (MODIFY, json!(["a"]), "must be an object, not a list"),
            ("FileSystemEnv_delete", json!({}), "no file-system tool"),
        ] {
            let err = read_call(tool, &args).unwrap_err();
            assert!(err.contains(says), "{tool} {args}: {err}");
        }
        assert_eq!(read_call(TREE, &Value::Null), Ok(Call::Tree));
    }
}
