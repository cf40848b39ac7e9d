//! Lessons and comparisons leaving the app: share links (with the size
//! cap's message), files (JSON; a comparison also as a Markdown report and
//! an SVG chart), and copying to the clipboard.

use crate::engine::lesson::Bundle;
use crate::engine::share::bundle;
use crate::platform::{files, location};
use crate::ui::lazy::lazy_part;

lazy_part! { extras:
    /// The link encoder (LZMA's match finder) loads with the share dialog's,
    /// not with the run views every opened link needs.
    fn encode_in_chunk(b: Bundle) -> Result<String, String> {
        bundle::encode(&b).map_err(|e| e.user_message())
    }
}

/// The link of `b`, or the message saying why there is none.
pub async fn link(b: &Bundle) -> Result<String, String> {
    let fragment = encode_in_chunk(b.clone())
        .await
        .unwrap_or_else(|e| Err(e.message("the link maker")))?;
    let path = if b.runs.len() > 1 { "compare" } else { "" };
    let url = location::url_with_fragment(&format!("#{fragment}"));
    Ok(match path {
        "" => url,
        p => url.replacen("/#", &format!("/{p}#"), 1),
    })
}

/// A file name from a title: lowercase words joined by dashes.
pub fn file_stem(title: &str, fallback: &str) -> String {
    let stem: String = title
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(8)
        .collect::<Vec<_>>()
        .join("-");
    if stem.is_empty() {
        fallback.to_string()
    } else {
        stem
    }
}

/// Downloads `b` as its file (`.lesson.json` or `.comparison.json`).
pub fn download(b: &Bundle) -> Result<(), String> {
    let (kind, fallback) = if b.is_lesson() {
        ("lesson", "roundtable-lesson")
    } else {
        ("comparison", "roundtable-comparison")
    };
    files::download_text(
        &format!("{}.{kind}.json", file_stem(&b.title, fallback)),
        "application/json",
        &b.clone().sanitized().to_json_pretty(),
    )
}

/// Copies `text`; the message to show.
pub async fn copy(text: &str) -> Result<String, String> {
    files::copy(text)
        .await
        .map(|()| "Link copied.".to_string())
        .map_err(|_| {
            "The browser did not allow copying: select the link and copy it yourself.".to_string()
        })
}
