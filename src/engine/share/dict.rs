//! The preset deflate dictionary of link format 1: the vocabulary of runs
//! (event and field names, coordinator prompts, the demo model's phrases),
//! taken from sample runs by `examples/share_dict.rs`.
//!
//! Frozen: links made with it must keep opening. To improve it, add a new
//! dictionary with a new link format version and keep this one for decoding.

use std::sync::OnceLock;

pub const DICT_V1: &str = include_str!("dict_v1.txt");

/// FNV-1a of `DICT_V1`; a test fails if the file changes.
pub const DICT_V1_FNV: u64 = 15368666364124304616;

/// The deflate prefix the decoder puts before a link's bytes (computed once).
pub fn prefix_v1() -> &'static [u8] {
    static PREFIX: OnceLock<Vec<u8>> = OnceLock::new();
    PREFIX.get_or_init(|| super::deflate::prefix(DICT_V1.as_bytes()))
}

pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionary_v1_is_frozen() {
        assert_eq!(
            fnv1a(DICT_V1.as_bytes()),
            DICT_V1_FNV,
            "dict_v1.txt changed: links made with format 1 would no longer open. Add a dict_v2 with a new format version instead."
        );
    }
}
