//! Reading structured replies out of what a model wrote: a JSON object
//! bare, in a ```json fence, or inside prose. Model output is untrusted:
//! these return `None` rather than guess.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// The first ```json fenced block in `text`, parsed.
pub fn first_json_block(text: &str) -> Option<Value> {
    let open = text.find("```json")?;
    let rest = &text[open + 7..];
    let close = rest.find("```")?;
    serde_json::from_str(rest[..close].trim()).ok()
}

/// A `T` from a reply: the first fenced JSON block, else the whole text,
/// else the span from the first `{` to the last `}`.
pub fn json_object<T: DeserializeOwned>(text: &str) -> Option<T> {
    if let Some(v) = first_json_block(text) {
        if let Ok(t) = serde_json::from_value::<T>(v) {
            return Some(t);
        }
    }
    if let Ok(t) = serde_json::from_str::<T>(text.trim()) {
        return Some(t);
    }
    let (start, end) = (text.find('{')?, text.rfind('}')?);
    (start < end)
        .then(|| serde_json::from_str::<T>(&text[start..=end]).ok())
        .flatten()
}

/// The text of section `heading` in `text` (up to the next `# ` heading):
/// the coordinators' requests are lists of `# Heading` sections.
pub fn section<'a>(text: &'a str, heading: &str) -> Option<&'a str> {
    let start = text.find(&format!("{heading}\n")).or_else(|| {
        text.find(heading)
            .filter(|&i| text[i + heading.len()..].starts_with(' '))
    })?;
    let body_start = text[start..]
        .find('\n')
        .map_or(text.len(), |i| start + i + 1);
    let body = &text[body_start..];
    let end = body.find("\n# ").map_or(body.len(), |i| i + 1);
    Some(body[..end].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct T {
        a: u32,
    }

    #[test]
    fn objects_are_found_in_any_wrapping() {
        assert_eq!(
            json_object::<T>("```json\n{\"a\": 1}\n```"),
            Some(T { a: 1 })
        );
        assert_eq!(json_object::<T>(" {\"a\": 2} "), Some(T { a: 2 }));
        assert_eq!(json_object::<T>("Sure: {\"a\": 3} done"), Some(T { a: 3 }));
        assert_eq!(json_object::<T>("{\"b\": 3}"), None);
        assert_eq!(json_object::<T>("nothing"), None);
        assert_eq!(json_object::<T>("} {"), None);
        assert_eq!(
            first_json_block("x ```json\n{\"a\":1}\n``` y"),
            Some(serde_json::json!({"a": 1}))
        );
    }
}
