//! Prompts as data. Every text a coordinator sends a model is a named
//! template (minijinja), its default in one file beside the paper's code
//! (`<paper>.prompts`, in [`file`]'s format: the same a user exports,
//! edits and passes back), its variables declared in Rust beside the step
//! that fills them ([`TemplateSpec`]). A run carries only the templates it
//! changed; [`Prompts`] is the set a run renders from: the defaults with
//! those edits, each edit checked first (its syntax, no variable the step
//! does not give, none it needs left out), a refusal naming the template
//! and the line.

mod file;
mod set;
mod spec;

pub use file::{parse, write, Entry};
pub use set::{PromptError, Prompts};
pub use spec::{TemplateSpec, Var};

/// A template's variables, as the step gives them (minijinja's values:
/// text, numbers, booleans, lists).
pub use minijinja::context as vars;
pub use minijinja::Value;
