//! MAEL on software (SRDD, Tables 2–3): the solution is the run's files.
//! A solve or an aggregation writes whole files to the run's workspace
//! (the viewer's Files tab, the project the metric scores); a critique
//! reads what running the project gave; after every step that wrote
//! files the project is measured (Fig. 4's quality per iteration); the
//! final project is scored by SRDD's metric and Table 3's figures.
//!
//! Running is the platform's [`Runner`] (a run resource: the CLI's CPython
//! or Pyodide in Node, the page's worker); the consistency embedder is the
//! run's memory's (the provider's embeddings when configured, else the
//! built-in one), named beside the figure. A run of the same files is
//! made once: the critique's and the measure's share it.

use super::contract::*;
use crate::engine::base::workspace::Workspace;
use crate::engine::domains::srdd::project::{File, Project};
use crate::engine::domains::srdd::run::{Files, Ran, Runner, Scale};
use crate::engine::domains::srdd::{cosine, executability, requirement_text, Quality};
use crate::engine::model::embed::Embedder;
use crate::engine::model::reply::{Repair, RepairKind};
use crate::engine::run::{RunCtx, RunError};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// The most characters of the project's files a request shows (beyond it,
/// the rest are named only).
const LISTING_CHARS: usize = 24_000;
/// The most characters of each stream a critique is shown.
const OUTPUT_CHARS: usize = 1_500;

/// The files of a run (each path with the event that wrote its version).
type Versions = Vec<(String, u64)>;

/// A software run's runner, embedder and the last run made.
pub struct Software {
    runner: Option<Rc<Runner>>,
    embedder: Rc<dyn Embedder>,
    /// The files last run (their paths and versions) and what it gave.
    last: RefCell<Option<(Versions, Ran)>>,
    /// Steps that wrote files so far.
    pub iterations: Cell<u32>,
}

impl Software {
    pub fn new(ctx: &RunCtx, embedder: Rc<dyn Embedder>) -> Software {
        Software {
            runner: ctx.resource::<Runner>(),
            embedder,
            last: RefCell::new(None),
            iterations: Cell::new(0),
        }
    }

    /// Which Python runs the projects, if any.
    pub fn runner_name(&self) -> Option<String> {
        self.runner.as_ref().map(|r| r.0.name())
    }

    /// Runs the workspace's project as the metric does (`main.py` in the
    /// run folder, 3 s): None when it has no Python file to run.
    pub async fn run(&self, ws: &Workspace) -> Result<Option<Ran>, String> {
        let project = Project::of(ws);
        let Some(folder) = project.run_folder().map(str::to_string) else {
            return Ok(None);
        };
        let key: Versions = ws.files().map(|(p, v)| (p.to_string(), v.seq)).collect();
        if let Some((k, ran)) = self.last.borrow().as_ref() {
            if *k == key {
                return Ok(Some(ran.clone()));
            }
        }
        let runner = self.runner.as_ref().ok_or_else(no_runner_text)?;
        let ran = runner.0.run(files_of(ws), folder).await?;
        *self.last.borrow_mut() = Some((key, ran.clone()));
        Ok(Some(ran))
    }

    /// Table 2's four scores of the workspace's project for `requirement`.
    pub async fn quality(
        &self,
        ctx: &RunCtx,
        ws: &Workspace,
        requirement: &str,
    ) -> Result<Quality, RunError> {
        let project = Project::of(ws);
        let ran = self
            .run(ws)
            .await
            .map_err(|e| RunError::new("python", format!("The project could not be run: {e}")))?;
        let texts = [
            requirement_text(requirement).to_string(),
            project.code_for_consistency(),
        ];
        let vectors = self.embedder.embed(&texts, ctx.cancel_token()).await?;
        let consistency = match vectors.as_slice() {
            [a, b] => cosine(a, b),
            _ => {
                return Err(RunError::new(
                    "embedder",
                    "The embedder did not give one vector per text.",
                ))
            }
        };
        Ok(Quality::new(
            project.completeness(),
            executability(ran.as_ref()),
            consistency,
        ))
    }

    /// Table 3's figures of the workspace's project.
    pub async fn scale(&self, ws: &Workspace) -> Result<Scale, RunError> {
        let runner = self
            .runner
            .as_ref()
            .ok_or_else(|| RunError::new("no_python", no_runner_text()))?;
        let py: Files = Project::of(ws)
            .files
            .iter()
            .map(|f: &File| (f.path.clone(), f.text.clone()))
            .collect();
        runner
            .0
            .measure(py)
            .await
            .map_err(|e| RunError::new("python", format!("The project could not be measured: {e}")))
    }

    /// What a critic is told of a run of the project now.
    pub async fn run_section(&self, ws: &Workspace) -> String {
        let body = match self.run(ws).await {
            Ok(None) => "There is no Python file to run yet.".to_string(),
            Ok(Some(ran)) => ran_text(&ran),
            Err(e) => format!("The project could not be run here ({e})."),
        };
        format!("\n{RUN_HEADING}\n{body}\n")
    }

    /// The embedder's name, as a table names it.
    pub fn embedder_label(&self) -> String {
        self.embedder.id().label()
    }
}

fn no_runner_text() -> String {
    "SRDD's projects are run in Python, and this run has no Python runner.".into()
}

/// The files a runner takes: every file's latest text.
fn files_of(ws: &Workspace) -> Files {
    ws.files()
        .map(|(p, v)| (p.to_string(), v.text.clone()))
        .collect()
}

/// The last `n` characters of a stream, marked when cut.
fn tail(text: &str, n: usize) -> String {
    let count = text.chars().count();
    if count <= n {
        return text.trim_end().to_string();
    }
    let rest: String = text.chars().skip(count - n).collect();
    format!("[… {} characters before]\n{}", count - n, rest.trim_end())
}

/// A run as a critic reads it: the verdict, notes, and the streams' ends.
pub fn ran_text(ran: &Ran) -> String {
    let mut s = format!("Verdict: {}.\n", ran.verdict());
    for note in ran.notes() {
        s.push_str(&format!("Note: {note}.\n"));
    }
    for (name, text) in [("stdout", &ran.stdout), ("stderr", &ran.stderr)] {
        if text.trim().is_empty() {
            s.push_str(&format!("{name}: (empty)\n"));
        } else {
            s.push_str(&format!(
                "{name}:\n```\n{}\n```\n",
                tail(text, OUTPUT_CHARS)
            ));
        }
    }
    s.trim_end().to_string()
}

/// Files as a request shows them: each under its path and a fence.
pub fn render<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    files
        .into_iter()
        .map(|(path, text)| {
            let lang = if path.ends_with(".py") { "python" } else { "" };
            format!("{path}\n```{lang}\n{}\n```", text.trim_end())
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The workspace's files as a request shows them (`# The project's
/// files`): every file while they fit in [`LISTING_CHARS`], then the
/// others named only.
pub fn listing(ws: &Workspace) -> String {
    if ws.is_empty() {
        return format!("\n{FILES_HEADING}\n(none yet)\n");
    }
    let mut shown = Vec::new();
    let mut left = Vec::new();
    let mut used = 0;
    for (path, v) in ws.walk() {
        if used + v.len() <= LISTING_CHARS {
            used += v.len();
            shown.push((path, v));
        } else {
            left.push(path);
        }
    }
    let mut s = format!("\n{FILES_HEADING}\n{}\n", render(shown));
    if !left.is_empty() {
        s.push_str(&format!(
            "\n(Not shown, for length: {}.)\n",
            left.join(", ")
        ));
    }
    s
}

/// What a software step wrote: the files (path, text), those refused
/// (why), and whether its reply could not be read.
pub struct Wrote {
    pub written: Vec<(String, String)>,
    pub refused: Vec<String>,
    pub unread: bool,
}

impl Wrote {
    /// A solve's solution: the files it wrote, rendered.
    pub fn text(&self) -> String {
        let mut text = render(self.written.iter().map(|(p, c)| (p.as_str(), c.as_str())));
        if self.written.is_empty() {
            text = match self.unread {
                true => "(No file was written: the reply could not be read.)".into(),
                false => "(No file was written.)".into(),
            };
        }
        text + &self.refused_note()
    }

    pub fn refused_note(&self) -> String {
        match self.refused.is_empty() {
            true => String::new(),
            false => format!("\n\n(Not written: {}.)", self.refused.join("; ")),
        }
    }
}

/// A software step's files (its reply, call `call`), written whole to
/// the run's workspace as `agent`: what was written and refused, and the
/// reply's repairs (an unreadable reply writes nothing: a `Default`).
pub fn write_files(ctx: &RunCtx, agent: &str, call: u32, reply: &str) -> (Wrote, Vec<Repair>) {
    let (files, mut repairs, unread) = match super::read::project(reply) {
        Ok(r) => (r.value, r.repairs, false),
        Err(why) => (
            Vec::new(),
            vec![Repair::new(
                RepairKind::Default,
                format!(
                    "the files could not be read ({why}); the default was used: no file written"
                ),
            )],
            true,
        ),
    };
    let mut wrote = Wrote {
        written: Vec::new(),
        refused: Vec::new(),
        unread,
    };
    for f in &files {
        match ctx.write_file(agent, &f.path, &f.content, Some(call)) {
            Ok(path) => wrote.written.push((path, f.content.clone())),
            Err(r) => wrote.refused.push(r.to_string()),
        }
    }
    if !wrote.refused.is_empty() {
        repairs.push(Repair::new(
            RepairKind::Other,
            format!("the workspace refused: {}", wrote.refused.join("; ")),
        ));
    }
    (wrote, repairs)
}

/// Records the project's quality after a step that wrote files.
pub async fn measure_iteration(
    ctx: &RunCtx,
    sw: &Software,
    (agent, step, task): (&str, StepKind, &str),
    requirement: &str,
) -> Result<(), RunError> {
    let ws = ctx.files();
    let q = sw.quality(ctx, &ws, requirement).await?;
    let n = sw.iterations.get() + 1;
    sw.iterations.set(n);
    ctx.note(
        agent,
        STORE_ITERATION,
        Some(&format!("{task} #{n}")),
        &IterationRecord {
            n,
            step,
            task: task.to_string(),
            completeness: q.completeness,
            executability: q.executability,
            consistency: q.consistency,
            quality: q.quality,
        },
    );
    Ok(())
}

/// The final project's score and its parts: Table 2's four, then Table
/// 3's five.
pub async fn score(
    ctx: &RunCtx,
    sw: &Software,
    requirement: &str,
) -> Result<(f64, Vec<(String, f64)>), RunError> {
    let ws = ctx.files();
    let q = sw.quality(ctx, &ws, requirement).await?;
    let s = sw.scale(&ws).await?;
    let parts = [
        ("completeness", q.completeness),
        ("executability", q.executability),
        ("consistency", q.consistency),
        ("quality", q.quality),
        ("complexity", s.complexity as f64),
        ("lines", s.lines as f64),
        ("tokens", s.tokens as f64),
        ("functions", s.functions as f64),
        ("files", s.files as f64),
    ];
    Ok((
        q.quality,
        parts.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
    ))
}

/// Table 3's part names (the others of a software result are Table 2's).
pub const SCALE_PARTS: [&str; 5] = ["complexity", "lines", "tokens", "functions", "files"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_shows_files_under_their_paths_and_names_what_does_not_fit() {
        let mut ws = Workspace::default();
        assert!(listing(&ws).contains("(none yet)"));
        ws.write("main.py", "print(1)\n", "a1", 1, None)
            .expect("write");
        ws.write("notes.txt", "0123456789", "a1", 2, None)
            .expect("write");
        ws.write("big.py", &"#".repeat(LISTING_CHARS - 12), "a1", 3, None)
            .expect("write");
        let l = listing(&ws);
        assert!(
            l.starts_with(&format!("\n{FILES_HEADING}\nbig.py\n```python\n")),
            "{l}"
        );
        assert!(l.contains("main.py\n```python\nprint(1)\n```"), "{l}");
        assert!(l.contains("(Not shown, for length: notes.txt"), "{l}");
        let ran = Ran::from_bytes(
            &"o".repeat(OUTPUT_CHARS + 5).into_bytes(),
            b"Traceback (most recent call last):\nNameError: x\n",
            false,
            vec![],
        );
        let t = ran_text(&ran);
        assert!(
            t.starts_with("Verdict: not executable: its stderr has a traceback."),
            "{t}"
        );
        assert!(t.contains("[… 5 characters before]"), "{t}");
        assert!(t.contains("NameError: x"), "{t}");
    }
}
