//! Reading what the agents write. Every reply a step reads as JSON goes
//! through the one lenient reader ([`read_value`]) and is then mapped onto
//! the shape the step expects: as written, unwrapped from a one-key object
//! (`{"result": {...}}`), or the first fitting item of a list where one
//! object was expected ([`object_that`], [`list_under`]), each mapping a
//! [`RepairKind::Shape`] repair. A reply that is not JSON may still give
//! lines of text ([`usable_lines`]), never a preamble ("Sure! Here's my
//! task:"). The steps record the repairs against their call, once per
//! reply.

use crate::engine::model::reply::{echo, read_value, Read, Repair, RepairKind, Unreadable};
use serde_json::Value;

pub fn shape(detail: impl Into<String>) -> Repair {
    Repair::new(RepairKind::Shape, detail)
}

pub fn default(detail: impl Into<String>) -> Repair {
    Repair::new(RepairKind::Default, detail)
}

pub fn clamped(detail: impl Into<String>) -> Repair {
    Repair::new(RepairKind::Clamped, detail)
}

pub fn dropped(detail: impl Into<String>) -> Repair {
    Repair::new(RepairKind::Other, detail)
}

/// The most of a key the model wrote that a repair repeats (chars).
const KEY_CHARS: usize = 60;

/// A key the model wrote, as a repair repeats it: at most [`KEY_CHARS`]
/// chars (a 100 KB key is not copied into events and notes).
pub fn key_of(key: &str) -> String {
    echo(key, KEY_CHARS)
}

/// The flags a record keeps: what each repair did.
pub fn details(repairs: &[Repair]) -> Vec<String> {
    repairs.iter().map(|r| r.detail.clone()).collect()
}

/// The same repairs with repeats folded into one ("… (3 times)"), in
/// first-seen order: a reply with a thousand cut episodes is one line.
pub fn folded(repairs: Vec<Repair>) -> Vec<Repair> {
    let mut out: Vec<(Repair, usize)> = Vec::new();
    for r in repairs {
        match out.iter_mut().find(|(o, _)| *o == r) {
            Some((_, n)) => *n += 1,
            None => out.push((r, 1)),
        }
    }
    out.into_iter()
        .map(|(mut r, n)| {
            if n > 1 {
                r.detail = format!("{} ({n} times)", r.detail);
            }
            r
        })
        .collect()
}

/// The JSON in `text`, as the object `fits` accepts (see [`object_that`]).
pub fn object_in(
    text: &str,
    fits: &dyn Fn(&Value) -> bool,
    what: &str,
) -> Result<Read<Value>, Unreadable> {
    object_that(read_value(text)?, fits, what)
}

/// `read` as the object `fits` accepts: as it is; unwrapped from a one-key
/// object; the first fitting item of a list (also inside a one-key
/// object). Else unreadable: "the JSON has no {what}".
pub fn object_that(
    read: Read<Value>,
    fits: &dyn Fn(&Value) -> bool,
    what: &str,
) -> Result<Read<Value>, Unreadable> {
    let Read { value, repairs } = read;
    let found = |value: Value| Read {
        value,
        repairs: repairs.clone(),
    };
    if fits(&value) {
        return Ok(found(value));
    }
    if let Some((key, inner)) = only_entry(&value) {
        let key = key_of(key);
        if fits(inner) {
            return Ok(found(inner.clone()).with(shape(format!(
                "the answer was wrapped in \"{key}\": unwrapped"
            ))));
        }
        if let Some((item, detail)) = first_fitting(inner, fits) {
            return Ok(found(item).with(shape(format!(
                "the answer was wrapped in \"{key}\" and {detail}"
            ))));
        }
    }
    if let Some((item, detail)) = first_fitting(&value, fits) {
        return Ok(found(item).with(shape(format!("the reply {detail}"))));
    }
    Err(Unreadable(format!("the JSON has no {what}")))
}

/// The value under `key` of the object the reply should be
/// (`{"key": [...]}`): as written; a bare list taken as it; a one-key
/// object's list taken as it; `key` inside a one-key object.
pub fn list_under(read: Read<Value>, key: &str) -> Result<Read<Value>, Unreadable> {
    let Read { value, repairs } = read;
    let found = |value: Value| Read {
        value,
        repairs: repairs.clone(),
    };
    if let Some(v) = value.get(key) {
        return Ok(found(v.clone()));
    }
    let keyed = |v: &Value| v.get(key).is_some();
    if let Some((item, detail)) = first_fitting(&value, &keyed) {
        return Ok(found(item[key].clone()).with(shape(format!("the reply {detail}"))));
    }
    if value.is_array() {
        return Ok(found(value).with(shape(format!(
            "the reply was a bare list, not an object with \"{key}\": read as its \"{key}\""
        ))));
    }
    if let Some((k, inner)) = only_entry(&value) {
        let k = key_of(k);
        if let Some((item, detail)) = first_fitting(inner, &keyed) {
            return Ok(found(item[key].clone()).with(shape(format!(
                "the answer was wrapped in \"{k}\" and {detail}"
            ))));
        }
        if inner.is_array() {
            return Ok(found(inner.clone()).with(shape(format!(
                "the list was under \"{k}\", not \"{key}\": read as its \"{key}\""
            ))));
        }
        if let Some(v) = inner.get(key) {
            return Ok(found(v.clone()).with(shape(format!(
                "the answer was wrapped in \"{k}\": unwrapped"
            ))));
        }
    }
    Err(Unreadable(format!("the JSON has no \"{key}\" list")))
}

/// The key and value of a one-key object.
pub fn only_entry(v: &Value) -> Option<(&String, &Value)> {
    let o = v.as_object()?;
    if o.len() == 1 {
        o.iter().next()
    } else {
        None
    }
}

/// The first item of a list that `fits`, and what was done, as the end of
/// a sentence.
fn first_fitting(v: &Value, fits: &dyn Fn(&Value) -> bool) -> Option<(Value, String)> {
    let items = v.as_array()?;
    let (i, item) = items.iter().enumerate().find(|(_, x)| fits(x))?;
    let detail = if items.len() == 1 {
        "was a list of one where one object was expected: its item was taken".to_string()
    } else {
        format!(
            "was a list of {} where one object was expected: item {} was taken, the rest dropped",
            items.len(),
            i + 1
        )
    };
    Some((item.clone(), detail))
}

/// A text field: a string trimmed; a list of strings joined with "; "
/// (`joined` set); anything else empty.
pub fn text_of(v: Option<&Value>) -> (String, bool) {
    match v {
        Some(Value::String(s)) => (s.trim().to_string(), false),
        Some(Value::Array(a)) => (
            a.iter()
                .filter_map(|x| x.as_str().map(str::trim))
                .filter(|x| !x.is_empty())
                .collect::<Vec<_>>()
                .join("; "),
            true,
        ),
        _ => (String::new(), false),
    }
}

/// What a line says once its markup is trimmed: leading heading, quote
/// and bullet marks, list numbers, and surrounding emphasis, code ticks
/// and quotes.
pub fn strip_markup(line: &str) -> &str {
    let mut s = line.trim();
    loop {
        let before = s.len();
        s = s.trim_start_matches(['#', '>', '-', '*', '+', '•', '·', '–', '—', '▪', '◦']);
        s = s.trim_start();
        // "1." / "2)" / "(3)"
        let digits = s.trim_start_matches('(');
        let rest = digits.trim_start_matches(|c: char| c.is_ascii_digit());
        if rest.len() < digits.len() {
            if let Some(r) = rest.strip_prefix(['.', ')', ':']) {
                if r.is_empty() || r.starts_with(char::is_whitespace) {
                    s = r.trim_start();
                }
            }
        }
        if s.len() == before {
            break;
        }
    }
    s.trim_matches(|c: char| {
        matches!(c, '*' | '_' | '`' | '"' | '“' | '”' | '‘' | '’') || c.is_whitespace()
    })
}

/// The openings of chatter around an answer.
const PREAMBLES: &[&str] = &[
    "sure",
    "okay",
    "ok",
    "certainly",
    "of course",
    "absolutely",
    "alright",
    "all right",
    "great!",
    "great,",
    "great.",
    "here is",
    "here's",
    "here’s",
    "here are",
    "heres",
    "below is",
    "below are",
    "as requested",
    "happy to",
    "i'd be happy",
    "i would be happy",
    "i'm happy",
    "let me",
    "i hope this",
    "hope this helps",
    "json",
    "note:",
    "the following",
];

/// Whether a line (markup trimmed) is only a preamble or a closing: empty,
/// ending with ':', or opening like "Sure", "Okay", "Here is",
/// "Certainly"…
pub fn is_preamble(line: &str) -> bool {
    let s = strip_markup(line);
    if s.is_empty() || s.ends_with(':') {
        return true;
    }
    let lower = s.to_lowercase();
    PREAMBLES.iter().any(|p| {
        lower.strip_prefix(p).is_some_and(|rest| {
            p.ends_with([':', '!', ',', '.'])
                || rest.chars().next().is_none_or(|c| !c.is_alphanumeric())
        })
    })
}

/// A reply's lines, trimmed, without code fences and lines that open or
/// close JSON (`{`, `}`, `[`, `]`).
pub fn content_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|t| !(t.starts_with("```") || t.starts_with(['{', '}', '[', ']'])))
}

/// The lines of a reply that may hold an answer, markup trimmed: code
/// fences, lines of JSON punctuation and preambles are dropped (the text
/// after a preamble's first colon is kept: "Here is my task: X" gives X).
pub fn usable_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for t in content_lines(text) {
        let v = visible(t);
        let s = strip_markup(&v);
        if !is_preamble(s) {
            out.push(s.to_string());
            continue;
        }
        if let Some((_, after)) = s.split_once(':') {
            let after = strip_markup(after);
            if !is_preamble(after) {
                out.push(after.to_string());
            }
        }
    }
    out
}

/// `text` without control characters, bidirectional overrides and
/// byte-order marks: what a reply gives a name, a task or a keyword is
/// shown to people and to other models.
pub fn visible(text: &str) -> String {
    text.chars()
        .filter(|&c| !hidden(c))
        .collect::<String>()
        .trim()
        .to_string()
}

/// A control character, a bidirectional override or a byte-order mark.
pub fn hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// At most `max` chars of `text` (cut at the last space of the second
/// half, if any), and whether it was cut.
pub fn cap_chars(text: &str, max: usize) -> (String, bool) {
    let Some((end, _)) = text.char_indices().nth(max) else {
        return (text.to_string(), false);
    };
    let head = text.get(..end).unwrap_or(text);
    let at_space = head
        .rfind(char::is_whitespace)
        .filter(|&i| head.get(..i).is_some_and(|h| h.chars().count() >= max / 2));
    let cut = match at_space {
        Some(i) => head.get(..i).unwrap_or(head),
        None => head,
    };
    (cut.trim_end().to_string(), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn other_shapes_are_mapped_and_say_so() {
        let fits = |v: &Value| v.get("task").is_some();
        let r = object_in(r#"{"task": "x"}"#, &fits, "task").expect("read");
        assert!(!r.repaired());
        let r = object_in(r#"{"result": {"task": "x"}}"#, &fits, "task").expect("read");
        assert_eq!(r.value, json!({"task": "x"}));
        assert_eq!(r.repairs[0].kind, RepairKind::Shape);
        let r = object_in(r#"[{"a": 1}, {"task": "y"}]"#, &fits, "task").expect("read");
        assert_eq!(r.value, json!({"task": "y"}));
        assert!(r.repairs[0].detail.contains("item 2"));
        let r = object_in(r#"{"out": [{"task": "z"}]}"#, &fits, "task").expect("read");
        assert_eq!(r.value, json!({"task": "z"}));
        assert!(object_in(r#"{"a": 1, "b": 2}"#, &fits, "\"task\"").is_err());
        let l =
            list_under(read_value(r#"{"result": ["a"]}"#).expect("json"), "tasks").expect("list");
        assert_eq!(l.value, json!(["a"]));
        assert!(l.repaired());
        assert!(
            list_under(read_value(r#"{"tasks": []}"#).expect("json"), "tasks")
                .is_ok_and(|l| !l.repaired())
        );
        assert!(list_under(read_value(r#"{"a": 1, "b": 2}"#).expect("json"), "tasks").is_err());
    }

    #[test]
    fn preambles_are_never_answers() {
        for p in [
            "Sure! Here's my task:",
            "Okay.",
            "**Here is the list:**",
            "Certainly, I can do that",
            "  ",
            "- ",
            "### Task:",
        ] {
            assert!(is_preamble(p), "{p}");
        }
        for ok in [
            "Design a reading nook",
            "Oklahoma tea routes",
            "Great Wall tea tours",
            "Here and now: a calm tea room",
        ] {
            assert!(!is_preamble(ok), "{ok}");
        }
        assert_eq!(
            usable_lines("Sure! Here's my task:\n\n**Design a nook**\n```json\n{\n}\n```"),
            ["Design a nook"]
        );
        assert_eq!(
            usable_lines("Here is my task: Plan the room\n1. Light\n- Wood"),
            ["Plan the room", "Light", "Wood"]
        );
        assert!(usable_lines("Sure! Here's my task:").is_empty());
        assert_eq!(strip_markup("2) `tea`"), "tea");
        assert_eq!(usable_lines("\u{202e}tea\u{0}\u{feff} room"), ["tea room"]);
    }

    #[test]
    fn a_key_the_model_wrote_is_echoed_capped() {
        // 100 KB of a multi-byte key: a repair repeats at most 60 chars.
        let key = "ключ".repeat(25_000);
        let bounded = |r: &Read<Value>| {
            assert!(!r.repairs.is_empty());
            for x in &r.repairs {
                assert!(x.detail.chars().count() < 200, "{} chars", x.detail.len());
                assert!(x.detail.contains(&format!("{}…", "ключ".repeat(15))));
            }
        };
        let fits = |v: &Value| v.get("task").is_some();
        let wrapped = json!({ key.clone(): {"task": "x"} }).to_string();
        bounded(&object_in(&wrapped, &fits, "task").expect("read"));
        let listed = json!({ key.clone(): [{"a": 1}, {"task": "x"}] }).to_string();
        bounded(&object_in(&listed, &fits, "task").expect("read"));
        for inner in [
            json!(["a"]),
            json!([{"tasks": ["a"]}]),
            json!({"tasks": ["a"]}),
        ] {
            let text = json!({ key.clone(): inner }).to_string();
            bounded(&list_under(read_value(&text).expect("json"), "tasks").expect("list"));
        }
        assert_eq!(key_of("short"), "short");
    }

    #[test]
    fn caps_cut_at_char_boundaries() {
        assert_eq!(cap_chars("short", 40), ("short".into(), false));
        let (s, cut) = cap_chars(&"é".repeat(100), 40);
        assert!(cut && s.chars().count() == 40);
        let (s, cut) = cap_chars("interior design and space planning for small rooms", 20);
        assert!(cut);
        assert_eq!(s, "interior design and");
        let f = folded(vec![clamped("a"), clamped("a"), default("b")]);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].detail, "a (2 times)");
    }
}
