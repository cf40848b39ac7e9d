//! The relay's key: it signs every class's teacher token and every
//! student's id (HMAC-SHA256), so a relay that restarted still tells its
//! own from forged ones. A page that knows a class's join code (every
//! student does) cannot restore the class under it, nor claim a seat the
//! relay did not give. The key lives in a file of its own, made on the
//! first start and readable by its owner only; a relay started without
//! one (`ephemeral`) cannot take classes back after a restart.

use llm_worker::gguf::digest::hex;
use ring::hmac;
use std::path::{Path, PathBuf};

pub struct Keys {
    key: hmac::Key,
}

/// Where the key is kept unless `--key-file` names a file.
pub fn default_path() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    Some(state.join("roundtable").join("relay-key"))
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

/// Byte strings equal, in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

fn random<const N: usize>() -> Result<[u8; N], String> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| format!("the system's random generator failed: {e}"))?;
    Ok(b)
}

/// Bytes of a student id's nonce and of its signature.
const NONCE: usize = 8;
const SEAL: usize = 8;

impl Keys {
    fn from_bytes(bytes: &[u8]) -> Keys {
        Keys {
            key: hmac::Key::new(hmac::HMAC_SHA256, bytes),
        }
    }

    /// A key for this process only.
    pub fn ephemeral() -> Result<Keys, String> {
        Ok(Keys::from_bytes(&random::<32>()?))
    }

    /// The key in `path`, made there (owner-only) if the file is absent.
    /// A file that is there but holds no key is an error: it is never
    /// overwritten.
    pub fn load_or_create(path: &Path) -> Result<Keys, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let bytes = unhex(text.trim()).filter(|b| b.len() == 32).ok_or_else(|| {
                    format!(
                        "{} is not a relay key (64 hex digits): move it away or name another file with --key-file",
                        path.display()
                    )
                })?;
                Ok(Keys::from_bytes(&bytes))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let bytes = random::<32>()?;
                write_new(path, &hex(&bytes))?;
                Ok(Keys::from_bytes(&bytes))
            }
            Err(e) => Err(format!("cannot read the relay key {}: {e}", path.display())),
        }
    }

    fn sign(&self, what: &str, code: &str, nonce: &str) -> hmac::Tag {
        let text = format!("roundtable-live/{what}\n{code}\n{nonce}");
        hmac::sign(&self.key, text.as_bytes())
    }

    /// The teacher token of the class `code` (64 hex digits).
    pub fn teacher_token(&self, code: &str) -> String {
        hex(self.sign("teacher", code, "").as_ref())
    }

    /// Whether `token` is the teacher token of `code`.
    pub fn is_teacher(&self, code: &str, token: &str) -> bool {
        unhex(token).is_some_and(|t| same(&t, self.sign("teacher", code, "").as_ref()))
    }

    /// A new student id for the class `code`: `s`, a random nonce and its
    /// signature (33 characters, as `protocol::is_student_id` takes).
    pub fn student_id(&self, code: &str) -> Result<String, String> {
        let nonce = hex(&random::<NONCE>()?);
        let seal = self.sign("student", code, &nonce);
        Ok(format!("s{nonce}{}", hex(&seal.as_ref()[..SEAL])))
    }

    /// Whether `id` is a student id this relay gave in the class `code`.
    pub fn is_student(&self, code: &str, id: &str) -> bool {
        let Some(rest) = id.strip_prefix('s') else {
            return false;
        };
        if rest.len() != 2 * (NONCE + SEAL) || !rest.is_ascii() {
            return false;
        }
        let (nonce, seal) = rest.split_at(2 * NONCE);
        unhex(seal).is_some_and(|s| same(&s, &self.sign("student", code, nonce).as_ref()[..SEAL]))
    }
}

/// Writes a new file readable by its owner only (never over another).
fn write_new(path: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    let fail = |e: std::io::Error| format!("cannot write the relay key {}: {e}", path.display());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)?;
    file.sync_all().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_ids_are_the_keys_own() {
        let a = Keys::from_bytes(&[1; 32]);
        let b = Keys::from_bytes(&[2; 32]);
        let token = a.teacher_token("ABC234");
        assert_eq!(token.len(), 64);
        assert!(a.is_teacher("ABC234", &token));
        assert!(!a.is_teacher("ABC235", &token), "another class's");
        assert!(!b.is_teacher("ABC234", &token), "another key's");
        assert!(!a.is_teacher("ABC234", &"0".repeat(64)));
        assert!(!a.is_teacher("ABC234", "not hex"));
        let id = a.student_id("ABC234").expect("an id");
        assert!(roundtable::engine::live::protocol::is_student_id(&id));
        assert!(a.is_student("ABC234", &id));
        assert!(!a.is_student("ABC235", &id));
        assert!(!b.is_student("ABC234", &id));
        let mut forged = id.clone();
        forged.replace_range(32..33, if id.ends_with('0') { "1" } else { "0" });
        assert!(!a.is_student("ABC234", &forged));
        assert_ne!(id, a.student_id("ABC234").expect("an id"), "random");
    }

    #[test]
    fn the_key_file_is_made_once_and_never_overwritten() {
        let dir = std::env::temp_dir().join(format!("rt-relay-key-{}", std::process::id()));
        let path = dir.join("sub/relay-key");
        let first = Keys::load_or_create(&path).expect("made");
        let again = Keys::load_or_create(&path).expect("read");
        assert_eq!(first.teacher_token("X"), again.teacher_token("X"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("file").permissions().mode();
            assert_eq!(mode & 0o077, 0, "owner-only: {mode:o}");
        }
        std::fs::write(&path, "my notes").expect("write");
        let err = Keys::load_or_create(&path).err().expect("refused");
        assert!(err.contains("not a relay key"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).expect("kept"), "my notes");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
