//! Writing what the CLI keeps (run files, a batch's runs, ACT+'s banks,
//! MAEL's pools, lessons) whole or not at all: to a file beside the
//! target, then renamed over it, so a crash or a signal mid-write leaves
//! the old file as it was.

/// Writes `text` to `path` whole or not at all.
pub fn write_whole(path: &str, text: &str) -> Result<(), String> {
    let tmp = format!("{path}.writing");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("cannot write {path}: {e}")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_that_fails_leaves_the_old_file_as_it_was() {
        let dir = std::env::temp_dir().join(format!("roundtable-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("bank.json").to_string_lossy().into_owned();
        write_whole(&path, "old").expect("first write");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "old");
        // The file beside it cannot be made (a folder holds its name): the
        // write fails and the target keeps its text; a plain write would
        // have truncated it first.
        std::fs::create_dir_all(format!("{path}.writing/x")).expect("blocker");
        let err = write_whole(&path, "new").expect_err("cannot write");
        assert!(err.contains("cannot write"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "old");
        std::fs::remove_dir_all(format!("{path}.writing")).expect("unblock");
        write_whole(&path, "new").expect("second write");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        assert!(!std::path::Path::new(&format!("{path}.writing")).exists());
        let _ = std::fs::remove_dir_all(dir);
    }
}
