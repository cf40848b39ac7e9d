//! A fuzz driver for the share-link decoder: random and mutated inputs at
//! every layer (link text, compressed bytes, JSON text, compact tree). Any
//! panic aborts the process, so finishing means zero panics. Used by a test
//! (a short run) and by `make bench` (200,000 inputs).

use super::{compact, decode, encode_as, FRAGMENT_KEY};
use crate::engine::model::retry::SplitMix;
use crate::engine::run::random::random_run;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::Value;

#[derive(Debug, Default, Clone, Copy)]
pub struct FuzzStats {
    pub inputs: u64,
    pub decoded: u64,
    pub rejected: u64,
}

fn mutate_bytes(rng: &mut SplitMix, bytes: &mut Vec<u8>) {
    let n = 1 + rng.next_u64() % 4;
    for _ in 0..n {
        if bytes.is_empty() {
            bytes.push(rng.next_u64() as u8);
            continue;
        }
        let i = (rng.next_u64() % bytes.len() as u64) as usize;
        match rng.next_u64() % 5 {
            0 => bytes[i] ^= 1 << (rng.next_u64() % 8),
            1 => bytes[i] = rng.next_u64() as u8,
            2 => bytes.truncate(i),
            3 => bytes.insert(i, rng.next_u64() as u8),
            _ => {
                let j = (rng.next_u64() % bytes.len() as u64) as usize;
                bytes.swap(i, j);
            }
        }
    }
}

fn mutate_tree(rng: &mut SplitMix, v: &mut Value, depth: u32) {
    match v {
        Value::Object(o) if !o.is_empty() => {
            let keys: Vec<String> = o.keys().cloned().collect();
            let k = &keys[(rng.next_u64() % keys.len() as u64) as usize];
            if depth > 6 || rng.next_u64() % 4 == 0 {
                match rng.next_u64() % 4 {
                    0 => {
                        o.remove(k);
                    }
                    1 => {
                        o.insert(k.clone(), Value::from(rng.next_u64() % 1000));
                    }
                    2 => {
                        o.insert(k.clone(), Value::from("~7"));
                    }
                    _ => {
                        o.insert(k.clone(), Value::Null);
                    }
                }
            } else if let Some(x) = o.get_mut(k) {
                mutate_tree(rng, x, depth + 1);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            let i = (rng.next_u64() % a.len() as u64) as usize;
            match rng.next_u64() % 4 {
                0 => {
                    a.remove(i);
                }
                1 => {
                    let j = (rng.next_u64() % a.len() as u64) as usize;
                    a.swap(i, j);
                }
                _ => mutate_tree(rng, &mut a[i], depth + 1),
            }
        }
        Value::String(s) => {
            *s = ["", "~", "~0", "~~", "x", "llm_delta"][(rng.next_u64() % 6) as usize].to_string()
        }
        Value::Number(_) => {
            *v = [
                Value::from(-1),
                Value::from(u64::MAX),
                Value::from(1.5),
                Value::from("1"),
            ][(rng.next_u64() % 4) as usize]
                .clone()
        }
        _ => *v = Value::from(rng.next_u64() % 3),
    }
}

/// Link formats the corpus is made in: the newest (LZMA) and a deflate one
/// (old links keep opening, so their decoder meets bad input too).
const VERSIONS: [u32; 2] = [super::dict::LATEST, 3];

fn pack(tree_json: &[u8], version: u32) -> String {
    match super::dict::format(version) {
        // The fast LZMA setting: same stream format, a fraction of the time.
        Some(f) if matches!(f.codec, super::dict::Codec::Lzma) => {
            let bytes = super::lzma::compress(f.dict, tree_json, false).unwrap_or_default();
            format!("{version}.{}", URL_SAFE_NO_PAD.encode(bytes))
        }
        _ => super::pack(tree_json, version).unwrap_or_default(),
    }
}

/// Runs `iterations` decoder inputs from `seed`.
pub fn run(iterations: u64, seed: u64) -> FuzzStats {
    let mut rng = SplitMix::new(seed);
    let mut stats = FuzzStats::default();
    // (format, link, its bytes, the compact JSON, its tree)
    type Sample = (u32, String, Vec<u8>, Vec<u8>, Value);
    let mut corpus: Vec<Sample> = Vec::new();
    for i in 0..24 {
        let doc = random_run(&mut rng, 10 + (i * 7) % 80);
        let version = VERSIONS[i % VERSIONS.len()];
        let (Ok(link), Ok(tree)) = (encode_as(&doc, version), compact::to_compact(&doc)) else {
            continue;
        };
        let bytes = link
            .split_once('.')
            .and_then(|(_, b)| URL_SAFE_NO_PAD.decode(b).ok())
            .unwrap_or_default();
        let json = serde_json::to_vec(&tree).unwrap_or_default();
        corpus.push((version, link, bytes, json, tree));
    }
    for _ in 0..iterations {
        let (version, link, bytes, json, tree) =
            &corpus[(rng.next_u64() % corpus.len() as u64) as usize];
        let input = match rng.next_u64() % 6 {
            0 => {
                let mut b = link.clone().into_bytes();
                mutate_bytes(&mut rng, &mut b);
                String::from_utf8_lossy(&b).into_owned()
            }
            1 => {
                let mut b = bytes.clone();
                mutate_bytes(&mut rng, &mut b);
                format!("{version}.{}", URL_SAFE_NO_PAD.encode(b))
            }
            2 => {
                let mut j = json.clone();
                mutate_bytes(&mut rng, &mut j);
                pack(&j, *version)
            }
            3 => {
                let mut t = tree.clone();
                mutate_tree(&mut rng, &mut t, 0);
                pack(&serde_json::to_vec(&t).unwrap_or_default(), *version)
            }
            4 => {
                let len = rng.next_u64() % 64;
                let alphabet = b"ABCxyz019-_.=#~run";
                let s: String = (0..len)
                    .map(|_| alphabet[(rng.next_u64() % alphabet.len() as u64) as usize] as char)
                    .collect();
                format!("{FRAGMENT_KEY}{s}")
            }
            _ => link[..(rng.next_u64() as usize % link.len().max(1))].to_string(),
        };
        stats.inputs += 1;
        match decode(&input) {
            Ok(_) => stats.decoded += 1,
            Err(_) => stats.rejected += 1,
        }
    }
    stats
}
