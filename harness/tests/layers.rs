//! The module graph is layered, so it is acyclic: the layer list in `src/lib.rs` (the
//! `//! N. ` lines) names every top-level module once, and every `crate::m` path of a
//! file (in a `use` or inline, tests included) reaches a module of a lower layer or its
//! own. A new edge upward fails here with the file that made it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The spec crate's sources (`spec/src`): its modules are the bottom layers.
fn spec_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read_dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Layer of each module, from `lib.rs`'s `//! N. `m`, `n`: ...` lines.
fn declared_layers() -> BTreeMap<String, usize> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs");
    let mut layers = BTreeMap::new();
    for line in lib.lines() {
        let Some(rest) = line.strip_prefix("//! ") else {
            continue;
        };
        let Some((n, names)) = rest.split_once(". ") else {
            continue;
        };
        let Ok(n) = n.parse::<usize>() else { continue };
        // The module names are the backticked words before the first colon.
        let names = names.split(':').next().unwrap_or("");
        for m in names.split('`').skip(1).step_by(2) {
            assert!(
                layers.insert(m.to_string(), n).is_none(),
                "lib.rs names `{m}` in two layers"
            );
        }
    }
    layers
}

/// The top-level modules `lib.rs` declares (`pub mod m;`) or re-exports from the
/// lower crates (`pub use mpit_spec::{a, b};`, `pub use mpit_target as target;`: that
/// crate depends on mpit-spec and mpit-reference alone, which its Cargo.toml fixes).
fn declared_modules() -> BTreeSet<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs");
    let mut out = BTreeSet::new();
    for l in lib.lines().map(str::trim) {
        if let Some(m) = l.strip_prefix("pub mod ") {
            out.insert(m.trim_end_matches(';').to_string());
        } else if let Some(group) = l.strip_prefix("pub use mpit_spec::{") {
            for m in group.trim_end_matches("};").split(',') {
                out.insert(m.trim().to_string());
            }
        } else if let Some(alias) = l.strip_prefix("pub use mpit_target as ") {
            out.insert(alias.trim_end_matches(';').to_string());
        }
    }
    out
}

/// The code of a file without its comments (line comments and doc comments).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every top-level module a file names: `crate::m` anywhere, and each item of a
/// `use crate::{a::.., b}` group.
fn uses(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level items of the group (depth 0 commas).
            let mut depth = 0;
            let mut start = 0;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.insert(ident(group[start..k].trim()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.insert(ident(group[start..k].trim()));
                        start = k + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out.remove("");
    out.remove("self");
    out
}

#[test]
fn every_module_is_in_one_layer() {
    let layers = declared_layers();
    let modules = declared_modules();
    assert!(modules.len() > 10, "lib.rs declares its modules");
    let named: BTreeSet<String> = layers.keys().cloned().collect();
    assert_eq!(
        named, modules,
        "lib.rs's layer list and its `pub mod`s differ"
    );
}

#[test]
fn every_path_reaches_down() {
    let layers = declared_layers();
    let mut files = Vec::new();
    for root in [src(), spec_src()] {
        let mut here = Vec::new();
        rust_files(&root, &mut here);
        assert!(here.len() > 5, "{}", root.display());
        files.extend(here.into_iter().map(|f| (root.clone(), f)));
    }
    let mut upward = Vec::new();
    let mut edges = 0;
    for (root, f) in &files {
        let rel = f.strip_prefix(root).expect("under src");
        let first = rel.components().next().expect("a path");
        let top = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let Some(&mine) = layers.get(&top) else {
            // lib.rs and main.rs sit above every layer.
            assert!(
                top == "lib" || top == "main",
                "{}: not in a layer",
                rel.display()
            );
            continue;
        };
        let text = std::fs::read_to_string(f).expect("read");
        for m in uses(&code(&text)) {
            if m == top {
                continue;
            }
            let Some(&theirs) = layers.get(&m) else {
                panic!("{}: crate::{m} is not a top-level module", rel.display());
            };
            edges += 1;
            if theirs >= mine {
                upward.push(format!(
                    "{} (layer {mine}) uses crate::{m} (layer {theirs})",
                    rel.display()
                ));
            }
        }
    }
    assert!(edges > 50, "the scan found the crate's paths ({edges})");
    assert!(
        upward.is_empty(),
        "paths that do not reach down:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_scan_sees_inline_paths_and_groups() {
    let c = code("use crate::{a::B, b, c::{d, e}};\nfn f() { crate::g::h(); } // crate::x\n");
    let got: Vec<String> = uses(&c).into_iter().collect();
    assert_eq!(got, ["a", "b", "c", "g"]);
}
