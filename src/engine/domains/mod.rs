//! Task domains: sandboxes, tools and evaluators that coordinators work
//! against. Pure Rust, like the rest of the engine.

pub mod agentverse;
pub mod creative;
pub mod rouge;
pub mod srdd;
pub mod tasks;
pub mod travel;

/// The non-empty lines of a JSONL file as `(line number, value)`, in order;
/// a line that is not JSON is an error naming `file` and the line.
pub fn jsonl_rows<'a>(
    text: &'a str,
    file: &'a str,
) -> impl Iterator<Item = Result<(usize, serde_json::Value), String>> + 'a {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(move |(i, line)| {
            serde_json::from_str(line)
                .map(|v| (i + 1, v))
                .map_err(|e| format!("{file} line {}: not valid JSON ({e})", i + 1))
        })
}
