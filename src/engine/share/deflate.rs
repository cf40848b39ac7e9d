//! Raw deflate with a preset dictionary. miniz_oxide has no dictionary API,
//! so the encoder feeds the dictionary first and flushes to a byte boundary;
//! the bytes after that point (the "tail") can refer back into the
//! dictionary, and only they are sent. The decoder puts the dictionary in
//! front of the tail as stored (uncompressed) blocks — any deflate encoding
//! of it leaves the same window, and a stored one costs no compression work —
//! inflates, and drops the dictionary from the front of the output.

use miniz_oxide::deflate::core::{
    compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
};
use miniz_oxide::inflate::{decompress_to_vec_with_limit, TINFLStatus};

#[derive(Debug, PartialEq, Eq)]
pub enum InflateError {
    /// The output would exceed the limit.
    TooLarge,
    Corrupt,
}

const LEVEL: i32 = 10;

fn compressor() -> CompressorOxide {
    // window_bits 0 = raw deflate (no zlib header), default strategy.
    CompressorOxide::new(create_comp_flags_from_zip_params(LEVEL, 0, 0))
}

/// Feeds `dict` and flushes; returns the compressor and the prefix bytes.
fn primed(dict: &[u8]) -> (CompressorOxide, Vec<u8>) {
    let mut c = compressor();
    let mut out = vec![0u8; dict.len() + dict.len() / 8 + 64];
    let mut input = dict;
    let mut pos = 0;
    loop {
        let (status, used, written) = compress(&mut c, input, &mut out[pos..], TDEFLFlush::Sync);
        pos += written;
        input = &input[used.min(input.len())..];
        if status != TDEFLStatus::Okay || (input.is_empty() && out.len() - pos > 16) {
            break;
        }
        out.resize(out.len() * 2, 0);
    }
    out.truncate(pos);
    (c, out)
}

/// The bytes a decoder puts before a tail made with `dict`: the dictionary
/// as non-final stored blocks (header byte, LEN, NLEN, up to 65,535 bytes),
/// which end on a byte boundary as the encoder's flushed prefix does.
pub fn prefix(dict: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(dict.len() + dict.len() / 65_535 * 5 + 5);
    for piece in dict.chunks(65_535) {
        let len = piece.len() as u16;
        out.push(0); // BFINAL = 0, BTYPE = 00 (stored), padding
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(piece);
    }
    out
}

/// Compresses `data` against `dict`; returns only the tail.
pub fn compress_with_dict(dict: &[u8], data: &[u8]) -> Vec<u8> {
    let (mut c, _) = primed(dict);
    let mut out = vec![0u8; data.len() / 2 + 64];
    let mut input = data;
    let mut pos = 0;
    loop {
        let (status, used, written) = compress(&mut c, input, &mut out[pos..], TDEFLFlush::Finish);
        pos += written;
        input = &input[used.min(input.len())..];
        match status {
            TDEFLStatus::Done => break,
            TDEFLStatus::Okay => {
                if out.len() - pos < 64 {
                    let n = out.len() * 2;
                    out.resize(n, 0);
                }
            }
            _ => break,
        }
    }
    out.truncate(pos);
    out
}

/// Inflates `prefix ++ tail` with an output cap, and removes the dictionary.
pub fn decompress_with_dict(
    dict: &[u8],
    prefix: &[u8],
    tail: &[u8],
    limit: usize,
) -> Result<Vec<u8>, InflateError> {
    let mut stream = Vec::with_capacity(prefix.len() + tail.len());
    stream.extend_from_slice(prefix);
    stream.extend_from_slice(tail);
    let mut out = decompress_to_vec_with_limit(&stream, limit.saturating_add(dict.len())).map_err(
        |e| match e.status {
            TINFLStatus::HasMoreOutput => InflateError::TooLarge,
            _ => InflateError::Corrupt,
        },
    )?;
    if out.len() < dict.len() || &out[..dict.len()] != dict {
        return Err(InflateError::Corrupt);
    }
    out.drain(..dict.len());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_prefix_spans_dictionaries_over_64_kb() {
        let dict: Vec<u8> = (0..150_000u32)
            .map(|i| b"abcdefghij"[(i * 7 % 10) as usize])
            .collect();
        let p = prefix(&dict);
        assert_eq!(p.len(), dict.len() + 3 * 5, "three stored blocks");
        let data = &dict[140_000..140_200];
        let tail = compress_with_dict(&dict, data);
        assert!(
            tail.len() < 40,
            "refers back into the dictionary: {}",
            tail.len()
        );
        assert_eq!(
            decompress_with_dict(&dict, &p, &tail, 1 << 20).expect("ok"),
            data
        );
    }

    #[test]
    fn round_trips_and_uses_the_dictionary() {
        let dict = b"{\"type\":\"llm_delta\",\"call\":0,\"text\":\"hello world, this is the preset dictionary\"}".repeat(3);
        let data = b"{\"type\":\"llm_delta\",\"call\":7,\"text\":\"hello world, this is new\"}";
        let tail = compress_with_dict(&dict, data);
        let plain = miniz_oxide::deflate::compress_to_vec(data, 10);
        assert!(
            tail.len() < plain.len(),
            "dictionary helps: {} vs {}",
            tail.len(),
            plain.len()
        );
        let out = decompress_with_dict(&dict, &prefix(&dict), &tail, 1 << 20).expect("inflate");
        assert_eq!(out, data);
        // The encoder's own (compressed) prefix decodes the same tail.
        let encoded = primed(&dict).1;
        let out = decompress_with_dict(&dict, &encoded, &tail, 1 << 20).expect("inflate");
        assert_eq!(out, data);
        let big = vec![7u8; 200_000];
        let tail = compress_with_dict(&dict, &big);
        assert_eq!(
            decompress_with_dict(&dict, &prefix(&dict), &tail, 1 << 20).expect("ok"),
            big
        );
        assert_eq!(
            decompress_with_dict(&dict, &prefix(&dict), &tail, 1000),
            Err(InflateError::TooLarge)
        );
        assert_eq!(
            decompress_with_dict(&dict, &prefix(&dict), b"\xff\xff", 1000),
            Err(InflateError::Corrupt)
        );
    }
}
