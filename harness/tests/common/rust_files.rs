//! The `.rs` files under a directory, for the tests that scan a crate's sources:
//! harness/tests/layers.rs, harness/tests/one_table.rs, reference/tests/unsafe_confined.rs
//! and process/tests/spawn_confined.rs. Three crates cannot share a test module, so each
//! includes this one file (`#[path = ...] mod rust_files;`) rather than keeping a copy.

use std::path::{Path, PathBuf};

/// Appends every `.rs` file under `dir`, recursively, to `out`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read_dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}
