//! Which paths a workspace file may have: relative, "/" between parts,
//! each part a name any file system and any zip tool takes.

/// The longest path (bytes) and the deepest one (parts).
pub const MAX_PATH_BYTES: usize = 160;
pub const MAX_DEPTH: usize = 8;
/// The longest name of one part (bytes).
pub const MAX_NAME_BYTES: usize = 64;

/// Characters no part may hold: Windows refuses them in a name, and a zip
/// tool would write them as they are.
const FORBIDDEN: [char; 8] = ['\\', ':', '*', '?', '"', '<', '>', '|'];

/// `path` as the workspace keeps it (a leading "./" and repeated or
/// trailing "/" dropped), or why it cannot be a file's path.
pub fn check_path(path: &str) -> Result<String, String> {
    let trimmed = path.trim();
    if trimmed.is_empty() {
        return Err("a file needs a path".into());
    }
    if trimmed.starts_with('/') || trimmed.starts_with('~') {
        return Err("a path is relative to the workspace: it cannot start with / or ~".into());
    }
    let mut parts = Vec::new();
    for part in trimmed.split('/') {
        match part {
            "" | "." => continue,
            ".." => return Err("a path cannot leave the workspace (..)".into()),
            _ => {}
        }
        if let Some(c) = part
            .chars()
            .find(|c| c.is_control() || FORBIDDEN.contains(c))
        {
            return Err(format!(
                "\"{}\" holds a character a file name cannot ({})",
                shown(part),
                c.escape_debug()
            ));
        }
        if part.len() > MAX_NAME_BYTES {
            return Err(format!(
                "a name is at most {MAX_NAME_BYTES} bytes (\"{}…\" is {})",
                shown(part),
                part.len()
            ));
        }
        if part.ends_with(' ') || part.ends_with('.') {
            return Err(format!(
                "\"{}\" ends with a space or a dot, which Windows drops",
                shown(part)
            ));
        }
        parts.push(part);
    }
    if parts.is_empty() {
        return Err("a file needs a name, not only folders".into());
    }
    if parts.len() > MAX_DEPTH {
        return Err(format!(
            "a path is at most {MAX_DEPTH} folders deep (this one is {})",
            parts.len()
        ));
    }
    let joined = parts.join("/");
    if joined.len() > MAX_PATH_BYTES {
        return Err(format!(
            "a path is at most {MAX_PATH_BYTES} bytes (this one is {})",
            joined.len()
        ));
    }
    Ok(joined)
}

/// At most 40 characters of a part, for a message.
fn shown(part: &str) -> String {
    part.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_kept_relative_and_plain() {
        assert_eq!(check_path("main.py").as_deref(), Ok("main.py"));
        assert_eq!(check_path("./src//game.py/").as_deref(), Ok("src/game.py"));
        assert_eq!(
            check_path(" docs/read me.md ").as_deref(),
            Ok("docs/read me.md")
        );
        for (bad, why) in [
            ("", "needs a path"),
            ("/etc/passwd", "relative"),
            ("~/x.py", "relative"),
            ("a/../../x.py", "leave the workspace"),
            ("./", "needs a name"),
            ("a\\b.py", "character"),
            ("con:1.py", "character"),
            ("tab\tname.py", "character"),
            ("notes.", "ends with"),
        ] {
            let err = check_path(bad).expect_err(bad);
            assert!(err.contains(why), "{bad}: {err}");
        }
        let deep = ["d"; MAX_DEPTH].join("/") + "/f.py";
        assert!(check_path(&deep).unwrap_err().contains("deep"));
        let long_name = "n".repeat(MAX_NAME_BYTES + 1);
        assert!(check_path(&long_name).unwrap_err().contains("at most"));
        let long_path = [
            "n".repeat(MAX_NAME_BYTES),
            "n".repeat(MAX_NAME_BYTES),
            "n".repeat(MAX_NAME_BYTES),
        ]
        .join("/");
        assert!(check_path(&long_path).unwrap_err().contains("160 bytes"));
        assert!(
            check_path(&["n".repeat(MAX_NAME_BYTES), "n".repeat(MAX_NAME_BYTES)].join("/")).is_ok()
        );
    }
}
