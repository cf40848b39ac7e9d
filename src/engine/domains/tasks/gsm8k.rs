//! GSM8K (Cobbe et al., 2021): grade-school math word problems. The gold
//! answer is the number after the last `####` of the worked solution
//! (commas removed); a prediction's final number is the first number
//! after the last `####`, else the last number on the line after the last
//! "answer is" / "answer:" (so "Answer: 3+4=7" reads 7), else the last
//! number in the text (`$`, `,` and a trailing `.` stripped); compared
//! numerically. Markers match in any ASCII case.

use super::{Dataset, Gold, Task};
use serde_json::Value;

/// A row `{"question", "answer"}` as a task.
pub fn task(v: &Value, n: usize) -> Result<Task, String> {
    let question = super::text_field(v, "question")?;
    let answer = super::str_field(v, "answer")?;
    let gold = answer
        .rsplit_once("####")
        .and_then(|(_, g)| number(g))
        .ok_or("the answer has no final number after ####")?;
    Ok(Task {
        dataset: Dataset::Gsm8k,
        id: format!("gsm8k:{n}"),
        prompt: format!(
            "{}\n\nSolve the problem step by step and end with a line \"Answer: <number>\".",
            question.trim()
        ),
        gold: Gold::Number(gold),
    })
}

/// The first number in `s` (sign, digits with commas, decimals).
fn number(s: &str) -> Option<f64> {
    let s = s.trim();
    let start = s.find(|c: char| c.is_ascii_digit() || c == '-')?;
    let mut end = start;
    for (i, c) in s[start..].char_indices() {
        if c.is_ascii_digit() || c == ',' || c == '.' || (i == 0 && c == '-') {
            end = start + i + c.len_utf8();
        } else {
            break;
        }
    }
    clean(&s[start..end])
}

fn clean(raw: &str) -> Option<f64> {
    let t = raw.replace([',', '$'], "");
    let t = t.trim_end_matches('.');
    t.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// Every number written in `text`, in order.
fn numbers(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit()
            || (chars[i] == '-' && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit()));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < chars.len()
            && (chars[j].is_ascii_digit()
                || ((chars[j] == ',' || chars[j] == '.')
                    && chars.get(j + 1).is_some_and(|c| c.is_ascii_digit())))
        {
            j += 1;
        }
        let raw: String = chars[i..j].iter().collect();
        if let Some(x) = clean(&raw) {
            out.push(x);
        }
        i = j;
    }
    out
}

/// The prediction's final number (see the module docs).
pub fn final_number(text: &str) -> Option<f64> {
    if let Some(rest) = after_last(text, "####") {
        if let Some(x) = numbers(rest).first() {
            return Some(*x);
        }
    }
    for marker in ["answer is", "answer:"] {
        if let Some(rest) = after_last(text, marker) {
            let line = rest.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let found = (numbers(line).last().copied()).or_else(|| numbers(rest).first().copied());
            if found.is_some() {
                return found;
            }
        }
    }
    numbers(text).last().copied()
}

/// The text after the last `marker` (ASCII) in `text`, ignoring ASCII
/// case. It is found in `text` itself, never in a lowercased copy (whose
/// byte lengths differ: "İ"), and taken with `get`, which cannot panic.
fn after_last<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    let (t, m) = (text.as_bytes(), marker.as_bytes());
    (0..=t.len().checked_sub(m.len())?)
        .rev()
        .find(|&i| {
            t.get(i..i + m.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(m))
        })
        .and_then(|i| text.get(i + m.len()..))
}

/// A number as people write it: no trailing `.0`.
pub fn format_number(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round() as i64)
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gold_and_predictions_are_read_the_usual_way() {
        let t = task(
            &serde_json::json!({"question": "How many?", "answer": "2+2=4\n#### 1,200"}),
            7,
        )
        .expect("task");
        assert_eq!(t.gold, Gold::Number(1200.0));
        assert_eq!(t.id, "gsm8k:7");
        assert!(
            !t.prompt.contains("1,200"),
            "the gold stays out of the prompt"
        );
        assert_eq!(final_number("So 3 + 4 = 7. #### 7"), Some(7.0));
        assert_eq!(final_number("The answer is $1,234.50."), Some(1234.5));
        assert_eq!(final_number("I got 12 then 15."), Some(15.0));
        assert_eq!(final_number("Answer: -3"), Some(-3.0));
        assert_eq!(final_number("No idea."), None);
        assert_eq!(final_number("18 eggs. Answer: 18."), Some(18.0));
        assert_eq!(final_number("ANSWER IS 9"), Some(9.0));
        assert_eq!(format_number(18.0), "18");
        assert_eq!(format_number(2.5), "2.5");
        assert!(task(&serde_json::json!({"question": "q", "answer": "none"}), 0).is_err());
    }

    #[test]
    fn the_answer_line_gives_its_result_not_its_first_operand() {
        assert_eq!(final_number("Answer: 3+4=7"), Some(7.0));
        assert_eq!(
            final_number("The answer is 2 * 6 = 12.\nThanks, 3 of us."),
            Some(12.0)
        );
        assert_eq!(final_number("Answer:\n42"), Some(42.0));
        assert_eq!(final_number("4 #### 5 and 6"), Some(5.0));
    }

    #[test]
    fn replies_whose_lowercase_is_longer_never_panic() {
        // "İ" lowercases to two characters (3 bytes where it had 2): offsets
        // found in the lowercase text used to slice the original mid-char.
        assert_eq!(final_number("İİ answer: €5"), Some(5.0));
        assert_eq!(final_number("İİİİ ANSWER IS 8"), Some(8.0));
        let odd = [
            "",
            "İ",
            "####",
            "answer:",
            "ß#### ẞ",
            "\u{0}",
            "--5",
            "1,,2..3",
        ];
        for a in odd {
            for b in odd {
                let _ = final_number(&format!("{a}{b}{a}"));
            }
        }
        let huge = "İ 1 ".repeat(25_000) + "Answer: 77";
        assert_eq!(final_number(&huge), Some(77.0));
    }

    #[test]
    fn arbitrary_unicode_with_markers_never_panics() {
        use crate::engine::model::retry::SplitMix;
        let pieces = [
            "####",
            "answer:",
            "Answer is",
            "İ",
            "ẞ",
            "Σ",
            "\u{1F600}",
            "7",
            "-",
            ",",
            ".",
            "\n",
        ];
        let mut rng = SplitMix::new(23);
        for _ in 0..5_000 {
            let len = rng.next_u64() % 24;
            let text: String = (0..len)
                .map(|_| match rng.next_u64() % 3 {
                    0 => pieces[(rng.next_u64() % pieces.len() as u64) as usize].to_string(),
                    _ => char::from_u32((rng.next_u64() % 0x11_0000) as u32)
                        .unwrap_or('\u{FFFD}')
                        .to_string(),
                })
                .collect();
            if let Some(x) = final_number(&text) {
                assert!(x.is_finite(), "{text:?} read as {x}");
            }
        }
    }
}
