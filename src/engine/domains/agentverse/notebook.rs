//! AgentVerse's PythonNotebook on the workspace's Python (the page's
//! Pyodide worker, the CLI's CPython): `execute_cell` (append a cell, or
//! overwrite one by index, negative from the end, and run it) and
//! `print_cells_outputs`. Pure: it keeps the cells and their outputs, writes
//! the program a runner runs ([`Notebook::program`]) and reads what the run
//! printed ([`Notebook::record`]).
//!
//! A runner starts a fresh interpreter for every run, so a cell runs after
//! the cells before it are run again, in order, from the last kernel reset
//! (`reset: true`): the state a kernel would hold, as "restart and run
//! all" gives it; their outputs are not shown again. An error is the
//! cell's output: its traceback from the cell down, as a notebook shows it. The program runs in a
//! copy of the workspace (the files agents wrote are there to read; what a
//! cell writes is not kept), stopped after the runner's 3 s like any run.

use super::filesystem::{capped, kind};
use crate::engine::domains::srdd::run::{Files, Ran};
use serde_json::Value;

pub const EXECUTE: &str = "PythonNotebook_execute_cell";
pub const PRINT: &str = "PythonNotebook_print_cells_outputs";
pub const TOOLS: [&str; 2] = [EXECUTE, PRINT];

/// Where the program is put among the workspace's files (its folder is
/// the one run; it runs the cells in the workspace's top folder).
pub const FOLDER: &str = "__notebook__";

/// The line that opens cell `i`'s output on stdout.
fn marker(i: usize) -> String {
    format!("\u{1e}cell {i}\u{1e}")
}

/// A call, its arguments read.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    Execute {
        code: String,
        cell_index: Option<i64>,
        reset: bool,
    },
    Print,
}

/// One cell: its code, its output once run, and whether the kernel was
/// reset before it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    pub code: String,
    pub output: Option<String>,
    pub reset: bool,
}

/// The notebook of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Notebook {
    pub cells: Vec<Cell>,
}

/// Reads a call of `tool` (one of [`TOOLS`]) with `args` (a JSON object).
pub fn read_call(tool: &str, args: &Value) -> Result<Call, String> {
    if !(args.is_object() || tool == PRINT && args.is_null()) {
        return Err(format!(
            "{tool}'s arguments must be an object, not {}",
            kind(args)
        ));
    }
    match tool {
        EXECUTE => {
            let code = match args.get("code") {
                Some(Value::String(s)) => s.clone(),
                None | Some(Value::Null) => return Err(format!("{tool} needs \"code\" (text)")),
                Some(other) => {
                    return Err(format!(
                        "{tool}'s \"code\" must be text, not {}",
                        kind(other)
                    ))
                }
            };
            let cell_index = match args.get("cell_index") {
                None | Some(Value::Null) => None,
                Some(Value::Number(n)) => Some(n.as_i64().ok_or_else(|| {
                    format!("{tool}'s \"cell_index\" must be a whole number, not {n}")
                })?),
                Some(other) => {
                    return Err(format!(
                        "{tool}'s \"cell_index\" must be a whole number, not {}",
                        kind(other)
                    ))
                }
            };
            let reset = match args.get("reset") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    return Err(format!(
                        "{tool}'s \"reset\" must be true or false, not {}",
                        kind(other)
                    ))
                }
            };
            Ok(Call::Execute {
                code,
                cell_index,
                reset,
            })
        }
        PRINT => Ok(Call::Print),
        other => Err(format!("no notebook tool named {other}")),
    }
}

/// Python's string literal of `s` (JSON's is one, escapes and all).
fn literal(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

impl Notebook {
    /// Puts an executed cell's code in place (appended, or over the cell
    /// `cell_index` names): its index, or why not.
    pub fn place(
        &mut self,
        code: &str,
        cell_index: Option<i64>,
        reset: bool,
    ) -> Result<usize, String> {
        let cell = Cell {
            code: code.to_string(),
            output: None,
            reset,
        };
        let Some(i) = cell_index else {
            self.cells.push(cell);
            return Ok(self.cells.len() - 1);
        };
        let n = self.cells.len() as i64;
        let at = if i < 0 { i + n } else { i };
        if !(0..n).contains(&at) {
            return Err(format!(
                "there is no cell {i} to overwrite: the notebook has {} (leave cell_index out to add one)",
                self.cells.len()
            ));
        }
        self.cells[at as usize] = cell;
        Ok(at as usize)
    }

    /// The cells run for cell `k`: from the last reset at or before it.
    fn first_run(&self, k: usize) -> usize {
        (0..=k).rev().find(|&i| self.cells[i].reset).unwrap_or(0)
    }

    /// The program that runs cell `k` (after the cells it follows), as the
    /// files a runner takes: the workspace's `files` and the program in
    /// [`FOLDER`].
    pub fn program(&self, k: usize, mut files: Files) -> (Files, String) {
        let cells: Vec<String> = self.cells[self.first_run(k)..=k]
            .iter()
            .map(|c| literal(&c.code))
            .collect();
        let first = self.first_run(k);
        let main = format!(
            "import contextlib, os, sys, traceback\n\
             top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n\
             os.chdir(top)\n\
             sys.path.insert(0, top)\n\
             CELLS = [{}]\n\
             FIRST = {first}\n\
             scope = {{'__name__': '__main__'}}\n\
             for n, code in enumerate(CELLS, start=FIRST):\n    \
                 print('\\x1ecell %d\\x1e' % n, flush=True)\n    \
                 with contextlib.redirect_stderr(sys.stdout):\n        \
                     try:\n            \
                         exec(compile(code, 'In[%d]' % n, 'exec'), scope)\n        \
                     except SystemExit:\n            \
                         pass\n        \
                     except BaseException:\n            \
                         kind, value, tb = sys.exc_info()\n            \
                         traceback.print_exception(kind, value, tb.tb_next, file=sys.stdout)\n    \
                 sys.stdout.flush()\n",
            cells.join(", ")
        );
        files.retain(|(p, _)| !p.starts_with(&format!("{FOLDER}/")));
        files.push((format!("{FOLDER}/main.py"), main));
        (files, FOLDER.to_string())
    }

    /// Records cell `k`'s output from its run, and returns what the agent
    /// is told (`cell_index: k` and the output, as AgentVerse's tool says).
    pub fn record(&mut self, k: usize, ran: &Ran) -> String {
        let out = &ran.stdout;
        let mine = match out.find(&marker(k)) {
            Some(at) => {
                let rest = &out[at + marker(k).len()..];
                rest.strip_prefix('\n').unwrap_or(rest).to_string()
            }
            // The run died before it: whatever it said.
            None => format!("{}{}", out, ran.stderr),
        };
        let mut text = mine.trim_end().to_string();
        if ran.stopped {
            text.push_str("\n(stopped after 3 s: the cell was still running)");
        }
        if let Some(why) = &ran.died {
            text.push_str(&format!("\n(the interpreter died: {why})"));
        }
        if text.is_empty() {
            text = "(no output)".into();
        }
        let text = capped(&text);
        if let Some(c) = self.cells.get_mut(k) {
            c.output = Some(text.clone());
        }
        format!("cell_index: {k}\n{text}")
    }

    /// `print_cells_outputs`: every cell's code and output.
    pub fn print(&self) -> String {
        if self.cells.is_empty() {
            return "The notebook has no cells yet.".into();
        }
        let all: Vec<String> = self
            .cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                format!(
                    "In[{i}]:\n{}\nOut[{i}]:\n{}",
                    c.code.trim_end(),
                    c.output.as_deref().unwrap_or("(not run)")
                )
            })
            .collect();
        capped(&all.join("\n\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_are_read_by_the_tools_schema_and_bad_ones_say_why() {
        assert_eq!(
            read_call(EXECUTE, &json!({"code": "x = 1", "cell_index": -1})),
            Ok(Call::Execute {
                code: "x = 1".into(),
                cell_index: Some(-1),
                reset: false
            })
        );
        assert_eq!(read_call(PRINT, &Value::Null), Ok(Call::Print));
        let err = |tool: &str, v: Value| read_call(tool, &v).unwrap_err();
        assert!(err(EXECUTE, json!({})).contains("needs \"code\""));
        assert!(err(EXECUTE, json!({"code": 3})).contains("must be text, not a number"));
        assert!(err(EXECUTE, json!({"code": "", "cell_index": 1.5})).contains("whole number"));
        assert!(err(EXECUTE, json!({"code": "", "reset": "yes"})).contains("true or false"));
        assert!(err(EXECUTE, json!("print(1)")).contains("must be an object"));
        assert!(err("shell_command_executor", json!({})).contains("no notebook tool"));
    }

    #[test]
    fn cells_are_appended_or_overwritten_and_runs_start_at_the_last_reset() {
        let mut nb = Notebook::default();
        assert_eq!(nb.place("a = 1", None, false), Ok(0));
        assert_eq!(nb.place("b = 2", None, false), Ok(1));
        assert_eq!(nb.place("b = 3", Some(-1), false), Ok(1));
        assert!(nb
            .place("c", Some(2), false)
            .unwrap_err()
            .contains("no cell 2"));
        assert!(nb.place("c", Some(-3), false).is_err());
        assert_eq!(nb.place("c = 4", None, true), Ok(2));
        assert_eq!(nb.place("d = c", None, false), Ok(3));
        let (files, folder) = nb.program(3, vec![("data.txt".into(), "x".into())]);
        assert_eq!(folder, FOLDER);
        assert_eq!(files[0].0, "data.txt");
        let main = &files[1].1;
        assert!(
            main.contains("CELLS = [\"c = 4\", \"d = c\"]\nFIRST = 2\n"),
            "{main}"
        );
        let (_, _) = nb.program(1, Vec::new());
        assert!(nb.program(1, Vec::new()).0[0]
            .1
            .contains("CELLS = [\"a = 1\", \"b = 3\"]"));
        // What a run printed: the target cell's part only.
        let ran = Ran::from_bytes(
            format!("{}\nearly\n{}\nlate\n", marker(2), marker(3)).as_bytes(),
            b"",
            false,
            vec![],
        );
        assert_eq!(nb.record(3, &ran), "cell_index: 3\nlate");
        assert_eq!(nb.cells[3].output.as_deref(), Some("late"));
        let p = nb.print();
        assert!(p.contains("In[3]:\nd = c\nOut[3]:\nlate"), "{p}");
        assert!(p.contains("In[0]:\na = 1\nOut[0]:\n(not run)"), "{p}");
        assert_eq!(
            Notebook::default().print(),
            "The notebook has no cells yet."
        );
    }
}
