//! The mirror a search judges against (the given catalog, the reference's own, or the
//! library's read in a worker) and the worker runner of the target engine.

use super::WorkflowError;
use crate::differential::Mirror;
use crate::runner::pool::{self, Worker};
use crate::runner::protocol::Hello;
use crate::runner::readers;
use crate::runner::remote::Remote;
use mpit_reference::faults::Faults;
use mpit_reference::{ENV_CATALOG, ENV_FAULTS};
use mpit_vocab::catalog::Catalog;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The mirror: the given catalog file, the reference's own (its catalog is known, so
/// a reference with a fault in its catalog code is judged against the true one), or
/// the library's catalog read in a worker. Also the entries a reader died at, left out
/// of the mirror (`call (message)`).
pub fn mirror(
    setup: &pool::Setup,
    catalog: Option<&Path>,
) -> Result<(Mirror, Vec<String>), WorkflowError> {
    let hello = Hello {
        single_job: true,
        ..setup.hello.clone()
    };
    let (w, facts) = Worker::spawn(&hello, setup.timeout, setup.stop.clone())
        .map_err(|e| WorkflowError(format!("{}: {e}", setup.hello.lib.display())))?;
    let _ = w.quit();
    if facts.library_version.starts_with("mpit-reference ") && catalog.is_none() {
        let (c, source) = match std::env::var_os(ENV_CATALOG) {
            Some(f) => {
                let f = PathBuf::from(f);
                (
                    Catalog::load(&f).map_err(WorkflowError::of)?,
                    format!("{} (the reference's)", f.display()),
                )
            }
            None => (
                Catalog::default_catalog(),
                "the reference's default catalog".into(),
            ),
        };
        // The catalog-level conforming variations (`empty-descriptions`, `long-names`)
        // change what the library serves: the mirror serves the same.
        let faults = std::env::var(ENV_FAULTS).unwrap_or_default();
        let faults = Faults::parse(&faults).unwrap_or_default();
        let mut m = Mirror::of_catalog(c.varied(faults.variations()), source);
        m.unsupported = facts.unsupported;
        return Ok((m, Vec::new()));
    }
    let dump = readers::catalog(setup, false).map_err(|e| {
        WorkflowError(format!(
            "{}: {e} while its catalog was read",
            setup.hello.lib.display()
        ))
    })?;
    // The entries a reader died at are left out of the mirror: no sequence uses them.
    let left_out = dump
        .lost
        .iter()
        .map(|l| format!("{} ({})", l.call, l.message))
        .collect();
    let mut m = Mirror::from_dump(dump);
    let given = match catalog {
        Some(f) => Some((
            Catalog::load(f).map_err(WorkflowError::of)?,
            format!("{} (given with --catalog)", f.display()),
        )),
        None => None,
    };
    if let Some((c, source)) = given {
        let (exact, hooks, unsupported) = (m.exact_values, m.hooks, m.unsupported.clone());
        m = Mirror::of_catalog(c, source);
        m.exact_values = exact;
        m.hooks = hooks;
        m.unsupported = unsupported;
    }
    Ok((m, left_out))
}

/// The target engine's runner: sequences in a worker.
pub fn remote(setup: &pool::Setup, m: &Arc<Mirror>) -> Remote {
    Remote::new(
        setup.hello.lib.clone(),
        setup.hello.abi.clone(),
        setup.hello.force,
        setup.timeout,
        m.clone(),
        setup.stop.clone(),
    )
}
