//! The spec bundle: everything under `specs/` (cases, clauses, the return-code table, ABI
//! profiles, worker environments, catalogs), embedded in the binary at build time, so a
//! copied or `cargo install`ed `mpit-conform` needs no checkout. One mechanism for all of
//! them (`include_dir`, a well-kept crate: a hand-written build script listing every
//! file would do the same with more code). `--specs DIR` / `--case-file` still read cases
//! from disk; `mpit-conform specs export DIR` writes the bundle out for editing.
//!
//! The bundle is hashed (SHA-256 over each file's path and bytes, in path order): a
//! report states the hash, so two reports can be compared knowing they ran the same
//! cases.

use include_dir::{include_dir, Dir};
use mpit_vocab::yaml;
use mpit_vocab::yaml::YamlError;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

static BUNDLE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../specs");

/// The MPI standard the cases target.
pub const MPI_STANDARD: &str = "4.1";

/// Where the cases come from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// The bundle in the binary.
    #[default]
    Bundled,
    /// A case directory, or one case file (`--specs`, `--case-file`).
    Dir(PathBuf),
}

impl Source {
    /// `Some(dir)` from the command line, else the bundle.
    pub fn from_option(dir: Option<PathBuf>) -> Source {
        dir.map_or(Source::Bundled, Source::Dir)
    }

    /// The case files as (origin for messages, text), in name order.
    pub fn case_files(&self) -> Result<Vec<(String, String)>, YamlError> {
        match self {
            Source::Bundled => Ok(bundled_cases()),
            Source::Dir(d) if d.is_file() => read(d).map(|t| vec![t]),
            Source::Dir(d) => {
                let mut files: Vec<PathBuf> = std::fs::read_dir(d)
                    .map_err(|e| YamlError {
                        origin: d.display().to_string(),
                        line: 0,
                        col: 0,
                        message: format!("cannot read the case directory: {e}"),
                    })?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
                    .collect();
                files.sort();
                files.iter().map(|f| read(f)).collect()
            }
        }
    }

    /// `clauses.yaml` beside the cases: a directory's parent holds it (the checkout's
    /// layout), else the bundle's.
    pub fn clauses(&self) -> Result<(String, String), YamlError> {
        match self {
            Source::Dir(d) if d.is_dir() && d.join("../clauses.yaml").is_file() => {
                read(&d.join("../clauses.yaml"))
            }
            _ => text("clauses.yaml")
                .map(|t| ("specs/clauses.yaml".to_string(), t.to_string()))
                .ok_or_else(|| YamlError {
                    origin: "specs/clauses.yaml".into(),
                    line: 0,
                    col: 0,
                    message: "not in the bundle".into(),
                }),
        }
    }
}

fn read(path: &Path) -> Result<(String, String), YamlError> {
    yaml::read(path).map(|(text, origin)| (origin, text))
}

fn bundled_cases() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = BUNDLE
        .get_dir("cases")
        .into_iter()
        .flat_map(|d| d.files())
        .filter(|f| f.path().extension().is_some_and(|x| x == "yaml"))
        .filter_map(|f| {
            let text = f.contents_utf8()?.to_string();
            Some((format!("specs/{}", f.path().display()), text))
        })
        .collect();
    v.sort();
    v
}

/// A bundled file's text by its path under `specs/` (`abi/mpich-4.yaml`).
pub fn text(rel: &str) -> Option<&'static str> {
    BUNDLE.get_file(rel).and_then(|f| f.contents_utf8())
}

/// Every bundled file, (path under `specs/`, bytes), in path order.
fn files() -> Vec<(String, &'static [u8])> {
    fn walk(d: &'static Dir<'static>, out: &mut Vec<(String, &'static [u8])>) {
        for f in d.files() {
            out.push((f.path().display().to_string(), f.contents()));
        }
        for sub in d.dirs() {
            walk(sub, out);
        }
    }
    let mut v = Vec::new();
    walk(&BUNDLE, &mut v);
    v.sort();
    v
}

/// The bundle's SHA-256, hex.
pub fn hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| {
        let mut h = Sha256::new();
        for (path, bytes) in files() {
            h.update(path.as_bytes());
            h.update([0]);
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    })
}

/// The first 4 bytes of `text`'s SHA-256, hex: a short tag that keeps two long names
/// apart where only a few characters fit (the id of a case fuzz-props writes, a
/// reproducer's file name past NAME_MAX).
pub fn short_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a report says of the cases it ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// `bundled` or the directory / file given.
    pub source: String,
    /// The bundle's hash (of the binary's bundle even when cases came from a directory:
    /// the clauses, profiles and tables still do).
    pub sha256: String,
    /// The MPI standard the cases target.
    pub mpi_standard: String,
}

impl Source {
    pub fn provenance(&self) -> Provenance {
        Provenance {
            source: match self {
                Source::Bundled => "bundled".into(),
                Source::Dir(d) => d.display().to_string(),
            },
            sha256: hash().to_string(),
            mpi_standard: MPI_STANDARD.into(),
        }
    }
}

/// Writes the bundle out under `dir` (same layout as `specs/`); refuses to overwrite a
/// file that exists. Returns the files written.
pub fn export(dir: &Path) -> Result<usize, String> {
    let all = files();
    for (rel, _) in &all {
        let p = dir.join(rel);
        if p.exists() {
            return Err(format!(
                "{}: exists (export writes into a new directory)",
                p.display()
            ));
        }
    }
    for (rel, bytes) in &all {
        let p = dir.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(all.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_holds_every_spec_file_and_hashes_stably() {
        let names: Vec<String> = files().into_iter().map(|(p, _)| p).collect();
        for want in [
            "clauses.yaml",
            "return-codes.yaml",
            "abi/standard.yaml",
            "env/workers.yaml",
            "cases/strings.yaml",
        ] {
            assert!(names.iter().any(|n| n == want), "{want} not in {names:?}");
        }
        assert_eq!(hash().len(), 64);
        assert_eq!(hash(), hash());
        assert!(bundled_cases().len() >= 10);
    }
}
