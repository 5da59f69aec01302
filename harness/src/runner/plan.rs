//! From cases to jobs: filters (`--case`, `--area`), subjects from the inventory (before
//! or after MPI_Init), and the results the supervisor can give without a worker
//! (no subject to run on).

use super::queue::Job;
use super::readers::spot_subject;
use crate::judge::inventory::Entry;
use crate::judge::inventory::Inventory;
use mpit_spec::cases::InitMode;
use mpit_spec::cases::SubjectKind;
use mpit_spec::cases::{Case, Require, Suite};
use mpit_spec::verdict::{Area, CaseResult, Evidence, Status};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Why an inventory could not be read (the one after MPI_Init): the cases that need it
/// get this status and message.
#[derive(Debug, Clone)]
pub struct Unread {
    /// `error` (the harness could not), `crash` or `timeout` (the library died or hung).
    pub status: Status,
    pub message: String,
    pub evidence: Vec<Evidence>,
}

/// Subjects per job: big catalogs are split so the pool's lanes stay busy.
const CHUNK: usize = 200;

/// The cases `--case` globs and `--area` names select (all when both are empty).
pub fn select<'s>(
    suite: &'s Suite,
    cases: &[String],
    areas: &[String],
) -> Result<Vec<&'s Case>, String> {
    let globs: Vec<glob::Pattern> = cases
        .iter()
        .map(|c| glob::Pattern::new(c).map_err(|e| format!("--case {c}: {e}")))
        .collect::<Result<_, _>>()?;
    let areas: Vec<Area> = areas
        .iter()
        .map(|a| a.parse::<Area>())
        .collect::<Result<_, _>>()?;
    let sel: Vec<&Case> = suite
        .cases
        .iter()
        .filter(|c| cases.is_empty() || globs.iter().any(|g| g.matches(&c.id)))
        .filter(|c| areas.is_empty() || areas.contains(&c.area()))
        .collect();
    if sel.is_empty() {
        return Err("no case matches the --case / --area filters".into());
    }
    Ok(sel)
}

fn early(c: &Case, status: Status, message: String) -> CaseResult {
    let clause = c.clause_text();
    CaseResult::new(c.meta(&clause), String::new(), status, message)
}

/// Jobs for the selected cases; cases with nothing to run on land in `early`.
pub fn jobs(
    cases: &[&Case],
    before: &Inventory,
    after: &Result<Inventory, Unread>,
    early_results: &mut Vec<CaseResult>,
) -> Vec<Job> {
    let mut out = Vec::new();
    // Each entry once, shared by every job that runs on it.
    let shared_before = share(before);
    let shared_after = after.as_ref().map(share).unwrap_or_default();
    let mut shared_inv: [Option<Arc<Inventory>>; 2] = [None, None];
    let skip_of = |inv: &Inventory| -> Arc<BTreeSet<String>> {
        Arc::new(inv.lost.iter().map(|l| l.call.clone()).collect())
    };
    let skips = [
        skip_of(before),
        after.as_ref().map(skip_of).unwrap_or_default(),
    ];
    for c in cases {
        let mpi_init = c.requires(Require::MpiInit);
        let inv = if mpi_init {
            match after {
                Ok(i) => i,
                Err(u) => {
                    let mut r = early(c, u.status, format!("MPI_Init in a worker: {}", u.message));
                    r.evidence = u.evidence.clone();
                    early_results.push(r);
                    continue;
                }
            }
        } else {
            before
        };
        let shared = if mpi_init {
            &shared_after
        } else {
            &shared_before
        };
        let (subjects, names): (Vec<Option<Arc<Entry>>>, Vec<String>) = match c.for_each {
            None => (vec![None], vec![String::new()]),
            Some(kind) => shared
                .get(&kind)
                .into_iter()
                .flatten()
                .filter(|e| c.filter.accepts(&e.attrs))
                .take(c.first.unwrap_or(usize::MAX))
                .map(|e| (Some(e.clone()), e.subject()))
                .unzip(),
        };
        // Entries a catalog reader died at are no case's subject: each case that would
        // have run on one says so.
        if let Some(kind) = c.for_each {
            for l in &inv.lost {
                let Some((k, index)) = spot_subject(&l.call).filter(|(k, _)| *k == kind) else {
                    continue;
                };
                let subject = match index {
                    Some(i) => format!("{} {i} (not read)", k.as_str()),
                    None => format!("every {} (not counted)", k.as_str()),
                };
                let mut r = early(
                    c,
                    Status::Skip,
                    format!(
                        "not judged: {} ({}) while the catalog was read",
                        l.call, l.status
                    ),
                );
                r.subject = subject;
                early_results.push(r);
            }
        }
        if subjects.is_empty() {
            let what = c.for_each.map_or("", |k| k.as_str());
            let filtered = if c.filter.0.is_empty() {
                ""
            } else {
                " matching the case's `where`"
            };
            early_results.push(early(
                c,
                Status::Skip,
                format!(
                    "no {what}{filtered} in the catalog{}",
                    if mpi_init { " after MPI_Init" } else { "" }
                ),
            ));
            continue;
        }
        // A manual case starts with MPI_T never initialized in its process: one process
        // per subject, so no subject runs after another's init/finalize (re-init is a
        // case of its own; MPICH 4.0.2 crashes on it).
        let chunk = if c.init == InitMode::Manual { 1 } else { CHUNK };
        for (s, n) in subjects.chunks(chunk).zip(names.chunks(chunk)) {
            out.push(Job {
                case: c.id.clone(),
                area: c.area(),
                level: c.level,
                clause: c.clause_text(),
                subjects: s.to_vec(),
                names: n.to_vec(),
                fresh: c.needs_fresh_process() || c.init == InitMode::Manual,
                mpi_init,
                calls_mpi_init: c.calls_mpi_init(),
                base_init: c.init == InitMode::Auto,
                skip: skips[usize::from(mpi_init)].clone(),
                inventory: (c.init == InitMode::Manual).then(|| {
                    shared_inv[usize::from(mpi_init)]
                        .get_or_insert_with(|| Arc::new(inv.clone()))
                        .clone()
                }),
                subject_cost: c.cost(),
            });
        }
    }
    out
}

/// The inventory's entries by kind, each behind an `Arc` the jobs share.
fn share(inv: &Inventory) -> BTreeMap<SubjectKind, Vec<Arc<Entry>>> {
    let mut out: BTreeMap<SubjectKind, Vec<Arc<Entry>>> = BTreeMap::new();
    for e in &inv.entries {
        out.entry(e.kind).or_default().push(Arc::new(e.clone()));
    }
    out
}
