//! A model file's id: its SHA-256, hex (the worker's store and the CLI).

use sha2::{Digest, Sha256};
use std::io::Read;

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of everything `reader` yields, hex.
pub fn sha256_hex<R: Read>(reader: &mut R) -> std::io::Result<String> {
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            return Ok(hex(&hash.finalize()));
        }
        hash.update(&buf[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        assert_eq!(
            sha256_hex(&mut &b"abc"[..]).ok().as_deref(),
            Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        assert_eq!(hex(&[0, 15, 255]), "000fff");
    }
}
