//! A generated software project as ChatDev's evaluation script
//! (`chatdev/eval_quality.py`, commit 46370307) reads it, quirks included:
//! the files in the order `os.walk` lists them, joined into one code book,
//! completeness read from its lines, the folder whose `main.py` is run, and
//! the code with its comments removed for consistency. Pure: the files come
//! from a folder (the CLI) or from a run's workspace (the page), running is
//! the caller's.

use crate::engine::base::workspace::Workspace;

/// One file of a project: its path under the project's folder ("/"
/// between parts) and its text, as Python reads it (universal newlines:
/// `\r\n` and a lone `\r` are `\n`).
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    pub path: String,
    pub text: String,
}

impl File {
    pub fn new(path: &str, text: &str) -> File {
        File {
            path: path.to_string(),
            text: universal_newlines(text),
        }
    }

    /// The file's name (its path's last part).
    pub fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }

    /// The folder it is in ("" at the project's top).
    pub fn folder(&self) -> &str {
        self.path.rsplit_once('/').map_or("", |(dir, _)| dir)
    }
}

/// A project: its files in `os.walk` order (top-down; in each folder, its
/// files in the order the folder lists them, then its folders' files).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Project {
    pub files: Vec<File>,
}

impl Project {
    /// A run's workspace as the metric reads it, in the order `walk` gives.
    pub fn of(ws: &Workspace) -> Project {
        Project {
            files: ws
                .walk()
                .into_iter()
                .map(|(p, text)| File::new(p, text))
                .collect(),
        }
    }
}

/// Python's text mode reads `\r\n` and a lone `\r` as `\n`.
fn universal_newlines(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Python's `str.isspace` (what `strip()` removes): Unicode white space and
/// the four separators U+001C–U+001F, which Rust's `char::is_whitespace`
/// leaves.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1C}'..='\u{1F}').contains(&c)
}

fn py_strip(s: &str) -> &str {
    s.trim_matches(py_space)
}

/// The words that excuse a line from the completeness check.
const EXCUSED: [&str; 4] = ["password", "passenger", "passed", "passes"];
/// The words that make a project incomplete.
const UNFINISHED: [&str; 2] = ["pass", "todo"];

impl Project {
    /// The code book (`get_code`): each `.py` file (its name ending so)
    /// with its blank lines dropped, under its name and a fence; files of
    /// the same name are one entry, in the first one's place with the last
    /// one's text (a Python dict keyed by name); `# None` when there is no
    /// code; the whole stripped.
    pub fn code(&self) -> String {
        let mut book: Vec<(&str, String)> = Vec::new();
        for f in self.files.iter().filter(|f| f.name().ends_with(".py")) {
            let text: Vec<&str> = f
                .text
                .split('\n')
                .filter(|l| !py_strip(l).is_empty())
                .collect();
            let text = text.join("\n");
            match book.iter_mut().find(|(name, _)| *name == f.name()) {
                Some(entry) => entry.1 = text,
                None => book.push((f.name(), text)),
            }
        }
        let mut code = String::new();
        for (name, text) in &book {
            code.push_str(&format!("{name}\n```Python\n{text}\n```\n\n"));
        }
        if code.is_empty() {
            code = "# None".into();
        }
        py_strip(&code).to_string()
    }

    /// Completeness (0 or 1): 0 when a line of the code book (its file
    /// headers and fences too) says `pass` or `todo`, in any case, and none
    /// of `password`, `passenger`, `passed`, `passes`.
    pub fn completeness(&self) -> f64 {
        let unfinished = self.code().split('\n').any(|line| {
            let l = line.to_lowercase();
            !EXCUSED.iter().any(|w| l.contains(w)) && UNFINISHED.iter().any(|w| l.contains(w))
        });
        if unfinished {
            0.0
        } else {
            1.0
        }
    }

    /// The folder `python3 main.py` is run in: that of the last file, in
    /// walk order, whose name contains `.py` anywhere (`notes.pyc` too);
    /// None when there is none (executability 0). `main.py` need not be
    /// there: Python then says it cannot open it, which is no traceback.
    pub fn run_folder(&self) -> Option<&str> {
        self.files
            .iter()
            .rev()
            .find(|f| f.name().contains(".py"))
            .map(File::folder)
    }

    /// The code compared with the requirement (`get_consistency`): the code
    /// book without comment lines (stripped, starting with `#`), then
    /// without the text inside every `'''…'''` (wherever else that text is
    /// found too) and the empty `''''''` before a line break; then the same
    /// for `"""…"""` — whose empty pair stays, as the script leaves it.
    /// Empty, it is `#`.
    pub fn code_for_consistency(&self) -> String {
        let code = remove_quoted(&self.code(), "'''");
        let code = remove_quoted(&code, "\"\"\"");
        if code.is_empty() {
            "#".into()
        } else {
            code
        }
    }
}

/// One pass of the script's `remove_comments_by_regex`: comment lines
/// dropped, then each text between a pair of `quote`s (`re.finditer` of
/// `quote(.*?)quote`, dot matching line breaks) replaced by nothing
/// wherever it occurs, then every `''''''` followed by a line break.
fn remove_quoted(code: &str, quote: &str) -> String {
    let lines: Vec<&str> = code
        .split('\n')
        .filter(|l| !py_strip(l).starts_with('#'))
        .collect();
    let mut s = lines.join("\n");
    let mut inside = Vec::new();
    let mut rest = s.as_str();
    while let Some(open) = rest.find(quote) {
        let after = &rest[open + quote.len()..];
        let Some(close) = after.find(quote) else {
            break;
        };
        inside.push(after[..close].to_string());
        rest = &after[close + quote.len()..];
    }
    for text in inside.iter().filter(|t| !t.is_empty()) {
        s = s.replace(text.as_str(), "");
    }
    s.replace("''''''\n", "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> Project {
        Project {
            files: files.iter().map(|(p, t)| File::new(p, t)).collect(),
        }
    }

    #[test]
    fn the_code_book_is_the_scripts() {
        let p = project(&[
            ("main.py", "import os\r\n\r\nprint(1)\n   \n"),
            ("README.md", "pass"),
            ("lib/util.py", "x = 1\n"),
            ("util.py", "y = 2\n"),
        ]);
        // util.py keeps lib/util.py's place with the top one's text.
        assert_eq!(
            p.code(),
            "main.py\n```Python\nimport os\nprint(1)\n```\n\nutil.py\n```Python\ny = 2\n```"
        );
        assert_eq!(Project::default().code(), "# None");
        // Python's strip() takes U+001C as space; a line of it is blank.
        assert_eq!(
            project(&[("a.py", "a\n\u{1C}\nb")]).code(),
            "a.py\n```Python\na\nb\n```"
        );
    }

    #[test]
    fn completeness_reads_every_line_of_the_code_book() {
        let c = |files: &[(&str, &str)]| project(files).completeness();
        assert_eq!(c(&[("main.py", "print('done')")]), 1.0);
        assert_eq!(c(&[("main.py", "def f():\n    pass")]), 0.0);
        assert_eq!(c(&[("main.py", "# TODO: the rest")]), 0.0);
        assert_eq!(
            c(&[("main.py", "password = input()\nif ok: passes += 1")]),
            1.0
        );
        // A line with an excusing word is excused whatever else it says.
        assert_eq!(c(&[("main.py", "pass  # the password")]), 1.0);
        // File names are lines of the book too.
        assert_eq!(c(&[("bypass.py", "print(1)")]), 0.0);
        assert_eq!(c(&[("todo_list.py", "print(1)")]), 0.0);
        assert_eq!(c(&[("passwords.py", "print(1)")]), 1.0);
        // Only `.py` files count.
        assert_eq!(c(&[("main.py", "print(1)"), ("notes.txt", "TODO")]), 1.0);
        assert_eq!(c(&[]), 1.0);
    }

    #[test]
    fn the_run_folder_is_the_last_files_with_py_in_its_name() {
        let p = project(&[("main.py", ""), ("game/board.py", ""), ("data.txt", "")]);
        assert_eq!(p.run_folder(), Some("game"));
        let p = project(&[("game/board.py", ""), ("cache/x.pyc", "")]);
        assert_eq!(p.run_folder(), Some("cache"));
        assert_eq!(project(&[("a.txt", "")]).run_folder(), None);
        assert_eq!(project(&[("main.py", "")]).run_folder(), Some(""));
    }

    #[test]
    fn comments_are_removed_as_the_script_removes_them() {
        let p = project(&[(
            "main.py",
            "# a comment\nx = 1  # kept\n'''doc'''\ny = 'doc'\n\"\"\"more\"\"\"\n",
        )]);
        // The docstrings' texts go wherever they are ('doc' in y's value);
        // the empty ''' pair before a line break goes, the \"\"\" one stays.
        assert_eq!(
            p.code_for_consistency(),
            "main.py\n```Python\nx = 1  # kept\ny = ''\n\"\"\"\"\"\"\n```"
        );
        assert_eq!(
            project(&[("a.py", "'''")]).code_for_consistency(),
            "a.py\n```Python\n'''\n```"
        );
    }
}
