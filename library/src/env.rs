//! The environment a worker process starts with, per library family, from the data file
//! `specs/env/workers.yaml` (compiled in). Decided in the supervisor without loading the
//! library (`elf::defines_symbol`), applied where it spawns the worker, and undone when
//! the returned [`WorkerEnv`] is dropped: the private directory the variables point at
//! is removed with whatever the library left in it (Open MPI 5's 16 MB backing file and
//! session directory, scripts/TARGETS.md). `{tmp}` in a value names that directory.

use super::elf;
use mpit_spec::specs;
use mpit_vocab::yaml::{self, YamlError};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const FILE: &str = "specs/env/workers.yaml";
/// The rules' text, from the spec bundle.
fn text() -> &'static str {
    specs::text("env/workers.yaml").unwrap_or_default()
}
/// What `{tmp}` in a value stands for.
const TMP: &str = "{tmp}";

/// One rule of `specs/env/workers.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub family: String,
    /// Applies when the library's dynamic symbol table defines this name.
    pub exports: String,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// The bundled rules (a parse error names `specs/env/workers.yaml:line:col`).
pub fn rules() -> Result<Vec<Rule>, YamlError> {
    yaml::parse(text(), FILE)
}

/// A worker's environment: variables to set and the private directory they may name.
/// Dropping it removes the directory.
#[derive(Debug, Default)]
pub struct WorkerEnv {
    vars: Vec<(String, String)>,
    dir: Option<PathBuf>,
    /// The families whose rules applied (for evidence and tests).
    pub families: Vec<String>,
    /// Why no environment could be prepared, if so (the worker then starts with the
    /// supervisor's own environment, as before this module existed).
    pub note: Option<String>,
}

impl WorkerEnv {
    /// `(name, value)` pairs for `Command::envs`.
    pub fn vars(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The private directory, if a rule needed one.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }
}

impl Drop for WorkerEnv {
    fn drop(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// A new directory only this process uses, mode 0700, under the system temp dir.
fn private_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir();
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let d = base.join(format!("mpit-worker-{}-{n}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&d) {
            Ok(()) => return Ok(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The environment for a worker that will load `lib`: the variables of every rule whose
/// tell-tale symbol the library defines, `{tmp}` replaced by a fresh private directory.
pub fn worker_env(lib: &Path) -> WorkerEnv {
    let rules = match rules() {
        Ok(r) => r,
        Err(e) => {
            let mut w = WorkerEnv::default();
            w.note = Some(e.to_string());
            return w;
        }
    };
    let applying: Vec<&Rule> = rules
        .iter()
        .filter(|r| elf::defines_symbol(lib, &r.exports) == Some(true))
        .collect();
    let mut w = WorkerEnv::default();
    w.families = applying.iter().map(|r| r.family.clone()).collect();
    let needs_dir = applying
        .iter()
        .any(|r| r.env.values().any(|v| v.contains(TMP)));
    if needs_dir {
        match private_dir() {
            Ok(d) => w.dir = Some(d),
            Err(e) => {
                w.note = Some(format!("cannot create a private worker directory: {e}"));
                w.families.clear();
                return w;
            }
        }
    }
    let tmp = w
        .dir
        .as_ref()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    for r in applying {
        for (k, v) in &r.env {
            w.vars.push((k.clone(), v.replace(TMP, &tmp)));
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_rules_parse_and_name_open_mpi() {
        let r = rules().unwrap_or_else(|e| panic!("{e}"));
        let o = r
            .iter()
            .find(|r| r.family == "openmpi")
            .expect("an openmpi rule");
        assert_eq!(o.exports, "ompi_mpi_comm_world");
        assert_eq!(o.env.get("TMPDIR").map(String::as_str), Some("{tmp}"));
        assert_eq!(
            o.env
                .get("OMPI_MCA_btl_sm_backing_directory")
                .map(String::as_str),
            Some("{tmp}")
        );
        // A variable that would change the catalog being judged is not set.
        assert!(o.env.keys().all(|k| k != "OMPI_MCA_btl"));
    }

    #[test]
    fn a_library_no_rule_matches_gets_nothing() {
        let exe = std::env::current_exe().expect("exe");
        let w = worker_env(&exe);
        assert_eq!(w.vars().count(), 0);
        assert!(w.dir().is_none());
        assert!(w.families.is_empty());
        assert!(w.note.is_none());
    }
}
