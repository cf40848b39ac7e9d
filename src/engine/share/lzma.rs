//! Link format 5: raw LZMA against a preset dictionary. LZMA's window is
//! the whole run (deflate's is 32 KB, so a travel planner's prompt that
//! repeats a notebook from 100 KB earlier was sent again), and its
//! dictionary can hold every coordinator's sample run.
//!
//! Bytes: the JSON's length as a LEB128 varint, then the LZMA stream
//! (lc 3, lp 0, pb 0, no end marker: the length ends it). The window is the
//! dictionary plus the JSON, so both sides compute it from the length, and
//! the decoder refuses a length over its limit before it allocates.

use super::deflate::InflateError;
use lzma_rust2::{EncodeMode, LzmaOptions, LzmaReader, LzmaWriter, MfType};
use std::io::{Read, Write};

const LC: u32 = 3;
const LP: u32 = 0;
const PB: u32 = 0;
/// The largest window (the dictionary + the JSON) either side uses.
const MAX_WINDOW: u32 = 64 << 20;

fn window(dict: &[u8], len: usize) -> u32 {
    u32::try_from(dict.len().saturating_add(len))
        .unwrap_or(MAX_WINDOW)
        .clamp(4096, MAX_WINDOW)
}

fn write_varint(out: &mut Vec<u8>, mut n: u64) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// The varint at the front of `bytes` and the rest; `None` when it is cut
/// short or longer than a u64.
fn read_varint(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let mut n = 0u64;
    for (i, b) in bytes.iter().enumerate().take(10) {
        n |= u64::from(b & 0x7f).checked_shl(7 * i as u32)?;
        if b & 0x80 == 0 {
            return Some((n, &bytes[i + 1..]));
        }
    }
    None
}

/// Compresses `data` against `dict` at LZMA's strongest setting.
pub fn compress_with_dict(dict: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
    compress(dict, data, true)
}

/// `strong` (links): LZMA's optimal parsing over hash chains, matches cut
/// at 128 bytes. Measured against binary trees and 273 bytes (xz -9e's
/// choice) on the demo runs: links 1–2% longer, made 2.5× faster (an ACT
/// run's 400 KB in 75 ms instead of 194 natively; its share dialog shows the
/// link after 0.37 s instead of 1.0 s in the page). Otherwise greedy, many times faster
/// again (the decoder fuzz test makes thousands of links). The decoder
/// reads them all alike.
pub(super) fn compress(dict: &[u8], data: &[u8], strong: bool) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(data.len() / 8 + 16);
    write_varint(&mut out, data.len() as u64);
    let (mode, nice, mf, depth) = if strong {
        (EncodeMode::Normal, 128, MfType::Hc4, 0)
    } else {
        (EncodeMode::Fast, 32, MfType::Hc4, 4)
    };
    let mut options = LzmaOptions::new(window(dict, data.len()), LC, LP, PB, mode, nice, mf, depth);
    options.preset_dict = Some(dict.to_vec());
    let mut writer = LzmaWriter::new_no_header(out, &options, false).map_err(|e| e.to_string())?;
    writer.write_all(data).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())
}

/// Decompresses a format-5 payload made against `dict`, refusing more than
/// `max_expanded` bytes of output (checked before anything is allocated).
pub fn decompress_with_dict(
    dict: &[u8],
    bytes: &[u8],
    max_expanded: usize,
) -> Result<Vec<u8>, InflateError> {
    let (len, stream) = read_varint(bytes).ok_or(InflateError::Corrupt)?;
    let len = usize::try_from(len).map_err(|_| InflateError::TooLarge)?;
    if len > max_expanded {
        return Err(InflateError::TooLarge);
    }
    let mut reader = LzmaReader::new(
        stream,
        len as u64,
        LC,
        LP,
        PB,
        window(dict, len),
        Some(dict),
    )
    .map_err(|_| InflateError::Corrupt)?;
    let mut out = vec![0u8; len];
    reader
        .read_exact(&mut out)
        .map_err(|_| InflateError::Corrupt)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_cut_ones_are_refused() {
        for n in [0u64, 1, 127, 128, 300, 1 << 31, u64::MAX] {
            let mut v = Vec::new();
            write_varint(&mut v, n);
            v.push(0xaa);
            assert_eq!(read_varint(&v), Some((n, &[0xaa][..])));
            assert_eq!(read_varint(&v[..v.len() - 2]), None, "{n} cut short");
        }
        assert_eq!(read_varint(&[0xff; 11]), None);
    }

    #[test]
    fn round_trips_and_uses_the_dictionary() {
        let dict = b"the quick brown fox jumps over the lazy dog; ".repeat(40);
        let data = b"the quick brown fox jumps over the lazy dog; and then it rests.";
        let with = compress_with_dict(&dict, data).unwrap();
        let without = compress_with_dict(b"", data).unwrap();
        assert!(
            with.len() + 20 < without.len(),
            "{} vs {}",
            with.len(),
            without.len()
        );
        assert_eq!(decompress_with_dict(&dict, &with, 1 << 20).unwrap(), data);
        assert_eq!(decompress_with_dict(b"", &without, 1 << 20).unwrap(), data);
        // The wrong dictionary does not give the data back.
        assert_ne!(
            decompress_with_dict(b"", &with, 1 << 20).ok().as_deref(),
            Some(&data[..])
        );
    }

    #[test]
    fn refuses_bombs_and_damage() {
        let data = vec![b'a'; 100_000];
        let packed = compress_with_dict(b"", &data).unwrap();
        assert!(packed.len() < 200);
        assert_eq!(
            decompress_with_dict(b"", &packed, 99_999),
            Err(InflateError::TooLarge)
        );
        // A length far beyond anything is refused before allocating.
        let mut huge = Vec::new();
        write_varint(&mut huge, u64::MAX);
        assert_eq!(
            decompress_with_dict(b"", &huge, 1 << 20),
            Err(InflateError::TooLarge)
        );
        assert_eq!(
            decompress_with_dict(b"", &[], 1 << 20),
            Err(InflateError::Corrupt)
        );
        // Cut short: the stream ends before the promised length.
        let text = b"Every agent writes its findings to the shared notebook.".repeat(3);
        let packed = compress_with_dict(b"", &text).unwrap();
        for cut in 1..packed.len() {
            assert_eq!(
                decompress_with_dict(b"", &packed[..cut], 1 << 20),
                Err(InflateError::Corrupt),
                "cut at {cut}"
            );
        }
    }
}
