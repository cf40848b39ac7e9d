//! A reply that has started to loop: its last tokens are one block written
//! again and again (small models at temperature 0 do this, one sentence to
//! the token cap). The engine checks after every token and stops the
//! answer there (`Finish::Repeat`), keeping what was written.
//!
//! Thresholds:
//! - **3 copies** in a row ([`MIN_COPIES`]): two are ordinary (a heading
//!   then the same words, a quote restated); three identical copies back
//!   to back are not prose.
//! - **24 tokens at least** across the copies ([`MIN_SPAN`]): a short block
//!   must repeat more often — an ellipsis, a rule of dashes, `0, 0, 0` or a
//!   short list of the same item is left alone up to 24 tokens (a block of
//!   one token needs 24 copies, of two 12, of eight or more 3). 24 tokens
//!   are one short sentence three times over: a looping sentence is caught
//!   at its third copy.
//! - **blocks of at most 256 tokens** ([`MAX_BLOCK`]): bounds the check's
//!   work per token (at most one comparison per block length when nothing
//!   repeats, a few thousand when the tail is nearly periodic); a longer
//!   block could not show three copies within the default 512-token answer
//!   anyway.

/// Copies of the block, back to back, that make a loop.
pub const MIN_COPIES: usize = 3;
/// Tokens the copies must span together.
pub const MIN_SPAN: usize = 24;
/// The longest block looked for, in tokens.
pub const MAX_BLOCK: usize = 256;

/// A loop at the end of the tokens: the block's length and how many copies
/// the check needed to see (the fewest that count as a loop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loop {
    pub block: usize,
    pub copies: usize,
}

/// Whether `tokens` end with one block repeated consecutively: at least
/// [`MIN_COPIES`] copies spanning at least [`MIN_SPAN`] tokens, the block
/// at most [`MAX_BLOCK`] long. The shortest such block is reported.
pub fn looping_tail(tokens: &[u32]) -> Option<Loop> {
    let n = tokens.len();
    for block in 1..=MAX_BLOCK.min(n / MIN_COPIES) {
        let copies = MIN_COPIES.max(MIN_SPAN.div_ceil(block));
        let span = copies * block;
        if span > n {
            continue;
        }
        // The last `span` tokens have period `block`; compared from the
        // end, so a tail that does not repeat fails at the first pair.
        if (n - span..n - block)
            .rev()
            .all(|i| tokens[i] == tokens[i + block])
        {
            return Some(Loop { block, copies });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `copies` copies of `block` after `before`.
    fn text(before: &[u32], block: &[u32], copies: usize) -> Vec<u32> {
        let mut t = before.to_vec();
        for _ in 0..copies {
            t.extend_from_slice(block);
        }
        t
    }

    /// A sentence of 10 distinct tokens.
    fn sentence() -> Vec<u32> {
        (100..110).collect()
    }

    #[test]
    fn a_looping_sentence_stops_at_its_third_copy() {
        let s = sentence();
        let looped = text(&[1, 2, 3], &s, 3);
        assert_eq!(
            looping_tail(&looped),
            Some(Loop {
                block: 10,
                copies: 3
            })
        );
        // Token by token: the first prefix that counts ends the third copy.
        let first = (1..=looped.len())
            .find(|&k| looping_tail(&looped[..k]).is_some())
            .expect("found");
        assert_eq!(first, looped.len());
        // A loop that starts mid-sentence is found all the same.
        let mut shifted = text(&[7, 8], &s, 3);
        shifted.extend_from_slice(&s[..4]);
        assert!(looping_tail(&shifted).is_some());
    }

    #[test]
    fn two_copies_are_not_a_loop() {
        let s = sentence();
        assert_eq!(looping_tail(&text(&[1, 2, 3], &s, 2)), None);
        // Two copies of a long block, even.
        let long: Vec<u32> = (1000..1200).collect();
        assert_eq!(looping_tail(&text(&[], &long, 2)), None);
    }

    #[test]
    fn varied_text_is_not_a_loop() {
        // Words recur, but no block comes back to back.
        let words = [5u32, 6, 7, 5, 8, 9, 6, 5, 10, 11, 7, 12, 5, 6, 13];
        let mut t = Vec::new();
        for i in 0..40 {
            t.push(words[i % words.len()] + (i / words.len()) as u32 * 100);
        }
        for k in 1..=t.len() {
            assert_eq!(looping_tail(&t[..k]), None, "prefix {k}");
        }
        assert_eq!(looping_tail(&[]), None);
        // A numbered list: the same shape, other numbers.
        let list: Vec<u32> = (0..12).flat_map(|i| [40 + i, 1, 2, 3, 4, 5]).collect();
        assert_eq!(looping_tail(&list), None);
    }

    #[test]
    fn short_runs_under_the_span_are_left_alone() {
        // An ellipsis or a rule: one punctuation token, 23 times.
        let dots = text(&[1, 2], &[9], MIN_SPAN - 1);
        assert_eq!(looping_tail(&dots), None);
        // Two-token blocks ("0," "0,"): 11 copies are 22 tokens.
        assert_eq!(looping_tail(&text(&[1], &[7, 8], 11)), None);
        // Three copies of a short sentence (5 tokens, 15 in all).
        assert_eq!(looping_tail(&text(&[1], &[20, 21, 22, 23, 24], 3)), None);
        // At the span they count: the run of 24 is a loop of one token.
        assert_eq!(
            looping_tail(&text(&[1, 2], &[9], MIN_SPAN)),
            Some(Loop {
                block: 1,
                copies: 24
            })
        );
        assert_eq!(
            looping_tail(&text(&[1], &[20, 21, 22, 23, 24], 5)),
            Some(Loop {
                block: 5,
                copies: 5
            })
        );
    }

    #[test]
    fn blocks_longer_than_the_bound_are_not_looked_for() {
        let long: Vec<u32> = (0..(MAX_BLOCK as u32 + 1)).collect();
        assert_eq!(looping_tail(&text(&[], &long, 3)), None);
        let longest: Vec<u32> = (0..MAX_BLOCK as u32).collect();
        assert_eq!(
            looping_tail(&text(&[], &longest, 3)).map(|l| l.block),
            Some(MAX_BLOCK)
        );
    }
}
