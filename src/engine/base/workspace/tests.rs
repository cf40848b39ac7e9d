use super::*;

fn write(ws: &mut Workspace, path: &str, text: &str) -> Result<String, Refusal> {
    ws.write(path, text, "agent", 0, None)
}

#[test]
fn versions_keep_who_wrote_them() {
    let mut ws = Workspace::default();
    ws.write("./main.py", "print(1)\n", "coder", 3, Some(1))
        .unwrap();
    ws.write("main.py", "print(2)\n", "critic", 9, Some(4))
        .unwrap();
    let h = ws.history("main.py");
    assert_eq!(h.len(), 2);
    assert_eq!(
        (h[0].agent.as_str(), h[0].seq, h[0].call),
        ("coder", 3, Some(1))
    );
    assert_eq!(ws.latest("./main.py").unwrap().text, "print(2)\n");
    assert_eq!(ws.latest("main.py").unwrap().agent, "critic");
    assert_eq!(ws.len(), 1);
    assert_eq!(ws.total_bytes(), 9);
    assert!(ws.latest("other.py").is_none());
    assert!(ws.history("../x").is_empty());
}

#[test]
fn limits_refuse_the_whole_write_with_a_reason() {
    let mut ws = Workspace::default();
    let big = "x".repeat(MAX_FILE_BYTES + 1);
    let r = write(&mut ws, "big.txt", &big).unwrap_err();
    assert!(r.reason.contains("more than a file may hold"), "{r}");
    assert!(ws.is_empty(), "a refused write leaves nothing");

    for i in 0..MAX_FILES {
        write(&mut ws, &format!("f{i}.py"), "x").unwrap();
    }
    let r = write(&mut ws, "one-more.py", "x").unwrap_err();
    assert!(r.reason.contains("64 files"), "{r}");
    // A new version of a file it holds is still taken.
    write(&mut ws, "f0.py", "y").unwrap();
    assert_eq!(ws.len(), MAX_FILES);

    let mut ws = Workspace::default();
    let chunk = "x".repeat(MAX_FILE_BYTES);
    for i in 0..MAX_TOTAL_BYTES / MAX_FILE_BYTES {
        write(&mut ws, &format!("c{i}"), &chunk).unwrap();
    }
    let r = write(&mut ws, "last", "x").unwrap_err();
    assert!(r.reason.contains("more than its 1024 KB"), "{r}");
    // Rewriting a file smaller makes room.
    write(&mut ws, "c0", "small").unwrap();
    write(&mut ws, "last", "x").unwrap();

    let mut ws = Workspace::default();
    let mut n = 0;
    let r = loop {
        match write(&mut ws, "same.py", &chunk) {
            Ok(_) => n += 1,
            Err(r) => break r,
        }
    };
    assert_eq!(n, MAX_HISTORY_BYTES / MAX_FILE_BYTES);
    assert!(r.reason.contains("its limit"), "{r}");
}

#[test]
fn a_file_and_a_folder_cannot_share_a_name() {
    let mut ws = Workspace::default();
    write(&mut ws, "game/board.py", "x").unwrap();
    let r = write(&mut ws, "game", "x").unwrap_err();
    assert!(r.reason.contains("folder of that name"), "{r}");
    write(&mut ws, "notes", "x").unwrap();
    let r = write(&mut ws, "notes/a.md", "x").unwrap_err();
    assert!(r.reason.contains("notes is a file"), "{r}");
    let r = write(&mut ws, "../escape.py", "x").unwrap_err();
    assert!(r.to_string().starts_with("../escape.py: "), "{r}");
}

#[test]
fn the_tree_lists_folders_before_files() {
    let mut ws = Workspace::default();
    assert_eq!(ws.tree(), "(the workspace is empty)");
    for p in [
        "main.py",
        "game/board.py",
        "game/ui/draw.py",
        "README.md",
        "game/a.py",
    ] {
        write(&mut ws, p, "x").unwrap();
    }
    assert_eq!(
        ws.tree(),
        "game/\n  ui/\n    draw.py\n  a.py\n  board.py\nREADME.md\nmain.py"
    );
}

#[test]
fn the_files_are_walked_top_down() {
    let mut ws = Workspace::default();
    for p in [
        "z/deep/x.py",
        "main.py",
        "z/y.py",
        "a.py",
        "b/c.py",
        "b/q/r.py",
    ] {
        write(&mut ws, p, "x\r\ny").unwrap();
    }
    let order: Vec<&str> = ws.walk().iter().map(|(p, _)| *p).collect();
    assert_eq!(
        order,
        [
            "a.py",
            "main.py",
            "b/c.py",
            "b/q/r.py",
            "z/y.py",
            "z/deep/x.py"
        ]
    );
    assert!(!ws.zip("p").is_empty());
}
