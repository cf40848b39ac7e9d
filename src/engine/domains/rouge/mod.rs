//! ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum, scoring exactly as Google's
//! `rouge-score` 0.1.2 does (`RougeScorer(types, use_stemmer).score(target,
//! prediction)`, with NLTK 3.10's Porter stemmer, [`porter`]).
//!
//! Semantics, as the reference has them:
//! - **Tokens**: the text is lowercased (Unicode), every run of characters
//!   outside `[a-z0-9]` is a separator (so non-ASCII letters split words),
//!   and with stemming only tokens longer than three characters are
//!   stemmed.
//! - **ROUGE-N** (1, 2): n-gram counts, each shared n-gram counted at most
//!   as often as in either text; precision = hits / max(prediction
//!   n-grams, 1), recall = hits / max(target n-grams, 1).
//! - **ROUGE-L**: the longest common subsequence of the two token lists;
//!   all zero when either is empty.
//! - **ROUGE-Lsum**: the texts split on `\n` into sentences (no sentence
//!   splitter); for every target sentence the union of the target positions
//!   of one LCS against each prediction sentence (the reference's own
//!   backtrack, ties going up), each union token a hit while both texts
//!   still have that token left to match.
//! - fmeasure = 2pr / (p + r), 0 when p + r = 0.
//!
//! [`Prediction`] tokenizes (and stems) a prediction once, to score it
//! against many targets; [`score`] is the one-off form.

pub mod porter;

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One ROUGE type's precision, recall and F1.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Score {
    pub precision: f64,
    pub recall: f64,
    pub fmeasure: f64,
}

impl Score {
    /// `hits` over the prediction's and the target's counts (each at least 1).
    fn new(hits: usize, prediction: usize, target: usize) -> Score {
        let precision = hits as f64 / prediction.max(1) as f64;
        let recall = hits as f64 / target.max(1) as f64;
        let fmeasure = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        Score {
            precision,
            recall,
            fmeasure,
        }
    }
}

/// The four ROUGE types of one (target, prediction) pair; in JSON
/// `rouge1`, `rouge2`, `rougeL`, `rougeLsum`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Scores {
    pub rouge1: Score,
    pub rouge2: Score,
    #[serde(rename = "rougeL")]
    pub rouge_l: Score,
    #[serde(rename = "rougeLsum")]
    pub rouge_lsum: Score,
}

/// The words of already lowercased text: the runs of `[a-z0-9]`.
fn words(lowered: &str) -> impl Iterator<Item = &str> {
    lowered
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|w| !w.is_empty())
}

/// A word's token: stemmed when asked and longer than three characters.
fn token_of(word: &str, stem: bool) -> String {
    if stem && word.len() > 3 {
        porter::stem(word)
    } else {
        word.to_string()
    }
}

/// rouge-score's `DefaultTokenizer(use_stemmer).tokenize(text)`.
pub fn tokenize(text: &str, stem: bool) -> Vec<String> {
    words(&text.to_lowercase())
        .map(|w| token_of(w, stem))
        .filter(|t| !t.is_empty())
        .collect()
}

/// All four ROUGE scores of `prediction` against `target` (target first,
/// as in `RougeScorer.score`).
pub fn score(target: &str, prediction: &str, use_stemmer: bool) -> Scores {
    Prediction::new(prediction, use_stemmer).score(target)
}

/// The id of a target token the prediction does not have: it matches
/// nothing.
const UNKNOWN: u32 = u32::MAX;

/// A prediction tokenized once, to be scored against many targets: each
/// target then costs its own tokenization plus work proportional to the
/// tokens the two share (the LCS runs bit-parallel over the prediction).
#[derive(Debug, Clone)]
pub struct Prediction {
    use_stemmer: bool,
    /// Every distinct token (after stemming) → its id.
    ids: HashMap<String, u32>,
    /// With stemming, every distinct word as written (lowercased) → its
    /// token's id, so a target word the prediction has needs no stemming.
    word_ids: HashMap<String, u32>,
    tokens: Vec<u32>,
    /// `[start, end)` token ranges of the lines that have tokens.
    sentences: Vec<(usize, usize)>,
    /// By id: occurrences.
    counts: Vec<u32>,
    /// By id: the token positions.
    positions: Vec<Vec<u32>>,
    /// By id: the sentences holding it, ascending.
    sentences_of: Vec<Vec<u32>>,
    bigrams: HashMap<(u32, u32), u32>,
}

impl Prediction {
    /// Tokenizes `text` (stemming with `use_stemmer`) and indexes it.
    pub fn new(text: &str, use_stemmer: bool) -> Prediction {
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut word_ids: HashMap<String, u32> = HashMap::new();
        let mut tokens = Vec::new();
        let mut sentences = Vec::new();
        let lowered = text.to_lowercase();
        for line in lowered.split('\n') {
            let start = tokens.len();
            for w in words(line) {
                let seen = if use_stemmer {
                    word_ids.get(w)
                } else {
                    ids.get(w)
                };
                let id = match seen {
                    Some(&id) => id,
                    None => {
                        let next = ids.len() as u32;
                        let id = *ids.entry(token_of(w, use_stemmer)).or_insert(next);
                        if use_stemmer {
                            word_ids.insert(w.to_string(), id);
                        }
                        id
                    }
                };
                tokens.push(id);
            }
            if tokens.len() > start {
                sentences.push((start, tokens.len()));
            }
        }
        let vocab = ids.len();
        let mut counts = vec![0u32; vocab];
        let mut positions = vec![Vec::new(); vocab];
        let mut sentences_of: Vec<Vec<u32>> = vec![Vec::new(); vocab];
        for (s, &(start, end)) in sentences.iter().enumerate() {
            for (pos, &id) in tokens.iter().enumerate().take(end).skip(start) {
                counts[id as usize] += 1;
                positions[id as usize].push(pos as u32);
                let held = &mut sentences_of[id as usize];
                if held.last() != Some(&(s as u32)) {
                    held.push(s as u32);
                }
            }
        }
        let mut bigrams = HashMap::new();
        for pair in tokens.windows(2) {
            *bigrams.entry((pair[0], pair[1])).or_insert(0) += 1;
        }
        Prediction {
            use_stemmer,
            ids,
            word_ids,
            tokens,
            sentences,
            counts,
            positions,
            sentences_of,
            bigrams,
        }
    }

    /// The number of tokens.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether the prediction has no token.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// A target word's id ([`UNKNOWN`] when the prediction lacks its token).
    fn id_of(&self, word: &str) -> u32 {
        let found = if !self.use_stemmer {
            self.ids.get(word)
        } else if let Some(&id) = self.word_ids.get(word) {
            return id;
        } else if word.len() > 3 {
            self.ids.get(porter::stem(word).as_str())
        } else {
            self.ids.get(word)
        };
        found.copied().unwrap_or(UNKNOWN)
    }

    /// All four ROUGE scores of this prediction against `target`.
    pub fn score(&self, target: &str) -> Scores {
        let lowered = target.to_lowercase();
        let mut t = Vec::new();
        let mut sentences = Vec::new();
        for line in lowered.split('\n') {
            let start = t.len();
            t.extend(words(line).map(|w| self.id_of(w)));
            if t.len() > start {
                sentences.push((start, t.len()));
            }
        }
        let (m, n) = (t.len(), self.tokens.len());

        let mut known: Vec<u32> = t.iter().copied().filter(|&id| id != UNKNOWN).collect();
        known.sort_unstable();
        let hits1 = clipped_hits(&known, |id| self.counts[id as usize]);

        let mut pairs: Vec<(u32, u32)> = t
            .windows(2)
            .filter(|p| p[0] != UNKNOWN && p[1] != UNKNOWN)
            .map(|p| (p[0], p[1]))
            .collect();
        pairs.sort_unstable();
        let hits2 = clipped_hits(&pairs, |p| self.bigrams.get(&p).copied().unwrap_or(0));

        let (rouge_l, rouge_lsum) = if m == 0 || n == 0 {
            (Score::default(), Score::default())
        } else {
            let lcs = self.lcs_len(&t);
            let union = self.union_lcs_hits(&t, &sentences);
            (Score::new(lcs, n, m), Score::new(union, n, m))
        };
        Scores {
            rouge1: Score::new(hits1, n, m),
            rouge2: Score::new(hits2, n.saturating_sub(1), m.saturating_sub(1)),
            rouge_l,
            rouge_lsum,
        }
    }

    /// The LCS length of `target` and the whole prediction, bit-parallel
    /// (Allison–Dix / Hyyrö): one bit per prediction token.
    fn lcs_len(&self, target: &[u32]) -> usize {
        let n = self.tokens.len();
        let words = n.div_ceil(64);
        let mut v = vec![u64::MAX; words];
        let mut mask = vec![0u64; words];
        for &id in target {
            if id == UNKNOWN {
                continue;
            }
            let at = &self.positions[id as usize];
            for &p in at {
                mask[p as usize / 64] |= 1 << (p % 64);
            }
            let mut carry = 0u64;
            for (vw, mw) in v.iter_mut().zip(mask.iter()) {
                let u = *vw & *mw;
                let (s1, c1) = vw.overflowing_add(u);
                let (s2, c2) = s1.overflowing_add(carry);
                carry = (c1 | c2) as u64;
                *vw = s2 | (*vw & !*mw);
            }
            for &p in at {
                mask[p as usize / 64] = 0;
            }
        }
        // Zero bits among the first n mark the LCS.
        let mut lcs = 0;
        for (k, w) in v.iter().enumerate() {
            let bits = (n - k * 64).min(64);
            let live = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            lcs += (!w & live).count_ones() as usize;
        }
        lcs
    }

    /// rouge-score's `_summary_level_lcs` hits: every target sentence's
    /// union LCS against the prediction's sentences, each token counted
    /// while both texts have it left.
    fn union_lcs_hits(&self, t: &[u32], sentences: &[(usize, usize)]) -> usize {
        let mut scratch = LcsScratch::default();
        let mut union_tokens: Vec<u32> = Vec::new();
        let mut candidates: Vec<u32> = Vec::new();
        for &(start, end) in sentences {
            let r = &t[start..end];
            // Only the prediction's sentences sharing a token can add to
            // the union.
            candidates.clear();
            for &id in r.iter().filter(|&&id| id != UNKNOWN) {
                candidates.extend_from_slice(&self.sentences_of[id as usize]);
            }
            candidates.sort_unstable();
            candidates.dedup();
            let mut marks = vec![false; r.len()];
            for &s in &candidates {
                let (cs, ce) = self.sentences[s as usize];
                scratch.mark(r, &self.tokens[cs..ce], &mut marks);
            }
            union_tokens.extend(r.iter().zip(&marks).filter(|(_, &m)| m).map(|(&id, _)| id));
        }
        // A target token is a hit at most as often as it occurs in the
        // unions (never more than in the target) and in the prediction.
        union_tokens.sort_unstable();
        clipped_hits(&union_tokens, |id| self.counts[id as usize])
    }
}

/// Σ over the distinct items of sorted `items` of min(its count there,
/// `available(item)`).
fn clipped_hits<T: Copy + PartialEq>(items: &[T], available: impl Fn(T) -> u32) -> usize {
    let mut hits = 0;
    let mut i = 0;
    while i < items.len() {
        let mut j = i + 1;
        while j < items.len() && items[j] == items[i] {
            j += 1;
        }
        hits += (j - i).min(available(items[i]) as usize);
        i = j;
    }
    hits
}

/// Buffers for the LCS table of one sentence pair.
#[derive(Default)]
struct LcsScratch {
    prev: Vec<u32>,
    cur: Vec<u32>,
    /// Per cell: whether the left neighbour beats the one above (the
    /// backtrack's only question where the tokens differ).
    left: Vec<u64>,
}

impl LcsScratch {
    /// Marks the target positions of the LCS that rouge-score's
    /// `_backtrack_norec` reads out of the table of `r` × `c`.
    fn mark(&mut self, r: &[u32], c: &[u32], marks: &mut [bool]) {
        let cols = c.len() + 1;
        let cells = (r.len() + 1) * cols;
        self.left.clear();
        self.left.resize(cells.div_ceil(64), 0);
        self.prev.clear();
        self.prev.resize(cols, 0);
        self.cur.clear();
        self.cur.resize(cols, 0);
        for i in 1..=r.len() {
            self.cur[0] = 0;
            for j in 1..cols {
                if r[i - 1] == c[j - 1] {
                    self.cur[j] = self.prev[j - 1] + 1;
                } else {
                    let (left, up) = (self.cur[j - 1], self.prev[j]);
                    self.cur[j] = left.max(up);
                    if left > up {
                        let cell = i * cols + j;
                        self.left[cell / 64] |= 1 << (cell % 64);
                    }
                }
            }
            std::mem::swap(&mut self.prev, &mut self.cur);
        }
        let (mut i, mut j) = (r.len(), c.len());
        while i > 0 && j > 0 {
            let cell = i * cols + j;
            if r[i - 1] == c[j - 1] {
                marks[i - 1] = true;
                i -= 1;
                j -= 1;
            } else if self.left[cell / 64] >> (cell % 64) & 1 == 1 {
                j -= 1;
            } else {
                i -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Score, p: f64, r: f64, f: f64) {
        let ok = (a.precision - p).abs() < 1e-12
            && (a.recall - r).abs() < 1e-12
            && (a.fmeasure - f).abs() < 1e-12;
        assert!(ok, "{a:?} vs ({p}, {r}, {f})");
    }

    #[test]
    fn tokenizes_like_rouge_score() {
        assert_eq!(
            tokenize("Don't stop-believing, CAFÉ x2!", false),
            ["don", "t", "stop", "believing", "caf", "x2"]
        );
        assert_eq!(
            tokenize("The runners were running quickly", true),
            ["the", "runner", "were", "run", "quickli"]
        );
        assert!(tokenize(" \n--- ", true).is_empty());
    }

    #[test]
    fn identical_text_scores_one_and_empty_scores_zero() {
        let s = score("the cat sat on the mat", "the cat sat on the mat", false);
        for x in [s.rouge1, s.rouge2, s.rouge_l, s.rouge_lsum] {
            close(x, 1.0, 1.0, 1.0);
        }
        for (t, p) in [
            ("", "words here"),
            ("words here", ""),
            ("", ""),
            ("!!", "??"),
        ] {
            assert_eq!(score(t, p, true), Scores::default(), "{t:?} {p:?}");
        }
    }

    #[test]
    fn ngrams_and_lcs_by_hand() {
        // target 6 tokens, prediction 4; shared unigrams: the, cat, on, mat
        // (the twice in the target, once in the prediction).
        let s = score("the cat sat on the mat", "the cat on mat", false);
        close(s.rouge1, 1.0, 4.0 / 6.0, 0.8);
        // bigrams: "the cat" shared of 3 and 5.
        close(s.rouge2, 1.0 / 3.0, 1.0 / 5.0, 0.25);
        // LCS "the cat on mat" = 4.
        close(s.rouge_l, 1.0, 4.0 / 6.0, 0.8);
    }

    #[test]
    fn summary_level_lcs_is_the_union_of_sentence_lcs() {
        // The ROUGE paper's example: union LCS of r against c1, c2 is
        // w1 w2 w3 w5.
        let s = score("w1 w2 w3 w4 w5", "w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5", false);
        close(s.rouge_lsum, 0.4, 0.8, 2.0 * 0.4 * 0.8 / 1.2);
        // Whole-text LCS is w1 w2 w3 w5 as well, over 10 tokens.
        close(s.rouge_l, 0.4, 0.8, 2.0 * 0.4 * 0.8 / 1.2);
        // A repeated target token is a hit only as often as the prediction has it.
        let s = score("a b\na b", "a b", false);
        close(s.rouge_lsum, 1.0, 0.5, 2.0 / 3.0);
    }

    /// Plain O(mn) LCS, to check the bit-parallel one.
    fn naive_lcs(a: &[u32], b: &[u32]) -> usize {
        let mut t = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                t[i][j] = if a[i - 1] == b[j - 1] {
                    t[i - 1][j - 1] + 1
                } else {
                    t[i - 1][j].max(t[i][j - 1])
                };
            }
        }
        t[a.len()][b.len()]
    }

    #[test]
    fn bit_parallel_lcs_matches_the_table() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |k: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % k
        };
        for round in 0..200 {
            let vocab = 2 + next(6);
            let m = next(40) as usize;
            let n = next(if round % 2 == 0 { 150 } else { 20 }) as usize;
            let word = |x: u64| format!("w{x}");
            let a: Vec<String> = (0..m).map(|_| word(next(vocab))).collect();
            let b: Vec<String> = (0..n).map(|_| word(next(vocab))).collect();
            let p = Prediction::new(&b.join(" "), false);
            let t: Vec<u32> = a.iter().map(|w| p.id_of(w)).collect();
            let bt: Vec<u32> = p.tokens.clone();
            assert_eq!(p.lcs_len(&t), naive_lcs(&t, &bt), "{a:?} {b:?}");
        }
    }
}
