//! What a template is for and what it may use: declared in Rust beside the
//! step that renders it, checked against every edit.

/// One template: its name (`<paper>.<step>.<part>`, e.g.
/// `travel.orchestrator.turn`), what it is, and the variables the step
/// gives it.
#[derive(Clone, Copy, Debug)]
pub struct TemplateSpec {
    pub name: &'static str,
    pub about: &'static str,
    pub vars: &'static [Var],
}

/// A variable a step gives its template. A required one must be used (a
/// template that drops it would lose what the step is about); an optional
/// one may be left out.
#[derive(Clone, Copy, Debug)]
pub struct Var {
    pub name: &'static str,
    pub about: &'static str,
    pub required: bool,
    pub kind: VarKind,
}

/// What a variable holds (a preview fills each with a value of its kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    Text,
    Number,
    /// True or false: for `{% if … %}`.
    Flag,
}

impl Var {
    pub const fn required(name: &'static str, about: &'static str) -> Var {
        Var {
            name,
            about,
            required: true,
            kind: VarKind::Text,
        }
    }
    pub const fn optional(name: &'static str, about: &'static str) -> Var {
        Var {
            name,
            about,
            required: false,
            kind: VarKind::Text,
        }
    }
    /// The variable holds a number.
    pub const fn number(mut self) -> Var {
        self.kind = VarKind::Number;
        self
    }
    /// The variable is true or false.
    pub const fn flag(mut self) -> Var {
        self.kind = VarKind::Flag;
        self
    }
}

impl TemplateSpec {
    pub const fn new(name: &'static str, about: &'static str, vars: &'static [Var]) -> Self {
        TemplateSpec { name, about, vars }
    }

    pub fn var(&self, name: &str) -> Option<&Var> {
        self.vars.iter().find(|v| v.name == name)
    }
}
