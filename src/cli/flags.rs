//! A command's options as given (`--name value`, `--name=value` or a bare
//! `--name`), read by whoever knows them: the common model options
//! (`common.rs`) and each paper's own (`cli/<paper>/`). Whatever no one
//! read is an error naming it, so a misspelt option never passes silently.

use std::cell::Cell;
use std::ffi::OsString;
use std::str::FromStr;

struct Flag {
    name: String,
    value: Option<String>,
    read: Cell<bool>,
}

pub struct Flags {
    /// The command, named in errors.
    pub command: String,
    flags: Vec<Flag>,
    /// Words that are not options (`pool merge A B`).
    pub words: Vec<String>,
}

impl Flags {
    /// Reads `args` (after the command): a word after an option is its
    /// value unless it is itself an option.
    pub fn parse(command: &str, args: impl IntoIterator<Item = OsString>) -> Result<Flags, String> {
        let mut words: Vec<String> = Vec::new();
        for a in args {
            words.push(
                a.into_string()
                    .map_err(|a| format!("{} is not valid UTF-8", a.to_string_lossy()))?,
            );
        }
        let mut out = Flags {
            command: command.to_string(),
            flags: Vec::new(),
            words: Vec::new(),
        };
        let mut i = 0;
        while i < words.len() {
            let w = &words[i];
            let name = match w.strip_prefix("--") {
                Some(n) if !n.is_empty() => n.to_string(),
                _ if w == "-q" => {
                    // A bare switch: the word after it is not its value.
                    out.flags.push(Flag {
                        name: "quiet".into(),
                        value: None,
                        read: Cell::new(false),
                    });
                    i += 1;
                    continue;
                }
                _ => {
                    out.words.push(w.clone());
                    i += 1;
                    continue;
                }
            };
            let (name, value) = match name.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => match words.get(i + 1) {
                    Some(next) if !next.starts_with("--") && next != "-q" => {
                        i += 1;
                        (name, Some(next.clone()))
                    }
                    _ => (name, None),
                },
            };
            out.flags.push(Flag {
                name,
                value,
                read: Cell::new(false),
            });
            i += 1;
        }
        Ok(out)
    }

    /// The option `--name`, marked read. Given more than once, it must say
    /// the same each time: `--max-tokens 160 … --max-tokens 80` is an
    /// error, not the last one read in silence.
    fn last(&self, name: &str) -> Result<Option<&Flag>, String> {
        let given: Vec<&Flag> = self.flags.iter().filter(|f| f.name == name).collect();
        for f in &given {
            f.read.set(true);
        }
        let shown = |f: &Flag| f.value.clone().unwrap_or_else(|| "(no value)".into());
        match given.split_last() {
            Some((last, rest)) if rest.iter().any(|f| f.value != last.value) => Err(format!(
                "--{name} is given more than once, with different values ({}): give it once",
                given
                    .iter()
                    .map(|f| shown(f))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Some((last, _)) => Ok(Some(*last)),
            None => Ok(None),
        }
    }

    /// Whether `--name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f.name == name)
    }

    /// `--name VALUE`.
    pub fn text(&self, name: &str) -> Result<Option<String>, String> {
        match self.last(name)? {
            None => Ok(None),
            Some(Flag { value: Some(v), .. }) => Ok(Some(v.clone())),
            Some(_) => Err(format!("--{name} needs a value")),
        }
    }

    /// A bare `--name`.
    pub fn switch(&self, name: &str) -> Result<bool, String> {
        match self.last(name)? {
            None => Ok(false),
            Some(Flag { value: None, .. }) => Ok(true),
            Some(Flag { value: Some(v), .. }) => {
                Err(format!("--{name} takes no value, but \"{v}\" follows it"))
            }
        }
    }

    /// `--name N`, a whole number.
    pub fn number<T: FromStr>(&self, name: &str) -> Result<Option<T>, String> {
        match self.text(name)? {
            None => Ok(None),
            Some(t) => t
                .trim()
                .parse::<T>()
                .map(Some)
                .map_err(|_| format!("--{name} needs a whole number, got \"{t}\"")),
        }
    }

    /// `--name X`, a finite number.
    pub fn real(&self, name: &str) -> Result<Option<f64>, String> {
        match self.text(name)? {
            None => Ok(None),
            Some(t) => t
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .map(Some)
                .ok_or_else(|| format!("--{name} needs a number, got \"{t}\"")),
        }
    }

    /// `--name a,b,c`: each item, trimmed, read by `item`.
    pub fn list<T>(
        &self,
        name: &str,
        item: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<Vec<T>>, String> {
        (self.text(name)?)
            .map(|list| list.split(',').map(|x| item(x.trim())).collect())
            .transpose()
    }

    /// An error for every option no one read, and for stray words.
    pub fn finish(&self) -> Result<(), String> {
        if let Some(f) = self.flags.iter().find(|f| !f.read.get()) {
            return Err(format!(
                "`{}` has no option --{}; see `roundtable help`",
                self.command, f.name
            ));
        }
        match self.words.first() {
            Some(w) => Err(format!(
                "`{}` takes no word \"{w}\" here; options start with --",
                self.command
            )),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Parses `s` as the options of `run` (for tests of any command).
    pub(in crate::cli) fn flags(s: &[&str]) -> Flags {
        Flags::parse("run", s.iter().map(OsString::from)).expect("parsed")
    }

    #[test]
    fn values_switches_and_numbers() {
        let f = flags(&[
            "--task",
            "hi there",
            "--json",
            "--concurrency=3",
            "-q",
            "--alpha",
            "-0.5",
        ]);
        assert_eq!(f.text("task"), Ok(Some("hi there".into())));
        assert_eq!(f.switch("json"), Ok(true));
        assert_eq!(f.number::<u32>("concurrency"), Ok(Some(3)));
        assert_eq!(f.switch("quiet"), Ok(true));
        assert_eq!(f.real("alpha"), Ok(Some(-0.5)));
        assert_eq!(f.text("model"), Ok(None));
        assert!(f.finish().is_ok());
    }

    #[test]
    fn mistakes_are_named() {
        let f = flags(&[
            "--concurrency",
            "x",
            "--judge",
            "yes",
            "--task",
            "--tsk",
            "t",
        ]);
        assert!(f
            .number::<u32>("concurrency")
            .unwrap_err()
            .contains("whole number"));
        assert!(f.switch("judge").unwrap_err().contains("takes no value"));
        assert!(f.text("task").unwrap_err().contains("needs a value"));
        let err = f.finish().unwrap_err();
        assert!(err.contains("no option --tsk"), "{err}");
        let f = flags(&["stray"]);
        assert!(f.finish().unwrap_err().contains("\"stray\""));
        let f = flags(&["merge", "-q", "a.json", "b.json"]);
        assert_eq!(f.switch("quiet"), Ok(true));
        assert_eq!(f.words, ["merge", "a.json", "b.json"]);
    }

    #[test]
    fn an_option_given_twice_must_say_the_same() {
        let f = flags(&["--max-tokens", "160", "--json", "--max-tokens", "80"]);
        let err = f.number::<u32>("max-tokens").unwrap_err();
        assert!(
            err.contains("--max-tokens is given more than once") && err.contains("160, 80"),
            "{err}"
        );
        let f = flags(&["--quiet", "-q", "--task", "a", "--task=a"]);
        assert_eq!(f.switch("quiet"), Ok(true));
        assert_eq!(f.text("task"), Ok(Some("a".into())));
        let f = flags(&["--json", "--json=yes"]);
        assert!(f.switch("json").unwrap_err().contains("more than once"));
    }
}
