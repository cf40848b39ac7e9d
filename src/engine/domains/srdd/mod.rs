//! SRDD, ChatDev's Software Requirement Description Dataset (MAEL's
//! project-level code generation, Tables 2–3): its requirements, and the
//! official quality metric of a generated project (ChatDev's
//! `chatdev/eval_quality.py`, commit 46370307), quirks included.
//!
//! - `project`: what the script reads of a project (the code book,
//!   completeness, the folder it runs, the code without comments).
//! - `run`: what a run of `main.py` left (executability is read from it),
//!   Table 3's figures, and the runner a caller gives.
//! - Here: a requirement and the dataset's CSV; the four scores of Table 2.
//!
//! Running the project (3 s, then stopped) and embedding (consistency) are
//! the caller's: the CLI runs CPython (or Pyodide in Node), the page
//! Pyodide; the embedder is the run's, named beside the figure.

pub mod builtin;
pub mod project;
pub mod run;

use crate::engine::domains::travel::csv::read_table;
use serde::{Deserialize, Serialize};

/// How long `main.py` runs before it is stopped (a program still running
/// then, with no traceback, is executable).
pub const RUN_SECONDS: u64 = 3;

/// One requirement: a program to build.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Requirement {
    pub name: String,
    pub description: String,
    pub category: String,
}

impl Requirement {
    /// The task as the dataset states it.
    pub fn task(&self) -> String {
        format!("Develop the software {}: {}", self.name, self.description)
    }
}

/// The requirements of an SRDD CSV file (`Name,Description,Category`).
pub fn parse_csv(text: &str, file: &str) -> Result<Vec<Requirement>, String> {
    let table = read_table(text, file).map_err(|e| e.to_string())?;
    let col = |name: &str| {
        table.column(name).ok_or_else(|| {
            format!("{file}: no column {name:?} (SRDD has Name, Description, Category)")
        })
    };
    let (name, description, category) = (col("Name")?, col("Description")?, col("Category")?);
    let mut out = Vec::new();
    for r in &table.rows {
        let req = Requirement {
            name: r.get(name).trim().to_string(),
            description: r.get(description).trim().to_string(),
            category: r.get(category).trim().to_string(),
        };
        if req.name.is_empty() || req.description.is_empty() {
            return Err(format!(
                "{file} line {}: a requirement needs a name and a description",
                r.line
            ));
        }
        out.push(req);
    }
    if out.is_empty() {
        return Err(format!("{file}: no requirement in it"));
    }
    Ok(out)
}

/// Executability (0 or 1) of a project's run: 0 when its stderr said
/// `traceback` or was not UTF-8 ([`run::Ran::executability`]), and when
/// there was no `.py` file to run (`None`).
pub fn executability(ran: Option<&run::Ran>) -> f64 {
    ran.map_or(0.0, run::Ran::executability)
}

/// Table 2's four scores of one project.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    pub completeness: f64,
    pub executability: f64,
    /// The cosine of the requirement's and the code's embeddings.
    pub consistency: f64,
    /// completeness × executability × consistency.
    pub quality: f64,
}

impl Quality {
    pub fn new(completeness: f64, executability: f64, consistency: f64) -> Quality {
        Quality {
            completeness,
            executability,
            consistency,
            // + 0.0: a zero score times a negative cosine is 0, not -0.
            quality: completeness * executability * consistency + 0.0,
        }
    }
}

/// The cosine of two embeddings (0 when either is all zeros).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let n = norm(a) * norm(b);
    if n == 0.0 {
        0.0
    } else {
        dot / n
    }
}

/// The requirement text embedded for consistency: the script embeds
/// `None` for an empty one.
pub fn requirement_text(task: &str) -> &str {
    if task.is_empty() {
        "None"
    } else {
        task
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_to_run_is_not_executable() {
        assert_eq!(executability(None), 0.0);
        let ran = run::Ran::from_bytes(b"", b"", false, vec![]);
        assert_eq!(executability(Some(&ran)), 1.0);
    }

    #[test]
    fn quality_is_the_product_and_cosine_is_bounded() {
        let q = Quality::new(1.0, 1.0, 0.8);
        assert!((q.quality - 0.8).abs() < 1e-12);
        assert_eq!(Quality::new(0.0, 1.0, 0.9).quality, 0.0);
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-12);
        assert!((cosine(&[1.0, 0.0], &[-1.0, 0.0]) + 1.0).abs() < 1e-12);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }

    #[test]
    fn requirements_are_read_from_the_csv() {
        let csv =
            "Name,Description,Category\nMystic_Maze,\"A maze, with creatures.\",Action_Game\n";
        let r = parse_csv(csv, "srdd.csv").expect("read");
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].name, "Mystic_Maze");
        assert_eq!(r[0].category, "Action_Game");
        assert!(r[0].task().contains("A maze, with creatures."));
        let err = parse_csv("Name,Category\nx,y\n", "bad.csv").unwrap_err();
        assert!(err.contains("no column \"Description\""), "{err}");
        let err = parse_csv("Name,Description,Category\n,x,y\n", "bad.csv").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
    }
}
