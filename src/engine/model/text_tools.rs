//! The text tool-call protocol for models without native tool calling:
//! `ToolName[arg1, arg2]`, as TravelPlanner's agents write it. Parsing is
//! robust to surrounding prose, Markdown emphasis and code fences. A model
//! run here is held to the protocol by a grammar ([`CallGrammar`]).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextToolCall {
    pub name: String,
    pub args: Vec<String>,
}

/// Formats a call: `FlightSearch[New York, Boston, 2022-03-16]`.
pub fn format_call(name: &str, args: &[&str]) -> String {
    format!("{name}[{}]", args.join(", "))
}

/// The tools a text-protocol reply may call, as a request carries them:
/// a model run here (the page's worker, the CLI's local model) holds the
/// reply to [`CallGrammar::lark`] by constrained decoding; a provider gets
/// the prompt alone. No tool: the reply may call none (an agent's last
/// round).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallGrammar {
    pub tools: Vec<GrammarTool>,
}

/// A tool of a [`CallGrammar`]: its name and how many arguments a call
/// has (0: any number).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrammarTool {
    pub name: String,
    pub args: usize,
}

impl CallGrammar {
    pub fn new<'a>(tools: impl IntoIterator<Item = (&'a str, usize)>) -> CallGrammar {
        CallGrammar {
            tools: tools
                .into_iter()
                .map(|(name, args)| GrammarTool {
                    name: name.to_string(),
                    args,
                })
                .collect(),
        }
    }

    /// The grammar, in llguidance's Lark syntax ([`call_grammar`]).
    pub fn lark(&self) -> String {
        let tools: Vec<(&str, usize)> = self
            .tools
            .iter()
            .map(|t| (t.name.as_str(), t.args))
            .collect();
        call_grammar(&tools)
    }
}

/// The text protocol as a grammar (llguidance's Lark syntax) that a model
/// run here is held to by constrained decoding. A reply is any text in
/// which a word followed by `[` is one of `tools` (name, arguments; 0: any
/// number), starting a word, with that many arguments, each on the call's line and written
/// as [`parse_all`] reads it (plain, or in quotes; no brackets or
/// parentheses), the call closed on its line: `FlightSearch[Boston, Austin,
/// 2022-03-16]`. So a call is whole or absent, and never of a tool the
/// agent lacks; prose, lists and JSON (a bracket after a space, a colon, a
/// quote) stay free. A reply cut off by the token cap can still stop inside
/// a call: its reader says so.
pub fn call_grammar(tools: &[(&str, usize)]) -> String {
    // Characters of a word: ASCII letters, digits and `_`, and any
    // character beyond ASCII (wider than `parse_all`'s letters: a call
    // the grammar lets through always starts a word there).
    const NOT_WORD: &str = r"\x00-\x2F\x3A-\x40\x5B-\x5E\x60\x7B-\x7F";
    const NOT_WORD_NOR_OPEN: &str = r"\x00-\x2F\x3A-\x40\x5C-\x5E\x60\x7B-\x7F";
    let arg = r#" *(?:"[^"\n]*"|'[^'\n]*'|[^\[\]\n(){},"' ][^\[\]\n(){},]*) *"#;
    let calls: Vec<String> = tools
        .iter()
        .filter_map(|(name, arity)| {
            let name: String = name
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let args = match arity {
                0 => format!("(?:{arg}(?:,{arg})*)?"),
                n => format!("{arg}(?:,{arg}){{{}}}", n - 1),
            };
            (!name.is_empty()).then(|| format!(r"{name}\[{args}\]"))
        })
        .collect();
    let call = if calls.is_empty() {
        String::new()
    } else {
        format!("{}|", calls.join("|"))
    };
    // Calls; words, each followed by a character that is neither a word's
    // nor `[`; single characters that are not a word's (`[` among them:
    // after them a bracket starts no call); and a last word.
    let reply =
        format!("(?:{call}[^{NOT_WORD}]+[{NOT_WORD_NOR_OPEN}]|[{NOT_WORD}])*[^{NOT_WORD}]*");
    format!("start: REPLY\nREPLY: /{}/\n", reply.replace('/', r"\/"))
}

/// Every `Name[...]` in `text` whose name is in `known` (any identifier
/// starting with an uppercase letter when `known` is empty), in order.
pub fn parse_all(text: &str, known: &[&str]) -> Vec<TextToolCall> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    // A `Name[` that never closes reads to the end of the text; after
    // this many, the rest is not tried (100 KB of `FlightSearch[(` would
    // otherwise take time quadratic in the reply).
    let mut unclosed = 0;
    while i < chars.len() {
        let (pos, c) = chars[i];
        let at_word_start = i == 0 || !is_ident(chars[i - 1].1);
        if !(at_word_start && (c.is_alphabetic() || c == '_')) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && is_ident(chars[j].1) {
            j += 1;
        }
        let name_end = chars.get(j).map(|c| c.0).unwrap_or(text.len());
        let name = &text[pos..name_end];
        let accepted = if known.is_empty() {
            name.starts_with(|c: char| c.is_uppercase())
        } else {
            known.contains(&name)
        };
        if accepted && chars.get(j).map(|c| c.1) == Some('[') {
            if let Some((args, end)) = parse_args(&chars, j + 1) {
                out.push(TextToolCall {
                    name: name.to_string(),
                    args,
                });
                i = end;
                continue;
            }
            unclosed += 1;
            if unclosed > MAX_UNCLOSED {
                break;
            }
        }
        i = j.max(i + 1);
    }
    out
}

/// Calls that never close tried before the rest of a reply is given up.
const MAX_UNCLOSED: usize = 32;

/// The first call, if any.
pub fn parse_first(text: &str, known: &[&str]) -> Option<TextToolCall> {
    parse_all(text, known).into_iter().next()
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Parses arguments after `[` up to the matching `]`; commas split arguments
/// except inside quotes or nested brackets. Returns the index after `]`.
fn parse_args(chars: &[(usize, char)], start: usize) -> Option<(Vec<String>, usize)> {
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut k = start;
    while k < chars.len() {
        let c = chars[k].1;
        match quote {
            Some(q) if c == q => {
                quote = None;
                cur.push(c);
            }
            Some(_) => cur.push(c),
            None => match c {
                '"' | '\'' if cur.trim().is_empty() => {
                    quote = Some(c);
                    cur.push(c);
                }
                '[' | '(' | '{' => {
                    depth += 1;
                    cur.push(c);
                }
                ']' if depth == 0 => {
                    push_arg(&mut args, &cur);
                    return Some((args, k + 1));
                }
                ']' | ')' | '}' => {
                    depth = depth.saturating_sub(1);
                    cur.push(c);
                }
                ',' if depth == 0 => {
                    push_arg(&mut args, &cur);
                    cur.clear();
                }
                '\n' if depth == 0 => return None,
                _ => cur.push(c),
            },
        }
        k += 1;
    }
    None
}

fn push_arg(args: &mut Vec<String>, raw: &str) {
    let t = raw.trim();
    let t = t
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
        .unwrap_or(t);
    if !(t.is_empty() && args.is_empty() && raw.trim().is_empty()) {
        args.push(t.trim().to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: &[&str] = &[
        "FlightSearch",
        "AccommodationSearch",
        "GoogleDistanceMatrix",
        "Planner",
    ];

    #[test]
    fn parses_calls_in_prose() {
        let t = "Thought 1: I need flights.\n**Action 1:** `FlightSearch[St. Petersburg, Rockford, 2022-03-16]`\nthen more";
        assert_eq!(
            parse_first(t, TOOLS),
            Some(TextToolCall {
                name: "FlightSearch".into(),
                args: vec![
                    "St. Petersburg".into(),
                    "Rockford".into(),
                    "2022-03-16".into()
                ],
            })
        );
    }

    #[test]
    fn quotes_keep_commas_and_unknown_names_are_ignored() {
        let t = "Search[x] then AccommodationSearch[\"Washington, D.C.\"] and GoogleDistanceMatrix['A', 'B', self-driving]";
        let calls = parse_all(t, TOOLS);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].args, vec!["Washington, D.C."]);
        assert_eq!(calls[1].args, vec!["A", "B", "self-driving"]);
    }

    #[test]
    fn nested_brackets_and_empty_args() {
        let calls = parse_all("Planner[[a, b], {c, d}] NoArgs[]", &[]);
        assert_eq!(calls[0].args, vec!["[a, b]", "{c, d}"]);
        assert_eq!(
            calls[1],
            TextToolCall {
                name: "NoArgs".into(),
                args: vec![]
            }
        );
    }

    #[test]
    fn unclosed_or_embedded_names_are_not_calls() {
        assert!(parse_all("FlightSearch[a, b", TOOLS).is_empty());
        assert!(parse_all("MyFlightSearch[a]", TOOLS).is_empty());
        assert!(parse_all("FlightSearch[a,\nb]", TOOLS).is_empty());
    }

    #[test]
    fn a_long_run_of_unclosed_calls_is_given_up_not_rescanned() {
        // One line of 100 KB: each `FlightSearch[(` would read to its end.
        let junk = "FlightSearch[(".repeat(7_500);
        assert!(parse_all(&junk, TOOLS).is_empty());
        // A few unclosed ones before a real call do not hide it.
        let text = format!(
            "{} FlightSearch[A, B, 2022-01-01]",
            "FlightSearch[( ".repeat(5)
        );
        assert_eq!(
            parse_all(&text, TOOLS).len(),
            1,
            "found after unclosed ones"
        );
        let text = format!(
            "{}\nFlightSearch[A, B, 2022-01-01]",
            "FlightSearch[a, ".repeat(5)
        );
        assert_eq!(
            parse_all(&text, TOOLS).len(),
            1,
            "a line break ends an unclosed call"
        );
    }

    #[test]
    fn format_round_trips() {
        let s = format_call("FlightSearch", &["A", "B", "2022-01-01"]);
        assert_eq!(s, "FlightSearch[A, B, 2022-01-01]");
        let c = parse_first(&s, TOOLS).expect("call");
        assert_eq!(c.args, vec!["A", "B", "2022-01-01"]);
    }
}
