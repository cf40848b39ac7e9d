//! Markdown to HTML that is safe to insert: raw HTML in the source becomes
//! visible text, dangerous link schemes are dropped, images become links
//! (nothing is fetched from addresses in model output). A reply that is
//! one JSON object or list (a step held to its shape) is shown as an
//! indented JSON block, not as a paragraph of braces.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

fn safe_url(url: &str) -> bool {
    let lower: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    match lower.find(':') {
        // A scheme is present only if ':' comes before any '/', '?' or '#'.
        Some(p) if !lower[..p].contains(['/', '?', '#']) => {
            matches!(&lower[..p], "http" | "https" | "mailto")
        }
        _ => true,
    }
}

pub fn to_safe_html(src: &str) -> String {
    match whole_json(src) {
        // Every line of the block starts with a brace, a bracket or
        // indentation, so no string inside it can close the fence.
        Some(pretty) => markdown_html(&format!("```json\n{pretty}\n```")),
        None => markdown_html(src),
    }
}

/// `src` indented, when the whole of it is a JSON object or list.
fn whole_json(src: &str) -> Option<String> {
    let t = src.trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(t).ok()?;
    serde_json::to_string_pretty(&v).ok()
}

fn markdown_html(src: &str) -> String {
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    opts.insert(Options::ENABLE_TASKLISTS);
    let parser = Parser::new_ext(src, opts).map(|ev| match ev {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        // An image becomes a link to it (nothing is fetched while rendering).
        Event::Start(
            Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }
            | Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            },
        ) => {
            let dest_url = if safe_url(&dest_url) {
                dest_url
            } else {
                CowStr::Borrowed("#")
            };
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            })
        }
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, parser);
    // Links open outside the app, without giving the target a handle on it.
    // Code blocks scroll sideways: focusable, so the keyboard scrolls them too.
    // (Raw HTML in the source is text by now: every "<pre>" is a code block.)
    html.replace(
        "<a href=",
        "<a target=\"_blank\" rel=\"noopener noreferrer nofollow\" href=",
    )
    .replace("<pre>", "<pre tabindex=\"0\">")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_that_is_one_json_value_is_an_indented_block() {
        let h = to_safe_html(r#" {"plan": [{"days": 1}], "notes": "<b>```x</b>"} "#);
        assert!(
            h.starts_with("<pre tabindex=\"0\"><code class=\"language-json\">{\n  \"plan\": ["),
            "{h}"
        );
        assert!(
            h.contains("&lt;b&gt;```x&lt;/b&gt;"),
            "escaped, inside the block: {h}"
        );
        assert_eq!(h.matches("<pre").count(), 1);
        // Prose around JSON, or JSON cut short, stays markdown.
        assert!(to_safe_html("Here: {\"a\": 1}").starts_with("<p>"));
        assert!(to_safe_html("{\"a\": ").starts_with("<p>"));
    }

    #[test]
    fn raw_html_becomes_text() {
        let h = to_safe_html("Hi <script>alert(1)</script> and <img src=x onerror=alert(2)>");
        assert!(!h.contains("<script"), "{h}");
        assert!(!h.contains("<img"), "{h}");
        assert!(h.contains("&lt;script&gt;"), "{h}");
        assert!(h.contains("&lt;img src=x onerror=alert(2)&gt;"), "{h}");
        let block = to_safe_html("<div onclick=\"x()\">\n<iframe src=evil></iframe>\n</div>");
        assert!(
            !block.contains("<div") && !block.contains("<iframe"),
            "{block}"
        );
    }

    #[test]
    fn dangerous_links_are_neutralised() {
        for src in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](java\tscript:alert(1))",
            "[x](data:text/html,<script>alert(1)</script>)",
            "[x](vbscript:msgbox)",
            "<javascript:alert(1)>",
        ] {
            let h = to_safe_html(src).to_lowercase();
            for scheme in ["javascript:", "data:", "vbscript:"] {
                assert!(!h.contains(&format!("href=\"{scheme}")), "{src} -> {h}");
            }
            assert!(
                !h.contains("<a ") || h.contains("href=\"#\""),
                "{src} -> {h}"
            );
        }
        let ok = to_safe_html("[docs](https://example.org/a?b) and [rel](/x)");
        assert!(ok.contains("href=\"https://example.org/a?b\""), "{ok}");
        assert!(ok.contains("rel=\"noopener noreferrer nofollow\""), "{ok}");
    }

    #[test]
    fn images_become_links() {
        let h = to_safe_html("![cat](https://example.org/cat.png)");
        assert!(!h.contains("<img"), "{h}");
        assert!(h.contains("href=\"https://example.org/cat.png\""), "{h}");
    }

    #[test]
    fn markdown_still_renders() {
        let h = to_safe_html("# T\n\n- **a**\n- `b`\n\n| x | y |\n|---|---|\n| 1 | 2 |\n");
        for tag in ["<h1>", "<strong>", "<code>", "<table>", "<li>"] {
            assert!(h.contains(tag), "{tag} in {h}");
        }
    }
}
