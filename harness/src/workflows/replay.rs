//! `mpit-conform replay`, top to bottom: the bytes of a cargo-fuzz artifact of
//! `ops_differential` decoded into a sequence (`differential::gen::decode`) against the
//! library's mirror ([`super::mirror`]), run in a worker and compared
//! (`differential::props::check`), and a divergence optionally written and replayed as
//! a case ([`super::replayed`]).

use super::mirror::{mirror, remote};
use super::replayed::{self, Replayed};
use super::WorkflowError;
use crate::differential::compare::Known;
use crate::differential::props::{self, Found};
use crate::differential::{gen, Gen, Mode};
use crate::runner::pool::Setup;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the replay gave.
pub enum Replay {
    /// The bytes decode to no MPI_T call.
    NotAnArtifact,
    /// The library agrees with the reference on the sequence.
    Agrees,
    /// It diverges: the divergence, and with `emit_case` its case and the case's
    /// replay.
    Diverges(Box<Diverged>),
}

/// A replay that diverges.
pub struct Diverged {
    pub found: Found,
    pub case: Option<(PathBuf, Replayed)>,
}

/// Replays `bytes` on `setup`'s library; `on_start` is told the entries left out of
/// the mirror (`call (message)`: a reader died there), the sequence's length and its
/// mode before it runs. With `emit_case`, a divergence is written into `out`.
pub fn run(
    setup: &Setup,
    bytes: &[u8],
    emit_case: bool,
    out: &Path,
    on_start: &mut dyn FnMut(&[String], usize, Mode),
) -> Result<Replay, WorkflowError> {
    let (m, left_out) = mirror(setup, None)?;
    let m = Arc::new(m);
    let Some((mode, ops, _)) = gen::decode(&m, bytes) else {
        return Ok(Replay::NotAnArtifact);
    };
    let start = Gen::new(m.clone(), mode);
    let mut r = remote(setup, &m);
    on_start(&left_out, ops.len(), mode);
    let Some(d) =
        props::check(&start, &ops, &mut r, &Known::default()).map_err(WorkflowError::of)?
    else {
        return Ok(Replay::Agrees);
    };
    let found = Found {
        run: props::completed(&start, &ops),
        ops,
        divergence: d,
        mode,
    };
    let case = match emit_case {
        true => Some(replayed::write_and_replay(&found, &m, 0, out, setup)?),
        false => None,
    };
    Ok(Replay::Diverges(Box::new(Diverged { found, case })))
}
