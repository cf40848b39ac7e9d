//! The string operations of the official Python code, reproduced exactly:
//! its three regular expressions (`extract_from_to`,
//! `extract_before_parenthesis`, `get_valid_name_city`), Python's notion of
//! whitespace and `strip()`, `repr()` of strings and lists, and how Python
//! prints floats. The regexes are matched by hand (no regex crate) with the
//! same leftmost, greedy/lazy backtracking order as Python's `re`.

/// Python's `str.isspace()` for one character (what `\s` matches in `re`).
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()` with no argument.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// `extract_before_parenthesis`: `re.search(r'^(.*?)\([^)]*\)', s)` and the
/// group, else `s` unchanged. "Rockford(Illinois)" → "Rockford";
/// "Rockford (Illinois)" → "Rockford " (the space stays).
pub fn before_paren(s: &str) -> &str {
    let Some(open) = s.find('(') else {
        return s;
    };
    // `.` does not match a newline, so the group cannot reach a later '('.
    if s[..open].contains('\n') {
        return s;
    }
    if s[open + 1..].contains(')') {
        &s[..open]
    } else {
        s
    }
}

/// `extract_from_to`: `re.search(r"from\s+(.+?)\s+to\s+([^,]+)(?=[,\s]|$)", text)`.
/// Returns the two groups, or None when the pattern does not match.
pub fn extract_from_to(text: &str) -> Option<(&str, &str)> {
    let cs: Vec<(usize, char)> = text.char_indices().collect();
    let n = cs.len();
    let byte = |i: usize| cs.get(i).map(|c| c.0).unwrap_or(text.len());
    let ws_run = |from: usize| {
        cs[from.min(n)..]
            .iter()
            .take_while(|c| is_py_space(c.1))
            .count()
    };
    let starts = |at: usize, word: &str| {
        let mut it = cs.get(at..).unwrap_or(&[]).iter().map(|c| c.1);
        word.chars().all(|w| it.next() == Some(w))
    };
    for s in 0..n {
        if !starts(s, "from") {
            continue;
        }
        let after_from = s + 4;
        for k1 in (1..=ws_run(after_from)).rev() {
            let g1_start = after_from + k1;
            // `.+?`: lazily grow group 1 (never across a newline).
            let mut e = g1_start + 1;
            while e <= n && cs[e - 1].1 != '\n' {
                for k2 in (1..=ws_run(e)).rev() {
                    let to_at = e + k2;
                    if !starts(to_at, "to") {
                        continue;
                    }
                    let after_to = to_at + 2;
                    for k3 in (1..=ws_run(after_to)).rev() {
                        let g2_start = after_to + k3;
                        // `[^,]+` greedy; at its end comes ',' or the end, so
                        // the lookahead `(?=[,\s]|$)` holds at the longest run.
                        let run = cs[g2_start..].iter().take_while(|c| c.1 != ',').count();
                        if run > 0 {
                            let g1 = &text[byte(g1_start)..byte(e)];
                            let g2 = &text[byte(g2_start)..byte(g2_start + run)];
                            return Some((g1, g2));
                        }
                    }
                }
                e += 1;
            }
        }
    }
    None
}

/// `get_valid_name_city`: `re.search(r'(.*?),\s*([^,]+)(\(\w[\w\s]*\))?$', info)`,
/// then `(g1.strip(), extract_before_parenthesis(g2.strip()).strip())`; without a
/// match `("-", "-")`. The name is everything before the last comma.
pub fn valid_name_city(info: &str) -> (String, String) {
    let Some(comma) = info.rfind(',') else {
        return ("-".into(), "-".into());
    };
    let after = &info[comma + 1..];
    if after.is_empty() {
        // `[^,]+` needs one character after the last comma.
        return ("-".into(), "-".into());
    }
    // Group 1 cannot contain a newline: the match starts after the last one.
    let start = info[..comma].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let name = &info[start..comma];
    // `\s*` is greedy but leaves at least one character to group 2.
    let lead = after.len() - after.trim_start_matches(is_py_space).len();
    let city = if lead == after.len() {
        let last = after.char_indices().last().map(|(i, _)| i).unwrap_or(0);
        &after[last..]
    } else {
        &after[lead..]
    };
    let city = py_strip(before_paren(py_strip(city)));
    (py_strip(name).to_string(), city.to_string())
}

/// `value.split('Flight Number: ')[1].split(',')[0]`, or None where Python
/// raises an IndexError (no "Flight Number: " in the value).
pub fn flight_number_of(value: &str) -> Option<&str> {
    const MARK: &str = "Flight Number: ";
    let start = value.find(MARK)? + MARK.len();
    let rest = &value[start..];
    let rest = rest.find(MARK).map(|i| &rest[..i]).unwrap_or(rest);
    Some(rest.split(',').next().unwrap_or(rest))
}

/// `value.split(';')[:-1]`: the pieces before the last `;`.
pub fn attraction_pieces(value: &str) -> Vec<&str> {
    let mut pieces: Vec<&str> = value.split(';').collect();
    pieces.pop();
    pieces
}

/// Python's `repr()` of a string.
pub fn py_repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `str()` of a list of strings: `['a', 'b']`.
pub fn py_repr_list<S: AsRef<str>>(items: &[S]) -> String {
    let parts: Vec<String> = items.iter().map(|s| py_repr_str(s.as_ref())).collect();
    format!("[{}]", parts.join(", "))
}

/// How Python prints a float: `131.0`, `4.8`.
pub fn py_float(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e16 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// How Python prints a number that pandas read as an integer column.
pub fn py_int(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e18 {
        format!("{}", v as i64)
    } else {
        py_float(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_to_matches_python() {
        assert_eq!(
            extract_from_to("from St. Petersburg to Rockford"),
            Some(("St. Petersburg", "Rockford"))
        );
        assert_eq!(
            extract_from_to("Flight Number: F1, from A(X) to B (Y), Departure Time: 1"),
            Some(("A(X)", "B (Y)"))
        );
        // Lazy group 1 stops at the first " to ".
        assert_eq!(
            extract_from_to("from Toledo to Tampa to X"),
            Some(("Toledo", "Tampa to X"))
        );
        assert_eq!(extract_from_to("from A to B , x"), Some(("A", "B ")));
        assert_eq!(extract_from_to("from Rockford"), None);
        assert_eq!(extract_from_to("fromA to B"), None);
        assert_eq!(extract_from_to("from  A  to  B"), Some(("A", "B")));
        // Group 2 may be a lone space when only spaces precede a comma.
        assert_eq!(extract_from_to("from A to  ,"), Some(("A", " ")));
    }

    #[test]
    fn before_paren_matches_python() {
        assert_eq!(before_paren("Rockford(Illinois)"), "Rockford");
        assert_eq!(before_paren("Rockford (Illinois)"), "Rockford ");
        assert_eq!(before_paren("Rockford"), "Rockford");
        assert_eq!(before_paren("A(b"), "A(b");
        assert_eq!(before_paren("A\n(b)"), "A\n(b)");
        assert_eq!(before_paren("(x)y"), "");
    }

    #[test]
    fn name_city_matches_python() {
        let p = |s: &str| valid_name_city(s);
        assert_eq!(
            p("Coco Bambu, Rockford"),
            ("Coco Bambu".into(), "Rockford".into())
        );
        assert_eq!(
            p("Peaceful, beautiful home away , Denver(Colorado)"),
            ("Peaceful, beautiful home away".into(), "Denver".into())
        );
        assert_eq!(p("Name ,  City "), ("Name".into(), "City".into()));
        assert_eq!(p("No comma"), ("-".into(), "-".into()));
        assert_eq!(p("Trailing,"), ("-".into(), "-".into()));
        assert_eq!(p("Name,   "), ("Name".into(), "".into()));
        assert_eq!(p("A\nB, C"), ("B".into(), "C".into()));
        assert_eq!(p("X, Austin (Texas)"), ("X".into(), "Austin".into()));
    }

    #[test]
    fn flight_numbers_and_pieces() {
        assert_eq!(
            flight_number_of("Flight Number: F1, from A to B"),
            Some("F1")
        );
        assert_eq!(flight_number_of("Flight Number: F1"), Some("F1"));
        assert_eq!(flight_number_of("flight number F1"), None);
        assert_eq!(attraction_pieces("a;b;"), vec!["a", "b"]);
        assert_eq!(attraction_pieces("a;b"), vec!["a"]);
        assert!(attraction_pieces("a").is_empty());
    }

    #[test]
    fn python_reprs() {
        assert_eq!(
            py_repr_list(&["San Diego", "O'Hare"]),
            "['San Diego', \"O'Hare\"]"
        );
        assert_eq!(py_float(131.0), "131.0");
        assert_eq!(py_float(4.8), "4.8");
        assert_eq!(py_int(46.0), "46");
    }
}
