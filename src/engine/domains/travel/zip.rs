//! Reads the files of a .zip archive (stored or deflated entries), for
//! importing the TravelPlanner database as one file. Defensive: sizes are
//! capped and every offset is checked, so a damaged archive gives an error.

use miniz_oxide::inflate::decompress_to_vec_with_limit;

/// Largest entry accepted after decompression.
pub const MAX_ENTRY: usize = 256 * 1024 * 1024;

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Every file entry as (path, bytes); directories are skipped. `keep`
/// decides from the path whether an entry is wanted (others are not inflated).
pub fn read_zip(
    bytes: &[u8],
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let damaged = |what: &str| format!("The .zip file is damaged or not a zip archive ({what}).");
    // The end-of-central-directory record is in the last 64 KB + 22 bytes.
    let min = bytes.len().saturating_sub(65_557);
    let eocd = (min..bytes.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(bytes, i) == Some(0x0605_4b50))
        .ok_or_else(|| damaged("no end of central directory"))?;
    let count = u16_at(bytes, eocd + 10).ok_or_else(|| damaged("short directory record"))? as usize;
    let mut at =
        u32_at(bytes, eocd + 16).ok_or_else(|| damaged("short directory record"))? as usize;
    let mut out = Vec::new();
    for _ in 0..count {
        if u32_at(bytes, at) != Some(0x0201_4b50) {
            return Err(damaged("bad central directory entry"));
        }
        let field = |o: usize| {
            u16_at(bytes, at + o)
                .map(usize::from)
                .ok_or_else(|| damaged("short entry"))
        };
        let method = field(10)?;
        let compressed = u32_at(bytes, at + 20).ok_or_else(|| damaged("short entry"))? as usize;
        let size = u32_at(bytes, at + 24).ok_or_else(|| damaged("short entry"))? as usize;
        let (name_len, extra_len, comment_len) = (field(28)?, field(30)?, field(32)?);
        let local = u32_at(bytes, at + 42).ok_or_else(|| damaged("short entry"))? as usize;
        let name_bytes = bytes
            .get(at + 46..at + 46 + name_len)
            .ok_or_else(|| damaged("entry name out of range"))?;
        let name = String::from_utf8_lossy(name_bytes).replace('\\', "/");
        at += 46 + name_len + extra_len + comment_len;
        if name.ends_with('/') || !keep(&name) {
            continue;
        }
        if u32_at(bytes, local) != Some(0x0403_4b50) {
            return Err(damaged("bad local header"));
        }
        let data_at = local
            + 30
            + u16_at(bytes, local + 26).unwrap_or(0) as usize
            + u16_at(bytes, local + 28).unwrap_or(0) as usize;
        let data = bytes
            .get(data_at..data_at + compressed)
            .ok_or_else(|| damaged("entry data out of range"))?;
        let content = match method {
            0 => data.to_vec(),
            8 => decompress_to_vec_with_limit(data, MAX_ENTRY.min(size.max(1) * 2 + 1024)).map_err(|_| damaged(&format!("{name} does not inflate")))?,
            m => return Err(format!("{name} in the .zip uses compression method {m}; re-create the archive with standard (deflate) compression.")),
        };
        out.push((name, content));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal zip writer for the tests (stored and deflated entries).
    fn zip(entries: &[(&str, &[u8], bool)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, data, deflate) in entries {
            let body = if *deflate {
                miniz_oxide::deflate::compress_to_vec(data, 6)
            } else {
                data.to_vec()
            };
            let local = out.len() as u32;
            out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
            out.extend_from_slice(&[20, 0, 0, 0]);
            out.extend_from_slice(&(if *deflate { 8u16 } else { 0 }).to_le_bytes());
            out.extend_from_slice(&[0; 8]);
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&[0, 0]);
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&body);
            central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
            central.extend_from_slice(&[20, 0, 20, 0, 0, 0]);
            central.extend_from_slice(&(if *deflate { 8u16 } else { 0 }).to_le_bytes());
            central.extend_from_slice(&[0; 8]);
            central.extend_from_slice(&(body.len() as u32).to_le_bytes());
            central.extend_from_slice(&(data.len() as u32).to_le_bytes());
            central.extend_from_slice(&(name.len() as u16).to_le_bytes());
            central.extend_from_slice(&[0; 12]);
            central.extend_from_slice(&local.to_le_bytes());
            central.extend_from_slice(name.as_bytes());
        }
        let dir_at = out.len() as u32;
        out.extend_from_slice(&central);
        out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&dir_at.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out
    }

    #[test]
    fn reads_stored_and_deflated_entries() {
        let big = b"name,city\n".repeat(1000);
        let z = zip(&[
            ("db/", b"", false),
            ("db/a.csv", b"x,y\n1,2\n", false),
            ("db/b.csv", &big, true),
            ("db/skip.bin", b"zz", false),
        ]);
        let files = read_zip(&z, &|p| p.ends_with(".csv")).expect("zip");
        assert_eq!(files.len(), 2);
        assert_eq!(files[0], ("db/a.csv".to_string(), b"x,y\n1,2\n".to_vec()));
        assert_eq!(files[1].1, big);
    }

    #[test]
    fn damaged_archives_are_refused() {
        let z = zip(&[("a.csv", b"hello", true)]);
        assert!(read_zip(b"not a zip", &|_| true)
            .unwrap_err()
            .contains("not a zip"));
        for cut in [10, z.len() / 2, z.len() - 5] {
            assert!(read_zip(&z[..cut], &|_| true).is_err(), "cut at {cut}");
        }
        let mut bad = z.clone();
        bad[40] ^= 0xff; // inside the deflated data
        let _ = read_zip(&bad, &|_| true); // an error or garbage text, never a panic
    }
}
