//! The templates a run renders from: a paper's defaults with the run's
//! edits, every edit checked before the run starts.

use super::file::{header, parse};
use super::spec::TemplateSpec;
use minijinja::{Environment, UndefinedBehavior, Value};
use std::collections::BTreeMap;
use std::fmt;

/// Why a template cannot be used: which one, where, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptError {
    pub template: String,
    /// The line in the template (1-based), where one is known.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(n) => write!(
                f,
                "the prompt template {}, line {n}: {}",
                self.template, self.message
            ),
            None => write!(f, "the prompt template {}: {}", self.template, self.message),
        }
    }
}

impl PromptError {
    fn new(template: &str, line: Option<usize>, message: impl Into<String>) -> Self {
        PromptError {
            template: template.to_string(),
            line,
            message: message.into(),
        }
    }
}

/// A paper's templates for one run: its defaults, with `edits` put in their
/// place (each checked).
pub struct Prompts {
    env: Environment<'static>,
    specs: &'static [TemplateSpec],
    defaults: BTreeMap<String, String>,
    edits: BTreeMap<String, String>,
}

impl Prompts {
    /// The defaults (`defaults`, a prompt file) with `edits` (name → text)
    /// over them. Refused: a default file that does not declare exactly
    /// `specs` (a bug, caught by the paper's tests), and any edit that
    /// names no template, holds a line that would start another, does not
    /// parse, uses a variable its step does not give or leaves out one it
    /// must use.
    pub fn new(
        defaults: &str,
        specs: &'static [TemplateSpec],
        edits: &BTreeMap<String, String>,
    ) -> Result<Prompts, PromptError> {
        let file = parse(defaults).map_err(|e| PromptError::new("(defaults)", None, e))?;
        let mut by_name: BTreeMap<String, String> = BTreeMap::new();
        for e in file {
            if !specs.iter().any(|s| s.name == e.name) {
                return Err(PromptError::new(
                    &e.name,
                    None,
                    "the defaults hold a template no step declares",
                ));
            }
            by_name.insert(e.name, e.text);
        }
        if let Some(s) = specs.iter().find(|s| !by_name.contains_key(s.name)) {
            return Err(PromptError::new(
                s.name,
                None,
                "declared, but the defaults have no text for it",
            ));
        }
        let mut env = Environment::new();
        env.set_keep_trailing_newline(true);
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        // Prompts are text, never HTML: nothing is escaped.
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        let mut used = BTreeMap::new();
        for (name, text) in &by_name {
            let text = edits.get(name).unwrap_or(text);
            env.add_template_owned(name.clone(), text.clone())
                .map_err(|e| syntax(name, &e))?;
            used.insert(name.clone(), text.clone());
        }
        for name in edits.keys() {
            if !specs.iter().any(|s| s.name == name) {
                return Err(PromptError::new(
                    name,
                    None,
                    format!(
                        "no step uses a template of this name (the templates: {})",
                        names(specs)
                    ),
                ));
            }
        }
        // Every template the run will render, edited or not.
        for spec in specs {
            check(&env, spec, &used[spec.name])?;
        }
        Ok(Prompts {
            env,
            specs,
            defaults: by_name,
            edits: edits.clone(),
        })
    }

    /// The text of `name` that this run renders (its edit, else its default).
    pub fn text(&self, name: &str) -> Option<&str> {
        self.edits
            .get(name)
            .or_else(|| self.defaults.get(name))
            .map(String::as_str)
    }

    /// The default text of `name`.
    pub fn default_text(&self, name: &str) -> Option<&str> {
        self.defaults.get(name).map(String::as_str)
    }

    /// The templates this run changed (name → text).
    pub fn edits(&self) -> &BTreeMap<String, String> {
        &self.edits
    }

    pub fn specs(&self) -> &'static [TemplateSpec] {
        self.specs
    }

    /// Renders `name` with the step's `vars`.
    pub fn render(&self, name: &str, vars: Value) -> Result<String, PromptError> {
        let t = self
            .env
            .get_template(name)
            .map_err(|e| PromptError::new(name, None, e.to_string()))?;
        t.render(vars).map_err(|e| {
            PromptError::new(
                name,
                e.line(),
                e.detail()
                    .map_or_else(|| e.kind().to_string(), str::to_string),
            )
        })
    }
}

fn names(specs: &[TemplateSpec]) -> String {
    specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

fn syntax(name: &str, e: &minijinja::Error) -> PromptError {
    PromptError::new(
        name,
        e.line(),
        format!(
            "it cannot be read: {}",
            e.detail()
                .map_or_else(|| e.kind().to_string(), str::to_string)
        ),
    )
}

/// An edit checked against its step: no line that would start another
/// template in a prompt file, no variable the step does not give, every
/// one it must use used.
fn check(env: &Environment<'static>, spec: &TemplateSpec, text: &str) -> Result<(), PromptError> {
    if let Some(i) = text.lines().position(|l| header(l).is_some()) {
        return Err(PromptError::new(
            spec.name,
            Some(i + 1),
            "a line of the form \"=== name ===\" would start another template in a prompt file",
        ));
    }
    let t = env
        .get_template(spec.name)
        .map_err(|e| syntax(spec.name, &e))?;
    let used = t.undeclared_variables(false);
    let known = || {
        spec.vars
            .iter()
            .map(|v| v.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut unknown: Vec<&String> = used.iter().filter(|u| spec.var(u).is_none()).collect();
    unknown.sort();
    if let Some(u) = unknown.first() {
        return Err(PromptError::new(
            spec.name,
            line_of(text, u),
            format!(
                "it uses {{{{ {u} }}}}, which this step does not give (it gives: {})",
                if spec.vars.is_empty() {
                    "none".to_string()
                } else {
                    known()
                }
            ),
        ));
    }
    if let Some(v) = spec
        .vars
        .iter()
        .find(|v| v.required && !used.contains(v.name))
    {
        return Err(PromptError::new(
            spec.name,
            None,
            format!("it must use {{{{ {} }}}} ({})", v.name, v.about),
        ));
    }
    Ok(())
}

/// The first line (1-based) where `name` is used inside a tag.
fn line_of(text: &str, name: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            (l.contains("{{") || l.contains("{%"))
                && l.match_indices(name).any(|(i, _)| {
                    let before = l[..i].chars().next_back();
                    let after = l[i + name.len()..].chars().next();
                    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                    !word(before) && !word(after)
                })
        })
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::prompts::{vars, Var};

    static SPECS: [TemplateSpec; 2] = [
        TemplateSpec::new(
            "t.turn",
            "a turn",
            &[
                Var::required("task", "the task"),
                Var::optional("hint", "a hint"),
            ],
        ),
        TemplateSpec::new("t.system", "the system prompt", &[]),
    ];

    const DEFAULTS: &str = "=== t.turn ===\n# Task\n{{ task }}{% if hint %}\nHint: {{ hint }}{% endif %}\n\n=== t.system ===\nYou help.\n";

    fn edits(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn defaults_render_exactly_and_edits_take_their_place() {
        let p = Prompts::new(DEFAULTS, &SPECS, &BTreeMap::new()).expect("defaults");
        assert_eq!(
            p.render("t.turn", vars! { task => "Plan it.", hint => "" })
                .expect("rendered"),
            "# Task\nPlan it.\n"
        );
        assert_eq!(
            p.render("t.turn", vars! { task => "Plan it.", hint => "cheap" })
                .expect("rendered"),
            "# Task\nPlan it.\nHint: cheap\n"
        );
        assert_eq!(
            p.render("t.system", vars! {}).expect("rendered"),
            "You help."
        );
        let p = Prompts::new(
            DEFAULTS,
            &SPECS,
            &edits(&[("t.system", "You help <b>cheaply</b> & fast.")]),
        )
        .expect("an edit");
        // Nothing is escaped: prompts are text.
        assert_eq!(
            p.render("t.system", vars! {}).expect("rendered"),
            "You help <b>cheaply</b> & fast."
        );
        assert_eq!(p.default_text("t.system"), Some("You help."));
        assert_eq!(p.edits().len(), 1);
    }

    #[test]
    fn an_edit_is_refused_with_its_template_and_line() {
        let refused = |name: &str, text: &str| {
            Prompts::new(DEFAULTS, &SPECS, &edits(&[(name, text)]))
                .err()
                .unwrap_or_else(|| panic!("{name}: {text:?} accepted"))
        };
        // A variable the step does not give, with its line.
        let e = refused("t.turn", "# Task\n{{ task }}\n{{ budget }}");
        assert_eq!((e.template.as_str(), e.line), ("t.turn", Some(3)));
        assert!(
            e.message.contains("{{ budget }}") && e.message.contains("task, hint"),
            "{e}"
        );
        assert!(
            e.to_string()
                .starts_with("the prompt template t.turn, line 3: "),
            "{e}"
        );
        // A required one left out.
        let e = refused("t.turn", "# Task\nDo what you like.");
        assert!(e.message.contains("must use {{ task }}"), "{e}");
        // A syntax error, with its line.
        let e = refused("t.turn", "# Task\n{{ task }}\n{% if hint %}no end");
        assert_eq!(e.line, Some(3), "{e}");
        assert!(e.message.starts_with("it cannot be read"), "{e}");
        // An unknown template, and a line that would split the file.
        let e = refused("t.other", "x");
        assert!(e.message.contains("t.turn, t.system"), "{e}");
        let e = refused("t.system", "You help.\n=== t.turn ===\n");
        assert_eq!(e.line, Some(2), "{e}");
        // Undeclared in the system prompt: it gives nothing.
        let e = refused("t.system", "Hi {{ name }}");
        assert!(e.message.contains("gives: none"), "{e}");
    }
}
