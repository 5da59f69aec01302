//! `mpit-conform fuzz-props`, top to bottom: the mirror ([`super::mirror`]), then per
//! mode the search and shrink (`differential::props::search`), and for a failure its
//! case written, replayed and its C programs written ([`super::replayed`]). The caller
//! is told each mode's outcome as it ends ([`run`]'s `on_mode`) and prints it.

use super::mirror::{mirror, remote};
use super::replayed::{self, Replayed};
use super::streams;
use super::WorkflowError;
use crate::differential::compare::Known;
use crate::differential::props::{Findings, Search};
use crate::differential::{Mirror, Mode};
use crate::runner::pool::Setup;
use crate::runner::remote::Remote;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// What to search for (the command's flags, `cli/fuzz.rs` documents each).
#[derive(Debug, Clone)]
pub struct Options {
    pub cases: u32,
    pub seed: u64,
    pub max_len: usize,
    pub robustness: bool,
    pub strict: bool,
    pub known: Vec<String>,
    pub avoid: Vec<String>,
    pub fail_fast: bool,
    pub catalog: Option<PathBuf>,
    pub time_limit: Option<u64>,
    pub out: PathBuf,
    /// Fresh workers forked from zygotes (`--workers fork`), else exec'd.
    pub forks: bool,
    /// Searches side by side, each on its own workers ([`super::streams`]).
    pub jobs: usize,
}

/// The judged catalog, before the first mode.
pub struct Start<'a> {
    pub mirror: &'a Mirror,
    /// Entries no handle is allocated for (`--avoid`).
    pub avoided: usize,
    /// Entries a reader died at, left out (`call (message)`).
    pub left_out: &'a [String],
}

/// One mode's search.
pub struct ModeRun {
    pub mode: Mode,
    pub findings: Findings,
    /// Workers started for it.
    pub workers: u64,
    /// Of them forked by a zygote, and the path the run took (`fork`, `exec` or
    /// `fork+exec: <why>`).
    pub forked: (u64, String),
    /// Divergences passed over as known, so far.
    pub known_hits: u64,
    /// The failure's case, written, and its replay.
    pub case: Option<(PathBuf, Replayed)>,
    /// With several streams, the one whose failure this is and its seed.
    pub found_by: Option<(usize, u64)>,
}

/// The run's tally.
#[derive(Debug, Default)]
pub struct Outcome {
    pub failures: usize,
    pub warnings: usize,
    pub written: usize,
    pub reproduced: usize,
    /// `--fail-fast` stopped before the last mode.
    pub stopped_early: bool,
}

/// The modes searched and each one's budget: most sequences with MPI_T held
/// initialized, a quarter from a fresh process, with `--robustness` half as many with
/// invalid arguments.
fn modes(o: &Options) -> Vec<(Mode, u32)> {
    let mut modes = vec![
        (
            Mode {
                robustness: false,
                lifecycle: false,
            },
            o.cases,
        ),
        (
            Mode {
                robustness: false,
                lifecycle: true,
            },
            (o.cases / 4).max(4),
        ),
    ];
    if o.robustness {
        modes.push((
            Mode {
                robustness: true,
                lifecycle: false,
            },
            (o.cases / 2).max(4),
        ));
    }
    modes
}

/// Runs the property search on `setup`'s library: `on_start` once the mirror is
/// read, `on_mode` after each mode.
pub fn run(
    setup: &Setup,
    o: &Options,
    on_start: &mut dyn FnMut(&Start),
    on_mode: &mut dyn FnMut(&ModeRun),
) -> Result<Outcome, WorkflowError> {
    let known = Known::parse(&o.known).map_err(WorkflowError)?;
    let (mut m, left_out) = mirror(setup, o.catalog.as_deref())?;
    let mut avoided = 0;
    for spec in &o.avoid {
        avoided += m.avoid_handles(spec).map_err(WorkflowError)?;
    }
    let m = Arc::new(m);
    on_start(&Start {
        mirror: &m,
        avoided,
        left_out: &left_out,
    });
    let mut remotes: Vec<Remote> = (0..o.jobs.max(1))
        .map(|_| remote(setup, &m).with_zygotes(o.forks))
        .collect();
    let mut out = Outcome::default();
    for (mode, cases) in modes(o) {
        let cfg = Search {
            cases,
            seed: o.seed,
            max_len: o.max_len,
            mode,
            strict: o.strict,
            known: known.clone(),
            time_limit: o.time_limit.map(Duration::from_secs),
        };
        let run = streams::search(&m, &cfg, &mut remotes).map_err(WorkflowError::of)?;
        let findings = run.findings;
        let seed = run.found_by.map_or(o.seed, |(_, s)| s);
        let case = match &findings.failure {
            Some(found) => Some(replayed::write_and_replay(found, &m, seed, &o.out, setup)?),
            None => None,
        };
        out.warnings += findings.warnings.len();
        out.failures += usize::from(findings.failure.is_some());
        if let Some((_, replayed)) = &case {
            out.written += 1;
            out.reproduced += usize::from(replayed.reproduces());
        }
        on_mode(&ModeRun {
            mode,
            findings,
            workers: run.workers,
            forked: run.forked,
            known_hits: run.known_hits,
            case,
            found_by: run.found_by.filter(|_| remotes.len() > 1),
        });
        if setup.stop.load(Ordering::SeqCst) {
            return Err(WorkflowError("interrupted".into()));
        }
        if o.fail_fast && out.failures > 0 {
            out.stopped_early = true;
            break;
        }
    }
    Ok(out)
}
