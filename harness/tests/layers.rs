//! The module graph is layered, so it is acyclic: the layer list in `src/lib.rs` (the
//! `//! N. ` lines) names every top-level module once, and every `crate::m` path of a
//! file (in a `use` or inline, tests included) reaches a module of a lower layer or its
//! own. A new edge upward fails here with the file that made it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "common/rust_files.rs"]
mod rust_files;
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

/// Layer of each module, from a crate's `lib.rs` `//! N. `m`, `n`: ...` lines.
fn declared_layers(root: &Path) -> BTreeMap<String, usize> {
    let lib = std::fs::read_to_string(root.join("lib.rs")).expect("lib.rs");
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

/// The top-level modules a crate's `lib.rs` declares (`pub mod m;`).
fn declared_modules(root: &Path) -> BTreeSet<String> {
    let lib = std::fs::read_to_string(root.join("lib.rs")).expect("lib.rs");
    lib.lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect()
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

#[test]
fn no_file_is_over_600_lines() {
    let mut long = Vec::new();
    let mut n = 0;
    for dir in harness_crates() {
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for f in files {
            n += 1;
            let lines = std::fs::read_to_string(&f).expect("read").lines().count();
            if lines > 600 {
                long.push(format!("{}: {lines} lines", f.display()));
            }
        }
    }
    assert!(n > 100, "the five crates were read ({n} files)");
    assert!(long.is_empty(), "split these:\n{}", long.join("\n"));
}

/// A path into another crate of the workspace (`mpit_vocab::spec::Bind`) on `line`.
fn workspace_path(line: &str) -> bool {
    line.match_indices("mpit_").any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let rest = &line[i + "mpit_".len()..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .unwrap_or(rest.len());
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && name_len > 0
            && rest[name_len..].starts_with("::")
    })
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
        let mut parts: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().to_string())
            .collect();
        if let Some(w) = within {
            if !["capabilities", "exit_code", "lib"].contains(&parts[0].as_str()) {
                parts.insert(0, w.to_string());
            }
        }
        let parts: Vec<String> = match parts.last().map(String::as_str) {
            Some("mod") => parts[..parts.len() - 1].to_vec(),
            _ => parts,
        };
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

/// The module path of a file under a crate root (`gen/build.rs` → `gen::build`,
/// `gen/mod.rs` → `gen`); the report crate's files under `report` but for its two
/// siblings, as in [`submodules_form_no_cycle`].
fn module_path(rel: &Path, within: Option<&str>) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    if let Some(w) = within {
        if !["capabilities", "exit_code", "lib"].contains(&parts[0].as_str()) {
            parts.insert(0, w.to_string());
        }
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The paths a file's code names (`me`: its crate, then its module path), made absolute
/// (its crate first): `super::x::y`
/// (any number of `super`s) and `crate::x::y`, each item of a `{..}` group as a path of
/// its own (its first segment).
fn named_paths(body: &str, me: &[String], within: Option<&str>) -> Vec<Vec<String>> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for start in ["crate::", "super::"] {
        for (i, _) in body.match_indices(start) {
            let before = body[..i].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut base: Vec<String> = if start == "crate::" {
                // `me[0]` is the crate.
                match within {
                    Some(w) if me.get(1).is_some_and(|m| m == w) => {
                        vec![me[0].clone(), w.to_string()]
                    }
                    _ => vec![me[0].clone()],
                }
            } else {
                me[..me.len().saturating_sub(1)].to_vec()
            };
            let mut rest = &body[i + start.len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            // The segments up to a group or the path's end.
            loop {
                let id = ident(rest);
                if id.is_empty() {
                    break;
                }
                rest = &rest[id.len()..];
                base.push(id);
                match rest.strip_prefix("::") {
                    Some(r) if !r.starts_with('{') => rest = r,
                    Some(r) => {
                        rest = r;
                        break;
                    }
                    None => break,
                }
            }
            if let Some(group) = rest.strip_prefix('{') {
                for item in group.split('}').next().unwrap_or("").split(',') {
                    let id = ident(item.trim());
                    if !id.is_empty() && id != "self" {
                        let mut p = base.clone();
                        p.push(id);
                        out.push(p);
                    }
                }
            }
            out.push(base);
        }
    }
    out
}

/// A cycle of `edges`, if there is one (depth-first, the first found), as the list of
/// its nodes with the first repeated at the end.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &String,
        edges: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| s == n) {
            let mut c = stack[at..].to_vec();
            c.push(n.clone());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        stack.push(n.clone());
        for to in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(to, edges, done, stack) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(n.clone());
        None
    }
    let mut done = BTreeSet::new();
    for n in edges.keys() {
        if let Some(c) = visit(n, edges, &mut done, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
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
