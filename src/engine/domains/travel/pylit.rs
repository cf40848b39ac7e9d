//! A lenient literal parser for what LLMs write: JSON, and Python literals
//! (single-quoted strings, True/False/None, tuples, trailing commas). It
//! parses one value starting at a given byte offset and reports where it ends.

use serde_json::{Map, Number, Value};

struct P<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    depth: usize,
}

const MAX_DEPTH: usize = 64;

/// Parses one literal at `start`; returns it and the byte offset after it.
pub fn parse_at(text: &str, start: usize) -> Result<(Value, usize), String> {
    let mut p = P {
        s: text.as_bytes(),
        text,
        i: start,
        depth: 0,
    };
    let v = p.value()?;
    Ok((v, p.i))
}

/// Parses `text` as exactly one literal (surrounding whitespace allowed).
pub fn parse_whole(text: &str) -> Result<Value, String> {
    let (v, end) = parse_at(text, 0)?;
    if text[end..].trim().is_empty() {
        Ok(v)
    } else {
        Err(format!("unexpected text after the value at byte {end}"))
    }
}

impl P<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_ascii_whitespace() {
                self.i += 1;
            } else if c == b'#' || (c == b'/' && self.s.get(self.i + 1) == Some(&b'/')) {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.i += 1;
                }
            } else {
                break;
            }
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.i))
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_ws();
        match self.peek() {
            Some(b'{') => self.nested(|p| p.object()),
            Some(b'[') => self.nested(|p| p.sequence(b']')),
            Some(b'(') => self.nested(|p| p.sequence(b')')),
            Some(b'"') | Some(b'\'') => self.string(),
            Some(c) if c == b'-' || c == b'+' || c == b'.' || c.is_ascii_digit() => self.number(),
            Some(c) if c.is_ascii_alphabetic() => self.word(),
            Some(_) => self.err("unexpected character"),
            None => self.err("unexpected end of text"),
        }
    }

    fn nested(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<Value, String>,
    ) -> Result<Value, String> {
        if self.depth >= MAX_DEPTH {
            return self.err("nesting too deep");
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn object(&mut self) -> Result<Value, String> {
        self.i += 1;
        let mut map = Map::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.i += 1;
                return Ok(Value::Object(map));
            }
            let key = match self.value()? {
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                _ => return self.err("object keys must be strings"),
            };
            self.skip_ws();
            if self.peek() != Some(b':') {
                return self.err("expected ':'");
            }
            self.i += 1;
            let v = self.value()?;
            map.insert(key, v);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {}
                _ => return self.err("expected ',' or '}'"),
            }
        }
    }

    fn sequence(&mut self, close: u8) -> Result<Value, String> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(close) {
                self.i += 1;
                return Ok(Value::Array(items));
            }
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(c) if c == close => {}
                _ => return self.err("expected ',' or a closing bracket"),
            }
        }
    }

    fn string(&mut self) -> Result<Value, String> {
        let q = self.s[self.i];
        self.i += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.i..];
            let Some(c) = rest.chars().next() else {
                return self.err("unterminated string");
            };
            self.i += c.len_utf8();
            match c {
                c if c as u32 == q as u32 => return Ok(Value::String(out)),
                '\\' => self.escape(&mut out)?,
                c => out.push(c),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), String> {
        let Some(e) = self.peek() else {
            return self.err("unterminated escape");
        };
        self.i += 1;
        match e {
            b'n' => out.push('\n'),
            b't' => out.push('\t'),
            b'r' => out.push('\r'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'0' => out.push('\0'),
            b'\n' => {}
            b'u' | b'x' => {
                let len = if e == b'u' { 4 } else { 2 };
                let hex = self.text.get(self.i..self.i + len).unwrap_or("");
                let code = u32::from_str_radix(hex, 16)
                    .map_err(|_| format!("bad \\{} escape at byte {}", e as char, self.i))?;
                self.i += len;
                self.push_code(out, code)?;
            }
            b'"' | b'\'' | b'\\' | b'/' => out.push(e as char),
            _ => {
                // Python keeps unknown escapes as written.
                out.push('\\');
                self.i -= 1;
                let c = self.text[self.i..].chars().next().unwrap_or('\\');
                self.i += c.len_utf8();
                out.push(c);
            }
        }
        Ok(())
    }

    fn push_code(&mut self, out: &mut String, code: u32) -> Result<(), String> {
        if (0xD800..0xDC00).contains(&code) && self.text[self.i..].starts_with("\\u") {
            let low = self.text.get(self.i + 2..self.i + 6).unwrap_or("");
            if let Ok(lo) = u32::from_str_radix(low, 16) {
                if (0xDC00..0xE000).contains(&lo) {
                    self.i += 6;
                    let c = 0x10000 + ((code - 0xD800) << 10) + (lo - 0xDC00);
                    out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                    return Ok(());
                }
            }
        }
        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
        Ok(())
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        while self.peek().is_some_and(|c| {
            c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'_')
        }) {
            self.i += 1;
        }
        let raw = self.text[start..self.i].replace('_', "");
        let raw = raw.strip_prefix('+').unwrap_or(&raw);
        if let Ok(n) = raw.parse::<i64>() {
            return Ok(Value::Number(n.into()));
        }
        match raw.parse::<f64>().ok().and_then(Number::from_f64) {
            Some(n) => Ok(Value::Number(n)),
            None => {
                self.i = start;
                self.err("bad number")
            }
        }
    }

    fn word(&mut self) -> Result<Value, String> {
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.i += 1;
        }
        match &self.text[start..self.i] {
            "true" | "True" => Ok(Value::Bool(true)),
            "false" | "False" => Ok(Value::Bool(false)),
            "null" | "None" => Ok(Value::Null),
            _ => {
                self.i = start;
                self.err("unexpected word")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_and_python_literals() {
        assert_eq!(
            parse_whole(r#"[{"a": "x", "b": null, "c": 1.5}]"#).unwrap(),
            json!([{"a": "x", "b": null, "c": 1.5}])
        );
        assert_eq!(
            parse_whole("[{'a': 'it\\'s', 'b': None, 'c': True, 'd': (1, 2),},]").unwrap(),
            json!([{"a": "it's", "b": null, "c": true, "d": [1, 2]}])
        );
        assert_eq!(
            parse_whole("{'k': \"Chawla's\"}").unwrap(),
            json!({"k": "Chawla's"})
        );
        assert_eq!(
            parse_whole("\"\\u00e9\\ud83d\\ude00\"").unwrap(),
            json!("é😀")
        );
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(parse_whole("[1, 2").is_err());
        assert!(parse_whole("{'a' 1}").is_err());
        assert!(parse_whole("nonsense").is_err());
        assert!(parse_whole("[1] tail").is_err());
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(parse_whole(&deep).is_err());
    }

    #[test]
    fn parse_at_reports_the_end() {
        let (v, end) = parse_at("x = [1, 2] rest", 4).unwrap();
        assert_eq!((v, end), (json!([1, 2]), 10));
    }
}
