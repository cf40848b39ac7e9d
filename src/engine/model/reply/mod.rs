//! Reading structured replies out of what a model wrote: a JSON object
//! bare, in a ```json fence, or inside prose. Model output is untrusted
//! text from small models, so the reader is lenient and says what it did:
//! [`read_value`] / [`read_json`] return the value with the [`Repair`]s it
//! needed (a stripped fence, a trailing comma, a cut-off object closed…),
//! or [`Unreadable`] with one sentence saying why nothing could be read.
//! It never panics and never guesses types: `"false"` stays a string.

mod no_problem;
mod repair;
#[cfg(test)]
mod tests;

pub use no_problem::says_no_problem;
use repair::{attempt, End};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt;

/// One thing the reader had to fix in a reply (what was wrong, what was done).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairKind {
    /// The JSON was inside a ``` fence and the fence was stripped.
    Fence,
    /// Prose before/after the JSON was dropped.
    AroundText,
    /// Trailing comma(s) removed.
    TrailingComma,
    /// Bare keys quoted.
    UnquotedKeys,
    /// 'single-quoted' strings turned into "double-quoted".
    SingleQuotes,
    /// Cut-off JSON closed (open string / arrays / objects closed at the end).
    Closed,
    /// Another shape mapped onto the expected one (set by callers).
    Shape,
    /// A number outside its range clamped (set by callers).
    Clamped,
    /// A stated default used for a missing/unreadable value (set by callers).
    Default,
    /// The reply could not be read; the step asked once more (set by callers).
    AskedAgain,
    /// An unknown tool or unreadable tool arguments, answered as a tool
    /// error (set by callers).
    ToolError,
    /// A key given twice in one object; the last value was kept.
    DuplicateKey,
    /// Anything else (the reader: Python literals, control characters or
    /// invalid escapes in strings; or set by callers).
    Other,
}

impl RepairKind {
    /// The reply could not be read at all: the step used a stated default
    /// or asked again (what "mostly unreadable" counts, and the transcript
    /// marks as such).
    pub fn unreadable(&self) -> bool {
        matches!(self, RepairKind::Default | RepairKind::AskedAgain)
    }

    /// A short label for tables and marks.
    pub fn label(&self) -> &'static str {
        match self {
            RepairKind::Fence => "fence stripped",
            RepairKind::AroundText => "text around the JSON dropped",
            RepairKind::TrailingComma => "trailing comma removed",
            RepairKind::UnquotedKeys => "keys quoted",
            RepairKind::SingleQuotes => "quotes fixed",
            RepairKind::Closed => "cut-off JSON closed",
            RepairKind::Shape => "other shape mapped",
            RepairKind::Clamped => "number clamped",
            RepairKind::Default => "default used",
            RepairKind::AskedAgain => "asked again",
            RepairKind::ToolError => "tool error",
            RepairKind::DuplicateKey => "duplicate key",
            RepairKind::Other => "repaired",
        }
    }
}

/// One repair: its kind and, for the user, what was wrong and what was done.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Repair {
    pub kind: RepairKind,
    /// For the user: what was wrong and what was done, one short sentence.
    pub detail: String,
}

impl Repair {
    pub fn new(kind: RepairKind, detail: impl Into<String>) -> Repair {
        Repair {
            kind,
            detail: detail.into(),
        }
    }
}

/// A value read from a reply, with what had to be repaired (empty: read as
/// written).
#[derive(Clone, Debug, PartialEq)]
pub struct Read<T> {
    pub value: T,
    pub repairs: Vec<Repair>,
}

impl<T> Read<T> {
    /// A value read as written.
    pub fn clean(value: T) -> Read<T> {
        Read {
            value,
            repairs: Vec::new(),
        }
    }

    /// The same repairs on another value (e.g. a field of this one).
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Read<U> {
        Read {
            value: f(self.value),
            repairs: self.repairs,
        }
    }

    /// Adds one repair (appended as given; no de-duplication).
    pub fn with(mut self, repair: Repair) -> Read<T> {
        self.repairs.push(repair);
        self
    }

    /// Whether anything had to be repaired.
    pub fn repaired(&self) -> bool {
        !self.repairs.is_empty()
    }
}

/// Why nothing could be read (for the user, one sentence: e.g. "the reply
/// has no JSON object", "the JSON object has no field \"score\"").
#[derive(Clone, Debug, PartialEq)]
pub struct Unreadable(pub String);

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unreadable {}

/// The first JSON object in a reply (else the first array: a stray `[1]`
/// in the prose does not hide the object after it), repaired where needed.
/// A reply that is exactly a JSON value (after trimming) has no repairs,
/// unless an object in it gives a key twice ([`RepairKind::DuplicateKey`]).
///
/// Order: the whole reply; else the first ``` fence whose body yields a
/// value ([`RepairKind::Fence`]); else the first `{` or `[` in the reply
/// that starts a readable value. Prose dropped around the value is
/// [`RepairKind::AroundText`]. A span that is not strict JSON goes through
/// the repair pass (trailing commas, bare keys, single quotes, Python
/// literals, control characters and bad escapes in strings, cut-off ends).
/// A top-level bare string or number is not an object and is not returned.
pub fn read_value(text: &str) -> Result<Read<Value>, Unreadable> {
    let (mut object, mut array) = (None, None);
    let search = each_value(text, &mut |read| {
        if read.value.is_object() {
            object = Some(read);
            return true;
        }
        array.get_or_insert(read);
        false
    });
    object.or(array).ok_or_else(|| search.unreadable(text))
}

/// The same, deserialized into `T`. If the repaired value does not have T's
/// shape, the error names what is missing/wrong (from serde's message,
/// shortened).
///
/// The values are tried in [`read_value`]'s order and the first that has
/// T's shape wins (so a value of another shape in the prose does not hide
/// the one after it); the error is the first object's. Arrays are never
/// read into a struct: serde would fill its fields by position (`[1]` as
/// `{"score": 1}`), which a reply never means.
pub fn read_json<T: DeserializeOwned>(text: &str) -> Result<Read<T>, Unreadable> {
    let is_struct = wants_struct::<T>();
    let mut found = None;
    let mut shape_error = None;
    let mut skipped_array = false;
    let search = each_value(text, &mut |read| {
        if is_struct && read.value.is_array() {
            skipped_array = true;
            return false;
        }
        match serde_json::from_value::<T>(read.value) {
            Ok(value) => {
                found = Some(Read {
                    value,
                    repairs: read.repairs,
                });
                return true;
            }
            Err(e) => {
                shape_error.get_or_insert_with(|| shape_message(&e.to_string()));
            }
        }
        false
    });
    match (found, shape_error) {
        (Some(read), _) => Ok(read),
        (None, Some(e)) => Err(Unreadable(e)),
        (None, None) if skipped_array => Err(Unreadable(
            "the reply has a JSON array where an object was expected".into(),
        )),
        (None, None) => Err(search.unreadable(text)),
    }
}

/// The first ```json fenced block in `text`, parsed strictly.
pub fn first_json_block(text: &str) -> Option<Value> {
    let open = text.find("```json")?;
    let rest = text.get(open + 7..)?;
    let close = rest.find("```")?;
    serde_json::from_str(rest.get(..close)?.trim()).ok()
}

/// A `T` from a reply, read by [`read_json`] whether or not it was
/// repaired; else (for a `T` that is not an object or array, e.g. a bare
/// number) the whole trimmed text parsed strictly.
pub fn json_object<T: DeserializeOwned>(text: &str) -> Option<T> {
    match read_json::<T>(text) {
        Ok(read) => Some(read.value),
        Err(_) => match serde_json::from_str::<Value>(text.trim()) {
            Ok(v) if !v.is_object() && !v.is_array() => serde_json::from_value(v).ok(),
            _ => None,
        },
    }
}

/// The text of section `heading` in `text` (up to the next `# ` heading):
/// the coordinators' requests are lists of `# Heading` sections.
pub fn section<'a>(text: &'a str, heading: &str) -> Option<&'a str> {
    let start = text.find(&format!("{heading}\n")).or_else(|| {
        text.find(heading).filter(|&i| {
            text.get(i + heading.len()..)
                .is_some_and(|rest| rest.starts_with(' '))
        })
    })?;
    let body_start = text
        .get(start..)?
        .find('\n')
        .map_or(text.len(), |i| start + i + 1);
    let body = text.get(body_start..)?;
    let end = body.find("\n# ").map_or(body.len(), |i| i + 1);
    Some(body.get(..end)?.trim())
}

/// At most this many `{`/`[` starts are tried in the fence bodies, and as
/// many again in the whole reply. Each try scans at most to the end of the
/// text, so a 100 KB reply full of `{` costs a bounded number of linear
/// scans instead of one scan per `{` (quadratic).
const MAX_STARTS: usize = 32;
/// At most this many ``` fences are looked into (each may scan to the end).
const MAX_FENCES: usize = 32;

/// How a search for values went, for the error when none was found.
struct Search {
    /// Any `{`/`[` start was tried.
    tried: bool,
    /// Why the first tried start gave nothing.
    first_error: Option<String>,
}

impl Search {
    fn unreadable(&self, text: &str) -> Unreadable {
        Unreadable(if text.trim().is_empty() {
            "the reply is empty".into()
        } else if !self.tried {
            "the reply has no JSON object".into()
        } else {
            match &self.first_error {
                Some(e) => format!("the JSON in the reply could not be read: {e}"),
                None => "the JSON in the reply could not be read".into(),
            }
        })
    }
}

/// Calls `visit` with each value found in `text`, in [`read_value`]'s
/// order, until it returns true.
fn each_value(text: &str, visit: &mut dyn FnMut(Read<Value>) -> bool) -> Search {
    let mut search = Search {
        tried: false,
        first_error: None,
    };
    // 1. The whole reply. If it is JSON, nothing else in it is a candidate.
    let trimmed = text.trim();
    if trimmed.starts_with(['{', '[']) {
        if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
            if v.is_object() || v.is_array() {
                let repairs = repair::duplicate_keys_in(trimmed).into_iter().collect();
                visit(Read { value: v, repairs });
                return search;
            }
        }
    }
    // 2. Fenced blocks.
    let mut budget = MAX_STARTS;
    let mut pos = 0;
    for _ in 0..MAX_FENCES {
        let Some(fence) = text.get(pos..).and_then(|rest| rest.find("```")) else {
            break;
        };
        let fence = fence_at(text, pos + fence);
        let body = text.get(fence.body.0..fence.body.1).unwrap_or("");
        let outside = !text.get(..fence.open).unwrap_or("").trim().is_empty()
            || !text.get(fence.close..).unwrap_or("").trim().is_empty();
        let stop = values_in(
            body,
            &mut budget,
            &mut search,
            &mut |v, mut repairs, around| {
                let mut all = vec![Repair::new(
                    RepairKind::Fence,
                    "the JSON was inside a ``` code fence; the fence was stripped",
                )];
                if outside || around {
                    all.push(around_text());
                }
                all.append(&mut repairs);
                visit(Read {
                    value: v,
                    repairs: all,
                })
            },
        );
        if stop {
            return search;
        }
        if fence.close >= text.len() {
            break;
        }
        pos = fence.close;
    }
    // 3. The first `{` or `[` in the whole reply that reads.
    let mut budget = MAX_STARTS;
    values_in(
        text,
        &mut budget,
        &mut search,
        &mut |v, mut repairs, around| {
            let mut all = Vec::new();
            if around {
                all.push(around_text());
            }
            all.append(&mut repairs);
            visit(Read {
                value: v,
                repairs: all,
            })
        },
    );
    search
}

fn around_text() -> Repair {
    Repair::new(
        RepairKind::AroundText,
        "text before or after the JSON was dropped",
    )
}

/// A ``` fence: byte offsets of its opening, its body and the end of its
/// closing fence (the end of the text if it has none).
struct Fence {
    open: usize,
    body: (usize, usize),
    close: usize,
}

/// The fence opening at byte `open` of `text`. Its info string (`json`)
/// runs to the end of the line; a closing fence on a line of its own wins
/// over one at the end of a line (a ``` inside a JSON string is never at
/// the start of a line: its line breaks are `\n` escapes).
fn fence_at(text: &str, open: usize) -> Fence {
    let after = open + 3;
    let line_end = text
        .get(after..)
        .and_then(|rest| rest.find('\n'))
        .map_or(text.len(), |i| after + i);
    let info = text.get(after..line_end).unwrap_or("").trim();
    let body_start = if info
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '+' | '.'))
    {
        (line_end + 1).min(text.len())
    } else {
        after
    };
    let rest = text.get(body_start..).unwrap_or("");
    let mut any = None;
    for (i, _) in rest.match_indices("```") {
        let before = rest.get(..i).unwrap_or("").trim_end_matches([' ', '\t']);
        if before.is_empty() || before.ends_with('\n') {
            any = Some(i);
            break;
        }
        any.get_or_insert(i);
    }
    match any {
        Some(i) => Fence {
            open,
            body: (body_start, body_start + i),
            close: body_start + i + 3,
        },
        None => Fence {
            open,
            body: (body_start, text.len()),
            close: text.len(),
        },
    }
}

/// Tries the `{`/`[` starts of `text` in order (while `budget` lasts) and
/// calls `found(value, repairs, text_dropped_around)` for each that reads,
/// until it returns true (then returns true). Starts inside a balanced
/// span already tried (read or not) are skipped: they are parts of it.
fn values_in(
    text: &str,
    budget: &mut usize,
    search: &mut Search,
    found: &mut dyn FnMut(Value, Vec<Repair>, bool) -> bool,
) -> bool {
    let mut pos = 0;
    while *budget > 0 {
        let Some(start) = text
            .get(pos..)
            .and_then(|rest| rest.find(['{', '[']))
            .map(|i| pos + i)
        else {
            return false;
        };
        *budget -= 1;
        search.tried = true;
        let tried = attempt(text.get(start..).unwrap_or(""));
        let end = match tried.end {
            End::Balanced(e) => start + e,
            End::CutOff => text.len(),
            End::Mismatch => start + 1,
        };
        match tried.value {
            Some((v, repairs)) => {
                let around = !text.get(..start).unwrap_or("").trim().is_empty()
                    || !text.get(end..).unwrap_or("").trim().is_empty();
                if found(v, repairs, around) {
                    return true;
                }
                pos = end;
            }
            None => {
                search.first_error.get_or_insert(tried.error);
                // A failed cut-off span may hide a readable one further in.
                pos = if tried.end == End::CutOff {
                    start + 1
                } else {
                    end
                };
            }
        }
    }
    false
}

/// Whether `T` deserializes as a struct (derive's `deserialize_struct`),
/// found by asking a deserializer that only notes what it was asked for.
fn wants_struct<T: DeserializeOwned>() -> bool {
    use serde::de::{self, Visitor};
    struct Probe;
    const STRUCT: &str = "probe: struct";
    impl<'de> de::Deserializer<'de> for Probe {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("probe: other"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom(STRUCT))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    matches!(T::deserialize(Probe), Err(e) if e.to_string() == STRUCT)
}

/// serde's message without its " at line 1 column 9" (a position in the
/// repaired text, not in the reply).
fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message.get(..i).unwrap_or(message).to_string(),
        None => message.to_string(),
    }
}

/// serde's message for a value of the wrong shape, as one short sentence.
fn shape_message(message: &str) -> String {
    let message = without_position(message);
    let backticked = |rest: &str| -> String { rest.split('`').nth(1).unwrap_or(rest).to_string() };
    let sentence = if let Some(rest) = message.strip_prefix("missing field ") {
        format!("the JSON object has no field \"{}\"", backticked(rest))
    } else if let Some(rest) = message.strip_prefix("unknown field ") {
        format!(
            "the JSON object has an unexpected field \"{}\"",
            backticked(rest)
        )
    } else if let Some(rest) = message.strip_prefix("invalid type: ") {
        format!("the JSON has a value of the wrong type ({rest})")
    } else if let Some(rest) = message.strip_prefix("invalid value: ") {
        format!("the JSON has a wrong value ({rest})")
    } else if let Some(rest) = message.strip_prefix("unknown variant ") {
        format!("the JSON has an unexpected value ({rest})")
    } else {
        format!("the JSON does not have the expected shape ({message})")
    };
    shorten(&sentence, 200)
}

/// At most `max` chars, cut at a char boundary with "…".
fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", s.get(..i).unwrap_or(s)),
        None => s.to_string(),
    }
}

/// At most `max_chars` chars of a model's text, cut at a char boundary
/// with "…": what a note or an error message may repeat of it.
pub fn echo(text: &str, max_chars: usize) -> String {
    shorten(text, max_chars)
}
