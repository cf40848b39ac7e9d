//! String interning over a JSON tree: every string value that repeats (a
//! system prompt sent with every request, a tool result echoed into the next
//! prompt, an answer posted as a message) is stored once in a table and
//! referenced as `~<index in base 36>`. Strings that start with `~` are
//! escaped as `~~…`, so any string round-trips.

use serde_json::Value;
use std::collections::HashMap;

const MARK: char = '~';
const MIN_LEN: usize = 48;

fn walk_strings<'a>(v: &'a Value, f: &mut dyn FnMut(&'a str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().for_each(|x| walk_strings(x, f)),
        Value::Object(o) => o.values().for_each(|x| walk_strings(x, f)),
        _ => {}
    }
}

fn map_strings(v: &mut Value, f: &mut dyn FnMut(&mut String)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter_mut().for_each(|x| map_strings(x, f)),
        Value::Object(o) => o.values_mut().for_each(|x| map_strings(x, f)),
        _ => {}
    }
}

fn base36(mut n: usize) -> String {
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(digits[n % 36]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Replaces repeated strings by references; returns the table.
pub fn intern(tree: &mut Value) -> Vec<String> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    walk_strings(tree, &mut |s| {
        let c = counts.entry(s).or_insert(0);
        if *c == 0 {
            order.push(s);
        }
        *c += 1;
    });
    let mut table: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for s in order {
        let n = counts.get(s).copied().unwrap_or(0);
        let reference_len = 2 + base36(table.len()).len();
        // Worth it when the repeats save more than the references cost.
        // Deflate already shortens repeats within its 32 KB window; the table
        // pays off for long strings that recur far apart.
        if n >= 2 && s.len() >= MIN_LEN && (n - 1) * s.len() > n * reference_len + 2 {
            index.insert(s.to_string(), table.len());
            table.push(s.to_string());
        }
    }
    map_strings(tree, &mut |s| {
        if let Some(&i) = index.get(s.as_str()) {
            *s = format!("{MARK}{}", base36(i));
        } else if s.starts_with(MARK) {
            s.insert(0, MARK);
        }
    });
    // Table entries are escaped like any other string.
    for s in &mut table {
        if s.starts_with(MARK) {
            s.insert(0, MARK);
        }
    }
    table
}

fn unescape(s: &str) -> String {
    s.strip_prefix(MARK).unwrap_or(s).to_string()
}

/// Resolves references against the table; errors on a dangling reference.
pub fn expand(tree: &mut Value, table: &[String]) -> Result<(), String> {
    let table: Vec<String> = table
        .iter()
        .map(|s| {
            if s.starts_with("~~") {
                unescape(s)
            } else {
                s.clone()
            }
        })
        .collect();
    let mut error = None;
    map_strings(tree, &mut |s| {
        if let Some(rest) = s.strip_prefix(MARK) {
            if rest.starts_with(MARK) {
                *s = rest.to_string();
            } else {
                match usize::from_str_radix(rest, 36)
                    .ok()
                    .and_then(|i| table.get(i))
                {
                    Some(t) => *s = t.clone(),
                    None => {
                        error = Some(format!("a reference ({s}) points outside the string table"))
                    }
                }
            }
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repeated_strings_are_stored_once_and_restored() {
        let long = "a long repeated prompt that is worth a table entry";
        let original = json!({"a": long, "b": [long, "~tilde", "~~two", "x"], "c": {"d": long}, "e": "~tilde"});
        let mut t = original.clone();
        let table = intern(&mut t);
        assert_eq!(table, vec![long.to_string()]);
        assert_eq!(t["a"], "~0");
        assert_eq!(t["b"][1], "~~tilde");
        expand(&mut t, &table).expect("ok");
        assert_eq!(t, original);
    }

    #[test]
    fn dangling_references_are_errors() {
        let mut t = json!(["~5"]);
        assert!(expand(&mut t, &[]).unwrap_err().contains("outside"));
        let mut t = json!(["~zz!"]);
        assert!(expand(&mut t, &["x".into()]).is_err());
    }

    #[test]
    fn base36_counts() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
    }
}
