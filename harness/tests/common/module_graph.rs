//! How harness/tests/layers.rs reads the module graph from source text: the layers and
//! modules a crate's `lib.rs` declares, a file's code without its comments, the modules
//! and paths that code names (`crate::m`, `super::x`, the items of a `{..}` group, a
//! path into another crate of the workspace), a file's module path, and a cycle of a
//! graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Layer of each module, from a crate's `lib.rs` `//! N. `m`, `n`: ...` lines.
pub fn declared_layers(root: &Path) -> BTreeMap<String, usize> {
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
pub fn declared_modules(root: &Path) -> BTreeSet<String> {
    let lib = std::fs::read_to_string(root.join("lib.rs")).expect("lib.rs");
    lib.lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect()
}

/// The code of a file without its comments (line comments and doc comments).
pub fn code(text: &str) -> String {
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
pub fn uses(code: &str) -> BTreeSet<String> {
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

/// A path into another crate of the workspace (`mpit_vocab::spec::Bind`) on `line`.
pub fn workspace_path(line: &str) -> bool {
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

/// The module path of a file under a crate root (`gen/build.rs` → `gen::build`,
/// `gen/mod.rs` → `gen`); the report crate's files under `report` but for its two
/// siblings, as in layers.rs's `submodules_form_no_cycle`.
pub fn module_path(rel: &Path, within: Option<&str>) -> Vec<String> {
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
pub fn named_paths(body: &str, me: &[String], within: Option<&str>) -> Vec<Vec<String>> {
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
pub fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
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
