//! `run --model-check`: the second oracle on every YAML case. The library's catalog is
//! read (as `catalog` does) and written beside the report (`model-catalog.yaml`); the
//! bundled reference, serving that catalog with no fault injected, runs the same cases;
//! and each fail, warn and crash of the library gets the reference's result for the same
//! case and subject (`mpit_report::model_check`): a pass there makes the finding the
//! library's behaviour, the same status its catalog's content.
//!
//! The check adds to a report and never costs one: a catalog that cannot be read, or a
//! reference run that cannot start, leaves the library's results as they are and says
//! why on stderr.

use crate::runner::pool::Setup;
use crate::runner::{self, readers, Config, Progress};
use mpit_reference::{ENV_CATALOG, ENV_FAULTS};
use mpit_report::json::atomic_write;
use mpit_report::model_check::{annotate, Served, Summary};
use mpit_report::{sha256_file, Report};
use mpit_target::{library_file, LINKED_REFERENCE};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The file beside report.json holding the catalog the reference served.
pub const CATALOG_FILE: &str = "model-catalog.yaml";

/// The reference the check runs: the one linked into this executable, through its C
/// ABI as its cdylib would be (`mpit_target::LINKED_REFERENCE`), so the check needs no file
/// beside the binary.
pub fn reference() -> PathBuf {
    PathBuf::from(LINKED_REFERENCE)
}

/// Runs the reference on the library's catalog and annotates `rep`; `out` is where the
/// reports go.
pub fn check(cfg: &Config, reference: &Path, rep: &mut Report, out: &Path, stop: Arc<AtomicBool>) {
    match served_catalog(cfg, out, stop.clone()) {
        Ok((catalog, served)) => {
            let model_cfg = Config {
                lib: reference.to_path_buf(),
                abi: "auto".into(),
                force: false,
                progress: Progress::Quiet,
                launcher: None,
                env: vec![
                    (ENV_CATALOG.into(), catalog.display().to_string()),
                    (ENV_FAULTS.into(), String::new()),
                ],
                ..cfg.clone()
            };
            match runner::run(&model_cfg, stop) {
                Ok(model) if model.interrupted => {
                    eprintln!(
                        "mpit-conform: model check not made: the reference's run was interrupted"
                    )
                }
                Ok(model) => {
                    let tally = annotate(rep, &model, &served);
                    rep.model_check = Some(Summary {
                        reference: reference.display().to_string(),
                        reference_sha256: sha256_file(&library_file(reference)).unwrap_or_default(),
                        catalog: CATALOG_FILE.into(),
                        model_summary: model.summary.clone(),
                        tally,
                    });
                }
                Err(e) => eprintln!("mpit-conform: model check: the reference did not run: {e}"),
            }
        }
        Err(why) => eprintln!("mpit-conform: model check not made: {why}"),
    }
}

/// Reads the library's catalog in a worker, writes it to `out`, and says what of it
/// the reference cannot hold.
fn served_catalog(
    cfg: &Config,
    out: &Path,
    stop: Arc<AtomicBool>,
) -> Result<(PathBuf, Served), String> {
    let setup = Setup::one_question(
        cfg.lib.clone(),
        cfg.abi.clone(),
        cfg.force,
        cfg.timeout,
        stop,
    );
    let dump = readers::catalog(&setup, false)
        .map_err(|e| format!("the library's catalog could not be read: {e}"))?;
    let path = out.join(CATALOG_FILE);
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    atomic_write(&path, dump.catalog.to_yaml().as_bytes()).map_err(|e| e.to_string())?;
    let served = Served::of(
        dump.undecoded.iter().map(String::as_str),
        dump.catalog.enums.iter().map(|e| e.name.to_string()),
    );
    Ok((path, served))
}
