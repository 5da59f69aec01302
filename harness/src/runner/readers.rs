//! The supervisor's catalog readers: dedicated workers that read the inventory (or the
//! decoded catalog for `mpit-conform catalog` and `fuzz-props`), resumed past each
//! entry that kills or stalls one (`target::reading`). A library whose
//! `MPI_T_cvar_get_info(5)` dies loses cvar 5, not the run: a fresh reader is told to
//! pass over that spot and reads the rest, and the lost spot becomes a result of its
//! own (`lost_results`) and the reason every case that would have run on it is skipped.

use super::child::{Broke, Start, Worker};
use super::death::{call_in_flight, evidence, Death};
use super::pool::Setup;
use super::protocol::{FromWorker, Hello, TargetFacts, ToWorker};
use crate::judge::inventory::Inventory;
use mpit_spec::cases::SubjectKind;
use mpit_spec::verdict::{Area, CaseMeta, CaseResult, Level, Oracle, Status};
use mpit_target::catalog::CatalogDump;
use mpit_target::reading::{all_of, function, Lost, GIVE_UP_AFTER};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// Why a reader brought nothing back.
#[derive(Debug)]
pub enum ReadError {
    /// The library cannot be loaded or is not MPI, or the harness could not start a
    /// process: the run cannot go on (exit 2).
    CannotRun(String),
    /// The worker died or hung while starting, or readers kept dying where there was
    /// no spot to pass over: the library's finding.
    Died(Death),
    /// Ctrl-C or --max-time.
    Interrupted,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::CannotRun(e) => f.write_str(e),
            ReadError::Died(d) => f.write_str(&d.message),
            ReadError::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// Starts a reader afresh at most this many times when one dies where there is no spot
/// to pass over: in its start after an earlier start succeeded, or between calls (a
/// library thread that kills a process at random).
const START_RETRIES: usize = 3;

/// Asks readers the question `ask(skip)` until one answers, passing over each spot that
/// killed or stalled the one before. Returns the answer and the spots lost on the way.
fn read(
    setup: &Setup,
    mpi_init: bool,
    ask: impl Fn(BTreeSet<String>) -> ToWorker,
) -> Result<(TargetFacts, FromWorker, Vec<Lost>), ReadError> {
    let hello = Hello {
        mpi_init,
        single_job: true,
        base_init: true,
        ..setup.hello.clone()
    };
    let mut skip = hello.skip.clone();
    let mut lost: Vec<Lost> = Vec::new();
    let mut hung: BTreeMap<String, usize> = BTreeMap::new();
    let mut retries = 0;
    loop {
        let (mut w, facts) = match Worker::start(&hello, setup.timeout, setup.stop.clone()) {
            Ok(x) => x,
            Err(Start::CannotRun(e)) => return Err(ReadError::CannotRun(e)),
            Err(Start::Died(d)) if d.status == Status::Error => return Err(ReadError::Interrupted),
            // The first start (unless a thread of the library's own killed it), or one
            // that keeps dying: the start is the finding.
            Err(Start::Died(d))
                if (lost.is_empty() && !d.other_thread) || retries >= START_RETRIES =>
            {
                return Err(ReadError::Died(d))
            }
            Err(Start::Died(_)) => {
                retries += 1;
                continue;
            }
        };
        let outcome = w
            .send(&ask(skip.clone()))
            .and_then(|_| w.next(setup.timeout));
        let b = match outcome {
            Ok(answer) => {
                let _ = w.quit();
                return Ok((facts, answer, lost));
            }
            Err(Broke::Interrupted) => return Err(ReadError::Interrupted),
            Err(b) => b,
        };
        let d = w.death(b);
        w.kill();
        let spot = match (&d.call, d.status) {
            (Some(c), Status::Crash | Status::Timeout) if !skip.contains(c) => c.clone(),
            // No call in flight (a thread of the library's own died between calls):
            // nothing to pass over, so a fresh reader tries again; one that keeps dying
            // so is the library's finding, a report that says so, never exit 2.
            (_, Status::Crash | Status::Timeout) if retries < START_RETRIES => {
                retries += 1;
                continue;
            }
            (_, Status::Crash | Status::Timeout) => return Err(ReadError::Died(d)),
            _ => {
                return Err(ReadError::CannotRun(format!(
                    "catalog reader: {}",
                    d.message
                )))
            }
        };
        if d.status == Status::Timeout {
            let f = function(&spot).to_string();
            let n = hung.entry(f.clone()).or_default();
            *n += 1;
            // A function that hangs again and again: pass over the rest of its entries
            // (a library that hangs in every call still ends in bounded time).
            if *n >= GIVE_UP_AFTER {
                skip.insert(all_of(&f));
            }
        }
        skip.insert(spot.clone());
        lost.push(Lost {
            call: spot,
            status: d.status,
            message: d.message,
            output: d.output,
            other_thread: d.other_thread,
        });
    }
}

/// The spots a reader passed over that no reader died at: those of a function given up
/// on after [`GIVE_UP_AFTER`] hangs.
fn given_up(passed: &[String], lost: &[Lost]) -> Vec<Lost> {
    passed
        .iter()
        .filter(|p| !lost.iter().any(|l| &l.call == *p))
        .map(|p| Lost {
            call: p.clone(),
            status: Status::Timeout,
            message: format!(
                "not read: {} hung on {GIVE_UP_AFTER} entries before this one, so its \
                 other entries were passed over",
                function(p)
            ),
            output: Vec::new(),
            other_thread: false,
        })
        .collect()
}

/// Reads one inventory with dedicated workers.
pub fn inventory(setup: &Setup, mpi_init: bool) -> Result<(TargetFacts, Inventory), ReadError> {
    match read(setup, mpi_init, |skip| ToWorker::Inventory { skip })? {
        (facts, FromWorker::Inventory(mut inv), lost) => {
            let more = given_up(&inv.passed, &lost);
            inv.lost = lost;
            inv.lost.extend(more);
            Ok((facts, *inv))
        }
        (_, other, _) => Err(ReadError::CannotRun(format!(
            "unexpected answer to an inventory request: {other:?}"
        ))),
    }
}

/// Reads the decoded catalog with dedicated workers (`mpit-conform catalog`).
pub fn catalog(setup: &Setup, mpi_init: bool) -> Result<CatalogDump, ReadError> {
    match read(setup, mpi_init, |skip| ToWorker::Catalog { skip })? {
        (_, FromWorker::Catalog(mut d), lost) => {
            let more = given_up(&d.passed, &lost);
            d.lost = lost;
            d.lost.extend(more);
            Ok(*d)
        }
        (_, other, _) => Err(ReadError::CannotRun(format!(
            "unexpected answer to a catalog request: {other:?}"
        ))),
    }
}

/// The kind of entry a spot reads, and its index (`None`: the count itself).
pub fn spot_subject(spot: &str) -> Option<(SubjectKind, Option<i32>)> {
    let f = function(spot).strip_prefix("MPI_T_")?;
    let kind = match f.split('_').next()? {
        "cvar" => SubjectKind::Cvar,
        "pvar" => SubjectKind::Pvar,
        "category" => SubjectKind::Category,
        "event" => SubjectKind::Event,
        "source" => SubjectKind::Source,
        "enum" if f == "enum_get_item" => SubjectKind::Item,
        "enum" => SubjectKind::Enum,
        _ => return None,
    };
    if f.ends_with("_get_num") || f == "category_changed" {
        return Some((kind, None));
    }
    // `(5)`, `(enum #3)`, `(enum #3, 7)`: the last number is the entry's index.
    let args = spot.split_once('(')?.1.trim_end_matches(')');
    let last = args.rsplit([',', '#']).next()?.trim();
    Some((kind, last.parse().ok()))
}

/// The area, clause and case id of the results for entries of `kind` a reader lost.
fn lost_case(kind: SubjectKind) -> (Area, &'static str, &'static str) {
    match kind {
        SubjectKind::Cvar => (Area::Cvars, "cvars.catalog.read", "MPI-4.1 §15.3.6 R-GEN-1"),
        SubjectKind::Pvar => (Area::Pvars, "pvars.catalog.read", "MPI-4.1 §15.3.7 R-GEN-1"),
        SubjectKind::Category => (
            Area::Categories,
            "categories.catalog.read",
            "MPI-4.1 §15.3.9 R-GEN-1",
        ),
        SubjectKind::Event | SubjectKind::Source => (
            Area::Events,
            "events.catalog.read",
            "MPI-4.1 §15.3.8 R-GEN-1",
        ),
        _ => (
            Area::EnumsDatatypes,
            "enums_datatypes.catalog.read",
            "MPI-4.1 §15.3.5 R-GEN-1",
        ),
    }
}

/// One result per entry the inventory's readers lost: the crash or timeout of the
/// call that reads it, with the library's last output as evidence.
pub fn lost_results(inv: &Inventory, after_init: bool, timeout: Duration) -> Vec<CaseResult> {
    inv.lost
        .iter()
        .map(|l| {
            let kind = spot_subject(&l.call).map_or(SubjectKind::Cvar, |(k, _)| k);
            let (area, case, clause) = lost_case(kind);
            let meta = CaseMeta {
                case,
                area,
                level: Level::Must,
                clause,
                oracle: Oracle::Spec,
            };
            let subject = match after_init {
                true => format!("{} after MPI_Init", l.call),
                false => l.call.clone(),
            };
            let mut r = CaseResult::new(meta, subject, l.status, l.message.clone());
            let call = call_in_flight(Some(&l.call), l.other_thread);
            r.evidence
                .push(evidence(call, l.status, &l.output, timeout));
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spot_names_its_entry() {
        assert_eq!(
            spot_subject("MPI_T_cvar_get_info(5)"),
            Some((SubjectKind::Cvar, Some(5)))
        );
        assert_eq!(
            spot_subject("MPI_T_pvar_get_index(12)"),
            Some((SubjectKind::Pvar, Some(12)))
        );
        assert_eq!(
            spot_subject("MPI_T_pvar_get_num"),
            Some((SubjectKind::Pvar, None))
        );
        assert_eq!(
            spot_subject("MPI_T_enum_get_info(enum #3)"),
            Some((SubjectKind::Enum, Some(3)))
        );
        assert_eq!(
            spot_subject("MPI_T_enum_get_item(enum #3, 7)"),
            Some((SubjectKind::Item, Some(7)))
        );
        assert_eq!(
            spot_subject("MPI_T_category_get_cvars(2)"),
            Some((SubjectKind::Category, Some(2)))
        );
        assert_eq!(spot_subject("MPI_Init"), None);
    }

    #[test]
    fn functions_given_up_on_are_lost_too() {
        let lost = vec![Lost {
            call: "MPI_T_cvar_get_info(2)".into(),
            status: Status::Timeout,
            message: "worker timed out".into(),
            output: Vec::new(),
            other_thread: false,
        }];
        let passed = vec![
            "MPI_T_cvar_get_info(2)".to_string(),
            "MPI_T_cvar_get_info(3)".to_string(),
        ];
        let more = given_up(&passed, &lost);
        assert_eq!(more.len(), 1);
        assert_eq!(more[0].call, "MPI_T_cvar_get_info(3)");
        assert_eq!(more[0].status, Status::Timeout);
    }

    /// An entry lost while a thread of the library's own died says, in its evidence,
    /// that the call at the spot was the calling thread's, as a job's crash does.
    #[test]
    fn an_entry_lost_to_another_thread_says_so() {
        let inv = Inventory {
            lost: [false, true]
                .into_iter()
                .map(|other_thread| Lost {
                    call: "MPI_T_cvar_get_info(2)".into(),
                    status: Status::Crash,
                    message: "worker killed by SIGSEGV".into(),
                    output: Vec::new(),
                    other_thread,
                })
                .collect(),
            ..Inventory::default()
        };
        let calls: Vec<_> = lost_results(&inv, false, Duration::from_secs(1))
            .into_iter()
            .map(|r| r.evidence[0].call.clone())
            .collect();
        assert_eq!(
            calls,
            [
                "MPI_T_cvar_get_info(2)",
                "MPI_T_cvar_get_info(2) (on the calling thread; another thread died)"
            ]
        );
    }
}
