//! The prompt file: the defaults beside each paper's code, what `roundtable
//! prompts` prints and `--prompts FILE` reads, what the page exports and
//! imports. Plain text, written to be edited by hand:
//!
//! ```text
//! # Lines before the first template are comments.
//! === travel.orchestrator.system ===
//! You coordinate a team of travel-planning experts …
//! === travel.orchestrator.turn ===
//! …
//! ```
//!
//! A template's text is every line after its `=== name ===` line up to the
//! next such line, the line break before it (or the file's last one) not
//! included: so a text that ends with a line break shows as one blank line
//! before the next name, and a line number in the file is a line number in
//! the template (plus its header's).

/// One template as the file holds it: its name, its text, and the line of
/// the file its text starts on (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub text: String,
    pub line: usize,
}

/// The name on a header line (`=== name ===`), if it is one.
pub(super) fn header(line: &str) -> Option<&str> {
    let name = line.strip_prefix("=== ")?.strip_suffix(" ===")?;
    (!name.is_empty() && !name.contains(char::is_whitespace)).then_some(name)
}

/// The templates in a prompt file, in order; an error (with its line) for
/// text before the first template, a header without a name, or a name
/// given twice.
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut out: Vec<Entry> = Vec::new();
    let mut body: Option<Vec<&str>> = None;
    let close = |out: &mut Vec<Entry>, body: Option<Vec<&str>>| {
        if let (Some(lines), Some(last)) = (body, out.last_mut()) {
            last.text = lines.join("\n");
        }
    };
    let mut lines: Vec<&str> = text.split('\n').collect();
    // The file's last line break ends the last template's text.
    if text.ends_with('\n') {
        lines.pop();
    }
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(name) = header(line) {
            if out.iter().any(|e| e.name == name) {
                return Err(format!("line {n}: the template {name} is given twice"));
            }
            close(&mut out, body.take());
            out.push(Entry {
                name: name.to_string(),
                text: String::new(),
                line: n + 1,
            });
            body = Some(Vec::new());
            continue;
        }
        match body.as_mut() {
            Some(b) => b.push(line),
            None if line.trim().is_empty() || line.starts_with('#') => {}
            None if line.starts_with("===") => {
                return Err(format!(
                    "line {n}: a template starts with a line \"=== name ===\" (a name without spaces)"
                ))
            }
            None => {
                return Err(format!(
                    "line {n}: text before the first template: each starts with a line \"=== name ===\""
                ))
            }
        }
    }
    close(&mut out, body);
    Ok(out)
}

/// A prompt file of these templates (name, text), after `comment` (each
/// of its lines made a `#` line).
pub fn write<'a>(comment: &str, templates: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut s = String::new();
    for line in comment.lines() {
        s.push('#');
        if !line.is_empty() {
            s.push(' ');
            s.push_str(line);
        }
        s.push('\n');
    }
    for (name, text) in templates {
        s.push_str(&format!("=== {name} ===\n{text}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_round_trips_every_text_exactly() {
        let texts = [
            ("a.one", "Hello {{ name }}."),
            ("a.two", "Ends with a line break\n"),
            ("a.three", ""),
            ("a.four", "Two\n\nparagraphs, then two breaks\n\n"),
        ];
        let file = write("Roundtable prompts.\nEdit below.", texts);
        assert!(file.starts_with("# Roundtable prompts.\n# Edit below.\n=== a.one ===\n"));
        let back = parse(&file).expect("parsed");
        let got: Vec<(&str, &str)> = back
            .iter()
            .map(|e| (e.name.as_str(), e.text.as_str()))
            .collect();
        assert_eq!(got, texts);
        // Line numbers are the file's: a.one's text is on line 4.
        assert_eq!(back[0].line, 4);
        assert_eq!(back[1].line, 6);
        // A file without its last line break (an editor that drops it)
        // reads the same when its last text ends without one.
        let last = write("", [("b", "no break at the end")]);
        let trimmed = last.strip_suffix('\n').expect("ends with one");
        assert_eq!(
            parse(trimmed).expect("parsed")[0].text,
            "no break at the end"
        );
        // Windows line ends read as the same text.
        let crlf = file.replace('\n', "\r\n");
        assert_eq!(parse(&crlf).expect("parsed")[0].text, texts[0].1);
    }

    #[test]
    fn a_file_that_is_not_one_is_refused_with_its_line() {
        let e = parse("hello\n=== a ===\nx\n").expect_err("refused");
        assert!(
            e.starts_with("line 1: text before the first template"),
            "{e}"
        );
        let e = parse("=== a ===\nx\n=== a ===\ny\n").expect_err("refused");
        assert!(e.contains("line 3") && e.contains("given twice"), "{e}");
        let e = parse("=== two words ===\nx\n").expect_err("refused");
        assert!(e.contains("line 1"), "{e}");
        assert_eq!(parse("").expect("empty"), Vec::new());
        assert_eq!(parse("# only a comment\n").expect("empty"), Vec::new());
    }
}
