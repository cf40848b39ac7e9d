//! Views rendered to HTML and SVG text. Lists that are mostly static
//! (transcript entries, event rows, saved runs, tables) are cheaper as
//! strings than as reactive components, and pure functions can be tested
//! natively. Every piece of text goes through [`esc`]; model output goes
//! through [`markdown::to_safe_html`]. Buttons carry `data-action`
//! attributes and the UI handles clicks on their container.

pub mod agents;
pub mod diff;
pub mod events;
pub mod graph;
pub mod history;
pub mod inspector;
pub mod markdown;
pub mod model_name;
pub mod repairs;
pub mod timeline;
pub mod transcript;
pub mod usage;

pub use events::event_row;
pub use history::{history_row, HistoryRow};
pub use inspector::{handoffs_html, inspector_html};
pub use timeline::timeline_svg;
pub use transcript::{entry_html, entry_html_with};
pub use usage::usage_rows;

/// Escapes text for HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// What an `<svg>` tag needs to stand alone as a file: the namespace and
/// its size in pixels (nothing when it is drawn inside a page).
pub fn standalone_svg_attrs(
    standalone: bool,
    width: impl std::fmt::Display,
    height: impl std::fmt::Display,
) -> String {
    if standalone {
        format!(" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\"")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            esc(r#"<a href="x" onclick='y'>&</a>"#),
            "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;"
        );
        assert_eq!(esc("a\u{0}b\nc"), "ab\nc");
    }
}
