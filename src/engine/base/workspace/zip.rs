//! A workspace as a zip file (the Files panel's download): each file
//! deflated (or stored, when deflating does not make it smaller), names in
//! UTF-8, every date 1980-01-01 so the same files give the same bytes.
//! Sizes stay far below zip64's: a workspace is capped at a few MB.

/// The zip of `files` (path, contents), each under `folder/` when
/// `folder` is not empty.
pub fn zip(folder: &str, files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (path, data) in files {
        let name = if folder.is_empty() {
            path.to_string()
        } else {
            format!("{folder}/{path}")
        };
        let deflated = miniz_oxide::deflate::compress_to_vec(data, 6);
        let (method, body): (u16, &[u8]) = if deflated.len() < data.len() {
            (8, &deflated)
        } else {
            (0, data)
        };
        let crc = crc32(data);
        let offset = out.len() as u32;
        let fixed = |v: &mut Vec<u8>| {
            put16(v, 20); // version needed: 2.0 (deflate)
            put16(v, 1 << 11); // names in UTF-8
            put16(v, method);
            put16(v, 0); // 00:00
            put16(v, (1 << 5) | 1); // 1980-01-01
            put32(v, crc);
            put32(v, body.len() as u32);
            put32(v, data.len() as u32);
            put16(v, name.len() as u16);
            put16(v, 0); // no extra field
        };
        put32(&mut out, 0x0403_4b50);
        fixed(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(body);

        put32(&mut central, 0x0201_4b50);
        put16(&mut central, (3 << 8) | 20); // made on Unix, zip 2.0
        fixed(&mut central);
        put16(&mut central, 0); // no comment
        put16(&mut central, 0); // disk 0
        put16(&mut central, 0); // internal attributes
        put32(&mut central, 0o100_644 << 16); // a plain file, rw-r--r--
        put32(&mut central, offset);
        central.extend_from_slice(name.as_bytes());
    }
    let central_at = out.len() as u32;
    let central_len = central.len() as u32;
    out.extend_from_slice(&central);
    put32(&mut out, 0x0605_4b50);
    put16(&mut out, 0);
    put16(&mut out, 0);
    put16(&mut out, files.len() as u16);
    put16(&mut out, files.len() as u16);
    put32(&mut out, central_len);
    put32(&mut out, central_at);
    put16(&mut out, 0);
    out
}

fn put16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}

fn put32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}

/// CRC-32 (IEEE 802.3, reflected, as zip uses it).
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc = CRC_TABLE[((crc ^ b as u32) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    fn u16_at(b: &[u8], i: usize) -> usize {
        u16::from_le_bytes([b[i], b[i + 1]]) as usize
    }
    fn u32_at(b: &[u8], i: usize) -> usize {
        u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize
    }

    /// Reads the zip back by its central directory, as an unzip tool does.
    fn unzip(z: &[u8]) -> Vec<(String, Vec<u8>)> {
        let end = z.len() - 22;
        assert_eq!(u32_at(z, end), 0x0605_4b50);
        let (count, mut at) = (u16_at(z, end + 10), u32_at(z, end + 16));
        let mut files = Vec::new();
        for _ in 0..count {
            assert_eq!(u32_at(z, at), 0x0201_4b50);
            let (method, crc) = (u16_at(z, at + 10), u32_at(z, at + 16) as u32);
            let (csize, size) = (u32_at(z, at + 20), u32_at(z, at + 24));
            let name_len = u16_at(z, at + 28);
            let local = u32_at(z, at + 42);
            let name = String::from_utf8(z[at + 46..at + 46 + name_len].to_vec()).unwrap();
            assert_eq!(u32_at(z, local), 0x0403_4b50);
            let body_at = local + 30 + u16_at(z, local + 26) + u16_at(z, local + 28);
            let body = &z[body_at..body_at + csize];
            let data = match method {
                0 => body.to_vec(),
                8 => miniz_oxide::inflate::decompress_to_vec(body).unwrap(),
                m => panic!("method {m}"),
            };
            assert_eq!(data.len(), size);
            assert_eq!(crc32(&data), crc, "{name}");
            files.push((name, data));
            at += 46 + name_len;
        }
        files
    }

    #[test]
    fn crc32_is_zips() {
        // The standard check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn files_come_back_as_written_under_the_folder() {
        let code = "print('hello')\n".repeat(40);
        let z = zip(
            "run",
            &[
                ("main.py", code.as_bytes()),
                ("src/é.txt", b"x"),
                ("empty", b""),
            ],
        );
        let files = unzip(&z);
        assert_eq!(files.len(), 3);
        assert_eq!(files[0], ("run/main.py".into(), code.into_bytes()));
        assert_eq!(files[1], ("run/src/é.txt".into(), b"x".to_vec()));
        assert_eq!(files[2], ("run/empty".into(), Vec::new()));
        // The repeated file is deflated, the one-byte one stored.
        assert_eq!(u16_at(&z, 8), 8);
        assert!(z.len() < 400, "{}", z.len());
        assert_eq!(zip("run", &[("a", b"1")]), zip("run", &[("a", b"1")]));
    }
}
