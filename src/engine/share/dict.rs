//! The link formats: each a compressor and a preset dictionary, the
//! vocabulary of runs (event and field names, coordinator prompts, the demo
//! model's phrases, the built-in travel world), taken from sample runs by
//! `examples/share_dict.rs`. Formats 1–4 are deflate, whose 32 KB window
//! held a 24 KB dictionary: format 1 predates the travel planner; format 2
//! adds its vocabulary; format 3 shares the room between the travel
//! planner's and MAEL's; format 4 is ACT's alone (the encoder made both and
//! kept the shorter link). Format 5 is LZMA (see `lzma`), whose window
//! holds the whole run and a 64 KB dictionary with a sample run of every
//! coordinator: on the coordinators' demo runs its links are 36–46%
//! shorter than format 3/4's (measured by `make bench`). New links are made
//! in it alone.
//!
//! Frozen: links made with a dictionary must keep opening. To improve it,
//! add a new dictionary with a new link format version and keep the old
//! ones for decoding.

use std::sync::OnceLock;

pub const DICT_V1: &str = include_str!("dict_v1.txt");

/// FNV-1a of `DICT_V1`; a test fails if the file changes.
pub const DICT_V1_FNV: u64 = 15368666364124304616;

pub const DICT_V2: &str = include_str!("dict_v2.txt");

/// FNV-1a of `DICT_V2`; a test fails if the file changes.
pub const DICT_V2_FNV: u64 = 4983466247970688142;

pub const DICT_V3: &str = include_str!("dict_v3.txt");

/// FNV-1a of `DICT_V3`; a test fails if the file changes.
pub const DICT_V3_FNV: u64 = 11342271490788765615;

pub const DICT_V4: &str = include_str!("dict_v4.txt");

/// FNV-1a of `DICT_V4`; a test fails if the file changes.
pub const DICT_V4_FNV: u64 = 8340053338393743962;

pub const DICT_V5: &str = include_str!("dict_v5.txt");

/// FNV-1a of `DICT_V5`; a test fails if the file changes.
pub const DICT_V5_FNV: u64 = 3757600763521443679;

/// The newest link format: the one new links are made in.
pub const LATEST: u32 = 5;

/// How a link format's bytes are compressed.
pub enum Codec {
    /// Raw deflate; the decoder puts `prefix` (the dictionary as stored
    /// blocks) before a link's bytes.
    Deflate { prefix: &'static [u8] },
    /// Raw LZMA with the dictionary preset in its window.
    Lzma,
}

/// A link format: its dictionary and codec.
pub struct Format {
    pub dict: &'static [u8],
    pub codec: Codec,
}

/// Link format `version`, `None` for one this version does not know.
pub fn format(version: u32) -> Option<Format> {
    static PREFIX_V1: OnceLock<Vec<u8>> = OnceLock::new();
    static PREFIX_V2: OnceLock<Vec<u8>> = OnceLock::new();
    static PREFIX_V3: OnceLock<Vec<u8>> = OnceLock::new();
    static PREFIX_V4: OnceLock<Vec<u8>> = OnceLock::new();
    let (dict, cell) = match version {
        1 => (DICT_V1, &PREFIX_V1),
        2 => (DICT_V2, &PREFIX_V2),
        3 => (DICT_V3, &PREFIX_V3),
        4 => (DICT_V4, &PREFIX_V4),
        5 => {
            return Some(Format {
                dict: DICT_V5.as_bytes(),
                codec: Codec::Lzma,
            })
        }
        _ => return None,
    };
    let prefix = cell.get_or_init(|| super::deflate::prefix(dict.as_bytes()));
    Some(Format {
        dict: dict.as_bytes(),
        codec: Codec::Deflate {
            prefix: prefix.as_slice(),
        },
    })
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
            "dict_v1.txt changed: links made with format 1 would no longer open. Add a new dictionary with a new format version instead."
        );
        assert_eq!(
            fnv1a(DICT_V2.as_bytes()),
            DICT_V2_FNV,
            "dict_v2.txt changed: links made with format 2 would no longer open. Add a new dictionary with a new format version instead."
        );
        assert_eq!(
            fnv1a(DICT_V3.as_bytes()),
            DICT_V3_FNV,
            "dict_v3.txt changed: links made with format 3 would no longer open. Add a new dictionary with a new format version instead."
        );
        assert_eq!(
            fnv1a(DICT_V4.as_bytes()),
            DICT_V4_FNV,
            "dict_v4.txt changed: links made with format 4 would no longer open. Add a new dictionary with a new format version instead."
        );
        assert_eq!(
            fnv1a(DICT_V5.as_bytes()),
            DICT_V5_FNV,
            "dict_v5.txt changed: links made with format 5 would no longer open. Add a new dictionary with a new format version instead."
        );
    }
}
