//! Counts in words ("1 experience", "2 experiences", never "1
//! experiences") and text cut to fit (at a word, the cut marked).

/// `n` and the noun, singular for one: `count(1, "call")` is "1 call",
/// `count(3, "call")` "3 calls" (the plural adds "s"; [`count_as`] takes
/// another).
pub fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{n} {noun}s"),
    }
}

/// `n` and `one` or `many`: `count_as(2, "reply", "replies")`.
pub fn count_as(n: usize, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        _ => format!("{n} {many}"),
    }
}

/// `text` cut to at most `max` characters: whole when it fits, else cut at
/// the last word boundary in the second half of the limit (mid-word only
/// for a word longer than that), with "…" marking the cut (counted in
/// `max`). A number is never cut inside: "$1,100" stays whole or goes.
pub fn clip(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    let room: String = text.chars().take(max.saturating_sub(1)).collect();
    let at_word = room
        .char_indices()
        .rfind(|(_, c)| c.is_whitespace())
        .map(|(i, _)| i)
        .filter(|&i| room[..i].chars().count() >= max / 2);
    let kept = match at_word {
        Some(i) => &room[..i],
        // One long word: cut inside it, but not inside a number.
        None => room.trim_end_matches(|c: char| c.is_ascii_digit() || c == ',' || c == '.'),
    };
    let kept = kept.trim_end_matches(|c: char| c.is_whitespace() || ",;:-–—".contains(c));
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1, "experience"), "1 experience");
        assert_eq!(count(0, "experience"), "0 experiences");
        assert_eq!(count(2, "call"), "2 calls");
        assert_eq!(count_as(1, "reply", "replies"), "1 reply");
        assert_eq!(count_as(7, "reply", "replies"), "7 replies");
    }

    #[test]
    fn a_clipped_text_ends_at_a_word_and_says_so() {
        let task = "Plan a 3-day trip for a single traveller from Port Alder to Glenrock, with a budget of $1,100.";
        assert_eq!(clip(task, 200), task);
        let cut = clip(task, 88);
        assert_eq!(cut, "Plan a 3-day trip for a single traveller from Port Alder to Glenrock, with a budget of…");
        assert!(cut.chars().count() <= 88);
        assert_eq!(
            clip("I'm here to help you plan your trip.", 16),
            "I'm here to…"
        );
        // One long word is cut inside, never inside a number.
        assert_eq!(clip("Supercalifragilistic", 8), "Superca…");
        assert_eq!(clip("$1,100,000,000", 6), "$…");
    }
}
