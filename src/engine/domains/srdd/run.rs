//! What a run of a project's `main.py` left, whichever Python ran it (the
//! CLI's CPython, or Pyodide in the page's worker or in Node:
//! `web/srdd/project.mjs`), Table 3's figures of its code
//! (`web/srdd/metrics.py`), and the runner a caller gives: the metric reads
//! only these, so every runner is judged alike.

use futures::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};

/// How much of each stream a run keeps to show (characters; the traceback
/// check reads the whole stream).
pub const OUTPUT_CAP: usize = 65_536;
/// A pipe's size (Linux's default): a program writing more to one is
/// blocked until it is stopped (`web/srdd/project.mjs` does the same).
pub const PIPE_BYTES: usize = 65_536;
/// How full a pipe of a stopped process counts as full: Python writes
/// its 8 KB buffer in pieces the pipe's pages do not fit exactly, so a
/// blocked writer leaves a little less than [`PIPE_BYTES`] in it.
pub const PIPE_FULL: usize = PIPE_BYTES - 8_192;

/// A run of `main.py`, stopped after [`super::RUN_SECONDS`] if it had not
/// ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ran {
    /// The first [`OUTPUT_CAP`] characters it wrote (not UTF-8: replaced).
    pub stdout: String,
    pub stderr: String,
    /// stderr says `traceback`, in any case, anywhere.
    pub traceback: bool,
    /// stderr was UTF-8 (the script's decoding of it fails otherwise).
    pub utf8: bool,
    /// Still running when it was stopped.
    pub stopped: bool,
    /// The GUI toolkits it imported, served headless.
    #[serde(default)]
    pub gui: Vec<String>,
    /// The stream ("stdout" or "stderr") whose full pipe held it until it
    /// was stopped (neither is read before then, as in the script).
    #[serde(default)]
    pub blocked: Option<String>,
    /// The interpreter itself died (Pyodide: a JavaScript stack overflow,
    /// where CPython raises RecursionError); `traceback` is then set.
    #[serde(default)]
    pub died: Option<String>,
}

impl Ran {
    /// A run from the bytes a process wrote (the CLI's CPython).
    pub fn from_bytes(stdout: &[u8], stderr: &[u8], stopped: bool, gui: Vec<String>) -> Ran {
        let text = String::from_utf8_lossy(stderr);
        let full = |name: &str, bytes: &[u8]| {
            (stopped && bytes.len() >= PIPE_FULL).then(|| name.to_string())
        };
        Ran {
            blocked: full("stdout", stdout).or_else(|| full("stderr", stderr)),
            stdout: cap(&String::from_utf8_lossy(stdout)),
            stderr: cap(&text),
            traceback: text.to_lowercase().contains("traceback"),
            utf8: std::str::from_utf8(stderr).is_ok(),
            stopped,
            gui,
            died: None,
        }
    }

    /// Whether it is executable, and why, in the metric's terms.
    pub fn verdict(&self) -> &'static str {
        if !self.utf8 {
            "not executable: its stderr is not UTF-8"
        } else if self.died.is_some() {
            "not executable: the interpreter died (counted as a traceback)"
        } else if self.traceback {
            "not executable: its stderr has a traceback"
        } else {
            "executable: no traceback on stderr"
        }
    }

    /// What a viewer is told beyond the output: a stop, a full pipe, GUI
    /// toolkits served headless, a died interpreter.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.stopped {
            notes.push(match &self.blocked {
                Some(stream) => format!(
                    "Stopped after {} s, blocked writing to {stream}: its pipe ({} KB) was full, \
                     and the metric reads it only once the program stops",
                    super::RUN_SECONDS,
                    PIPE_BYTES / 1024
                ),
                None => format!(
                    "Stopped after {} s, still running: the metric stops a program then \
                     and judges what it printed",
                    super::RUN_SECONDS
                ),
            });
        }
        if !self.gui.is_empty() {
            notes.push(format!(
                "GUI served headless: {} (no window opens here; the program is judged on \
                 whether it raises)",
                self.gui.join(", ")
            ));
        }
        if let Some(why) = &self.died {
            notes.push(format!("The interpreter died: {why}"));
        }
        notes
    }

    /// The script's executability (0 or 1): stderr says `traceback`, or is
    /// not UTF-8, gives 0 (its exit code is never read).
    pub fn executability(&self) -> f64 {
        if self.traceback || !self.utf8 {
            0.0
        } else {
            1.0
        }
    }
}

fn cap(text: &str) -> String {
    match text.char_indices().nth(OUTPUT_CAP) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
}

/// Table 3's figures of a project's code (`web/srdd/metrics.py`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scale {
    pub complexity: u64,
    pub lines: u64,
    pub tokens: u64,
    pub functions: u64,
    pub files: u64,
    /// `.py` files Python could not parse.
    pub unparsed: u64,
}

/// A project's files as a runner takes them: every file, path and text.
pub type Files = Vec<(String, String)>;

/// A Python that runs projects: `run` runs `main.py` in `folder` (the
/// metric's run folder, "" for the top) of a fresh copy of the files;
/// `measure` gives Table 3's figures.
pub trait ProjectRunner {
    /// Which Python it is, as a result names it ("python3 (CPython 3.11.7)").
    fn name(&self) -> String;
    fn run(&self, files: Files, folder: String) -> LocalBoxFuture<'_, Result<Ran, String>>;
    fn measure(&self, files: Files) -> LocalBoxFuture<'_, Result<Scale, String>>;
}

/// The platform's project runner, as a run resource (the CLI's CPython or
/// Pyodide in Node, the page's worker): MAEL's SRDD runs need it to run
/// and score their projects.
pub struct Runner(pub std::rc::Rc<dyn ProjectRunner>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_run_is_read_as_the_script_reads_its_stderr() {
        let ran = |err: &[u8]| Ran::from_bytes(b"", err, false, vec![]);
        assert_eq!(ran(b"").executability(), 1.0);
        assert_eq!(ran(b"DeprecationWarning: x\n").executability(), 1.0);
        assert_eq!(
            ran(b"Traceback (most recent call last):\n  File \"main.py\"\nNameError: x")
                .executability(),
            0.0
        );
        assert_eq!(ran(b"TRACEBACK").executability(), 0.0);
        // Python cannot open main.py: no traceback, executable (a quirk).
        assert_eq!(
            ran(b"python3: can't open file '/p/main.py': [Errno 2] No such file or directory\n")
                .executability(),
            1.0
        );
        // A syntax error in main.py: CPython prints no traceback header.
        assert_eq!(
            ran(b"  File \"main.py\", line 1\n    print(\n         ^\nSyntaxError: '(' was never closed\n")
                .executability(),
            1.0
        );
        let bad = ran(&[0xff, 0xfe]);
        assert!(!bad.utf8);
        assert_eq!(bad.executability(), 0.0);
        assert_eq!(bad.stderr, "\u{fffd}\u{fffd}");
        // A died interpreter counts as the traceback CPython would print.
        let died = Ran {
            utf8: true,
            traceback: true,
            died: Some("stack".into()),
            ..Ran::default()
        };
        assert_eq!(died.executability(), 0.0);
    }

    #[test]
    fn shown_output_is_capped_but_the_traceback_is_read_in_all_of_it() {
        let mut err = "x".repeat(OUTPUT_CAP + 10).into_bytes();
        err.extend_from_slice(b"\nTraceback");
        let ran = Ran::from_bytes("é".repeat(OUTPUT_CAP + 1).as_bytes(), &err, true, vec![]);
        assert_eq!(ran.stderr.chars().count(), OUTPUT_CAP);
        assert_eq!(ran.stdout.chars().count(), OUTPUT_CAP);
        assert!(ran.traceback && ran.stopped);
    }

    #[test]
    fn a_stopped_process_with_a_full_pipe_was_blocked_on_it() {
        let out = vec![b'x'; PIPE_FULL];
        let stopped = Ran::from_bytes(&out, b"", true, vec![]);
        assert_eq!(stopped.blocked.as_deref(), Some("stdout"));
        // One that ended wrote it all: not blocked.
        assert_eq!(Ran::from_bytes(&out, b"", false, vec![]).blocked, None);
        // Less than a pipe's worth: it was stopped for running long.
        let short = Ran::from_bytes(&out[1..], b"", true, vec![]);
        assert_eq!(short.blocked, None);
        let err = Ran::from_bytes(b"", &out, true, vec![]);
        assert_eq!(err.blocked.as_deref(), Some("stderr"));
    }

    #[test]
    fn a_viewer_is_told_why_and_what_was_unusual() {
        let clean = Ran {
            utf8: true,
            ..Ran::default()
        };
        assert_eq!(clean.verdict(), "executable: no traceback on stderr");
        assert!(clean.notes().is_empty());
        let out = vec![b'x'; PIPE_BYTES];
        let blocked = Ran::from_bytes(&out, b"", true, vec!["tkinter".into()]);
        let notes = blocked.notes();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].starts_with("Stopped after 3 s, blocked writing to stdout"));
        assert!(notes[1].contains("headless: tkinter"));
        let long = Ran::from_bytes(b"", b"", true, vec![]);
        assert!(long.notes()[0].contains("still running"));
        let tb = Ran::from_bytes(b"", b"Traceback (most recent call last)", false, vec![]);
        assert_eq!(tb.verdict(), "not executable: its stderr has a traceback");
        assert!(Ran::from_bytes(b"", &[0xff], false, vec![])
            .verdict()
            .contains("not UTF-8"));
        let died = Ran {
            utf8: true,
            traceback: true,
            died: Some("stack".into()),
            ..Ran::default()
        };
        assert!(died.verdict().contains("died"));
        assert_eq!(
            died.notes(),
            vec!["The interpreter died: stack".to_string()]
        );
    }
}
