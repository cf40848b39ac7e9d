//! The room a reply held to its shape needs: the most characters a reply
//! of a bounded shape can take, written as a model run here is held to
//! write it (compact JSON, `", "` and `": "` between items, as the model
//! worker's schema options say), and the tokens that takes at
//! [`CHARS_PER_TOKEN`]. The run context gives a held step at least that
//! many ([`super::ReplySchema::room`]), whatever the run's longest answer
//! (`--max-tokens`, the Settings' field) says, so that its reply is not
//! cut short before its shape is whole; one cut anyway (text of one
//! character a token) is flagged as unfinished, never read in silence.

use serde_json::Value;

/// Characters per token the room counts on: English text in a BPE
/// vocabulary takes three to four (a JSON reply's keys and punctuation
/// about as many); two leaves room for text that splits finely.
pub const CHARS_PER_TOKEN: usize = 2;

/// The tokens a reply of `schema` may need to be whole (None: unbounded).
pub fn tokens(schema: &Value) -> Option<u32> {
    max_chars(schema).map(|n| n.div_ceil(CHARS_PER_TOKEN) as u32)
}

/// The digits a number whose bounds the schema does not give may take
/// (an i64, or a float as a model writes one).
const NUMBER: usize = 24;

/// Between two items of a list or two fields of an object.
const SEPARATOR: usize = ", ".len();

/// The most characters a value of `schema` can take (a string's
/// characters counted once each, as they are when plain text), or None
/// when the schema leaves it unbounded (a string with no `maxLength`, a
/// list with no `maxItems`, an object open to other fields).
pub fn max_chars(schema: &Value) -> Option<usize> {
    let o = schema.as_object()?;
    if let Some(Value::Array(values)) = o.get("enum") {
        return values
            .iter()
            .map(|v| Some(v.to_string().chars().count()))
            .max()
            .flatten();
    }
    if let Some(v) = o.get("const") {
        return Some(v.to_string().chars().count());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(cases)) = o.get(key) {
            return most(cases.iter().map(max_chars));
        }
    }
    match o.get("type") {
        Some(Value::String(t)) => of_type(t, o),
        Some(Value::Array(types)) => most(types.iter().map(|t| of_type(t.as_str()?, o))),
        _ => None,
    }
}

/// The largest of `sizes`, None if any is unbounded (or there is none).
fn most(sizes: impl Iterator<Item = Option<usize>>) -> Option<usize> {
    let mut top: Option<usize> = None;
    for s in sizes {
        top = Some(top.unwrap_or(0).max(s?));
    }
    top
}

fn bound(o: &serde_json::Map<String, Value>, key: &str) -> Option<usize> {
    o.get(key).and_then(Value::as_u64).map(|n| n as usize)
}

fn of_type(t: &str, o: &serde_json::Map<String, Value>) -> Option<usize> {
    match t {
        "null" => Some(4),
        "boolean" => Some(5),
        "integer" => {
            let digits = |key: &str| o.get(key).map(|v| v.to_string().len());
            match (digits("minimum"), digits("maximum")) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => Some(NUMBER),
            }
        }
        "number" => Some(NUMBER),
        "string" => bound(o, "maxLength").map(|n| n + 2),
        "array" => {
            let n = bound(o, "maxItems")?;
            let item = match o.get("items") {
                Some(items) if n > 0 => max_chars(items)?,
                _ => 0,
            };
            Some(2 + n * item + n.saturating_sub(1) * SEPARATOR)
        }
        "object" => {
            let closed = o.get("additionalProperties") == Some(&Value::Bool(false));
            let props = o.get("properties").and_then(Value::as_object);
            match props {
                Some(props) if closed => {
                    let mut total = 2 + props.len().saturating_sub(1) * SEPARATOR;
                    for (key, value) in props {
                        let name = Value::String(key.clone()).to_string().chars().count();
                        total += name + ": ".len() + max_chars(value)?;
                    }
                    Some(total)
                }
                None if closed => Some(2),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The longest value of each schema, written compactly with the
    /// worker's separators, takes exactly the room counted.
    #[test]
    fn the_room_is_the_longest_reply_written_whole() {
        let schema = json!({
            "type": "object", "additionalProperties": false,
            "properties": {
                "ok": {"type": "boolean"},
                "score": {"type": "integer", "minimum": 0, "maximum": 10},
                "next": {"enum": ["hotel", "transportation"]},
                "issues": {"type": "array", "maxItems": 2, "items": {"type": "string", "maxLength": 3}},
                "note": {"type": ["string", "null"], "maxLength": 5}
            }
        });
        let longest = r#"{"ok": false, "score": 10, "next": "transportation", "issues": ["abc", "def"], "note": "12345"}"#;
        assert_eq!(max_chars(&schema), Some(longest.len()));
        let cases = json!({"anyOf": [schema, {"type": "string", "maxLength": 200}]});
        assert_eq!(max_chars(&cases), Some(202));
    }

    #[test]
    fn a_shape_left_open_has_no_room_to_count() {
        for open in [
            json!({"type": "string"}),
            json!({"type": "array", "items": {"type": "boolean"}}),
            json!({"type": "array", "maxItems": 3, "items": {"type": "string"}}),
            json!({"type": "object", "properties": {"a": {"type": "boolean"}}}),
            json!({"anyOf": [{"type": "boolean"}, {"type": "string"}]}),
            json!({}),
        ] {
            assert_eq!(max_chars(&open), None, "{open}");
        }
        assert_eq!(max_chars(&json!({"type": "array", "maxItems": 0})), Some(2));
    }
}
