use super::*;
use serde_json::json;

#[derive(serde::Deserialize, Debug, PartialEq)]
struct T {
    a: u32,
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Score {
    score: u8,
}

/// The value and the kinds of repairs `read_value` reports for `text`.
fn read(text: &str) -> (Value, Vec<RepairKind>) {
    match read_value(text) {
        Ok(r) => (r.value, r.repairs.into_iter().map(|r| r.kind).collect()),
        Err(e) => panic!("unreadable {text:?}: {}", e.0),
    }
}

use RepairKind::*;

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
    assert_eq!(json_object::<u32>(" 42 "), Some(42));
    assert_eq!(
        json_object::<T>("Sure: {\"a\": 4,}"),
        Some(T { a: 4 }),
        "repaired values are returned too"
    );
    assert_eq!(
        first_json_block("x ```json\n{\"a\":1}\n``` y"),
        Some(json!({"a": 1}))
    );
    assert_eq!(first_json_block("x ```json\n{\"a\":1,}\n``` y"), None);
}

#[test]
fn sections_are_read_by_heading() {
    let text = "# Task\nWrite it.\n# Notes here\nnone\n# Last\nend";
    assert_eq!(section(text, "# Task"), Some("Write it."));
    assert_eq!(section(text, "# Notes"), Some("none"));
    assert_eq!(section(text, "# Last"), Some("end"));
    assert_eq!(section(text, "# Missing"), None);
    assert_eq!(section("# É😀", "# É"), None);
}

#[test]
fn clean_replies_report_no_repairs() {
    for text in [
        "{\"score\": 7}",
        "  \n{\"score\": 7, \"why\": \"clear, concise\"}\n ",
        "[1, 2, {\"a\": [true, false, null]}]",
        "{\"text\": \"é İ 😀 ß \\u200f \\\"quoted\\\" \\\\ back\"}",
        "{}",
        "[]",
    ] {
        let r = read_value(text).unwrap_or_else(|e| panic!("{text:?}: {}", e.0));
        assert!(!r.repaired(), "{text:?}: {:?}", r.repairs);
        assert_eq!(r.value, serde_json::from_str::<Value>(text.trim()).unwrap());
    }
    // A JSON value whose strings hold fences and braces is read as a whole.
    let text = "{\"code\": \"```py\\nprint({1: 2})\\n```\"}";
    assert_eq!(
        read(text),
        (json!({"code": "```py\nprint({1: 2})\n```"}), vec![])
    );
}

#[test]
fn fence_is_stripped() {
    assert_eq!(
        read("```json\n{\"score\": 7}\n```"),
        (json!({"score": 7}), vec![Fence])
    );
    assert_eq!(
        read("```\n[{\"score\": 7}]\n```"),
        (json!([{"score": 7}]), vec![Fence])
    );
    // No closing fence: the block runs to the end.
    assert_eq!(
        read("```json\n{\"score\": 7}\n"),
        (json!({"score": 7}), vec![Fence])
    );
    // A closing fence right after the JSON, on the same line.
    assert_eq!(
        read("```json\n{\"score\": 7}```"),
        (json!({"score": 7}), vec![Fence])
    );
    // A ``` inside a JSON string does not close the fence.
    assert_eq!(
        read("Here:\n```json\n{\"code\": \"```sh\\nls\\n```\"}\n```"),
        (json!({"code": "```sh\nls\n```"}), vec![Fence, AroundText])
    );
    // The first fence that yields a value.
    assert_eq!(
        read("```python\nprint('hi')\n```\nand\n```json\n{\"score\": 7}\n```"),
        (json!({"score": 7}), vec![Fence, AroundText])
    );
}

#[test]
fn fence_with_prose_and_a_trailing_comma() {
    let text = "Sure! Here is the JSON:\n```json\n{\"score\": 7,}\n```\nHope this helps";
    let r = read_value(text).unwrap();
    assert_eq!(r.value, json!({"score": 7}));
    let kinds: Vec<_> = r.repairs.iter().map(|r| r.kind.clone()).collect();
    assert_eq!(kinds, vec![Fence, AroundText, TrailingComma]);
    assert!(r.repairs.iter().all(|r| !r.detail.is_empty()));
}

#[test]
fn text_around_is_dropped() {
    assert_eq!(
        read("I rate it as follows: {\"score\": 7} — that's my answer."),
        (json!({"score": 7}), vec![AroundText])
    );
    assert_eq!(
        read("Scores: [3, 4]\nDone."),
        (json!([3, 4]), vec![AroundText])
    );
    // Braces in prose that do not read are skipped.
    assert_eq!(
        read("Use {name} as a placeholder, I don't {know} :-{ then {\"score\": 7}"),
        (json!({"score": 7}), vec![AroundText])
    );
}

#[test]
fn an_object_wins_over_a_stray_array_before_it() {
    assert_eq!(
        read("Step [1]: I rate it {\"score\": 7}"),
        (json!({"score": 7}), vec![AroundText])
    );
    assert_eq!(
        read("See [1] and [2, 3].\n```json\n{\"score\": 7}\n```"),
        (json!({"score": 7}), vec![Fence, AroundText])
    );
    // With no object, the first array; an array of objects stays whole.
    assert_eq!(read("Scores: [3, 4] then [5]").0, json!([3, 4]));
    assert_eq!(
        read("[{\"a\": 1}, {\"a\": 2}]"),
        (json!([{"a": 1}, {"a": 2}]), vec![])
    );
}

#[test]
fn a_key_given_twice_is_flagged_and_the_last_kept() {
    let r = read_value("{\"adequate\": false, \"adequate\": true}").expect("reads");
    assert_eq!(r.value, json!({"adequate": true}));
    assert_eq!(r.repairs.len(), 1);
    assert_eq!(r.repairs[0].kind, DuplicateKey);
    assert_eq!(
        r.repairs[0].detail,
        "the key \"adequate\" was given twice; the last value was kept"
    );
    // In prose, after a repair, in a nested object, with bare keys.
    assert_eq!(
        read("So: {\"s\": {\"x\": 1, \"x\": 2, y: 3, y: 4},}").1,
        vec![AroundText, TrailingComma, UnquotedKeys, DuplicateKey]
    );
    let r = read_value("{\"s\": {\"x\": 1, \"x\": 2, \"y\": 3, \"y\": 4}}").expect("reads");
    assert!(r.repairs[0]
        .detail
        .contains("\"x\" was given twice (and 1 more)"));
    // The same key in two objects, or as a value, is no duplicate.
    assert_eq!(read("[{\"a\": 1}, {\"a\": 2}]").1, vec![]);
    assert_eq!(read("{\"a\": \"a\", \"b\": {\"a\": 1}}").1, vec![]);
    assert_eq!(read("{\"a\": [\"a\", {\"a\": 1}]}").1, vec![]);
}

#[test]
fn trailing_commas_are_removed() {
    assert_eq!(
        read("{\"score\": 7, \"tags\": [\"a\", \"b\",],}"),
        (json!({"score": 7, "tags": ["a", "b"]}), vec![TrailingComma])
    );
    assert_eq!(read("[1, 2,,]"), (json!([1, 2]), vec![TrailingComma]));
}

#[test]
fn a_comma_inside_a_string_is_kept() {
    assert_eq!(
        read("{\"why\": \"short, clear,}\", \"tags\": [\"a,]\",]}"),
        (
            json!({"why": "short, clear,}", "tags": ["a,]"]}),
            vec![TrailingComma]
        )
    );
    assert_eq!(
        read("Result: {\"why\": \"a, b, ]\"}"),
        (json!({"why": "a, b, ]"}), vec![AroundText])
    );
}

#[test]
fn an_escaped_quote_inside_a_string_is_kept() {
    assert_eq!(
        read("Answer: {\"why\": \"she said \\\"hi}\\\", then left\"} ok"),
        (
            json!({"why": "she said \"hi}\", then left"}),
            vec![AroundText]
        )
    );
    assert_eq!(
        read("{\"why\": \"a \\\\\", \"n\": 1,}"),
        (json!({"why": "a \\", "n": 1}), vec![TrailingComma])
    );
}

#[test]
fn bare_keys_are_quoted() {
    assert_eq!(
        read("{score: 7, reason: \"clear\", nested: {ok_1: true}}"),
        (
            json!({"score": 7, "reason": "clear", "nested": {"ok_1": true}}),
            vec![UnquotedKeys]
        )
    );
}

#[test]
fn single_quotes_are_made_double() {
    assert_eq!(
        read("{'score': 7, 'reason': 'it\\'s clear, \"mostly\"'}"),
        (
            json!({"score": 7, "reason": "it's clear, \"mostly\""}),
            vec![SingleQuotes]
        )
    );
    // An apostrophe inside a double-quoted string is just a character.
    assert_eq!(
        read("{\"reason\": \"it's fine\"}"),
        (json!({"reason": "it's fine"}), vec![])
    );
}

#[test]
fn cut_off_json_is_closed() {
    let (v, kinds) = read("{\"a\": [1, 2, {\"b\": \"x");
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        "{\"a\":[1,2,{\"b\":\"x\"}]}"
    );
    assert_eq!(kinds, vec![Closed]);
    for text in [
        "{\"score\": 7, \"reason\":",
        "{\"score\": 7, \"reason\": ",
        "{\"score\": 7, \"rea",
        "{\"score\": 7,",
        "{\"score\": 7, reason",
        "{\"score\": 7, \"done\": tr",
    ] {
        assert_eq!(read(text), (json!({"score": 7}), vec![Closed]), "{text:?}");
    }
    assert_eq!(
        read("{\"why\": \"caf\\u00e9 \\u00"),
        (json!({"why": "café "}), vec![Closed])
    );
    // A number the text ends in may be cut (`2` of `25`): it is not taken.
    assert_eq!(read("[[1, [2"), (json!([[1, []]]), vec![Closed]));
    assert_eq!(read("[[1, [2 "), (json!([[1, [2]]]), vec![Closed]));
    assert!(
        read_value("{\"score\": 1").is_err(),
        "1 of 10 is never a score"
    );
    assert_eq!(
        read("{\"a\": 1, \"score\": 1"),
        (json!({"a": 1}), vec![Closed])
    );
    // Nothing but brackets was written: nothing to read.
    assert!(read_value("Thinking... {").is_err());
    assert!(read_value("} {").is_err());
}

#[test]
fn python_literals_become_json() {
    let r = read_value("{\"done\": True, \"note\": None, \"ok\": [False]}").unwrap();
    assert_eq!(r.value, json!({"done": true, "note": null, "ok": [false]}));
    assert_eq!(
        r.repairs,
        vec![Repair::new(Other, "Python literals turned into JSON")]
    );
}

#[test]
fn control_characters_and_bad_escapes_in_strings_are_fixed() {
    assert_eq!(
        read("{\"text\": \"line one\nline\ttwo\"}"),
        (json!({"text": "line one\nline\ttwo"}), vec![Other])
    );
    assert_eq!(
        read("{\"text\": \"it\\'s \\d\"}"),
        (json!({"text": "it's \\d"}), vec![Other])
    );
}

#[test]
fn every_kind_is_reported_once() {
    let text = "Sure!\n```json\n{score: 'a', 'b': [1,], c: True, d: \"x,\n";
    let r = read_value(text).unwrap();
    assert_eq!(
        r.value,
        json!({"score": "a", "b": [1], "c": true, "d": "x,\n"})
    );
    let kinds: Vec<_> = r.repairs.iter().map(|r| r.kind.clone()).collect();
    assert_eq!(
        kinds,
        vec![
            Fence,
            AroundText,
            TrailingComma,
            UnquotedKeys,
            SingleQuotes,
            Closed,
            Other
        ]
    );
    assert_eq!(
        r.repairs.last().map(|r| r.detail.as_str()),
        Some("Python literals turned into JSON; line breaks or other control characters inside strings escaped")
    );
}

#[test]
fn types_are_not_coerced() {
    assert_eq!(
        read("{\"adequate\": \"false\", \"score\": \"7\"}"),
        (json!({"adequate": "false", "score": "7"}), vec![])
    );
}

#[test]
fn wrong_shapes_name_what_is_wrong() {
    assert_eq!(
        read_json::<Score>("{\"points\": 7}"),
        Err(Unreadable("the JSON object has no field \"score\"".into()))
    );
    let e = read_json::<Score>("{\"score\": \"seven\"}").unwrap_err();
    assert!(
        e.0.contains("wrong type") && e.0.contains("seven"),
        "{}",
        e.0
    );
    let e = read_json::<Score>("{\"score\": 700}").unwrap_err();
    assert!(e.0.contains("700"), "{}", e.0);
    assert_eq!(
        read_json::<Score>("Here: {\"score\": 7,}"),
        Ok(Read {
            value: Score { score: 7 },
            repairs: vec![
                around_text(),
                Repair::new(
                    TrailingComma,
                    "a comma before a closing bracket was removed"
                )
            ],
        })
    );
    // A value of another shape earlier in the prose does not hide it.
    assert_eq!(
        read_json::<Score>("As [1] says: {\"score\": 7}").map(|r| r.value),
        Ok(Score { score: 7 })
    );
    assert_eq!(read("As [1] says: {\"score\": 7}").0, json!({"score": 7}));
    // Arrays are not read into structs by position.
    assert_eq!(
        read_json::<Score>("[7]"),
        Err(Unreadable(
            "the reply has a JSON array where an object was expected".into()
        ))
    );
    assert_eq!(json_object::<Score>("[7]"), None);
    assert_eq!(
        read_json::<Score>("As [1] says: {\"points\": 7}"),
        Err(Unreadable("the JSON object has no field \"score\"".into()))
    );
    assert_eq!(
        read_json::<Vec<u8>>("Scores: [7, 8]").map(|r| r.value),
        Ok(vec![7, 8])
    );
    assert_eq!(read_json::<Value>("[7]").map(|r| r.value), Ok(json!([7])));
    assert!(wants_struct::<Score>());
    assert!(!wants_struct::<Value>());
    assert!(!wants_struct::<Vec<Score>>());
    assert!(!wants_struct::<std::collections::HashMap<String, u8>>());
}

#[test]
fn unreadable_replies_say_why() {
    let why = |text: &str| read_value(text).unwrap_err().0;
    assert_eq!(why(""), "the reply is empty");
    assert_eq!(why("  \n "), "the reply is empty");
    assert_eq!(why("I cannot answer that."), "the reply has no JSON object");
    assert_eq!(why("\"just a string\""), "the reply has no JSON object");
    assert_eq!(why("42"), "the reply has no JSON object");
    assert!(why("{\"a\" 1}").starts_with("the JSON in the reply could not be read"));
    assert!(why("{\"a\": 1]").contains("brackets do not match"));
    assert!(why(&"[".repeat(200)).contains("nested too deeply"));
    assert_eq!(
        read_json::<Score>("nothing").unwrap_err().to_string(),
        "the reply has no JSON object"
    );
}

#[test]
fn repair_kinds_have_labels_and_snake_case_names() {
    assert_eq!(Fence.label(), "fence stripped");
    assert_eq!(Other.label(), "repaired");
    assert_eq!(ToolError.label(), "tool error");
    assert_eq!(
        serde_json::to_string(&TrailingComma).unwrap(),
        "\"trailing_comma\""
    );
    assert_eq!(
        serde_json::from_str::<RepairKind>("\"asked_again\"").unwrap(),
        AskedAgain
    );
    let all = [
        Fence,
        AroundText,
        TrailingComma,
        UnquotedKeys,
        SingleQuotes,
        Closed,
        Shape,
        Clamped,
        Default,
        AskedAgain,
        ToolError,
        DuplicateKey,
        Other,
    ];
    let labels: std::collections::BTreeSet<_> = all.iter().map(RepairKind::label).collect();
    assert_eq!(labels.len(), all.len());
}

#[test]
fn read_helpers() {
    let r = Read::clean(2);
    assert!(!r.repaired());
    let r = r.with(Repair::new(Clamped, "the score 12 was clamped to 10"));
    assert!(r.repaired());
    let r = r.map(|n| n * 10);
    assert_eq!(r.value, 20);
    assert_eq!(r.repairs.len(), 1);
}

/// A small deterministic generator (xorshift64).
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Reads `text` both ways: no panic, the same result twice, and any value
/// read re-serializes.
fn survives(text: &str) {
    let first = read_value(text);
    assert_eq!(first, read_value(text), "not deterministic");
    if let Ok(r) = &first {
        assert!(serde_json::to_string(&r.value).is_ok());
        assert!(r.value.is_object() || r.value.is_array());
    }
    if let Ok(r) = read_json::<Value>(text) {
        assert!(serde_json::to_string(&r.value).is_ok());
    }
}

#[test]
fn any_text_is_read_without_panicking() {
    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        "\"",
        ",",
        ":",
        "'",
        "\\",
        " ",
        "\n",
        "a",
        "1",
        "-",
        "e",
        "é",
        "İ",
        "😀",
        "ß",
        "\u{200f}",
        "\u{202e}",
        "\u{0}",
        "\u{301}",
        "true",
        "True",
        "None",
        "\\u",
        "\\u00",
        "```",
        "```json\n",
        "\"k\":",
        "{'a':",
        "null",
        "ש",
    ];
    let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..2_000 {
        let len = rng.below(301);
        let mut text = String::new();
        while text.chars().count() < len {
            text.push_str(PIECES[rng.below(PIECES.len())]);
        }
        survives(&text);
    }
    // 200 KB of cut-off objects, each `{` a start that runs to the end.
    let big = "{\"k\": [1, 'é😀', ".repeat(200_000 / 18);
    assert!(big.len() >= 200_000);
    survives(&big);
    // And 200 KB of prose with a value at the very end.
    let prose = format!("{}{{\"score\": 7}}", "word {x} [y] 😀 ".repeat(12_000));
    survives(&prose);
    // 100 000 levels deep, cut off and balanced.
    let deep = "[".repeat(100_000);
    survives(&deep);
    let balanced = format!("{deep}{}", "]".repeat(100_000));
    survives(&balanced);
    // A balanced span too deep to parse is skipped as a whole.
    assert_eq!(
        read(&format!("{balanced} then {{\"score\": 7}}")),
        (json!({"score": 7}), vec![AroundText])
    );
    survives(&format!("Here: {}", "{\"a\":".repeat(100_000)));
}
