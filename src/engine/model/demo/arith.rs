//! Exact arithmetic for the demo model: finds and evaluates expressions such
//! as `3 * (2 + 4)` or `12.5 / 5` in text.

/// Evaluates an arithmetic expression with + - * / and parentheses.
pub fn eval(expr: &str) -> Result<f64, String> {
    let tokens: Vec<char> = expr.chars().filter(|c| !c.is_whitespace()).collect();
    let mut p = Parser { t: &tokens, i: 0 };
    let v = p.sum()?;
    if p.i != tokens.len() {
        return Err(format!("unexpected '{}'", tokens[p.i]));
    }
    if !v.is_finite() {
        return Err("the result is not a finite number".into());
    }
    Ok(v)
}

struct Parser<'a> {
    t: &'a [char],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.t.get(self.i).copied()
    }
    fn sum(&mut self) -> Result<f64, String> {
        let mut v = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.i += 1;
            let r = self.product()?;
            v = if op == '+' { v + r } else { v - r };
        }
        Ok(v)
    }
    fn product(&mut self) -> Result<f64, String> {
        let mut v = self.atom()?;
        while let Some(op @ ('*' | '/' | '×' | '÷')) = self.peek() {
            self.i += 1;
            let r = self.atom()?;
            if matches!(op, '/' | '÷') {
                if r == 0.0 {
                    return Err("division by zero".into());
                }
                v /= r;
            } else {
                v *= r;
            }
        }
        Ok(v)
    }
    fn atom(&mut self) -> Result<f64, String> {
        match self.peek() {
            Some('(') => {
                self.i += 1;
                let v = self.sum()?;
                if self.peek() != Some(')') {
                    return Err("missing ')'".into());
                }
                self.i += 1;
                Ok(v)
            }
            Some('-') => {
                self.i += 1;
                Ok(-self.atom()?)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => {
                let start = self.i;
                while matches!(self.peek(), Some(c) if c.is_ascii_digit() || c == '.' || c == ',') {
                    self.i += 1;
                }
                let s: String = self.t[start..self.i]
                    .iter()
                    .filter(|c| **c != ',')
                    .collect();
                s.parse::<f64>().map_err(|_| format!("bad number '{s}'"))
            }
            Some(c) => Err(format!("unexpected '{c}'")),
            None => Err("unexpected end".into()),
        }
    }
}

/// Finds the longest arithmetic expression with at least one operator in
/// `text` and evaluates it.
pub fn find_expression(text: &str) -> Option<(String, f64)> {
    let allowed = |c: char| c.is_ascii_digit() || " +-*/×÷().".contains(c);
    let mut best: Option<(String, f64)> = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        if !allowed(chars[i].1) {
            i += 1;
            continue;
        }
        let start = chars[i].0;
        let mut j = i;
        while j < chars.len() && allowed(chars[j].1) {
            j += 1;
        }
        let end = chars.get(j).map(|c| c.0).unwrap_or(text.len());
        let candidate = text[start..end]
            .trim()
            .trim_end_matches(['.', ' '])
            .trim_start_matches(')');
        let has_op = candidate.chars().skip(1).any(|c| "+-*/×÷".contains(c));
        let has_digit = candidate.chars().any(|c| c.is_ascii_digit());
        if has_op && has_digit {
            if let Ok(v) = eval(candidate) {
                if best.as_ref().is_none_or(|(b, _)| candidate.len() > b.len()) {
                    best = Some((candidate.to_string(), v));
                }
            }
        }
        i = j.max(i + 1);
    }
    best
}

/// Formats a number without a trailing `.0`, rounding to 4 decimals.
pub fn format_number(v: f64) -> String {
    let r = (v * 10_000.0).round() / 10_000.0;
    if r.fract() == 0.0 && r.abs() < 1e15 {
        format!("{}", r as i64)
    } else {
        format!("{r}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates_with_precedence() {
        assert_eq!(eval("2 + 3 * 4"), Ok(14.0));
        assert_eq!(eval("(2 + 3) * 4"), Ok(20.0));
        assert_eq!(eval("-3 + 10 / 4"), Ok(-0.5));
        assert_eq!(eval("1,200 * 2"), Ok(2400.0));
        assert!(eval("1 / 0").is_err());
        assert!(eval("2 +").is_err());
        assert!(eval("(1").is_err());
    }

    #[test]
    fn finds_expressions_in_prose() {
        assert_eq!(
            find_expression("estimate 3 * (2 + 4) hours."),
            Some(("3 * (2 + 4)".into(), 18.0))
        );
        assert_eq!(
            find_expression("What is 2 + 3 * 4?"),
            Some(("2 + 3 * 4".into(), 14.0))
        );
        assert_eq!(find_expression("a three-day plan for 2024"), None);
        assert_eq!(format_number(18.0), "18");
        assert_eq!(format_number(2.5), "2.5");
    }
}
