//! A run's workspace: the files its agents write and read (MAEL's software
//! projects, ACT's file-system tools), each version kept with who wrote it
//! and when. A run's events carry every write (`file_written`), so a
//! replay, a fork or a share link rebuilds the same workspace by writing
//! them again (`run::files`), held to the same limits: a write beyond them
//! is refused whole, with a reason the agent and the viewer are shown.
//!
//! Running the files is the caller's (the page's Pyodide worker, the CLI's
//! CPython); SRDD's metric reads `walk()`. This is pure.

mod path;
mod zip;

pub use path::{check_path, MAX_DEPTH, MAX_NAME_BYTES, MAX_PATH_BYTES};
pub use zip::{crc32, zip};

use std::collections::BTreeMap;

/// The most files a workspace holds.
pub const MAX_FILES: usize = 64;
/// The largest file (bytes of UTF-8).
pub const MAX_FILE_BYTES: usize = 128 * 1024;
/// The most its files' latest versions hold together.
pub const MAX_TOTAL_BYTES: usize = 1024 * 1024;
/// The most every version of every file holds together (what the run's
/// log carries: a run that rewrites a file a hundred times is refused
/// before its log outgrows a browser tab).
pub const MAX_HISTORY_BYTES: usize = 4 * 1024 * 1024;

/// One version of a file.
#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    pub text: String,
    /// The agent that wrote it.
    pub agent: String,
    /// The event that wrote it (its place in the run's log).
    pub seq: u64,
    /// The LLM call whose answer it came from, if any.
    pub call: Option<u32>,
}

/// A write the workspace did not take, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub path: String,
    pub reason: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}", self.path, self.reason)
        }
    }
}

/// One line of the workspace's tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub depth: usize,
    pub name: String,
    /// A file's path; none for a folder.
    pub path: Option<String>,
}

impl Entry {
    /// The entry as a line: `indent` a level, after `mark`; a folder's
    /// name ends in "/".
    pub fn line(&self, indent: &str, mark: &str) -> String {
        let slash = if self.path.is_none() { "/" } else { "" };
        format!("{}{mark}{}{slash}", indent.repeat(self.depth), self.name)
    }
}

/// The files, by path (sorted, so every view lists them alike).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workspace {
    files: BTreeMap<String, Vec<Version>>,
    history_bytes: usize,
}

fn kb(bytes: usize) -> String {
    format!("{:.0} KB", (bytes as f64 / 1024.0).ceil())
}

impl Workspace {
    /// The path `text` would be kept under, if the workspace takes it.
    pub fn check(&self, path: &str, text: &str) -> Result<String, Refusal> {
        let refuse = |path: &str, reason: String| Refusal {
            path: path.chars().take(80).collect(),
            reason,
        };
        let path = check_path(path).map_err(|why| refuse(path, why))?;
        if text.len() > MAX_FILE_BYTES {
            return Err(refuse(
                &path,
                format!(
                    "{} is more than a file may hold ({})",
                    kb(text.len()),
                    kb(MAX_FILE_BYTES)
                ),
            ));
        }
        let old = self.latest(&path).map_or(0, |v| v.text.len());
        if old == 0 && !self.files.contains_key(&path) && self.files.len() >= MAX_FILES {
            return Err(refuse(
                &path,
                format!("the workspace already holds its {MAX_FILES} files"),
            ));
        }
        if let Some(clash) = self.clash(&path) {
            return Err(refuse(&path, clash));
        }
        let total = self.total_bytes() - old + text.len();
        if total > MAX_TOTAL_BYTES {
            return Err(refuse(
                &path,
                format!(
                    "the workspace would hold {}, more than its {}",
                    kb(total),
                    kb(MAX_TOTAL_BYTES)
                ),
            ));
        }
        if self.history_bytes + text.len() > MAX_HISTORY_BYTES {
            return Err(refuse(
                &path,
                format!(
                    "the run has written {} of files, its limit",
                    kb(MAX_HISTORY_BYTES)
                ),
            ));
        }
        Ok(path)
    }

    /// A file where a folder of that name is, or under a file's name.
    fn clash(&self, path: &str) -> Option<String> {
        let folder = format!("{path}/");
        if self.files.keys().any(|p| p.starts_with(&folder)) {
            return Some("a folder of that name holds files".into());
        }
        let mut at = 0;
        while let Some(i) = path[at..].find('/') {
            let up = &path[..at + i];
            if self.files.contains_key(up) {
                return Some(format!("{up} is a file, not a folder"));
            }
            at += i + 1;
        }
        None
    }

    /// Writes a new version of `path` (the kept path), or refuses it whole.
    pub fn write(
        &mut self,
        path: &str,
        text: &str,
        agent: &str,
        seq: u64,
        call: Option<u32>,
    ) -> Result<String, Refusal> {
        let path = self.check(path, text)?;
        self.history_bytes += text.len();
        self.files.entry(path.clone()).or_default().push(Version {
            text: text.to_string(),
            agent: agent.to_string(),
            seq,
            call,
        });
        Ok(path)
    }

    /// The latest version of a file (`path` as given or as kept).
    pub fn latest(&self, path: &str) -> Option<&Version> {
        let kept = check_path(path).ok()?;
        self.files.get(&kept).and_then(|v| v.last())
    }

    /// Every version of a file, oldest first.
    pub fn history(&self, path: &str) -> &[Version] {
        check_path(path)
            .ok()
            .and_then(|p| self.files.get(&p))
            .map_or(&[], Vec::as_slice)
    }

    /// The paths, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Each file's latest version, by path.
    pub fn files(&self) -> impl Iterator<Item = (&str, &Version)> {
        self.files
            .iter()
            .filter_map(|(p, v)| v.last().map(|v| (p.as_str(), v)))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// What the latest versions hold together (bytes).
    pub fn total_bytes(&self) -> usize {
        self.files().map(|(_, v)| v.text.len()).sum()
    }

    /// The tree, folders before the files beside them: each folder once,
    /// above what it holds.
    pub fn entries(&self) -> Vec<Entry> {
        let mut paths: Vec<&str> = self.paths().collect();
        // By the parts, a folder's own name marked as coming before any file's.
        paths.sort_by_key(|p| {
            let parts: Vec<&str> = p.split('/').collect();
            let last = parts.len() - 1;
            parts
                .into_iter()
                .enumerate()
                .map(|(i, s)| (i == last, s))
                .collect::<Vec<_>>()
        });
        let mut out = Vec::new();
        let mut open: Vec<&str> = Vec::new();
        for p in paths {
            let parts: Vec<&str> = p.split('/').collect();
            let (folders, name) = parts.split_at(parts.len() - 1);
            let same = open.iter().zip(folders).take_while(|(a, b)| a == b).count();
            open.truncate(same);
            for f in &folders[same..] {
                out.push(Entry {
                    depth: open.len(),
                    name: f.to_string(),
                    path: None,
                });
                open.push(f);
            }
            out.push(Entry {
                depth: open.len(),
                name: name[0].to_string(),
                path: Some(p.to_string()),
            });
        }
        out
    }

    /// The tree as text, two spaces a level, a folder's name ending in "/"
    /// (what an agent's "print the file system" shows).
    pub fn tree(&self) -> String {
        if self.is_empty() {
            return "(the workspace is empty)".into();
        }
        self.entries()
            .iter()
            .map(|e| e.line("  ", ""))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The latest versions in the order `os.walk` lists a folder written
    /// in path order (SRDD's metric reads files in that order): top-down,
    /// a folder's files, then each of its folders in turn.
    pub fn walk(&self) -> Vec<(&str, &str)> {
        let mut walk: Vec<(&str, &str)> = self.files().map(|(p, v)| (p, v.text.as_str())).collect();
        // A folder's parts sort before its folders' parts.
        walk.sort_by_cached_key(|(p, _)| {
            let (dir, name) = p.rsplit_once('/').unwrap_or(("", p));
            let parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
            (parts, name.to_string())
        });
        walk
    }

    /// The latest versions as a zip, under `folder/`.
    pub fn zip(&self, folder: &str) -> Vec<u8> {
        let files: Vec<(&str, &[u8])> = self.files().map(|(p, v)| (p, v.text.as_bytes())).collect();
        zip(folder, &files)
    }
}

#[cfg(test)]
mod tests;
