//! Telling agents apart at a glance: each agent's mark (the part of its
//! name that differs from the others': "Agent B" → "B", "Plan critic" →
//! "Cr" beside "Plan compiler" → "Co") and its colour (the run's agents
//! take the palette's colours in the order they joined). One source for
//! the agent graph, the transcript's avatars, MAEL's team, ACT's room and
//! every name written in its agent's colour, so that they all agree.

use serde::Serialize;

/// The agents' colours, in the order agents get them (the first four the
/// most unlike each other). None reads as an error (no red) or a success
/// (no green near `--ok`); each carries a white bold initial at 4.5:1 or
/// more (WCAG AA even for small text), and any two differ by ΔE₂₀₀₀ ≥ 15,
/// and still by ≥ 9 (the first four ≥ 15) as a viewer without red or
/// without green cones sees them (the tests below measure all of it).
pub const PALETTE: [&str; 8] = [
    "#194693", // blue
    "#674024", // brown
    "#067784", // teal
    "#697a01", // olive
    "#c73d93", // magenta
    "#a43fed", // violet
    "#6f3f5c", // mauve
    "#3b08e9", // indigo
];

/// The colour of an agent no list knows (an id seen before its
/// `agent_added`): a palette colour picked by a hash of the id, stable
/// across views.
pub fn agent_color(id: &str) -> &'static str {
    let h = id
        .bytes()
        .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    PALETTE[h as usize % PALETTE.len()]
}

/// What separates words in a name.
fn separator(c: char) -> bool {
    c.is_whitespace() || "-_/.,:;()[]{}\"#*|+&<>=!?".contains(c)
}

/// A mark that follows a letter (an accent written as its own code
/// point): it belongs to the letter.
fn combining(c: char) -> bool {
    matches!(c as u32, 0x300..=0x36F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F | 0xFE00..=0xFE0F)
}

/// The words of a name that carry a letter or a digit.
fn words(name: &str) -> Vec<&str> {
    name.split(separator)
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .collect()
}

/// The letters of a word, each with the accents that follow it, from its
/// first letter or digit on.
fn letters(word: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in word.chars().skip_while(|c| !c.is_alphanumeric()) {
        match out.last_mut() {
            Some(last) if combining(c) => last.push(c),
            _ if c.is_alphanumeric() => out.push(c.to_string()),
            _ => {}
        }
    }
    out
}

/// A word's mark: a number whole (up to three digits), else its first
/// letter upper-cased, and with `long` the next letter too.
fn word_mark(word: &str, long: bool) -> String {
    let l = letters(word);
    if !l.is_empty() && l.iter().all(|s| s.chars().all(|c| c.is_ascii_digit())) {
        return l.iter().take(3).map(String::as_str).collect();
    }
    let mut m: String = l.first().map(|s| s.to_uppercase()).unwrap_or_default();
    if long {
        if let Some(next) = l.get(1) {
            m.push_str(&next.to_lowercase());
        }
    }
    m
}

/// Each name's mark among `names` (a run's agents): from the word of the
/// name that the fewest other names share, the first of those ("Agent 1",
/// "Agent 2" → "1", "2"; "Travel expert", "Travel critic" → "E", "C"; a
/// lone name or one with nothing in common → its first letter). Marks that
/// still clash take a second letter ("Plan compiler", "Plan critic" →
/// "Co", "Cr"), then a count ("S1", "S2" for two agents named "Solver").
/// An empty name is "?".
pub fn initials(names: &[&str]) -> Vec<String> {
    let split: Vec<Vec<&str>> = names.iter().map(|n| words(n)).collect();
    let keys: Vec<Vec<String>> = split
        .iter()
        .map(|ws| ws.iter().map(|w| w.to_lowercase()).collect())
        .collect();
    // How many names hold each word (a word twice in a name counts once).
    let shared = |word: &str| keys.iter().filter(|k| k.iter().any(|w| w == word)).count();
    let chosen: Vec<Option<&str>> = split
        .iter()
        .zip(&keys)
        .map(|(ws, ks)| {
            let counts: Vec<usize> = ks.iter().map(|k| shared(k)).collect();
            let least = counts.iter().copied().min()?;
            let i = counts.iter().position(|&c| c == least)?;
            Some(ws[i])
        })
        .collect();
    let mark =
        |i: usize, long: bool| chosen[i].map_or_else(|| "?".to_string(), |w| word_mark(w, long));
    let mut marks: Vec<String> = (0..names.len()).map(|i| mark(i, false)).collect();
    let clashing =
        |marks: &[String], i: usize| marks.iter().filter(|m| **m == marks[i]).count() > 1;
    let first: Vec<usize> = (0..names.len()).filter(|&i| clashing(&marks, i)).collect();
    for &i in &first {
        marks[i] = mark(i, true);
    }
    let short: Vec<String> = (0..names.len()).map(|i| mark(i, false)).collect();
    let still: Vec<usize> = (0..names.len()).filter(|&i| clashing(&marks, i)).collect();
    let mut seen: Vec<(String, usize)> = Vec::new();
    for i in still {
        let key = marks[i].clone();
        let n = match seen.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                seen.push((key, 1));
                1
            }
        };
        // A number counts with letters ("1a", "1b"), a letter with digits.
        marks[i] = if short[i].ends_with(|c: char| c.is_ascii_digit()) {
            format!("{}{}", short[i], (b'a' + ((n - 1) % 26) as u8) as char)
        } else {
            format!("{}{n}", short[i])
        };
    }
    marks
}

/// A run's agents in the order they joined, with their marks: what every
/// view draws an agent's colour and initials from.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AgentMarks {
    ids: Vec<String>,
    names: Vec<String>,
    initials: Vec<String>,
}

impl AgentMarks {
    /// The marks of `agents` (id, name), in this order; a repeated id
    /// keeps its first place and takes the last name.
    pub fn of<'a>(agents: impl IntoIterator<Item = (&'a str, &'a str)>) -> AgentMarks {
        let mut m = AgentMarks::default();
        for (id, name) in agents {
            m.put(id, name);
        }
        m.initials = initials(&m.names.iter().map(String::as_str).collect::<Vec<_>>());
        m
    }

    fn put(&mut self, id: &str, name: &str) {
        match self.ids.iter().position(|i| i == id) {
            Some(i) => self.names[i] = name.to_string(),
            None => {
                self.ids.push(id.to_string());
                self.names.push(name.to_string());
            }
        }
    }

    /// An agent joined (or was renamed): every mark is worked out again,
    /// since a new name can change what tells the others apart.
    pub fn add(&mut self, id: &str, name: &str) {
        self.put(id, name);
        self.initials = initials(&self.names.iter().map(String::as_str).collect::<Vec<_>>());
    }

    fn index(&self, id: &str) -> Option<usize> {
        self.ids.iter().position(|i| i == id)
    }

    /// The agent's colour: the palette's colour for its place (the ninth
    /// agent starts the palette again), or [`agent_color`] for an id the
    /// list does not hold.
    pub fn color(&self, id: &str) -> &'static str {
        self.index(id)
            .map_or_else(|| agent_color(id), |i| PALETTE[i % PALETTE.len()])
    }

    /// The agent's mark, or for an id the list does not hold the first
    /// letter of `name`.
    pub fn initial(&self, id: &str, name: &str) -> String {
        match self.index(id) {
            Some(i) => self.initials[i].clone(),
            None => initials(&[name]).remove(0),
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(names: &[&str]) -> Vec<String> {
        initials(names)
    }

    #[test]
    fn the_words_every_name_shares_are_dropped() {
        assert_eq!(marks(&["Agent B", "Agent C"]), ["B", "C"]);
        assert_eq!(
            marks(&["Agent 1", "Agent 2", "Agent 3", "Agent 4"]),
            ["1", "2", "3", "4"]
        );
        assert_eq!(marks(&["Travel expert", "Travel critic"]), ["E", "C"]);
        assert_eq!(
            marks(&["Agent 12", "Agent 9", "Evaluator"]),
            ["12", "9", "E"]
        );
        // ACT's team: the facilitator, the members, an expert, the judge.
        assert_eq!(
            marks(&[
                "Facilitator",
                "Agent A",
                "Agent B",
                "Expert on oolong tea",
                "Judge"
            ]),
            ["F", "A", "B", "E", "J"]
        );
    }

    #[test]
    fn a_lone_name_keeps_its_first_letter() {
        assert_eq!(marks(&["Agent B"]), ["A"]);
        assert_eq!(marks(&["assistant"]), ["A"]);
        assert_eq!(marks(&[]), Vec::<String>::new());
    }

    #[test]
    fn clashing_marks_take_a_second_letter_then_a_count() {
        // The travel planner's team.
        let travel = [
            "Transportation expert",
            "Hotel expert",
            "Restaurant expert",
            "Attraction expert",
            "Orchestrator",
            "Plan summarizer",
            "Plan compiler",
            "Plan critic",
        ];
        assert_eq!(marks(&travel), ["T", "H", "R", "A", "O", "S", "Co", "Cr"]);
        // A one-letter word keeps its letter; the other takes two.
        assert_eq!(
            marks(&["Agent B", "Agent C", "Expert on colour", "Expert on tea"]),
            ["B", "C", "Co", "T"]
        );
        // Same names: counted.
        assert_eq!(marks(&["Solver", "Solver", "Critic"]), ["S1", "S2", "C"]);
        assert_eq!(marks(&["Agent 1", "Agent 1", "Agent 2"]), ["1a", "1b", "2"]);
        let team: Vec<String> = (1..=12).map(|i| format!("Agent {i}")).collect();
        let names: Vec<&str> = team.iter().map(String::as_str).collect();
        let m = marks(&names);
        assert_eq!(m[0], "1");
        assert_eq!(m[11], "12");
        for (i, a) in m.iter().enumerate() {
            assert!(!m[i + 1..].contains(a), "{m:?}");
        }
    }

    #[test]
    fn non_ascii_names_keep_their_letters_and_accents() {
        assert_eq!(marks(&["Ärztin Müller", "Ärztin Schmidt"]), ["M", "S"]);
        assert_eq!(marks(&["élève", "Ökonom"]), ["É", "Ö"]);
        // An accent written as its own code point stays on its letter.
        assert_eq!(marks(&["e\u{301}cole", "ami"]), ["E\u{301}", "A"]);
        // Names without spaces: the first character, then two.
        assert_eq!(marks(&["张三", "李四"]), ["张", "李"]);
        assert_eq!(marks(&["张三", "张四"]), ["张三", "张四"]);
        assert_eq!(marks(&["Агент 1", "Агент 2"]), ["1", "2"]);
        assert_eq!(marks(&["Σωκράτης"]), ["Σ"]);
        // Emoji and punctuation alone are no word.
        assert_eq!(marks(&["🤖 Bot", "«Critic»"]), ["B", "C"]);
    }

    #[test]
    fn empty_names_are_a_question_mark() {
        assert_eq!(marks(&[""]), ["?"]);
        assert_eq!(marks(&["", "Agent"]), ["?", "A"]);
        assert_eq!(marks(&["  ", "--", "Agent"]), ["?1", "?2", "A"]);
    }

    #[test]
    fn agents_take_the_palette_in_the_order_they_joined() {
        let mut m = AgentMarks::default();
        for i in 1..=9 {
            m.add(&format!("a{i}"), &format!("Agent {i}"));
        }
        let colours: Vec<&str> = (1..=8).map(|i| m.color(&format!("a{i}"))).collect();
        assert_eq!(colours, PALETTE);
        assert_eq!(m.color("a9"), PALETTE[0], "the ninth starts again");
        assert_eq!(m.initial("a3", "Agent 3"), "3");
        // An id the list does not hold: a palette colour, its first letter.
        assert!(PALETTE.contains(&m.color("stranger")));
        assert_eq!(m.initial("user", "You"), "Y");
        // The same agents in the same order give the same marks however built.
        let team: Vec<(String, String)> = (1..=9)
            .map(|i| (format!("a{i}"), format!("Agent {i}")))
            .collect();
        let built = AgentMarks::of(team.iter().map(|(i, n)| (i.as_str(), n.as_str())));
        assert_eq!(built, m);
        // A renamed agent keeps its place.
        m.add("a2", "Agent Two");
        assert_eq!(m.color("a2"), PALETTE[1]);
        assert_eq!(m.len(), 9);
    }

    // ---- the palette, measured from its hex values ----

    fn rgb(hex: &str) -> [f64; 3] {
        let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
        [(v >> 16) & 255, (v >> 8) & 255, v & 255].map(|c| c as f64 / 255.0)
    }

    fn linear(c: f64) -> f64 {
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    }

    /// WCAG 2's relative luminance and contrast ratio.
    fn luminance(hex: &str) -> f64 {
        let [r, g, b] = rgb(hex).map(linear);
        0.2126 * r + 0.7152 * g + 0.0722 * b
    }

    fn contrast(a: &str, b: &str) -> f64 {
        let (x, y) = (luminance(a), luminance(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    }

    /// CIE L*a*b* (D65).
    fn lab(hex: &str) -> [f64; 3] {
        lab_linear(rgb(hex).map(linear))
    }

    /// CIE L*a*b* (D65) of a linear RGB colour.
    fn lab_linear([r, g, b]: [f64; 3]) -> [f64; 3] {
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
        let f = |t: f64| {
            if t > 216.0 / 24389.0 {
                t.cbrt()
            } else {
                (24389.0 / 27.0 * t + 16.0) / 116.0
            }
        };
        let (fx, fy, fz) = (f(x), f(y), f(z));
        [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
    }

    fn delta_e(a: &str, b: &str) -> f64 {
        delta_e_lab(lab(a), lab(b))
    }

    /// The CIEDE2000 colour difference (Sharma, Wu and Dalal's formulas).
    fn delta_e_lab([l1, a1, b1]: [f64; 3], [l2, a2, b2]: [f64; 3]) -> f64 {
        let (c1, c2) = (a1.hypot(b1), a2.hypot(b2));
        let cb7 = ((c1 + c2) / 2.0).powi(7);
        let g = 0.5 * (1.0 - (cb7 / (cb7 + 25f64.powi(7))).sqrt());
        let (a1p, a2p) = ((1.0 + g) * a1, (1.0 + g) * a2);
        let (c1p, c2p) = (a1p.hypot(b1), a2p.hypot(b2));
        let hue = |b: f64, a: f64| b.atan2(a).to_degrees().rem_euclid(360.0);
        let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p));
        let dl = l2 - l1;
        let dc = c2p - c1p;
        let dh = if c1p * c2p == 0.0 {
            0.0
        } else if (h2p - h1p).abs() <= 180.0 {
            h2p - h1p
        } else if h2p - h1p > 180.0 {
            h2p - h1p - 360.0
        } else {
            h2p - h1p + 360.0
        };
        let dhh = 2.0 * (c1p * c2p).sqrt() * (dh / 2.0).to_radians().sin();
        let lb = (l1 + l2) / 2.0;
        let cb = (c1p + c2p) / 2.0;
        let hb = if c1p * c2p == 0.0 {
            h1p + h2p
        } else if (h1p - h2p).abs() <= 180.0 {
            (h1p + h2p) / 2.0
        } else if h1p + h2p < 360.0 {
            (h1p + h2p + 360.0) / 2.0
        } else {
            (h1p + h2p - 360.0) / 2.0
        };
        let cos = |d: f64| d.to_radians().cos();
        let t = 1.0 - 0.17 * cos(hb - 30.0) + 0.24 * cos(2.0 * hb) + 0.32 * cos(3.0 * hb + 6.0)
            - 0.20 * cos(4.0 * hb - 63.0);
        let dtheta = 30.0 * (-((hb - 275.0) / 25.0).powi(2)).exp();
        let cb7 = cb.powi(7);
        let rc = 2.0 * (cb7 / (cb7 + 25f64.powi(7))).sqrt();
        let sl = 1.0 + 0.015 * (lb - 50.0).powi(2) / (20.0 + (lb - 50.0).powi(2)).sqrt();
        let sc = 1.0 + 0.045 * cb;
        let sh = 1.0 + 0.015 * cb * t;
        let rt = -(2.0 * dtheta).to_radians().sin() * rc;
        ((dl / sl).powi(2) + (dc / sc).powi(2) + (dhh / sh).powi(2) + rt * (dc / sc) * (dhh / sh))
            .sqrt()
    }

    #[test]
    fn the_measures_match_published_values() {
        // Sharma, Wu and Dalal's CIEDE2000 test data (pairs 1, 7, 17, 25).
        let pairs = [
            ([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485], 2.0425),
            ([50.0, 0.0, 0.0], [50.0, -1.0, 2.0], 2.3669),
            ([50.0, 2.5, 0.0], [73.0, 25.0, -18.0], 27.1492),
            (
                [60.2574, -34.0099, 36.2677],
                [60.4626, -34.1751, 39.4387],
                1.2644,
            ),
        ];
        for (a, b, want) in pairs {
            let d = delta_e_lab(a, b);
            assert!((d - want).abs() < 1e-4, "{a:?} {b:?}: {d} ≠ {want}");
        }
        assert!(delta_e("#194693", "#194693") < 1e-9);
        assert!((lab("#ffffff")[0] - 100.0).abs() < 0.01);
        // WCAG's extremes and a known ratio (#767676 on white is 4.54:1).
        assert!((contrast("#000000", "#ffffff") - 21.0).abs() < 1e-9);
        assert!((contrast("#767676", "#ffffff") - 4.54).abs() < 0.01);
    }

    #[test]
    fn every_colour_carries_a_white_initial() {
        for c in PALETTE {
            let r = contrast(c, "#ffffff");
            // 3:1 is the floor for the 16 px bold initial; all reach AA's 4.5.
            assert!(r >= 4.5, "{c}: {r:.2}:1 against white");
        }
    }

    #[test]
    fn eight_agents_get_eight_colours_that_tell_apart() {
        for (i, a) in PALETTE.iter().enumerate() {
            for b in &PALETTE[i + 1..] {
                let d = delta_e(a, b);
                assert!(d >= 15.0, "{a} and {b} differ by ΔE {d:.1}");
            }
        }
        // The first four (a usual team) still more.
        for (i, a) in PALETTE[..4].iter().enumerate() {
            for b in &PALETTE[i + 1..4] {
                assert!(delta_e(a, b) >= 20.0, "{a} {b}");
            }
        }
    }

    /// A colour as a viewer with no working L (protanopia) or M
    /// (deuteranopia) cones sees it: Machado, Oliveira and Fernandes'
    /// (2009) matrices at full severity, applied in linear RGB.
    fn seen_without(cones: &[[f64; 3]; 3], hex: &str) -> [f64; 3] {
        let c = rgb(hex).map(linear);
        lab_linear(cones.map(|row| (row[0] * c[0] + row[1] * c[1] + row[2] * c[2]).clamp(0.0, 1.0)))
    }

    const PROTANOPIA: [[f64; 3]; 3] = [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ];
    const DEUTERANOPIA: [[f64; 3]; 3] = [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ];

    #[test]
    fn colour_blind_viewers_tell_the_eight_apart() {
        // The simulation itself: grey stays grey, red and green merge.
        let grey = seen_without(&DEUTERANOPIA, "#777777");
        assert!(delta_e_lab(grey, lab("#777777")) < 1.0, "{grey:?}");
        let (red, green) = (
            seen_without(&PROTANOPIA, "#a0580c"),
            seen_without(&PROTANOPIA, "#626a10"),
        );
        assert!(
            delta_e_lab(red, green) < 3.0,
            "the old brown and olive looked alike"
        );
        for (name, cones) in [("protanopia", &PROTANOPIA), ("deuteranopia", &DEUTERANOPIA)] {
            for (i, a) in PALETTE.iter().enumerate() {
                for b in &PALETTE[i + 1..] {
                    let d = delta_e_lab(seen_without(cones, a), seen_without(cones, b));
                    assert!(d >= 9.0, "{name}: {a} and {b} differ by ΔE {d:.1}");
                }
            }
            // The first four (a usual team) still more.
            for (i, a) in PALETTE[..4].iter().enumerate() {
                for b in &PALETTE[i + 1..4] {
                    let d = delta_e_lab(seen_without(cones, a), seen_without(cones, b));
                    assert!(d >= 15.0, "{name}: {a} and {b} differ by ΔE {d:.1}");
                }
            }
        }
    }

    #[test]
    fn no_colour_reads_as_an_error_or_a_success() {
        // The themes' error and success colours, the graph's "speaking" green.
        let danger = ["#c62f35", "#ff6369", "#e5484d"];
        let ok = ["#1b7550", "#30a46c", "#3dd68c", "#218358"];
        for c in PALETTE {
            for d in danger {
                assert!(
                    delta_e(c, d) >= 20.0,
                    "{c} is close to the error colour {d}"
                );
            }
            for o in ok {
                assert!(
                    delta_e(c, o) >= 20.0,
                    "{c} is close to the success colour {o}"
                );
            }
            // No hue between red and orange-red, none in the greens.
            let [_, a, b] = lab(c);
            let h = b.atan2(a).to_degrees().rem_euclid(360.0);
            assert!((52.0..=350.0).contains(&h), "{c}: a red hue ({h:.0}°)");
            assert!(!(112.0..=190.0).contains(&h), "{c}: a green hue ({h:.0}°)");
        }
    }
}
