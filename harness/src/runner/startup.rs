//! A run whose library never got started: it died or hung while loading or in the
//! base `MPI_T_init_thread` of the first worker, or `--max-time` passed while the
//! catalog was read. The report still comes: the case that makes that call takes the
//! crash or timeout, with the call named and the library's last output, and every
//! other selected case is a `skip` that says why it did not run.

use super::death::Death;
use super::protocol::TargetFacts;
use super::{run_options, target_info, Config};
use crate::judge::inventory::Inventory;
use mpit_report::{Builder, Report, RunEvent};
use mpit_spec::cases::Case;
use mpit_spec::verdict::{Area, CaseMeta, CaseResult, Level, Oracle, Status};

/// The case (and subject) that makes the start's call: MPI_T_init_thread with
/// MPI_THREAD_SINGLE is `lifecycle.thread_level.provided_legal` on that level; loading
/// the library is a result of its own.
fn culprit(call: Option<&str>) -> (&'static str, &'static str) {
    match call {
        Some(c) if c.starts_with("MPI_T_init_thread") => {
            ("lifecycle.thread_level.provided_legal", "MPI_THREAD_SINGLE")
        }
        _ => ("lifecycle.library.load", ""),
    }
}

fn report(cfg: &Config, sha256: String, results: Vec<CaseResult>) -> Report {
    let mut b = Builder::new();
    b.event(RunEvent::Started {
        target: target_info(cfg, &TargetFacts::default(), &Inventory::default(), sha256),
        options: run_options(cfg, 0),
        planned: results.len(),
    });
    for r in results {
        b.event(RunEvent::Result(r));
    }
    b.event(RunEvent::Finished {
        interrupted: false,
        stopped_by: None,
    });
    b.finish()
}

/// The report of a library that died or hung in its start.
pub fn failed(cfg: &Config, selected: &[&Case], d: &Death, sha256: String) -> Report {
    let (case, subject) = culprit(d.call.as_deref());
    let call = d.call.as_deref().unwrap_or("its start");
    let clause = selected.iter().find(|c| c.id == case).map_or_else(
        || "MPI-4.1 §15.3.4 R-INIT-1 R-GEN-1".to_string(),
        |c| c.clause_text(),
    );
    let meta = CaseMeta {
        case,
        area: Area::Lifecycle,
        level: Level::Must,
        clause: &clause,
        oracle: Oracle::Spec,
    };
    let mut first = CaseResult::new(meta, subject.to_string(), d.status, d.message.clone());
    first.evidence.push(d.evidence(cfg.timeout));
    let caps = super::capabilities::unstarted(&d.message, vec![d.evidence(cfg.timeout)]);
    let mut results = vec![first];
    let why = match d.returned {
        true => format!("not run: {}", d.message),
        false => format!("not run: {call} did not return ({})", d.status),
    };
    for c in selected.iter().filter(|c| c.id != case) {
        let clause = c.clause_text();
        results.push(CaseResult::new(
            c.meta(&clause),
            String::new(),
            Status::Skip,
            why.clone(),
        ));
    }
    let mut r = report(cfg, sha256, results);
    r.capabilities = Some(caps);
    r
}

/// The report of a run whose --max-time passed before its catalog was read.
pub fn unstarted(cfg: &Config, selected: &[&Case], sha256: String) -> Report {
    let max = cfg.max_time.unwrap_or_default();
    let why = format!(
        "not run: the run's --max-time {} passed while the catalog was read",
        humantime::format_duration(max)
    );
    let results = selected
        .iter()
        .map(|c| {
            let clause = c.clause_text();
            CaseResult::new(c.meta(&clause), String::new(), Status::Timeout, why.clone())
        })
        .collect();
    let mut r = report(cfg, sha256, results);
    r.interrupted = true;
    r.stopped_by = Some(format!("--max-time {}", humantime::format_duration(max)));
    r
}
