//! AgentVerse's tool-using tasks (ACT §4.3): the tools its agents call, on
//! a run's workspace. `filesystem`: FileSystemEnv's four tools, with their
//! arguments read as the tools' JSON Schemas state them; `notebook`:
//! PythonNotebook's two, on the workspace's Python; `web`: WebEnv's two,
//! through a SearXNG JSON API the user sets; `tasks`: the ten tasks (and
//! `builtin`, a few of our own).

pub mod builtin;
pub mod filesystem;
pub mod notebook;
pub mod tasks;
pub mod web;
