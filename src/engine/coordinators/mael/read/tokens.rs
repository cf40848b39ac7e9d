//! A reply's text as tokens (whole words, numbers, other characters),
//! what the text fallbacks of the judge and the score match on.

/// A reply's words (lowercase letters), numbers and other characters,
/// without white space: what the text fallbacks match on, whole words.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Word(String),
    Num(f64),
    Punct(char),
}

pub(super) fn tokens(text: &str) -> Vec<Tok> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts_number = c.is_ascii_digit()
            || (c == '-'
                && chars.get(i + 1).is_some_and(char::is_ascii_digit)
                && (i == 0 || !chars[i - 1].is_alphanumeric()));
        if c.is_whitespace() {
            i += 1;
        } else if starts_number {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let number: String = chars[start..i].iter().collect();
            match number.parse::<f64>() {
                Ok(x) if x.is_finite() => out.push(Tok::Num(x)),
                _ => out.push(Tok::Punct('#')),
            }
        } else if c.is_alphabetic() {
            let mut word = String::new();
            while i < chars.len() && chars[i].is_alphabetic() {
                word.extend(chars[i].to_lowercase());
                i += 1;
            }
            out.push(Tok::Word(word));
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// Separators between a label and its value: `solvable: no`,
/// `"score" = 7`, `**Verdict** - split`, `score is 7`, `score of 7`.
fn separator(t: &Tok) -> bool {
    match t {
        Tok::Punct(c) => matches!(
            c,
            ':' | '=' | '"' | '\'' | '*' | '-' | '`' | '“' | '”' | '‘' | '’' | '_'
        ),
        Tok::Word(w) => matches!(w.as_str(), "is" | "of" | "was" | "at"),
        Tok::Num(_) => false,
    }
}

/// The index of the first token after `from` that is not a separator.
pub(super) fn after_separators(toks: &[Tok], from: usize) -> usize {
    let mut j = from;
    while toks.get(j).is_some_and(separator) {
        j += 1;
    }
    j
}

pub(super) fn word(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Word(w)) => Some(w.as_str()),
        _ => None,
    }
}
