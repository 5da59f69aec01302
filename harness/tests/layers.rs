//! The module graph is layered, so it is acyclic: the layer list in `src/lib.rs` (the
//! `//! N. ` lines) names every top-level module once, and every `crate::m` path of a
//! file (in a `use` or inline, tests included) reaches a module of a lower layer or its
//! own. A new edge upward fails here with the file that made it.
//!
//! How a file's text is read into modules and paths: common/module_graph.rs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "common/module_graph.rs"]
mod module_graph;
#[path = "common/rust_files.rs"]
mod rust_files;
use module_graph::{
    code, declared_layers, declared_modules, find_cycle, module_path, named_paths, uses,
    workspace_path,
};
use rust_files::rust_files;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The spec crate's sources (`spec/src`): its own modules are layered the same way, by
/// the list in its `lib.rs`.
fn spec_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/src")
}

/// The report crate's sources (`report/src`): its root is the module `report`, beside
/// it `capabilities` and `exit_code`.
fn report_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/src")
}

#[test]
fn every_module_is_in_one_layer() {
    for root in [src(), spec_src()] {
        let layers = declared_layers(&root);
        let modules = declared_modules(&root);
        assert!(
            modules.len() >= 5,
            "{}: lib.rs declares its modules",
            root.display()
        );
        let named: BTreeSet<String> = layers.keys().cloned().collect();
        assert_eq!(
            named,
            modules,
            "{}: lib.rs's layer list and its `pub mod`s differ",
            root.display()
        );
    }
}

/// A module's imports show which crate it stands on: the library re-exports no crate of
/// the workspace under a path of its own (`pub use mpit_target as target` hid that a
/// module calling `crate::target` stood on another crate), and the CLI is the binary's
/// module alone, so the fuzz targets and tools that link the library link no CLI.
#[test]
fn the_library_re_exports_no_crate_and_holds_no_cli() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs");
    let code = code(&lib);
    let re_exports: Vec<&str> = code
        .lines()
        .filter(|l| l.trim_start().starts_with("pub use mpit_"))
        .collect();
    assert!(re_exports.is_empty(), "lib.rs re-exports: {re_exports:?}");
    assert!(
        !declared_modules(&src()).contains("cli"),
        "lib.rs declares cli"
    );
    let main = std::fs::read_to_string(src().join("main.rs")).expect("main.rs");
    assert!(code_has_line(&main, "mod cli;"), "main.rs declares cli");
}

fn code_has_line(text: &str, line: &str) -> bool {
    code(text).lines().any(|l| l.trim() == line)
}

/// The binary's files (`main.rs` and its module `cli/`) name the library by its crate
/// name; a `crate::` path there can only be the CLI's own.
fn binary_file(rel: &Path) -> bool {
    let first = rel.components().next().expect("a path").as_os_str();
    first == "main.rs" || first == "cli"
}

#[test]
fn every_path_reaches_down() {
    let mut edges = 0;
    let mut upward = Vec::new();
    for root in [src(), spec_src()] {
        let layers = declared_layers(&root);
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        assert!(files.len() > 5, "{}", root.display());
        for f in &files {
            let rel = f.strip_prefix(&root).expect("under src");
            let text = std::fs::read_to_string(f).expect("read");
            let used = uses(&code(&text));
            if binary_file(rel) {
                let foreign: Vec<&String> = used.iter().filter(|m| *m != "cli").collect();
                assert!(foreign.is_empty(), "{}: crate::{foreign:?}", rel.display());
                continue;
            }
            let top = rel.components().next().expect("a path");
            let top = top.as_os_str().to_string_lossy();
            let top = top.trim_end_matches(".rs");
            let Some(&mine) = layers.get(top) else {
                // lib.rs sits above every layer.
                assert!(top == "lib", "{}: not in a layer", rel.display());
                continue;
            };
            for m in used.iter().filter(|m| *m != top) {
                let Some(&theirs) = layers.get(m) else {
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
    }
    assert!(edges > 50, "the scan found the crates' paths ({edges})");
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

/// The sources of the crates that were the harness (mpit-conform, mpit-spec,
/// mpit-target, mpit-process, mpit-report), each read in one sitting.
fn harness_crates() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    [
        "harness/src",
        "spec/src",
        "library/src",
        "process/src",
        "report/src",
    ]
    .iter()
    .map(|d| root.join(d))
    .collect()
}

/// Every crate of the workspace: the `members` of the root Cargo.toml.
fn workspace_crates() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let members = manifest
        .split_once("members = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .expect("the root Cargo.toml lists its members");
    members
        .split('"')
        .skip(1)
        .step_by(2)
        .map(|m| root.join(m))
        .collect()
}

/// The `.rs` files of a crate: its sources, tests (harness/tests and its `common/`
/// included), examples and build script; not a `target/` of its own, which is generated
/// (the workspace's is outside every crate).
fn crate_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read_dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "target") {
                rust_files(&p, &mut out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// No `.rs` file of the workspace is over 600 lines: every crate, its sources and its
/// tests alike.
#[test]
fn no_file_is_over_600_lines() {
    let crates = workspace_crates();
    assert!(crates.len() >= 9, "the workspace's members: {crates:?}");
    let mut long = Vec::new();
    let mut n = 0;
    for dir in &crates {
        let files = crate_files(dir);
        assert!(!files.is_empty(), "{}: no file read", dir.display());
        for f in files {
            n += 1;
            let lines = std::fs::read_to_string(&f).expect("read").lines().count();
            if lines > 600 {
                long.push(format!("{}: {lines} lines", f.display()));
            }
        }
    }
    assert!(n > 280, "the workspace's crates were read ({n} files)");
    assert!(long.is_empty(), "split these:\n{}", long.join("\n"));
}

/// Imports stand at the top of a module: a `crate::` path outside a `use` line hides
/// an edge of the module graph from whoever reads the `use` block, and a path into
/// another crate of the workspace one of the crate graph.
#[test]
fn crate_paths_are_imports() {
    let mut inline = Vec::new();
    for dir in harness_crates() {
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).expect("read");
            let mut in_use = false;
            for (n, line) in code(&text).lines().enumerate() {
                let t = line.trim_start();
                // A `use` may run over several lines, up to its `;`.
                if t.starts_with("use ")
                    || t.starts_with("pub use ")
                    || t.starts_with("pub(") && t.contains(" use ")
                {
                    in_use = true;
                }
                if !in_use && (line.contains("crate::") || workspace_path(line)) {
                    inline.push(format!("{}:{}: {}", f.display(), n + 1, t));
                }
                if in_use && line.contains(';') {
                    in_use = false;
                }
            }
        }
    }
    assert!(
        inline.is_empty(),
        "inline crate:: and workspace crate paths:\n{}",
        inline.join("\n")
    );
}

/// Inside each top-level module, its submodules form no cycle either: an edge is a
/// `super::x` (or `crate::m::x`) from submodule `w` of `m` naming sibling `x`.
#[test]
fn submodules_form_no_cycle() {
    // The report crate's root is the module `report`: its files are read as if under
    // `report/`, and `crate::x` there names a sibling.
    let mut files = Vec::new();
    for (root, within) in [(src(), None), (report_src(), Some("report"))] {
        let mut here = Vec::new();
        rust_files(&root, &mut here);
        files.extend(here.into_iter().map(|f| (root.clone(), within, f)));
    }
    // module → submodule → siblings it names
    let mut graph: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut subs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (root, within, f) in &files {
        let rel = f.strip_prefix(root).expect("under src");
        let parts = module_path(rel, *within);
        // A test module in a file of its own (`mod tests;`) is test code too.
        if parts.len() < 2 || parts.last().is_some_and(|p| p == "tests") {
            continue;
        }
        let (top, me) = (parts[0].clone(), parts[1].clone());
        subs.entry(top.clone()).or_default().insert(me.clone());
        let text = std::fs::read_to_string(f).expect("read");
        let body = code(&text);
        // Test modules may reach anywhere; only the module's own code counts.
        let body = body.split("#[cfg(test)]").next().unwrap_or("");
        let depth = parts.len();
        let mut named = BTreeSet::new();
        let prefixes = [
            match within {
                Some(w) if top == *w => "crate::".to_string(),
                _ => format!("crate::{top}::"),
            },
            match depth {
                2 => "super::".to_string(),
                _ => "super::".repeat(depth - 1),
            },
        ];
        for p in &prefixes {
            for (i, _) in body.match_indices(p.as_str()) {
                let before = body[..i].chars().last();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let rest = &body[i + p.len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    for item in group.split('}').next().unwrap_or("").split(',') {
                        named.insert(item.trim().split("::").next().unwrap_or("").to_string());
                    }
                } else {
                    named.insert(
                        rest.chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect(),
                    );
                }
            }
        }
        named.remove(&me);
        graph
            .entry(top)
            .or_default()
            .entry(me)
            .or_default()
            .extend(named);
    }
    for (top, g) in &graph {
        let mods = &subs[top];
        // Kahn's algorithm: what cannot be ordered is on a cycle.
        let edges: BTreeMap<&String, BTreeSet<&String>> = mods
            .iter()
            .map(|m| {
                let to = g
                    .get(m)
                    .map(|s| s.iter().filter(|x| mods.contains(*x)).collect());
                (m, to.unwrap_or_default())
            })
            .collect();
        let mut left = edges.clone();
        loop {
            let free: Vec<&String> = left
                .iter()
                .filter(|(_, to)| to.iter().all(|t| !left.contains_key(t)))
                .map(|(m, _)| *m)
                .collect();
            if free.is_empty() {
                break;
            }
            for m in free {
                left.remove(m);
            }
        }
        assert!(
            left.is_empty(),
            "{top}: submodules on a cycle: {:?}",
            left.keys().collect::<Vec<_>>()
        );
    }
    assert!(graph.len() > 5, "the modules were read");
}

/// The sibling files of every module, at every depth, form no cycle: an edge is a file
/// of child `a` of module `m` (`m/a.rs`, or any file under `m/a/`) naming child `b` of
/// `m` by `super::b`, `super::super::b`, ... or `crate::m::b`. A cycle fails, named
/// (`differential::gen: build → plan → build`).
#[test]
fn sibling_files_form_no_cycle() {
    let mut files = Vec::new();
    for (krate, root, within) in [
        ("harness", src(), None),
        ("spec", spec_src(), None),
        ("report", report_src(), Some("report")),
    ] {
        let mut here = Vec::new();
        rust_files(&root, &mut here);
        files.extend(here.into_iter().map(|f| (krate, root.clone(), within, f)));
    }
    let mut read = Vec::new();
    // module (`a::b`) → its children
    let mut children: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for (krate, root, within, f) in &files {
        let mut me = vec![krate.to_string()];
        me.extend(module_path(
            f.strip_prefix(root).expect("under src"),
            *within,
        ));
        // Test modules in files of their own may reach anywhere, as `#[cfg(test)]` code.
        if me.last().is_some_and(|p| p.ends_with("tests"))
            || me[1..] == ["lib".to_string()]
            || me[1..] == ["main".to_string()]
        {
            continue;
        }
        for k in 1..me.len() {
            children
                .entry(me[..k].to_vec())
                .or_default()
                .insert(me[k].clone());
        }
        let text = std::fs::read_to_string(f).expect("read");
        let body = code(&text);
        let body = body.split("#[cfg(test)]").next().unwrap_or("").to_string();
        read.push((me, body, *within));
    }
    // module → child → siblings it names
    let mut graph: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut edges = 0;
    for (me, body, within) in &read {
        for p in named_paths(body, me, *within) {
            let common = me.iter().zip(&p).take_while(|(a, b)| a == b).count();
            if common >= me.len() || common >= p.len() {
                continue;
            }
            let parent = me[..common].to_vec();
            let (from, to) = (&me[common], &p[common]);
            if children.get(&parent).is_some_and(|c| c.contains(to)) {
                edges += 1;
                graph
                    .entry(parent)
                    .or_default()
                    .entry(from.clone())
                    .or_default()
                    .insert(to.clone());
            }
        }
    }
    assert!(edges > 100, "the scan found the sibling paths ({edges})");
    let cycles: Vec<String> = graph
        .iter()
        .filter_map(|(m, g)| find_cycle(g).map(|c| format!("{}: {}", m.join("::"), c.join(" → "))))
        .collect();
    assert!(
        cycles.is_empty(),
        "sibling files on a cycle (a `super::x`/`crate::m::x` graph):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_sibling_scan_reads_supers_and_groups() {
    let me: Vec<String> = ["harness", "differential", "gen", "build"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let got = named_paths(
        "use super::plan::{self, Role};\nuse super::{live_ones, Gen};\nuse super::super::op::Call;\nuse crate::judge::x;\n",
        &me,
        None,
    );
    let has = |p: &[&str]| got.iter().any(|g| g == p);
    assert!(has(&["harness", "differential", "gen", "plan"]), "{got:?}");
    assert!(
        has(&["harness", "differential", "gen", "live_ones"]),
        "{got:?}"
    );
    assert!(has(&["harness", "differential", "op", "Call"]), "{got:?}");
    assert!(has(&["harness", "judge", "x"]), "{got:?}");
    let mut g = BTreeMap::new();
    for (a, b) in [("build", "plan"), ("plan", "build"), ("pick", "build")] {
        g.entry(a.to_string())
            .or_insert_with(BTreeSet::new)
            .insert(b.to_string());
    }
    assert_eq!(
        find_cycle(&g),
        Some(vec!["build".to_string(), "plan".into(), "build".into()])
    );
}
