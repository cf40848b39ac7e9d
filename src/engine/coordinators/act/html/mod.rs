//! ACT's views as HTML and SVG (escaped text only; pure functions, tested
//! natively): the meeting room, the meetings, every agent's memory, the
//! task evolution, the production rounds and the deliverable with its
//! scores, and the batch report's tables and chart.

pub mod meetings;
pub mod memory;
pub mod output;
pub mod report;
pub mod room;
pub mod tasks;

/// An importance 0–10 as a small bar.
pub fn importance_bar(v: u8) -> String {
    format!(
        "<span class=\"act-imp\" title=\"importance {v} of 10\"><span style=\"width:{}%\"></span></span><span class=\"small act-imp-n\">{v}</span>",
        u32::from(v.min(10)) * 10
    )
}

/// Up to `n` characters of `s`, with an ellipsis when cut.
pub fn excerpt(s: &str, n: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= n {
        return s.to_string();
    }
    format!("{}…", s.chars().take(n).collect::<String>())
}

/// The most characters a keyword pill shows: a longer keyword (a model
/// can answer a whole paragraph as one) is cut there with "…".
pub const PILL_CHARS: usize = 32;

/// A keyword as its pill shows it: spaces collapsed, at most
/// [`PILL_CHARS`] characters; and whether it was cut.
pub fn pill_text(word: &str) -> (String, bool) {
    let words: Vec<&str> = word.split_whitespace().collect();
    let one = words.join(" ");
    if one.chars().count() <= PILL_CHARS {
        return (one, false);
    }
    let cut: String = one.chars().take(PILL_CHARS - 1).collect();
    (format!("{}…", cut.trim_end()), true)
}

/// Keywords as pills (`class` is added to `act-kw`): each shows its
/// [`pill_text`], the whole keyword in its title; the keywords that were
/// cut follow whole, as text, in a `<details>` a keyboard reaches.
pub fn keyword_pills(words: &[String], class: &str) -> String {
    let class = if class.is_empty() {
        "act-kw".to_string()
    } else {
        format!("act-kw {class}")
    };
    let mut pills = String::new();
    let mut whole = String::new();
    let mut cut = 0;
    for w in words {
        let (text, was_cut) = pill_text(w);
        if was_cut {
            cut += 1;
            whole.push_str(&format!("<li>{}</li>", crate::engine::views::html::esc(w)));
            pills.push_str(&format!(
                "<span class=\"{class}\" title=\"{}\">{}</span>",
                crate::engine::views::html::esc(w),
                crate::engine::views::html::esc(&text)
            ));
        } else {
            pills.push_str(&format!(
                "<span class=\"{class}\">{}</span>",
                crate::engine::views::html::esc(&text)
            ));
        }
    }
    if cut > 0 {
        pills.push_str(&format!(
            "<details class=\"act-kw-full\"><summary>{} in full</summary><ul>{whole}</ul></details>",
            if cut == 1 {
                "The long keyword".to_string()
            } else {
                format!("The {cut} long keywords")
            }
        ));
    }
    pills
}

/// The flags a repair left, as a warning line (empty when none).
pub fn flags_html(flags: &[String]) -> String {
    if flags.is_empty() {
        return String::new();
    }
    let items: Vec<String> = flags
        .iter()
        .map(|f| crate::engine::views::html::esc(f))
        .collect();
    format!(
        "<p class=\"small act-flags\" title=\"repaired model output\">⚑ {}</p>",
        items.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pill_shows_a_short_keyword_whole_and_cuts_a_long_one() {
        assert_eq!(
            pill_text("  oolong   tea "),
            ("oolong tea".to_string(), false)
        );
        let exact = "x".repeat(PILL_CHARS);
        assert_eq!(pill_text(&exact), (exact.clone(), false));
        let (text, cut) = pill_text(&"y".repeat(2132));
        assert!(cut);
        assert_eq!(text.chars().count(), PILL_CHARS);
        assert!(text.ends_with('…'));
        // Characters, not bytes: no panic inside a letter.
        let (text, cut) = pill_text(&"é".repeat(100));
        assert!(cut && text.chars().count() == PILL_CHARS, "{text}");
        assert_eq!(pill_text("").0, "");
    }

    #[test]
    fn a_cut_keyword_is_whole_in_the_title_and_below_the_pills_as_text() {
        let long = format!("<b>{}</b> \"quoted\"", "word ".repeat(400));
        let words = vec!["tea".to_string(), long.clone()];
        let h = keyword_pills(&words, "act-expertise");
        assert!(
            h.starts_with("<span class=\"act-kw act-expertise\">tea</span>"),
            "{h}"
        );
        assert_eq!(h.matches("class=\"act-kw act-expertise\"").count(), 2);
        let escaped = crate::engine::views::html::esc(&long);
        assert!(h.contains(&format!("title=\"{escaped}\"")));
        assert!(h.contains(&format!("<details class=\"act-kw-full\"><summary>The long keyword in full</summary><ul><li>{escaped}</li></ul></details>")));
        assert!(!h.contains("<b>") && !h.contains("\"quoted\""));
        // The pill itself holds at most PILL_CHARS characters.
        let pill = h
            .split("\">")
            .nth(2)
            .and_then(|s| s.split("</span>").next())
            .unwrap();
        assert!(pill.chars().count() <= PILL_CHARS + 10, "{pill}");
        // Nothing cut: no details.
        assert!(!keyword_pills(&["a".into(), "b".into()], "").contains("details"));
        assert!(keyword_pills(&[long.clone(), long], "").contains("The 2 long keywords in full"));
    }
}
