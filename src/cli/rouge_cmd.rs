//! `roundtable rouge --cases FILE.jsonl [--json]`: ROUGE-1/2/L/Lsum of every
//! case of a JSONL file (`target`, `prediction`, optional `use_stemmer`
//! (default false) and `case_id` (default: the line number)), as
//! rouge-score 0.1.2 computes them. With `--json` one line
//! `{"case_id": …, "scores": {"rouge1": {"precision", "recall",
//! "fmeasure"}, "rouge2": …, "rougeL": …, "rougeLsum": …}}` per case;
//! otherwise a readable line. Blank lines are skipped; a bad line is an
//! error naming it, before anything is printed.

use roundtable::engine::domains::rouge::{score, Score, Scores};
use serde_json::{json, Value};
use std::io::Write;

struct Case {
    id: Value,
    target: String,
    prediction: String,
    use_stemmer: bool,
}

/// One line's case, or what is wrong with it.
fn parse_case(line: &str, number: usize) -> Result<Case, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    let Value::Object(o) = v else {
        return Err("not a JSON object".into());
    };
    let text = |key: &str| -> Result<String, String> {
        match o.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(format!("\"{key}\" is not a string")),
            None => Err(format!("no \"{key}\"")),
        }
    };
    let use_stemmer = match o.get("use_stemmer") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("\"use_stemmer\" is not true or false".into()),
    };
    Ok(Case {
        id: o.get("case_id").cloned().unwrap_or_else(|| json!(number)),
        target: text("target")?,
        prediction: text("prediction")?,
        use_stemmer,
    })
}

fn brief(s: &Score) -> String {
    format!("P {:.4} R {:.4} F {:.4}", s.precision, s.recall, s.fmeasure)
}

fn readable(id: &Value, s: &Scores) -> String {
    let id = match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    format!(
        "{id}  rouge1 {}  rouge2 {}  rougeL {}  rougeLsum {}",
        brief(&s.rouge1),
        brief(&s.rouge2),
        brief(&s.rouge_l),
        brief(&s.rouge_lsum)
    )
}

/// Scores every case of `path`; the exit code, or an error (exit 2).
pub fn run(path: &str, as_json: bool) -> Result<i32, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        cases.push(parse_case(line, i + 1).map_err(|e| format!("{path} line {}: {e}", i + 1))?);
    }
    let mut out = String::new();
    for c in &cases {
        let s = score(&c.target, &c.prediction, c.use_stemmer);
        let line = if as_json {
            json!({ "case_id": c.id, "scores": s }).to_string()
        } else {
            readable(&c.id, &s)
        };
        out.push_str(&line);
        out.push('\n');
    }
    // A closed pipe (`| head`) is no error.
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write the scores: {e}"))
        }
        _ => Ok(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_say_what_is_wrong() {
        assert!(parse_case("{", 1).is_err_and(|e| e.contains("not JSON")));
        assert!(parse_case("[1]", 1).is_err_and(|e| e.contains("object")));
        assert!(parse_case(r#"{"target": "a"}"#, 1).is_err_and(|e| e.contains("prediction")));
        assert!(
            parse_case(r#"{"target": "a", "prediction": "b", "use_stemmer": 1}"#, 1)
                .is_err_and(|e| e.contains("use_stemmer"))
        );
        let c = parse_case(r#"{"target": "a", "prediction": "b"}"#, 7).expect("a case");
        assert_eq!((c.id, c.use_stemmer), (json!(7), false));
    }
}
