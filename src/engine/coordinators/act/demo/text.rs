//! Plain-text helpers of the demo team: words, content words, sentences,
//! word limits, and reading the request's sections (transcripts, task
//! lists, knowledge blocks). Request text is untrusted: everything here
//! returns something sensible (often empty) for any input, never panics.

/// Words that carry no content in a task or an utterance.
#[rustfmt::skip]
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "but", "by", "can", "cannot", "could", "do", "does", "each", "every", "for", "from", "get",
    "has", "have", "help", "how", "i", "if", "in", "into", "is", "it", "its", "just", "like", "me",
    "more", "most", "much", "my", "need", "needs", "new", "no", "not", "of", "on", "one", "only",
    "or", "our", "out", "should", "so", "some", "something", "still", "such", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "too", "up",
    "us", "use", "using", "very", "want", "was", "way", "ways", "we", "well", "what", "when",
    "where", "which", "while", "who", "why", "will", "with", "without", "would", "you", "your",
    "suggest", "recommend", "make", "find", "good", "best", "first", "time", "thing", "things",
    "lot", "lots", "feel", "keep", "stay", "work", "works", "properly", "enough", "little", "many",
    "few", "same", "always", "never", "part", "task", "tasks", "team", "service", "agent",
    "design", "brings", "together", "answer", "trivia", "question", "questions", "story", "write",
    "include", "includes", "choose", "hold", "bring",
];

/// Lower case, every run of characters other than letters and digits a
/// single space.
pub fn normalise(text: &str) -> String {
    let lower = text.to_lowercase();
    let mut out = String::with_capacity(lower.len());
    for w in lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The words of a text, lower case.
pub fn words(text: &str) -> Vec<String> {
    normalise(text)
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether a word is one of the words without content.
pub fn is_stopword(w: &str) -> bool {
    STOPWORDS.contains(&w)
}

/// Content words, in order of first appearance, without repeats.
pub fn content_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words(text) {
        if w.chars().count() > 2
            && !is_stopword(&w)
            && !w.chars().all(|c| c.is_ascii_digit())
            && !out.contains(&w)
        {
            out.push(w);
        }
    }
    out
}

/// The first two of `items`, as a phrase ("tea pricing").
pub fn first_two(items: Vec<String>) -> String {
    items.into_iter().take(2).collect::<Vec<_>>().join(" ")
}

/// How many of `a` occur in `b` (a plural `s` ignored).
pub fn overlap(a: &[String], b: &[String]) -> usize {
    let stem = |w: &str| w.strip_suffix('s').unwrap_or(w).to_string();
    let b: Vec<String> = b.iter().map(|w| stem(w)).collect();
    a.iter().filter(|w| b.contains(&stem(w))).count()
}

/// The sentences of a text (ending in `.`, `!` or `?` followed by a
/// space or the end), trimmed.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        current.push(c);
        let end =
            matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if end || c == '\n' {
            let s = current.trim().to_string();
            if !s.is_empty() {
                out.push(s);
            }
            current.clear();
        }
    }
    let s = current.trim().to_string();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

/// At most `max` words of `text`; a cut text ends with "…".
pub fn clip(text: &str, max: usize) -> String {
    let w: Vec<&str> = text.split_whitespace().collect();
    if w.len() <= max {
        w.join(" ")
    } else {
        format!("{}…", w[..max].join(" ").trim_end_matches([',', ';', ':']))
    }
}

/// Words as the word limits count them (whitespace-separated).
pub fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The text with its first letter upper case.
pub fn capitalise(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// The text with its first letter lower case (unless it starts an
/// acronym or the pronoun "I").
pub fn decapitalise(text: &str) -> String {
    let mut c = text.chars();
    match (c.next(), text.chars().nth(1)) {
        (Some(f), Some(s)) if !(s.is_uppercase() || f == 'I' && s == ' ') => {
            f.to_lowercase().collect::<String>() + c.as_str()
        }
        _ => text.to_string(),
    }
}

/// A sentence without its final punctuation.
pub fn bare(text: &str) -> &str {
    text.trim().trim_end_matches(['.', '!', '?', ';', ','])
}

/// "a", "a and b", "a, b and c".
pub fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The first sentence of a text.
pub fn first_sentence(text: &str) -> String {
    sentences(text).into_iter().next().unwrap_or_default()
}

/// The first number in `text` after `marker` ("exactly 4 distinct tasks").
pub fn number_after(text: &str, marker: &str) -> Option<usize> {
    let i = text.find(marker)?;
    text[i + marker.len()..]
        .split(|c: char| !c.is_ascii_digit())
        .find(|s| !s.is_empty())
        .and_then(|s| s.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_read_defensively() {
        assert_eq!(normalise("Pour-over, COLD  brew!"), "pour over cold brew");
        assert_eq!(
            content_words("How do I brew the oolong, oolong?"),
            ["brew", "oolong"]
        );
        assert_eq!(
            sentences("One. Two? 3.5 cups! x"),
            ["One.", "Two?", "3.5 cups!", "x"]
        );
        assert_eq!(clip("a b c", 2), "a b…");
        assert_eq!(
            number_after("split into exactly 5 distinct", "exactly"),
            Some(5)
        );
        assert_eq!(number_after("none", "exactly"), None);
        assert_eq!(list(&["a".into(), "b".into(), "c".into()]), "a, b and c");
        assert_eq!(decapitalise("Recommend a tea"), "recommend a tea");
        assert_eq!(decapitalise("I like"), "I like");
    }
}
