//! Share links: a run (config + events, no secrets) in the URL fragment as
//! `#run=<version>.<payload>`. The payload is the compact form of the run
//! (see `compact`), as JSON, compressed against a preset dictionary of the
//! run vocabulary (LZMA since format 5, deflate before: see `dict`), in
//! URL-safe base64 without padding. Decoding is defensive: version check,
//! size caps before and after decompression (a decompression bomb is
//! refused), and schema validation, each failure with a message that says
//! what to do.

pub mod bundle;
pub mod compact;
mod deflate;
pub mod dict;
pub mod fuzz;
mod intern;
mod lzma;

use crate::engine::run::RunDoc;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// Largest compressed payload accepted (bytes after base64 decoding).
pub const MAX_COMPRESSED: usize = 2 * 1024 * 1024;
/// Largest decompressed payload accepted.
pub const MAX_DECOMPRESSED: usize = 32 * 1024 * 1024;
/// The fragment key: `#run=...`.
pub const FRAGMENT_KEY: &str = "run=";

#[derive(Clone, Debug, PartialEq)]
pub enum ShareError {
    Empty,
    Version(String),
    TooLarge(String),
    Damaged(String),
    Invalid(String),
}

impl ShareError {
    pub fn user_message(&self) -> String {
        match self {
            ShareError::Empty => "The link holds no run. Check that you copied all of it.".into(),
            ShareError::Version(v) => format!(
                "This link was made by a different version of Roundtable (link format {v}; this one reads formats 1 to {}). Open it with a matching version, or ask for the run file instead.",
                dict::LATEST
            ),
            ShareError::TooLarge(what) => format!("The link is too large to open safely ({what}). Ask for the run file instead."),
            ShareError::Damaged(what) => format!("The link is damaged or incomplete ({what}). Check that you copied all of it."),
            ShareError::Invalid(what) => format!("The link opens, but the run inside is not valid ({what})."),
        }
    }
}

impl std::fmt::Display for ShareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.user_message())
    }
}

/// Run → payload (the part after `#run=`), in the newest link format.
pub fn encode(doc: &RunDoc) -> Result<String, String> {
    pack(&compact_json(doc)?, dict::LATEST)
}

/// Run → payload in link format `version` (older formats: for tests that
/// prove old links keep opening).
pub fn encode_as(doc: &RunDoc, version: u32) -> Result<String, String> {
    pack(&compact_json(doc)?, version)
}

fn compact_json(doc: &RunDoc) -> Result<Vec<u8>, String> {
    let tree = compact::to_compact(doc)?;
    serde_json::to_vec(&tree).map_err(|e| e.to_string())
}

pub(crate) fn pack(json: &[u8], version: u32) -> Result<String, String> {
    let format = dict::format(version).ok_or_else(|| format!("no link format {version}"))?;
    let bytes = match format.codec {
        dict::Codec::Deflate { .. } => deflate::compress_with_dict(format.dict, json),
        dict::Codec::Lzma => lzma::compress_with_dict(format.dict, json)?,
    };
    Ok(format!("{version}.{}", URL_SAFE_NO_PAD.encode(bytes)))
}

/// Payload → run. Accepts the bare payload, `#run=…`, or a whole URL.
pub fn decode(input: &str) -> Result<RunDoc, ShareError> {
    let mut payload = input.trim();
    if let Some(p) = payload.find('#') {
        payload = &payload[p + 1..];
    }
    if let Some(rest) = payload.strip_prefix(FRAGMENT_KEY) {
        payload = rest;
    }
    let (tree, _) = unpack(payload, MAX_DECOMPRESSED)?;
    compact::from_compact(tree).map_err(ShareError::Invalid)
}

/// One `<version>.<base64>` part → its JSON tree and the length of its
/// text, refusing more than `max_expanded` bytes once inflated.
pub(crate) fn unpack(
    payload: &str,
    max_expanded: usize,
) -> Result<(serde_json::Value, usize), ShareError> {
    if payload.is_empty() {
        return Err(ShareError::Empty);
    }
    let (version, body) = payload
        .split_once('.')
        .ok_or_else(|| ShareError::Damaged("no format version before the data".into()))?;
    let Some(format) = version.parse().ok().and_then(dict::format) else {
        let shown: String = version.chars().take(12).collect();
        return Err(ShareError::Version(shown));
    };
    if body.len() > MAX_COMPRESSED / 3 * 4 + 4 {
        return Err(ShareError::TooLarge(format!(
            "{} KB of data",
            body.len() / 1024
        )));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(body.trim_end_matches('='))
        .map_err(|e| ShareError::Damaged(format!("not valid base64: {e}")))?;
    let expanded = match format.codec {
        dict::Codec::Deflate { prefix } => {
            deflate::decompress_with_dict(format.dict, prefix, &bytes, max_expanded)
        }
        dict::Codec::Lzma => lzma::decompress_with_dict(format.dict, &bytes, max_expanded),
    };
    let json = expanded.map_err(|e| match e {
        deflate::InflateError::TooLarge => ShareError::TooLarge(format!(
            "it expands beyond {} MB",
            MAX_DECOMPRESSED / 1024 / 1024
        )),
        deflate::InflateError::Corrupt => {
            ShareError::Damaged("the compressed data is corrupt".into())
        }
    })?;
    let text =
        String::from_utf8(json).map_err(|_| ShareError::Damaged("the data is not text".into()))?;
    let tree = serde_json::from_str(&text)
        .map_err(|e| ShareError::Damaged(format!("the data is not valid JSON: {e}")))?;
    Ok((tree, text.len()))
}

/// The full fragment for a payload: `#run=<payload>`.
pub fn fragment(payload: &str) -> String {
    format!("#{FRAGMENT_KEY}{payload}")
}
