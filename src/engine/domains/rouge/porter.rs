//! The Porter stemmer exactly as NLTK 3.10's `PorterStemmer` runs it in its
//! default `NLTK_EXTENSIONS` mode (not Snowball / Porter2), which is what
//! `rouge-score` uses when asked to stem.
//!
//! Beyond Porter's 1980 paper this mode has: a small table of irregular
//! forms looked up first (`dying` → `die`, `skies` → `sky`, `news` →
//! `news`, …); words of at most two characters left alone; `-ies` / `-ied`
//! on a four-letter word becoming `-ie` (`ties` → `tie`), and `-ied`
//! otherwise `-i`; a two-letter vowel-consonant stem counting as *cvc*;
//! `y` → `i` only after a consonant that is not the whole stem
//! (`enjoy` stays); `bli` → `ble` (not `abli` → `able`), `alli` → `al`
//! applied before the other step-2 rules (and step 2 run again), plus
//! `fulli` → `ful` and `logi` → `log`.
//!
//! The word is handled as a sequence of Unicode scalar values, as Python
//! does; only `a e i o u` (and `y` after a consonant) are vowels.

/// The irregular forms checked before any rule (after lowercasing).
const IRREGULAR: [(&str, &str); 16] = [
    ("sky", "sky"),
    ("skies", "sky"),
    ("dying", "die"),
    ("lying", "lie"),
    ("tying", "tie"),
    ("news", "news"),
    ("innings", "inning"),
    ("inning", "inning"),
    ("outings", "outing"),
    ("outing", "outing"),
    ("cannings", "canning"),
    ("canning", "canning"),
    ("howe", "howe"),
    ("proceed", "proceed"),
    ("exceed", "exceed"),
    ("succeed", "succeed"),
];

/// Stems one word (NLTK `PorterStemmer().stem(word)`, default mode): the
/// word is lowercased first.
pub fn stem(word: &str) -> String {
    let lower = word.to_lowercase();
    if let Some((_, to)) = IRREGULAR.iter().find(|(from, _)| *from == lower) {
        return (*to).to_string();
    }
    // NLTK measures the word as given, before lowercasing.
    if word.chars().count() <= 2 {
        return lower;
    }
    let mut w: Vec<char> = lower.chars().collect();
    step1a(&mut w);
    step1b(&mut w);
    step1c(&mut w);
    step2(&mut w);
    step3(&mut w);
    step4(&mut w);
    step5a(&mut w);
    step5b(&mut w);
    w.into_iter().collect()
}

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
}

/// Porter's consonant: not a vowel, and a `y` only when it follows a vowel
/// (or starts the word), judged over a whole run of `y`s.
fn is_consonant(w: &[char], mut i: usize) -> bool {
    if is_vowel(w[i]) {
        return false;
    }
    if w[i] != 'y' {
        return true;
    }
    let mut negate = false;
    while i > 0 && w[i] == 'y' {
        negate = !negate;
        i -= 1;
    }
    // A consonant, flipped once per `y` walked over.
    is_vowel(w[i]) == negate
}

/// Every position's consonant flag in one left-to-right pass (the same
/// answers as [`is_consonant`]).
fn for_each_flag(w: &[char], mut f: impl FnMut(bool)) {
    let mut prev = true;
    for (i, &c) in w.iter().enumerate() {
        let cons = if is_vowel(c) {
            false
        } else if c == 'y' {
            i == 0 || !prev
        } else {
            true
        };
        f(cons);
        prev = cons;
    }
}

/// Porter's measure *m*: the number of vowel→consonant transitions.
fn measure(stem: &[char]) -> usize {
    let mut m = 0;
    let mut prev_vowel = false;
    for_each_flag(stem, |cons| {
        if cons && prev_vowel {
            m += 1;
        }
        prev_vowel = !cons;
    });
    m
}

fn contains_vowel(stem: &[char]) -> bool {
    let mut any = false;
    for_each_flag(stem, |cons| any |= !cons);
    any
}

/// `*d`: ends with a double consonant.
fn ends_double_consonant(w: &[char]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1)
}

/// `*o`: ends consonant-vowel-consonant with the last not `w`, `x`, `y`;
/// NLTK also counts a two-letter vowel-consonant word.
fn ends_cvc(w: &[char]) -> bool {
    let n = w.len();
    (n >= 3
        && is_consonant(w, n - 3)
        && !is_consonant(w, n - 2)
        && is_consonant(w, n - 1)
        && !matches!(w[n - 1], 'w' | 'x' | 'y'))
        || (n == 2 && !is_consonant(w, 0) && is_consonant(w, 1))
}

fn ends_with(w: &[char], suffix: &str) -> bool {
    let n = suffix.chars().count();
    n <= w.len() && w[w.len() - n..].iter().copied().eq(suffix.chars())
}

fn replace_tail(w: &mut Vec<char>, remove: usize, replacement: &str) {
    w.truncate(w.len() - remove);
    w.extend(replacement.chars());
}

/// A rule's condition on the stem left once the suffix is removed.
#[derive(Clone, Copy)]
enum Cond {
    Always,
    /// m > 0
    M0,
    /// m > 1
    M1,
    /// m > 1 and the stem ends in `s` or `t` (step 4's `-ion`).
    M1ST,
    /// NLTK's step-1c rule: the stem is longer than one letter and ends in
    /// a consonant.
    ConsonantBefore,
    /// NLTK's `logi` rule: m > 0 of the word less its last three letters.
    LogM0,
}

/// Applies the first rule whose suffix the word ends with (and only that
/// one: a failed condition leaves the word as it is). Returns whether a
/// suffix matched.
fn apply_rules(w: &mut Vec<char>, rules: &[(&str, &str, Cond)]) -> bool {
    for &(suffix, replacement, cond) in rules {
        if !ends_with(w, suffix) {
            continue;
        }
        let cut = w.len() - suffix.chars().count();
        let stem = &w[..cut];
        let ok = match cond {
            Cond::Always => true,
            Cond::M0 => measure(stem) > 0,
            Cond::M1 => measure(stem) > 1,
            Cond::M1ST => measure(stem) > 1 && matches!(stem.last(), Some('s' | 't')),
            Cond::ConsonantBefore => stem.len() > 1 && is_consonant(stem, stem.len() - 1),
            Cond::LogM0 => measure(&w[..w.len() - 3]) > 0,
        };
        if ok {
            w.truncate(cut);
            w.extend(replacement.chars());
        }
        return true;
    }
    false
}

fn step1a(w: &mut Vec<char>) {
    if ends_with(w, "ies") && w.len() == 4 {
        replace_tail(w, 3, "ie");
        return;
    }
    apply_rules(
        w,
        &[
            ("sses", "ss", Cond::Always),
            ("ies", "i", Cond::Always),
            ("ss", "ss", Cond::Always),
            ("s", "", Cond::Always),
        ],
    );
}

fn step1b(w: &mut Vec<char>) {
    if ends_with(w, "ied") {
        let to = if w.len() == 4 { "ie" } else { "i" };
        replace_tail(w, 3, to);
        return;
    }
    if ends_with(w, "eed") {
        if measure(&w[..w.len() - 3]) > 0 {
            w.truncate(w.len() - 1);
        }
        return;
    }
    let mut cut = None;
    for suffix in ["ed", "ing"] {
        if ends_with(w, suffix) {
            let at = w.len() - suffix.len();
            if contains_vowel(&w[..at]) {
                cut = Some(at);
                break;
            }
        }
    }
    let Some(cut) = cut else { return };
    w.truncate(cut);
    if apply_rules(
        w,
        &[
            ("at", "ate", Cond::Always),
            ("bl", "ble", Cond::Always),
            ("iz", "ize", Cond::Always),
        ],
    ) {
        return;
    }
    if ends_double_consonant(w) {
        if !matches!(w.last(), Some('l' | 's' | 'z')) {
            w.pop();
        }
        return;
    }
    if measure(w) == 1 && ends_cvc(w) {
        w.push('e');
    }
}

fn step1c(w: &mut Vec<char>) {
    apply_rules(w, &[("y", "i", Cond::ConsonantBefore)]);
}

fn step2(w: &mut Vec<char>) {
    if ends_with(w, "alli") && measure(&w[..w.len() - 4]) > 0 {
        replace_tail(w, 4, "al");
        step2(w);
        return;
    }
    apply_rules(
        w,
        &[
            ("ational", "ate", Cond::M0),
            ("tional", "tion", Cond::M0),
            ("enci", "ence", Cond::M0),
            ("anci", "ance", Cond::M0),
            ("izer", "ize", Cond::M0),
            ("bli", "ble", Cond::M0),
            ("alli", "al", Cond::M0),
            ("entli", "ent", Cond::M0),
            ("eli", "e", Cond::M0),
            ("ousli", "ous", Cond::M0),
            ("ization", "ize", Cond::M0),
            ("ation", "ate", Cond::M0),
            ("ator", "ate", Cond::M0),
            ("alism", "al", Cond::M0),
            ("iveness", "ive", Cond::M0),
            ("fulness", "ful", Cond::M0),
            ("ousness", "ous", Cond::M0),
            ("aliti", "al", Cond::M0),
            ("iviti", "ive", Cond::M0),
            ("biliti", "ble", Cond::M0),
            ("fulli", "ful", Cond::M0),
            ("logi", "log", Cond::LogM0),
        ],
    );
}

fn step3(w: &mut Vec<char>) {
    apply_rules(
        w,
        &[
            ("icate", "ic", Cond::M0),
            ("ative", "", Cond::M0),
            ("alize", "al", Cond::M0),
            ("iciti", "ic", Cond::M0),
            ("ical", "ic", Cond::M0),
            ("ful", "", Cond::M0),
            ("ness", "", Cond::M0),
        ],
    );
}

fn step4(w: &mut Vec<char>) {
    apply_rules(
        w,
        &[
            ("al", "", Cond::M1),
            ("ance", "", Cond::M1),
            ("ence", "", Cond::M1),
            ("er", "", Cond::M1),
            ("ic", "", Cond::M1),
            ("able", "", Cond::M1),
            ("ible", "", Cond::M1),
            ("ant", "", Cond::M1),
            ("ement", "", Cond::M1),
            ("ment", "", Cond::M1),
            ("ent", "", Cond::M1),
            ("ion", "", Cond::M1ST),
            ("ou", "", Cond::M1),
            ("ism", "", Cond::M1),
            ("ate", "", Cond::M1),
            ("iti", "", Cond::M1),
            ("ous", "", Cond::M1),
            ("ive", "", Cond::M1),
            ("ize", "", Cond::M1),
        ],
    );
}

fn step5a(w: &mut Vec<char>) {
    if w.last() == Some(&'e') {
        let stem = &w[..w.len() - 1];
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            w.pop();
        }
    }
}

fn step5b(w: &mut Vec<char>) {
    if ends_with(w, "ll") && measure(&w[..w.len() - 1]) > 1 {
        w.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_nltk_stems() {
        for (word, want) in [
            ("running", "run"),
            ("generously", "gener"),
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("cats", "cat"),
            ("dying", "die"),
            ("skies", "sky"),
            ("sky", "sky"),
            ("news", "news"),
            ("innings", "inning"),
            ("conditional", "condit"),
            ("happiness", "happi"),
            ("happy", "happi"),
            ("enjoy", "enjoy"),
            ("electricity", "electr"),
            ("oscillators", "oscil"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("filing", "file"),
            ("cried", "cri"),
            ("died", "die"),
            ("relational", "relat"),
            ("radically", "radic"),
            ("hopefully", "hope"),
            ("analogies", "analog"),
            ("controlling", "control"),
            ("probate", "probat"),
            ("rate", "rate"),
            ("cease", "ceas"),
            ("adoption", "adopt"),
            ("is", "is"),
            ("Running", "run"),
            ("1990s", "1990"),
            ("yyyy", "yyyi"),
        ] {
            assert_eq!(stem(word), want, "{word}");
        }
    }

    #[test]
    fn consonant_flags_agree_with_the_backward_walk() {
        for word in ["syzygy", "toy", "yyyyy", "ayyb", "by", "yes", "crying"] {
            let w: Vec<char> = word.chars().collect();
            let mut flags = Vec::new();
            for_each_flag(&w, |c| flags.push(c));
            let walked: Vec<bool> = (0..w.len()).map(|i| is_consonant(&w, i)).collect();
            assert_eq!(flags, walked, "{word}");
        }
        let m = |s: &str| measure(&s.chars().collect::<Vec<_>>());
        assert_eq!(
            (m("tr"), m("tree"), m("trouble"), m("troubles")),
            (0, 0, 1, 2)
        );
    }
}
