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
pub use spec::{TemplateSpec, Var, VarKind};

/// A template's variables, as the step gives them (minijinja's values:
/// text, numbers, booleans, lists).
pub use minijinja::context as vars;
pub use minijinja::Value;

/// The edits a prompt file makes (name → text): its templates whose text
/// differs from the default (a file may hold every template, as
/// `roundtable prompts` prints them, or only the ones it changes), each
/// checked with the rest. An error names the file's line.
pub fn edits_in_file(
    text: &str,
    defaults: &str,
    specs: &'static [TemplateSpec],
) -> Result<std::collections::BTreeMap<String, String>, String> {
    let entries = parse(text)?;
    let base = Prompts::new(defaults, specs, &Default::default())
        .map_err(|e| format!("the defaults: {e}"))?;
    let edits: std::collections::BTreeMap<String, String> = entries
        .iter()
        .filter(|e| base.default_text(&e.name) != Some(e.text.as_str()))
        .map(|e| (e.name.clone(), e.text.clone()))
        .collect();
    match Prompts::new(defaults, specs, &edits) {
        Ok(_) => Ok(edits),
        Err(e) => {
            let at = entries.iter().find(|x| x.name == e.template);
            Err(match (at, e.line) {
                (Some(x), Some(n)) => format!("line {}: {e}", x.line + n - 1),
                (Some(x), None) => format!("line {}: {e}", x.line.saturating_sub(1)),
                _ => e.to_string(),
            })
        }
    }
}

/// A prompt file of `specs`' templates as `prompts` renders them (every
/// one: its edit or its default), headed by what each is for and the
/// variables it is given: what `roundtable prompts` prints and the page
/// exports.
pub fn file_of(prompts: &Prompts, title: &str) -> String {
    let mut comment = format!(
        "{title}\nEach template's text follows its \"=== name ===\" line, up to the next one; {{{{ name }}}}\n\
         is a variable the step fills in, {{% if … %}} … {{% endif %}} a part it may leave out.\n\
         Edit the texts and pass the file back (roundtable run --prompts FILE, or the page's\n\
         Prompts panel); a template you leave out or leave as it is keeps its default.\n\n"
    );
    for s in prompts.specs() {
        comment.push_str(&format!("{}: {}\n", s.name, s.about));
        for v in s.vars {
            let must = if v.required { "must use" } else { "may use" };
            comment.push_str(&format!("    {{{{ {} }}}} ({must}): {}\n", v.name, v.about));
        }
    }
    write(
        comment.trim_end(),
        prompts
            .specs()
            .iter()
            .map(|s| (s.name, prompts.text(s.name).unwrap_or_default())),
    )
}

/// Values to preview a template with: each variable of `spec` filled with
/// a stand-in of its kind (`⟨name⟩` for a text, `given` where it names
/// one: the page's task for `task`), flags true.
pub fn preview_vars(spec: &TemplateSpec, given: &[(&str, &str)]) -> Value {
    let mut map = std::collections::BTreeMap::new();
    for v in spec.vars {
        let value = match v.kind {
            VarKind::Flag => Value::from(true),
            VarKind::Number => Value::from(3),
            VarKind::Text => match given.iter().find(|(n, _)| *n == v.name) {
                Some((_, t)) if !t.trim().is_empty() => Value::from(*t),
                _ => Value::from(format!("⟨{}⟩", v.name)),
            },
        };
        map.insert(v.name.to_string(), value);
    }
    Value::from_serialize(&map)
}
