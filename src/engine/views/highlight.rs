//! Syntax highlighting for the Files panel: a file's text as pieces, each
//! with its kind, which the page shows as text nodes (never as HTML, so a
//! file can hold anything). Python is lexed by its rules (strings with
//! their prefixes and triple quotes, comments, numbers, keywords, the name
//! a `def` or `class` gives); any other file is one plain piece. The
//! pieces joined are the text, always.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Plain,
    Keyword,
    /// The name a `def` or `class` introduces.
    Defined,
    Str,
    Comment,
    Number,
}

impl Kind {
    /// The CSS class the page gives the piece.
    pub fn class(self) -> &'static str {
        match self {
            Kind::Plain => "",
            Kind::Keyword => "hl-kw",
            Kind::Defined => "hl-def",
            Kind::Str => "hl-str",
            Kind::Comment => "hl-com",
            Kind::Number => "hl-num",
        }
    }
}

/// Python's keywords (3.12: hard and soft).
const KEYWORDS: [&str; 39] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "match", "case", "type", "self",
];

/// The pieces of `text`, lexed as the file's name says.
pub fn pieces<'a>(path: &str, text: &'a str) -> Vec<(Kind, &'a str)> {
    if path.ends_with(".py") || path.ends_with(".pyw") {
        python(text)
    } else {
        vec![(Kind::Plain, text)]
    }
}

fn ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Python source as pieces.
pub fn python(text: &str) -> Vec<(Kind, &str)> {
    // Pieces as byte ranges; adjacent plain ones are one.
    let mut spans: Vec<(Kind, usize, usize)> = Vec::new();
    let mut after_def = false;
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let Some(c) = rest.chars().next() else { break };
        let (kind, len) = if c == '#' {
            (Kind::Comment, rest.find('\n').unwrap_or(rest.len()))
        } else if let Some(len) = string_at(rest) {
            (Kind::Str, len)
        } else if ident_start(c) {
            let len = rest.find(|c: char| !ident_char(c)).unwrap_or(rest.len());
            let word = &rest[..len];
            let kind = if after_def {
                Kind::Defined
            } else if KEYWORDS.contains(&word) {
                Kind::Keyword
            } else {
                Kind::Plain
            };
            after_def = word == "def" || word == "class";
            (kind, len)
        } else if c.is_ascii_digit()
            || (c == '.' && rest[1..].starts_with(|d: char| d.is_ascii_digit()))
        {
            let mut len = 0;
            let mut prev = ' ';
            for ch in rest.chars() {
                let exponent_sign = (ch == '+' || ch == '-') && matches!(prev, 'e' | 'E');
                if !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_' || exponent_sign) {
                    break;
                }
                len += ch.len_utf8();
                prev = ch;
            }
            (Kind::Number, len)
        } else {
            if !c.is_whitespace() {
                after_def = false;
            }
            (Kind::Plain, c.len_utf8())
        };
        match spans.last_mut() {
            Some((Kind::Plain, _, end)) if kind == Kind::Plain => *end = i + len,
            _ => spans.push((kind, i, i + len)),
        }
        i += len;
    }
    spans
        .into_iter()
        .map(|(kind, a, b)| (kind, &text[a..b]))
        .collect()
}

/// The length of the string literal `s` starts with (its prefix, quotes
/// and body), if it starts with one. An unclosed one-line string ends at
/// its line's end, an unclosed triple-quoted one at the text's end.
fn string_at(s: &str) -> Option<usize> {
    let prefix = s
        .find(|c: char| !matches!(c, 'r' | 'R' | 'b' | 'B' | 'u' | 'U' | 'f' | 'F'))
        .unwrap_or(s.len());
    if prefix > 2 {
        return None;
    }
    let body = &s[prefix..];
    let quote = body.chars().next().filter(|&q| q == '"' || q == '\'')?;
    let triple: String = std::iter::repeat_n(quote, 3).collect();
    let (open, long) = if body.starts_with(&triple) {
        (3, true)
    } else {
        (1, false)
    };
    let mut chars = body[open..].char_indices();
    while let Some((j, ch)) = chars.next() {
        let at = prefix + open + j;
        match ch {
            // An escaped character never ends the string (raw strings too).
            '\\' => {
                chars.next();
            }
            '\n' if !long => return Some(at),
            q if q == quote => {
                if !long {
                    return Some(at + 1);
                }
                if s[at..].starts_with(&triple) {
                    return Some(at + 3);
                }
            }
            _ => {}
        }
    }
    Some(s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, &str)> {
        let p = python(text);
        assert_eq!(p.iter().map(|(_, s)| *s).collect::<String>(), text);
        p.into_iter().filter(|(k, _)| *k != Kind::Plain).collect()
    }

    #[test]
    fn python_is_lexed_by_its_rules() {
        use Kind::*;
        assert_eq!(
            kinds("def main(x=1.5e-3):\n    return f'{x}' # done\n"),
            [
                (Keyword, "def"),
                (Defined, "main"),
                (Number, "1.5e-3"),
                (Keyword, "return"),
                (Str, "f'{x}'"),
                (Comment, "# done")
            ]
        );
        assert_eq!(
            kinds("s = \"\"\"a \"quoted\" \\\"\"\" line\n\"\"\"\nclass Game: pass"),
            [
                (Str, "\"\"\"a \"quoted\" \\\"\"\" line\n\"\"\""),
                (Keyword, "class"),
                (Defined, "Game"),
                (Keyword, "pass")
            ]
        );
        // A name that starts like a prefix is a name; an unclosed string
        // ends with its line; a hash inside a string is not a comment.
        assert_eq!(
            kinds("rb = br'\\d#' + 'open\nx"),
            [(Str, "br'\\d#'"), (Str, "'open")]
        );
        assert_eq!(
            kinds("if .5 and x1: 0x1F"),
            [
                (Keyword, "if"),
                (Number, ".5"),
                (Keyword, "and"),
                (Number, "0x1F")
            ]
        );
        assert_eq!(kinds("'''never closed"), [(Str, "'''never closed")]);
    }

    #[test]
    fn any_text_comes_back_whole() {
        for text in ["", "é = 'ü'\r\n", "\"", "x\\", "def", "1e", "f\"\\", "#"] {
            kinds(text);
        }
        assert_eq!(pieces("README.md", "# title"), [(Kind::Plain, "# title")]);
    }
}
