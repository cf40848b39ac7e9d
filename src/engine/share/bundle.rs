//! Links to lessons and comparisons: `#lesson=B1~<meta>~<run>~…` or
//! `#compare=B1~…`. The meta part is the bundle without its runs (format,
//! title, lesson steps), deflated like a run; each run part is exactly a
//! run link's payload (its compact form against the run dictionaries), so
//! every link format that opens as a run opens inside a bundle. The caps
//! are a single run's, over the whole link: at most [`MAX_COMPRESSED`] of
//! data and [`MAX_DECOMPRESSED`] once expanded, checked before inflating.

use super::{compact, dict, pack, unpack, ShareError, MAX_COMPRESSED, MAX_DECOMPRESSED};
use crate::engine::lesson::Bundle;

pub const LESSON_KEY: &str = "lesson=";
pub const COMPARE_KEY: &str = "compare=";
/// The bundle link's own version (its parts carry the run formats).
const TAG: &str = "B1";
const SEP: char = '~';
/// Longest link payload made or read (characters of base64 over all parts).
pub const MAX_LINK_CHARS: usize = MAX_COMPRESSED / 3 * 4 + 4;

/// Why a bundle could not become a link.
#[derive(Clone, Debug, PartialEq)]
pub enum EncodeError {
    /// Over the cap: the payload's size in KB.
    TooBig {
        kb: usize,
        lesson: bool,
    },
    Failed(String),
}

impl EncodeError {
    pub fn user_message(&self) -> String {
        match self {
            EncodeError::TooBig { kb, lesson } => format!(
                "This {} is too big for a link: it needs {kb} KB and a link holds at most {} KB. Export it as a file instead (Export → JSON), or {}.",
                if *lesson { "lesson" } else { "comparison" },
                MAX_LINK_CHARS / 1024,
                if *lesson { "build the lesson on a shorter run" } else { "compare fewer or shorter runs" }
            ),
            EncodeError::Failed(e) => format!("The link could not be made ({e})."),
        }
    }
}

/// The fragment key a bundle's link uses.
pub fn key_of(bundle: &Bundle) -> &'static str {
    if bundle.is_lesson() {
        LESSON_KEY
    } else {
        COMPARE_KEY
    }
}

/// Bundle → fragment without `#` (`lesson=B1~…` or `compare=B1~…`).
pub fn encode(bundle: &Bundle) -> Result<String, EncodeError> {
    let mut meta = serde_json::to_value(bundle).map_err(|e| EncodeError::Failed(e.to_string()))?;
    if let Some(m) = meta.as_object_mut() {
        m.remove("runs");
    }
    let meta_json = serde_json::to_vec(&meta).map_err(|e| EncodeError::Failed(e.to_string()))?;
    let mut out = format!("{}{TAG}", key_of(bundle));
    out.push(SEP);
    out.push_str(&pack(&meta_json, dict::LATEST).map_err(EncodeError::Failed)?);
    for run in &bundle.runs {
        out.push(SEP);
        out.push_str(&super::encode(run).map_err(EncodeError::Failed)?);
    }
    let chars = out.len() - key_of(bundle).len();
    if chars > MAX_LINK_CHARS {
        return Err(EncodeError::TooBig {
            kb: chars.div_ceil(1024),
            lesson: bundle.is_lesson(),
        });
    }
    Ok(out)
}

/// Whether `input` (a fragment or URL) is a lesson or comparison link.
pub fn is_bundle_link(input: &str) -> bool {
    let frag = input.split_once('#').map_or(input, |(_, f)| f);
    frag.starts_with(LESSON_KEY) || frag.starts_with(COMPARE_KEY)
}

/// Link (fragment, or URL) → bundle, every part checked before it is
/// inflated and the whole validated.
pub fn decode(input: &str) -> Result<Bundle, ShareError> {
    let mut payload = input.trim();
    if let Some(p) = payload.find('#') {
        payload = &payload[p + 1..];
    }
    let payload = payload
        .strip_prefix(LESSON_KEY)
        .or_else(|| payload.strip_prefix(COMPARE_KEY))
        .unwrap_or(payload);
    if payload.is_empty() {
        return Err(ShareError::Empty);
    }
    if payload.len() > MAX_LINK_CHARS + 64 {
        return Err(ShareError::TooLarge(format!(
            "{} KB of data",
            payload.len() / 1024
        )));
    }
    let mut parts = payload.split(SEP);
    let tag = parts.next().unwrap_or("");
    if tag != TAG {
        let shown: String = tag.chars().take(12).collect();
        return Err(if tag.starts_with('B') {
            ShareError::Version(shown)
        } else {
            ShareError::Damaged("it does not start with a lesson or comparison tag".into())
        });
    }
    let meta_part = parts
        .next()
        .ok_or_else(|| ShareError::Damaged("the lesson part is missing".into()))?;
    let mut budget = MAX_DECOMPRESSED;
    // The caps count the parts' inflated text (as the encoder wrote it).
    let (mut meta, used) = unpack(meta_part, budget)?;
    budget = budget.saturating_sub(used);
    let mut runs = Vec::new();
    for part in parts {
        if runs.len() == crate::engine::lesson::MAX_RUNS {
            return Err(ShareError::Invalid(format!(
                "it holds more than {} runs",
                crate::engine::lesson::MAX_RUNS
            )));
        }
        let (tree, used) = unpack(part, budget)?;
        budget = budget.saturating_sub(used);
        let doc = compact::from_compact(tree)
            .map_err(|e| ShareError::Invalid(format!("run {}: {e}", runs.len() + 1)))?;
        runs.push(doc);
    }
    if !meta.is_object() {
        return Err(ShareError::Damaged(
            "the lesson part is not an object".into(),
        ));
    }
    Bundle::with_runs(std::mem::take(&mut meta), runs).map_err(ShareError::Invalid)
}
