//! What a keyword is (an agent's expertise, a knowledge entry's index), said
//! once for the reply's shape and for its reader: at most [`KEYWORD_CHARS`]
//! characters with at least one that is not a mark — not white space, a
//! control or direction character, a list bullet, an emphasis mark, a
//! quote or a full stop, which the reader trims away. The shape says it as
//! a `pattern` ([`pattern`]), so a model held to the shape cannot write a
//! keyword the reader would drop (`**`, `-`, `...`, a blank); the reader
//! keeps every keyword [`has_word`] says has one.

use crate::engine::coordinators::act::reading::hidden;
use schemars::gen::SchemaGenerator;
use schemars::schema::{InstanceType, Schema, SchemaObject, StringValidation};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The longest keyword kept (chars); a longer one is cut.
pub const KEYWORD_CHARS: usize = 40;

/// The marks the reader trims from a keyword (besides white space and
/// control and direction characters): list bullets and dashes, emphasis,
/// quotes, the full stop.
const TRIMMED: &[char] = &[
    '#', '>', '*', '+', '•', '·', '–', '—', '▪', '◦', '_', '`', '"', '“', '”', '‘', '’', '.', '-',
];

/// A character the reader trims from a keyword.
pub fn is_mark(c: char) -> bool {
    c.is_whitespace() || hidden(c) || TRIMMED.contains(&c)
}

/// Whether a keyword has a character that is not a mark (one the reader keeps).
pub fn has_word(k: &str) -> bool {
    k.chars().any(|c| !is_mark(c))
}

/// The marks as one regular-expression class body, in a syntax every
/// structured-output engine reads (the characters themselves, ranges for
/// the controls, `-` last): white space (Unicode's `White_Space`), the
/// controls, the direction characters, the byte-order mark, [`TRIMMED`].
fn mark_class() -> String {
    const WHITE: &str =
        "\u{85}\u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}";
    let mut class = String::from("\u{0}-\u{20}\u{7F}-\u{9F}");
    class.push_str(WHITE);
    class.push_str("\u{202A}-\u{202E}\u{2066}-\u{2069}\u{FEFF}");
    // `-` last, where it is itself; none of the others is special in a class.
    class.extend(TRIMMED.iter().filter(|&&c| c != '-'));
    class.push('-');
    class
}

/// A keyword's pattern: marks, then one character that is not, then
/// anything on the line. Anchored, as llama.cpp's converter demands (in
/// JSON Schema a pattern is otherwise found anywhere in the string).
pub fn pattern() -> String {
    let m = mark_class();
    format!("^[{m}]*[^{m}].*$")
}

/// A keyword in a reply's shape: a string of 1 to [`KEYWORD_CHARS`]
/// characters matching [`pattern`]. (Only the shape uses it; readers take
/// the reply's JSON as it is.)
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Keyword(pub String);

impl JsonSchema for Keyword {
    fn schema_name() -> String {
        "Keyword".into()
    }

    fn is_referenceable() -> bool {
        false
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        SchemaObject {
            instance_type: Some(InstanceType::String.into()),
            string: Some(Box::new(StringValidation {
                min_length: Some(1),
                max_length: Some(KEYWORD_CHARS as u32),
                pattern: Some(pattern()),
            })),
            ..Default::default()
        }
        .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyword_has_a_character_that_is_not_a_mark() {
        for k in ["tea", "C++", "量子力学", "2)", "(3)", "a.", "x"] {
            assert!(has_word(k), "{k:?}");
        }
        for k in [
            "", " ", "**", "-", "...", "“”", "\u{FEFF}", "\u{1}", "#.", "— ·", "\u{3000}",
        ] {
            assert!(!has_word(k), "{k:?}");
        }
    }

    #[test]
    fn every_mark_is_in_the_patterns_class() {
        let class = mark_class();
        let inside = |c: char| {
            class.contains(c)
                || [
                    ('\u{0}', '\u{20}'),
                    ('\u{7F}', '\u{9F}'),
                    ('\u{2000}', '\u{200A}'),
                    ('\u{202A}', '\u{202E}'),
                    ('\u{2066}', '\u{2069}'),
                ]
                .iter()
                .any(|&(a, b)| (a..=b).contains(&c))
        };
        for c in (0..=0x3000u32)
            .filter_map(char::from_u32)
            .chain(['\u{FEFF}'])
        {
            assert_eq!(is_mark(c), inside(c), "{c:?} (U+{:04X})", c as u32);
        }
    }
}
