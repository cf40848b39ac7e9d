//! The repair pass over one candidate span: a small tokenizer that knows
//! JSON's punctuation and strings (so a comma or bracket inside a string is
//! never touched), then a rewrite that fixes what small models get wrong.
//! Everything here is iterative: a reply 100 000 brackets deep costs a
//! `Vec` of 100 000 entries, never 100 000 stack frames.

use super::{Repair, RepairKind};
use serde_json::Value;

/// How a scan from an opening bracket ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// The first bracket closed; the span ends at this byte offset.
    Balanced(usize),
    /// The text ended with brackets (or a string) still open.
    CutOff,
    /// A closing bracket that does not match the open one (or no bracket
    /// at the start).
    Mismatch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok<'a> {
    Open(char),
    Close(char),
    Colon,
    Comma,
    /// A string's text between its quotes, as written (escapes included).
    Str {
        raw: &'a str,
        single: bool,
        closed: bool,
    },
    /// Anything else up to whitespace or punctuation: numbers, literals,
    /// bare keys, stray words.
    Word(&'a str),
}

/// What one candidate span gave.
pub(super) struct Attempt {
    /// Where the span ended.
    pub end: End,
    /// The value (an object or array) and the repairs it needed.
    pub value: Option<(Value, Vec<Repair>)>,
    /// Why nothing was read, for the user (when `value` is `None`).
    pub error: String,
}

/// Reads the JSON object or array that starts `s` (its first char must be
/// `{` or `[`): strictly if the span parses, else after the repair pass.
pub(super) fn attempt(s: &str) -> Attempt {
    let (toks, end, depth) = scan(s);
    if depth > MAX_DEPTH && end != End::Mismatch {
        return Attempt {
            end,
            value: None,
            error: "it is nested too deeply".into(),
        };
    }
    let cut_off = match end {
        End::Mismatch => {
            return Attempt {
                end,
                value: None,
                error: "its brackets do not match".into(),
            }
        }
        End::Balanced(e) => {
            if let Ok(v) = serde_json::from_str::<Value>(s.get(..e).unwrap_or("")) {
                if v.is_object() || v.is_array() {
                    return Attempt {
                        end,
                        value: Some((v, duplicate_keys(&toks).into_iter().collect())),
                        error: String::new(),
                    };
                }
            }
            false
        }
        End::CutOff => true,
    };
    // A reply cut right after a number or a word may have lost its end
    // (`{"score": 1` of `10`): that last value is not taken.
    let cut_in_word =
        cut_off && s.ends_with(|c: char| c.is_alphanumeric() || matches!(c, '.' | '-' | '+'));
    let Some((text, mut repairs)) = repair(&toks, cut_off, cut_in_word) else {
        return Attempt {
            end,
            value: None,
            error: "it was cut off before any value".into(),
        };
    };
    repairs.extend(duplicate_keys(&toks));
    match serde_json::from_str::<Value>(&text) {
        Ok(v) if v.is_object() || v.is_array() => Attempt {
            end,
            value: Some((v, repairs)),
            error: String::new(),
        },
        Ok(_) => Attempt {
            end,
            value: None,
            error: "it is not an object or array".into(),
        },
        Err(e) => Attempt {
            end,
            value: None,
            error: super::without_position(&e.to_string()),
        },
    }
}

/// serde_json refuses JSON nested this deep (its recursion limit is 128),
/// so a deeper span is not parsed or repaired at all: a reply 100 000
/// brackets deep is only scanned.
const MAX_DEPTH: usize = 128;

/// A key given twice in one object of the span starting `s` (JSON keeps
/// the last value, so the reply said two things and one was dropped).
pub(super) fn duplicate_keys_in(s: &str) -> Option<Repair> {
    duplicate_keys(&scan(s).0)
}

/// [`duplicate_keys_in`] over a scanned span: keys are the strings or bare
/// words followed by a colon at an object's level, compared as written.
fn duplicate_keys(toks: &[Tok<'_>]) -> Option<Repair> {
    let mut objects: Vec<Option<std::collections::HashSet<&str>>> = Vec::new();
    let mut dups: Vec<&str> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let key = match t {
            Tok::Open(c) => {
                objects.push((*c == '{').then(Default::default));
                continue;
            }
            Tok::Close(_) => {
                objects.pop();
                continue;
            }
            Tok::Str { raw, .. } => *raw,
            Tok::Word(w) => *w,
            _ => continue,
        };
        if !matches!(toks.get(i + 1), Some(Tok::Colon)) {
            continue;
        }
        if let Some(Some(keys)) = objects.last_mut() {
            if !keys.insert(key) && !dups.contains(&key) {
                dups.push(key);
            }
        }
    }
    let first = dups.first()?;
    let shown: String = first.chars().take(40).collect();
    let more = match dups.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Some(Repair::new(
        RepairKind::DuplicateKey,
        format!("the key \"{shown}\" was given twice{more}; the last value was kept"),
    ))
}

/// Tokens from the opening bracket at the start of `s` until it closes, the
/// text ends, or a closing bracket does not match; and the deepest nesting.
fn scan(s: &str) -> (Vec<Tok<'_>>, End, usize) {
    let mut toks = Vec::new();
    if !s.starts_with(['{', '[']) {
        return (toks, End::Mismatch, 0);
    }
    let mut open: Vec<char> = Vec::new();
    let mut depth = 0;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        match c {
            '{' | '[' => {
                open.push(c);
                depth = depth.max(open.len());
                toks.push(Tok::Open(c));
            }
            '}' | ']' => {
                let matches = matches!((open.last(), c), (Some('{'), '}') | (Some('['), ']'));
                if !matches {
                    return (toks, End::Mismatch, depth);
                }
                open.pop();
                toks.push(Tok::Close(c));
                if open.is_empty() {
                    return (toks, End::Balanced(i + 1), depth);
                }
            }
            ',' => toks.push(Tok::Comma),
            ':' => toks.push(Tok::Colon),
            '"' => toks.push(string(s, i, '"', &mut it)),
            // An apostrophe opens a string only where a value or key can
            // start; elsewhere (`don't`) it is part of a word.
            '\'' if matches!(
                toks.last(),
                None | Some(Tok::Open(_) | Tok::Comma | Tok::Colon)
            ) =>
            {
                toks.push(string(s, i, '\'', &mut it))
            }
            c if c.is_whitespace() => {}
            _ => {
                let mut end = s.len();
                while let Some(&(j, d)) = it.peek() {
                    if d.is_whitespace() || matches!(d, '{' | '}' | '[' | ']' | ',' | ':' | '"') {
                        end = j;
                        break;
                    }
                    it.next();
                }
                toks.push(Tok::Word(s.get(i..end).unwrap_or("")));
            }
        }
    }
    (toks, End::CutOff, depth)
}

/// The string whose opening `quote` is at byte `at` of `s`; `it` is just
/// past the quote and is left just past the closing one (or exhausted).
fn string<'a>(
    s: &'a str,
    at: usize,
    quote: char,
    it: &mut impl Iterator<Item = (usize, char)>,
) -> Tok<'a> {
    let start = at + quote.len_utf8();
    let mut escaped = false;
    for (j, d) in it.by_ref() {
        if escaped {
            escaped = false;
        } else if d == '\\' {
            escaped = true;
        } else if d == quote {
            return Tok::Str {
                raw: s.get(start..j).unwrap_or(""),
                single: quote == '\'',
                closed: true,
            };
        }
    }
    Tok::Str {
        raw: s.get(start..).unwrap_or(""),
        single: quote == '\'',
        closed: false,
    }
}

/// What the pass fixed, each kind at most once.
#[derive(Default)]
struct Fixes {
    trailing_comma: bool,
    unquoted_keys: bool,
    single_quotes: bool,
    closed: bool,
    other: Vec<&'static str>,
}

const PYTHON: &str = "Python literals turned into JSON";
const CONTROL: &str = "line breaks or other control characters inside strings escaped";
const ESCAPES: &str = "invalid escapes inside strings fixed";

impl Fixes {
    fn other(&mut self, what: &'static str) {
        if !self.other.contains(&what) {
            self.other.push(what);
        }
    }

    fn into_repairs(self) -> Vec<Repair> {
        let flagged = [
            (
                self.trailing_comma,
                RepairKind::TrailingComma,
                "a comma before a closing bracket was removed",
            ),
            (
                self.unquoted_keys,
                RepairKind::UnquotedKeys,
                "keys without quotes were quoted",
            ),
            (
                self.single_quotes,
                RepairKind::SingleQuotes,
                "single-quoted strings were turned into double-quoted ones",
            ),
            (
                self.closed,
                RepairKind::Closed,
                "the JSON was cut off; its open string and brackets were closed",
            ),
        ];
        let mut out: Vec<Repair> = flagged
            .into_iter()
            .filter(|(on, _, _)| *on)
            .map(|(_, kind, detail)| Repair::new(kind, detail))
            .collect();
        if !self.other.is_empty() {
            out.push(Repair::new(RepairKind::Other, self.other.join("; ")));
        }
        out
    }
}

/// What a piece of the rewritten text is, for trimming at a cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    Open,
    Close,
    Colon,
    Comma,
    Key,
    Value,
    /// A bare word in value position (number, literal or junk).
    Bare,
}

/// The tokens rewritten as JSON text, with what was fixed; `None` when a
/// cut-off span holds nothing but brackets.
fn repair(toks: &[Tok<'_>], cut_off: bool, cut_in_word: bool) -> Option<(String, Vec<Repair>)> {
    let mut fixes = Fixes::default();
    let (mut out, open) = rewrite(toks, &mut fixes);
    if cut_off {
        fixes.closed = true;
        if !close_at_cut(&mut out, &open, cut_in_word) {
            return None;
        }
    }
    Some((join_pieces(&out), fixes.into_repairs()))
}

/// The tokens as pieces of JSON text (trailing commas dropped, strings
/// double-quoted, bare keys quoted, Python's literals made JSON's), with
/// the brackets still open at the end.
fn rewrite(toks: &[Tok<'_>], fixes: &mut Fixes) -> (Vec<(Piece, String)>, Vec<char>) {
    let mut out: Vec<(Piece, String)> = Vec::with_capacity(toks.len());
    let mut open: Vec<char> = Vec::new();
    let mut i = 0;
    while let Some(&tok) = toks.get(i) {
        i += 1;
        let key_pos = open.last() == Some(&'{')
            && matches!(out.last(), Some((Piece::Open | Piece::Comma, _)));
        match tok {
            Tok::Open(c) => {
                open.push(c);
                out.push((Piece::Open, c.to_string()));
            }
            Tok::Close(c) => {
                open.pop();
                out.push((Piece::Close, c.to_string()));
            }
            Tok::Colon => out.push((Piece::Colon, ":".into())),
            Tok::Comma => {
                let mut j = i;
                while toks.get(j) == Some(&Tok::Comma) {
                    j += 1;
                }
                if matches!(toks.get(j), Some(Tok::Close(_))) {
                    fixes.trailing_comma = true;
                    i = j;
                } else {
                    out.push((Piece::Comma, ",".into()));
                }
            }
            Tok::Str {
                raw,
                single,
                closed,
            } => {
                fixes.single_quotes |= single;
                fixes.closed |= !closed;
                let body = string_body(raw, single, closed, fixes);
                let piece = if key_pos { Piece::Key } else { Piece::Value };
                out.push((piece, format!("\"{body}\"")));
            }
            Tok::Word(w) if key_pos => {
                if toks.get(i) == Some(&Tok::Colon) {
                    fixes.unquoted_keys = true;
                    let quoted = serde_json::to_string(w).unwrap_or_default();
                    out.push((Piece::Key, quoted));
                } else {
                    out.push((Piece::Key, w.to_string()));
                }
            }
            Tok::Word(w) => out.push((Piece::Bare, bare_word(w, fixes))),
        }
    }
    (out, open)
}

/// A bare word in value position: Python's `True`, `False` and `None` as
/// JSON's literals (flagged), anything else as written.
fn bare_word(w: &str, fixes: &mut Fixes) -> String {
    let literal = match w {
        "True" => Some("true"),
        "False" => Some("false"),
        "None" => Some("null"),
        _ => None,
    };
    if literal.is_some() {
        fixes.other(PYTHON);
    }
    literal.unwrap_or(w).to_string()
}

/// Ends a cut-off span: what the cut left half-written goes, then the open
/// brackets are closed. False when nothing but brackets is left.
fn close_at_cut(out: &mut Vec<(Piece, String)>, open: &[char], cut_in_word: bool) -> bool {
    // A word cut in the middle (`tru`, `1e`, or `1` of `10`: a number
    // or word the text ends in) goes; one only, so prose after a `[`
    // never melts into an empty array.
    if let Some((Piece::Bare, w)) = out.last() {
        if cut_in_word || serde_json::from_str::<Value>(w).is_err() {
            out.pop();
        }
    }
    // Then a dangling `,`, `"key":` or `"key"` at the cut.
    loop {
        match out.last().map(|p| p.0) {
            Some(Piece::Comma | Piece::Key) => {
                out.pop();
            }
            Some(Piece::Colon) => {
                out.pop();
                if matches!(out.last(), Some((Piece::Key, _))) {
                    out.pop();
                }
            }
            _ => break,
        }
    }
    if !out
        .iter()
        .any(|(p, _)| matches!(p, Piece::Key | Piece::Value | Piece::Bare))
    {
        return false;
    }
    for c in open.iter().rev() {
        let close = if *c == '{' { "}" } else { "]" };
        out.push((Piece::Close, close.into()));
    }
    true
}

/// The pieces as one text, a space between two values in a row.
fn join_pieces(out: &[(Piece, String)]) -> String {
    let mut text = String::new();
    let mut after_value = false;
    for (piece, s) in out {
        let value = matches!(piece, Piece::Key | Piece::Value | Piece::Bare);
        if value && after_value {
            text.push(' ');
        }
        text.push_str(s);
        after_value = value;
    }
    text
}

/// A string's raw text as the inside of a JSON double-quoted string:
/// quotes and control characters escaped, invalid escapes made literal,
/// and an escape cut off at the end of an unclosed string dropped.
fn string_body(raw: &str, single: bool, closed: bool, fixes: &mut Fixes) -> String {
    let mut out = String::with_capacity(raw.len() + 2);
    let mut it = raw.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            push_plain(&mut out, c, fixes);
            continue;
        }
        match it.next() {
            // A backslash at the cut (a closed string cannot end in one).
            None => {}
            Some('\'') => {
                if !single {
                    fixes.other(ESCAPES);
                }
                out.push('\'');
            }
            Some(e @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't')) => {
                out.push('\\');
                out.push(e);
            }
            Some('u') => {
                let hex: String = it
                    .clone()
                    .take(4)
                    .take_while(char::is_ascii_hexdigit)
                    .collect();
                if hex.len() == 4 {
                    out.push_str("\\u");
                    out.push_str(&hex);
                    for _ in 0..4 {
                        it.next();
                    }
                } else if !closed && it.clone().nth(hex.len()).is_none() {
                    // `\u00` at the cut: the rest of the escape is lost.
                    break;
                } else {
                    fixes.other(ESCAPES);
                    out.push_str("\\\\u");
                }
            }
            Some(e) => {
                fixes.other(ESCAPES);
                out.push_str("\\\\");
                push_plain(&mut out, e, fixes);
            }
        }
    }
    out
}

/// One unescaped char of a string, escaped as JSON needs.
fn push_plain(out: &mut String, c: char, fixes: &mut Fixes) {
    match c {
        '"' => out.push_str("\\\""),
        '\n' => {
            fixes.other(CONTROL);
            out.push_str("\\n");
        }
        '\r' => {
            fixes.other(CONTROL);
            out.push_str("\\r");
        }
        '\t' => {
            fixes.other(CONTROL);
            out.push_str("\\t");
        }
        c if u32::from(c) < 0x20 => {
            fixes.other(CONTROL);
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        }
        c => out.push(c),
    }
}
