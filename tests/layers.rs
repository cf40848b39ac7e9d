//! Imports point down: every `crate::`, `super::` and `roundtable::` path in
//! `src/` is checked against the layer table and the slice table of
//! ARCHITECTURE.md (this test reads them there, so the map and the rule
//! are one text), and every `crate::` and `super::` path of the model
//! worker's crate (`crates/llm-worker/src`) against its own layer table. A file may import its own layer and the layers its row
//! names; a paper's places name no other paper; code outside every paper
//! names a paper only in a registry. Test modules (`tests.rs`, and an
//! inline `#[cfg(test)] mod tests { … }` with what follows it) may put
//! layers together. A `use` over several lines is read as one.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

struct Layer {
    name: String,
    folder: String,
    may: Vec<String>,
}

struct Slice {
    name: String,
    places: Vec<String>,
}

/// The rows of the Markdown table after `marker`.
fn table(doc: &str, marker: &str) -> Vec<Vec<String>> {
    let start = doc
        .find(marker)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no {marker}"));
    doc[start..]
        .lines()
        .skip(1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

fn list(cell: &str) -> Vec<String> {
    cell.split(',')
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect()
}

/// The app's crate and the model worker's, with their layer tables.
const APP: (&str, &str) = ("src/", "<!-- layers: read by tests/layers.rs -->");
const WORKER: (&str, &str) = (
    "crates/llm-worker/src/",
    "<!-- worker layers: read by tests/layers.rs -->",
);

fn layers(root: &str, marker: &str) -> Vec<Layer> {
    let doc = std::fs::read_to_string("ARCHITECTURE.md").expect("ARCHITECTURE.md");
    table(&doc, marker)
        .into_iter()
        .map(|r| Layer {
            name: r[0].clone(),
            folder: r[1].trim_start_matches(root).to_string(),
            may: list(&r[2]),
        })
        .collect()
}

fn rules() -> (Vec<Layer>, Vec<Slice>) {
    let doc = std::fs::read_to_string("ARCHITECTURE.md").expect("ARCHITECTURE.md");
    let layers = layers(APP.0, APP.1);
    let slices = table(&doc, "<!-- slices: read by tests/layers.rs -->")
        .into_iter()
        .map(|r| Slice {
            name: r[0].clone(),
            places: list(&r[1]),
        })
        .collect();
    (layers, slices)
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file's module path under its crate's root (`src/engine/run/mod.rs` →
/// engine, run).
fn module_of(file: &str) -> Vec<String> {
    let rel = file
        .trim_start_matches(WORKER.0)
        .trim_start_matches(APP.0)
        .trim_end_matches(".rs");
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts
}

/// The paths a line names from the crate root, expanded from `{…}` groups.
fn paths(line: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !line.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let rest = &line[i..];
        let at_word =
            i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b':');
        let (base, skip): (Vec<String>, usize) = if at_word && rest.starts_with("crate::") {
            (Vec::new(), 7)
        } else if at_word && rest.starts_with("roundtable::") {
            (Vec::new(), 12)
        } else if at_word && rest.starts_with("super::") {
            let mut m = module.to_vec();
            let mut k = 0;
            while rest[k..].starts_with("super::") {
                m.pop();
                k += 7;
            }
            (m, k)
        } else {
            i += 1;
            continue;
        };
        let (found, used) = expand(&line[i + skip..], base);
        out.extend(found);
        i += skip + used.max(1);
    }
    out
}

/// Reads `a::b::{c, d::e}` from `s`; returns every full path and the length read.
fn expand(s: &str, base: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let mut path = base;
    let mut i = 0;
    let b = s.as_bytes();
    loop {
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        if i > start {
            path.push(s[start..i].to_string());
        }
        if s[i..].starts_with("::{") {
            i += 3;
            let mut out = Vec::new();
            loop {
                while i < b.len() && (b[i] == b' ' || b[i] == b',') {
                    i += 1;
                }
                if i >= b.len() || b[i] == b'}' {
                    return (out, i + 1);
                }
                let (inner, used) = expand(&s[i..], path.clone());
                out.extend(inner);
                i += used;
                // Skip an `as name` and anything else up to the next item.
                while i < b.len() && b[i] != b',' && b[i] != b'}' {
                    i += 1;
                }
            }
        }
        if s[i..].starts_with("::")
            && i + 2 < b.len()
            && (b[i + 2].is_ascii_alphanumeric() || b[i + 2] == b'_')
        {
            i += 2;
            continue;
        }
        return (vec![path], i);
    }
}

/// The file's code lines with their numbers, up to its inline test module;
/// a `use` spread over several lines is joined into one.
fn statements(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut n = 0;
    while n < lines.len() {
        let code = lines[n].trim_start();
        let next = lines.get(n + 1).map_or("", |l| l.trim_start());
        if code.starts_with("#[cfg(test)]") && next.starts_with("mod ") && next.ends_with('{') {
            break;
        }
        if code.starts_with("//") {
            n += 1;
            continue;
        }
        let mut joined = lines[n].to_string();
        let start = n;
        let is_use = code.starts_with("use ")
            || code.starts_with("pub use ")
            || code.starts_with("pub(crate) use ");
        while is_use && !joined.contains(';') && n + 1 < lines.len() {
            n += 1;
            joined.push(' ');
            joined.push_str(lines[n].trim());
        }
        out.push((start, joined));
        n += 1;
    }
    out
}

fn folder_matches(module: &[String], place: &str) -> bool {
    let place = place.trim_start_matches(APP.0).trim_end_matches(".rs");
    let want: Vec<&str> = place.split('/').collect();
    module.len() >= want.len() && module.iter().zip(&want).all(|(a, b)| a == b)
}

fn layer_of<'a>(module: &[String], layers: &'a [Layer]) -> Option<&'a Layer> {
    layers
        .iter()
        .filter(|l| folder_matches(module, &l.folder))
        .max_by_key(|l| l.folder.len())
}

fn slice_of<'a>(module: &[String], file: Option<&str>, slices: &'a [Slice]) -> Option<&'a Slice> {
    slices.iter().find(|s| {
        s.places.iter().any(|p| match (file, p.ends_with(".rs")) {
            // A file place holds that file's module only (`coordinators/mod.rs`
            // is the registry, not every paper under it).
            (Some(f), true) => f == p,
            (None, true) => {
                let m = module_of(p);
                module.len() >= m.len()
                    && module[..m.len()] == m[..]
                    && !is_folder_module(p, module)
            }
            (_, false) => folder_matches(module, p),
        })
    })
}

/// Whether `module` goes below the module of a `mod.rs` place (into a
/// child folder, which the place does not hold).
fn is_folder_module(place: &str, module: &[String]) -> bool {
    place.ends_with("mod.rs") && module.len() > module_of(place).len() && {
        let child = &module[module_of(place).len()];
        Path::new("src")
            .join(module_of(place).join("/"))
            .join(child)
            .is_dir()
            || Path::new("src")
                .join(module_of(place).join("/"))
                .join(format!("{child}.rs"))
                .is_file()
    }
}

#[test]
fn imports_point_down_and_papers_stay_in_their_slices() {
    let (layers, slices) = rules();
    assert!(
        layers.len() >= 10 && slices.len() >= 4,
        "the tables were read"
    );
    let mut all = Vec::new();
    files(Path::new("src"), &mut all);
    let mut broken: BTreeSet<String> = BTreeSet::new();
    let mut checked = 0;
    for path in all {
        let file = path.to_string_lossy().replace('\\', "/");
        let module = module_of(&file);
        let Some(layer) = layer_of(&module, &layers) else {
            continue; // lib.rs, main.rs, bin/: the roots put everything together.
        };
        if file.ends_with("/tests.rs") || file.contains("/tests/") {
            continue;
        }
        let own_slice = slice_of(&module, Some(&file), &slices).map(|s| s.name.as_str());
        let text = std::fs::read_to_string(&path).expect("read");
        for (n, line) in statements(&text) {
            for target in paths(&line, &module) {
                // The bin's `crate::cli` is src/cli.
                let Some(to) = layer_of(&target, &layers) else {
                    continue;
                };
                checked += 1;
                let at = format!("{file}:{}", n + 1);
                if to.name != layer.name && !layer.may.contains(&to.name) {
                    broken.insert(format!(
                        "{at}: the {} layer imports {} ({})",
                        layer.name,
                        to.name,
                        target.join("::")
                    ));
                }
                let Some(their) = slice_of(&target, None, &slices) else {
                    continue;
                };
                let ok = their.name == "registry"
                    || own_slice == Some(their.name.as_str())
                    || own_slice == Some("registry");
                if !ok {
                    broken.insert(format!(
                        "{at}: {} names the paper {} ({})",
                        own_slice.map_or("generic code".to_string(), |s| format!("the {s} slice")),
                        their.name,
                        target.join("::")
                    ));
                }
            }
        }
    }
    assert!(checked > 500, "paths were found ({checked})");
    assert!(
        broken.is_empty(),
        "{} imports break ARCHITECTURE.md's layer or slice table:\n{}",
        broken.len(),
        broken.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_checker_reads_paths_as_rust_does() {
    let m: Vec<String> = ["ui", "act", "page", "batch_run"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let got = paths("use super::super::setup::{refresh, x::{a, b as c}};", &m);
    let want: Vec<Vec<String>> = [
        vec!["ui", "act", "setup", "refresh"],
        vec!["ui", "act", "setup", "x", "a"],
        vec!["ui", "act", "setup", "x", "b"],
    ]
    .iter()
    .map(|v| v.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(got, want);
    let got = paths(
        "let x = crate::engine::run::RunCtx::new(roundtable::engine::model::X);",
        &m,
    );
    assert_eq!(got.len(), 2);
    assert_eq!(got[0][..3], ["engine", "run", "RunCtx"]);
    assert_eq!(got[1][..2], ["engine", "model"]);
    assert!(paths("fn a_crate::b() // not_super::x", &m).is_empty());
}

#[test]
fn the_checker_reads_a_use_over_several_lines_and_code_after_a_test_only_item() {
    let text = "use crate::engine::{\n    run::RunCtx,\n    views::Fold,\n};\n#[cfg(test)]\nmod tests;\nuse crate::ui::X;\n#[cfg(test)]\nmod tests {\nuse crate::cli::Y;\n}\n";
    let got: Vec<(usize, Vec<Vec<String>>)> = statements(text)
        .into_iter()
        .map(|(n, l)| (n, paths(&l, &[])))
        .filter(|(_, p)| !p.is_empty())
        .collect();
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        got,
        vec![
            (
                0,
                vec![
                    names(&["engine", "run", "RunCtx"]),
                    names(&["engine", "views", "Fold"])
                ]
            ),
            (6, vec![names(&["ui", "X"])]),
        ]
    );
}

/// The model worker's crate: its folders import only the layers below
/// them, so no file of one folder imports a file of another in a circle.
#[test]
fn the_model_workers_imports_point_down() {
    let layers = layers(WORKER.0, WORKER.1);
    assert!(layers.len() >= 5, "the worker's table was read");
    let mut all = Vec::new();
    files(Path::new(WORKER.0), &mut all);
    let mut broken: BTreeSet<String> = BTreeSet::new();
    let mut checked = 0;
    for path in all {
        let file = path.to_string_lossy().replace('\\', "/");
        let module = module_of(&file);
        let Some(layer) = layer_of(&module, &layers) else {
            continue; // lib.rs and bin/: the roots put everything together.
        };
        let text = std::fs::read_to_string(&path).expect("read");
        for (n, line) in statements(&text) {
            for target in paths(&line, &module) {
                let Some(to) = layer_of(&target, &layers) else {
                    continue;
                };
                checked += 1;
                if to.name != layer.name && !layer.may.contains(&to.name) {
                    broken.insert(format!(
                        "{file}:{}: the {} layer imports {} ({})",
                        n + 1,
                        layer.name,
                        to.name,
                        target.join("::")
                    ));
                }
            }
        }
    }
    assert!(checked > 100, "paths were found ({checked})");
    assert!(
        broken.is_empty(),
        "{} imports break ARCHITECTURE.md's worker layer table:\n{}",
        broken.len(),
        broken.into_iter().collect::<Vec<_>>().join("\n")
    );
}
