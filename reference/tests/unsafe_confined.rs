//! One module per crate holds all `unsafe` and raw pointer types: `reference/src/ffi/`
//! and `library/src/ffi/` (mpit-target; every file in those directories), and
//! `process/src/sys.rs` (the one file of mpit-process). mpit-conform (harness/),
//! mpit-spec (spec/) and mpit-report (report/) have none: they `forbid(unsafe_code)`, and no raw pointer type
//! either. Every other source file of the crates is free of both (comments aside), and every `unsafe` block in those
//! modules carries a `// SAFETY:` comment (also enforced by
//! `clippy::undocumented_unsafe_blocks`, denied in both `ffi/mod.rs` and in `sys.rs`).

use std::path::{Path, PathBuf};

#[path = "../../harness/tests/common/rust_files.rs"]
mod rust_files;
use rust_files::rust_files;

/// The code of a line without its `//` comment (good enough: no string in the crate
/// contains `//` followed by the words looked for).
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

fn has_word(s: &str, w: &str) -> bool {
    s.match_indices(w).any(|(i, _)| {
        let before = s[..i].chars().last();
        let after = s[i + w.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

#[test]
fn unsafe_and_raw_pointers_only_in_ffi() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // None: no module of the crate may hold either.
    for (crate_src, allowed) in [
        ("reference/src", Some("reference/src/ffi")),
        ("library/src", Some("library/src/ffi")),
        ("process/src", Some("process/src/sys.rs")),
        ("harness/src", None),
        ("spec/src", None),
        ("report/src", None),
        ("vocab/src", None),
        ("repro/src", None),
        ("xtask/src", None),
    ] {
        let src = root.join(crate_src);
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        assert!(files.len() > 3, "{crate_src}");
        let allowed = allowed.map(|a| root.join(a));
        if let Some(a) = &allowed {
            assert!(
                files.iter().any(|f| f.starts_with(a)),
                "{} exists",
                a.display()
            );
        }
        let outside = |f: &&PathBuf| allowed.as_ref().is_none_or(|a| !f.starts_with(a));
        for f in files.iter().filter(outside) {
            let text = std::fs::read_to_string(f).expect("read");
            for (n, line) in text.lines().enumerate() {
                let c = code(line);
                assert!(
                    !has_word(c, "unsafe"),
                    "{}:{}: unsafe outside the ffi module",
                    f.display(),
                    n + 1
                );
                assert!(
                    !c.contains("*mut ") && !c.contains("*const "),
                    "{}:{}: raw pointer type outside the ffi module",
                    f.display(),
                    n + 1
                );
            }
        }
    }
}

#[test]
fn every_unsafe_block_in_ffi_has_a_safety_comment() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["reference/src/ffi", "library/src/ffi"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 10, "both ffi directories were read");
    files.push(root.join("process/src/sys.rs"));
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let c = code(line);
            // `unsafe {` opens a block; `unsafe fn` / `unsafe extern` are declarations.
            if !c.contains("unsafe {") {
                continue;
            }
            let documented = lines[..n]
                .iter()
                .rev()
                .take_while(|l| {
                    l.trim_start().starts_with("//")
                        || code(l).trim().is_empty()
                        || !code(l).contains(';')
                })
                .any(|l| l.contains("// SAFETY:"))
                || line.contains("// SAFETY:");
            assert!(
                documented,
                "{}:{}: unsafe block without // SAFETY:",
                f.display(),
                n + 1
            );
        }
    }
}
