//! A case `fuzz-props` or `replay` wrote, replayed on the library it was found on
//! before the command says so: the case is a reproducer only if its replay fails. The
//! replay is the one the printed command makes (`run --case-file`, default mode), in
//! the same environment (so `MPIT_REFERENCE_FAULTS` too).
//!
//! The case is written whole or not at all (a temporary file renamed).
//!
//! One divergence has two readings the comparator cannot tell apart from one call, and
//! says so (`Divergence::two_readings`): a name whose bytes agree but whose length
//! does not is the convention broken (R-STR-2) or the name of another entry (R-STR-6,
//! the duplicate-name fault). The case of the first reading picks its subject by the
//! declared name, which the library of the second does not have: it skips. So a case
//! that does not reproduce is written once more in the other form (the index passed
//! itself, then get_index and the names' uniqueness) and kept if that one reproduces.

use super::WorkflowError;
use crate::differential::emit;
use crate::differential::props::Found;
use crate::differential::Mirror;
use crate::runner::pool::Setup;
use crate::runner::{self, Config};
use mpit_repro::write_all;
use mpit_spec::cases::clauses::Clauses;
use mpit_spec::cases::Suite;
use mpit_spec::specs::Source;
use mpit_spec::verdict::Status;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the replay of a written case gave: the first result that fails or warns (the
/// case reproduces), else the case's own result (it does not).
pub struct Replayed {
    pub status: Status,
    pub case: String,
    pub message: String,
    /// The C reproducers written from the replay's failing results (`repro/` beside
    /// the case, as `run --repro` writes them).
    pub programs: Vec<String>,
}

/// A status that sees the finding again: a fail, a warning (a SHOULD divergence
/// replayed without `--strict`), a crash or a timeout.
fn sees_it(s: Status) -> bool {
    matches!(
        s,
        Status::Fail | Status::Warn | Status::Crash | Status::Timeout
    )
}

impl Replayed {
    pub fn reproduces(&self) -> bool {
        sees_it(self.status)
    }
}

/// `mpit-conform run --case-file PATH --lib LIB`, quietly, in workers as any run.
fn replay(path: &Path, setup: &Setup) -> Result<Replayed, WorkflowError> {
    let id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let specs = Source::from_option(Some(path.to_path_buf()));
    let cfg = Config {
        abi: setup.hello.abi.clone(),
        force: setup.hello.force,
        jobs: Some(1),
        timeout: setup.timeout,
        ..Config::quiet(setup.hello.lib.clone(), specs)
    };
    let mut rep = runner::run(&cfg, setup.stop.clone()).map_err(WorkflowError::of)?;
    // The standalone C program of each failing result, from what the replay saw (the
    // same translation as `run --repro`: reports/repro/README.md).
    // A program that cannot be written is said, not fatal: the case and the
    // divergence stand without it.
    let programs = match path.parent() {
        Some(dir) => {
            let suite = Suite::load(&cfg.specs).map_err(WorkflowError::of)?;
            let clauses = Clauses::load(&cfg.specs).map_err(WorkflowError::of)?;
            match write_all(&mut rep, &dir.join("repro"), &suite, &clauses, 1) {
                // A program for each fail, warning, crash or timeout, as `run --repro`
                // writes them; a case the translation cannot say is named.
                Ok((_, unsupported)) => rep
                    .results
                    .iter()
                    .filter_map(|r| r.repro.as_ref())
                    .map(|rel| dir.join(rel).display().to_string())
                    .chain(
                        unsupported
                            .iter()
                            .map(|u| format!("none: no C translation for {u}")),
                    )
                    .collect(),
                Err(e) => vec![format!(
                    "not written ({}: {e})",
                    dir.join("repro").display()
                )],
            }
        }
        None => Vec::new(),
    };
    let r = rep
        .results
        .iter()
        .find(|r| sees_it(r.status))
        .or_else(|| rep.results.iter().find(|r| r.case == id))
        .or(rep.results.first());
    Ok(match r {
        Some(r) => Replayed {
            status: r.status,
            case: r.case.clone(),
            message: r.message.clone(),
            programs,
        },
        None => Replayed {
            status: Status::Error,
            case: id,
            message: "the replay gave no result".into(),
            programs,
        },
    })
}

/// Writes the case of `found` and replays it; when it does not reproduce and the
/// divergence has the other reading (module doc), writes and replays that form, and
/// keeps whichever reproduces (the first form when neither does).
pub fn write_and_replay(
    found: &Found,
    m: &Arc<Mirror>,
    seed: u64,
    out: &Path,
    setup: &Setup,
) -> Result<(PathBuf, Replayed), WorkflowError> {
    let lib = setup.hello.lib.display().to_string();
    let first_text = emit::case_yaml(found, m, &lib, seed);
    let path = write_case(&first_text, out)?;
    let first = replay(&path, setup)?;
    if first.reproduces() || !found.divergence.two_readings {
        return Ok((path, first));
    }
    let mut other = found.clone();
    other.divergence.other_entry = true;
    other.divergence.two_readings = false;
    other.divergence.convention = false;
    let other_path = write_case(&emit::case_yaml(&other, m, &lib, seed), out)?;
    let second = replay(&other_path, setup)?;
    if second.reproduces() {
        if other_path != path {
            let _ = std::fs::remove_file(&path);
        }
        return Ok((other_path, second));
    }
    if other_path == path {
        // The same id: the second form replaced the first, which is put back.
        write_case(&first_text, out)?;
    } else {
        let _ = std::fs::remove_file(&other_path);
    }
    Ok((path, first))
}

/// Writes a case's text under its id; returns its path.
fn write_case(text: &str, out: &Path) -> Result<PathBuf, WorkflowError> {
    std::fs::create_dir_all(out)
        .map_err(|e| WorkflowError(format!("creating {}: {e}", out.display())))?;
    let id = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("- id: "))
        .unwrap_or("differential.case")
        .to_string();
    let path = out.join(format!("{id}.yaml"));
    // Written whole or not at all (a temporary file renamed).
    let mut tmp = tempfile::NamedTempFile::new_in(out).map_err(WorkflowError::of)?;
    std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(WorkflowError::of)?;
    tmp.persist(&path)
        .map_err(|e| WorkflowError(format!("writing {}: {e}", path.display())))?;
    Ok(path)
}
