//! The repository stands alone: a reader can open everything it points at.
//!
//! (a) No tracked text file names one of the design, rule or ABI notes that lived
//!     outside the repository (the names are built below, so this file does not name
//!     them either); the rules are `specs/clauses.yaml`, the design
//!     `docs/ARCHITECTURE.md`, the ABI facts `docs/ABI.md`.
//! (b) Every rule id (`R-` letters `-` digits) cited in a tracked file resolves to a
//!     `rule:` entry of `specs/clauses.yaml` with a non-empty `clause` and `quote`.
//! (c) Every relative link of the house documents points at a file that exists (and a
//!     `#fragment` into Markdown at a heading that exists).
//!
//! Tracked files come from `git ls-files`; binary files and `reports/published/`
//! (generated reports) are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every tracked text file as (path, text).
fn tracked_texts() -> Vec<(String, String)> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(repo())
        .output()
        .expect("run `git ls-files` (this test needs git and a checkout)");
    assert!(
        out.status.success(),
        "git ls-files: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files = Vec::new();
    for name in out.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        let path = repo().join(&name);
        // Generated gzip and Markdown; a file deleted in the work tree is not there.
        if name.starts_with("reports/published/") || !path.is_file() {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        if bytes.contains(&0) {
            continue;
        }
        if let Ok(text) = String::from_utf8(bytes) {
            files.push((name, text));
        }
    }
    assert!(files.len() > 100, "only {} tracked text files", files.len());
    files
}

/// The names no file may mention, lower-case.
fn outside_names() -> [String; 4] {
    [
        ["design", ".md"].concat(),
        ["dig", "est"].concat(),
        ["shared", "/spec"].concat(),
        ["abi", "-facts"].concat(),
    ]
}

/// Occurrences that are not a document: the `sha2` crate's trait and method, and the
/// crate of that name in the lock files.
fn allowed_tokens(file: &str) -> Vec<String> {
    let (word, cap) = (["dig", "est"].concat(), ["Dig", "est"].concat());
    let mut t = vec![
        format!("sha2::{{{cap}, Sha256}}"),
        format!("sha2::{cap}"),
        format!("Sha256::{word}"),
    ];
    if file == "Cargo.lock" || file.ends_with("/Cargo.lock") {
        t.push(format!("\"{word}\""));
    }
    t
}

#[test]
fn no_file_points_outside_the_repository() {
    let names = outside_names();
    let mut found = Vec::new();
    for (file, text) in tracked_texts() {
        let allowed = allowed_tokens(&file);
        for (n, line) in text.lines().enumerate() {
            let mut l = line.to_string();
            for a in &allowed {
                l = l.replace(a.as_str(), "");
            }
            let l = l.to_lowercase();
            if names.iter().any(|name| l.contains(name.as_str())) {
                found.push(format!("{file}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "these lines point at documents that are not in the repository; cite \
         specs/clauses.yaml (rule ids, MPI-4.1 sections), docs/ARCHITECTURE.md or \
         docs/ABI.md instead:\n{}",
        found.join("\n")
    );
}

/// Rule ids in `text`: `R-`, capital letters, `-`, then digits or capitals (as the
/// regex `R-[A-Z]+-[A-Z0-9]+` finds them): numbered ids and named ones (the event rules).
fn rule_ids(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut ids = Vec::new();
    let mut i = 0;
    while let Some(off) = text[i..].find("R-") {
        let start = i + off;
        let mut j = start + 2;
        let letters = j;
        while j < b.len() && b[j].is_ascii_uppercase() {
            j += 1;
        }
        if j > letters && j < b.len() && b[j] == b'-' {
            let digits = j + 1;
            let mut k = digits;
            while k < b.len() && (b[k].is_ascii_digit() || b[k].is_ascii_uppercase()) {
                k += 1;
            }
            if k > digits {
                ids.push(&text[start..k]);
                i = k;
                continue;
            }
        }
        i = start + 2;
    }
    ids
}

#[test]
fn rule_ids_find_them() {
    // Built, so that this file cites no id that specs/clauses.yaml lacks.
    let ten = format!("R-GEN-{}0", 1);
    let text = format!("R-STR-1..4, (R-CVAR-9; R-PCLASS) R-EVT-FREE x{ten} R-");
    assert_eq!(
        rule_ids(&text),
        ["R-STR-1", "R-CVAR-9", "R-EVT-FREE", ten.as_str()]
    );
}

#[test]
fn every_cited_rule_is_in_clauses_yaml() {
    let text = std::fs::read_to_string(repo().join("specs/clauses.yaml")).expect("clauses");
    let doc: serde_json::Value = yaml_serde::from_str(&text).expect("specs/clauses.yaml parses");
    let filled = |v: &serde_json::Value| v.as_str().is_some_and(|s| !s.trim().is_empty());
    let rules: BTreeMap<String, bool> = doc["rules"]
        .as_array()
        .expect("specs/clauses.yaml has a `rules:` list")
        .iter()
        .filter_map(|r| {
            let id = r["rule"].as_str()?;
            Some((id.to_string(), filled(&r["clause"]) && filled(&r["quote"])))
        })
        .collect();
    assert!(
        rules.len() > 50,
        "{} rules in specs/clauses.yaml",
        rules.len()
    );

    let mut cited: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, text) in tracked_texts() {
        for (n, line) in text.lines().enumerate() {
            for id in rule_ids(line) {
                cited
                    .entry(id.to_string())
                    .or_default()
                    .insert(format!("{file}:{}", n + 1));
            }
        }
    }
    assert!(cited.len() > 50, "{} rule ids cited", cited.len());
    let mut problems = Vec::new();
    for (id, places) in &cited {
        let first: Vec<&str> = places.iter().take(3).map(String::as_str).collect();
        match rules.get(id) {
            None => problems.push(format!(
                "{id}: no `rule: {id}` in specs/clauses.yaml (cited at {})",
                first.join(", ")
            )),
            Some(false) => problems.push(format!(
                "{id}: its specs/clauses.yaml entry lacks a clause or a quote (cited at {})",
                first.join(", ")
            )),
            Some(true) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The documents a reader starts from.
fn house_documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = [
        "README.md",
        "AGENTS.md",
        "CONTRIBUTING.md",
        "specs/README.md",
        "reports/README.md",
        "docs/ARCHITECTURE.md",
        "docs/ABI.md",
    ]
    .iter()
    .map(|p| repo().join(p))
    .collect();
    for e in std::fs::read_dir(repo().join("docs")).expect("docs/") {
        let p = e.expect("docs/ entry").path();
        if p.extension().is_some_and(|x| x == "md") && !docs.contains(&p) {
            docs.push(p);
        }
    }
    docs
}

/// A line without its `code spans`.
fn without_code(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The link targets of a Markdown text, with their line numbers: inline `[text](target)`
/// and reference definitions `[label]: target`, outside fenced code and code spans.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let l = without_code(line);
        let mut rest = l.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push((n + 1, target.trim_matches(&['<', '>'][..]).to_string()));
            rest = &after[end..];
        }
        let t = l.trim_start();
        if let (true, Some(i)) = (t.starts_with('['), t.find("]:")) {
            if let Some(target) = t[i + 2..].split_whitespace().next() {
                out.push((n + 1, target.to_string()));
            }
        }
    }
    out
}

/// GitHub's anchor of a heading: lower case, spaces to hyphens, other punctuation
/// (but `-` and `_`) dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(markdown: &str) -> BTreeSet<String> {
    markdown
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| slug(l.trim_start_matches('#')))
        .collect()
}

#[test]
fn house_documents_link_to_files_that_exist() {
    let mut broken = Vec::new();
    for doc in house_documents() {
        let rel = doc
            .strip_prefix(repo())
            .unwrap_or(&doc)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&doc)
            .unwrap_or_else(|e| panic!("{rel}: {e} (a house document must exist)"));
        for (line, target) in links(&text) {
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let file = match path {
                "" => doc.clone(),
                p if p.starts_with('/') => repo().join(p.trim_start_matches('/')),
                p => doc.parent().expect("a document's directory").join(p),
            };
            if !file.exists() {
                broken.push(format!("{rel}:{line}: {target}: no such file"));
                continue;
            }
            if let Some(f) = fragment.filter(|_| file.extension().is_some_and(|x| x == "md")) {
                let there = std::fs::read_to_string(&file).unwrap_or_default();
                if !anchors(&there).contains(f) {
                    broken.push(format!("{rel}:{line}: {target}: no heading #{f}"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}
