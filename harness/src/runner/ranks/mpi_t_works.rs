//! `ranks.mpi_t_works`: every rank 0..n-1 of the job wrote its dump, the processes were
//! one MPI job (same size, distinct ranks), and on every rank MPI_T_init_thread after
//! MPI_Init (R-GEN-4, R-INIT-1), the `*_get_num` calls and MPI_T_finalize (R-FIN-1)
//! returned MPI_SUCCESS. Also picks the dumps the comparison may use.

use super::launch::{Collected, Ended};
use super::RankDump;
use mpit_spec::cases::builtin::WORKS;
use mpit_spec::cases::funcs::Group;
use mpit_spec::verdict::{CaseResult, Evidence, Status};
use mpit_target::catalog::CatalogDump;
use serde_json::json;
use std::collections::BTreeMap;

/// The verdict on the job, and the catalogs of the ranks that can be compared (empty
/// when the processes were not one job).
pub struct Judged<'a> {
    pub result: CaseResult,
    pub catalogs: Vec<(i32, &'a CatalogDump)>,
    /// Why there is nothing to compare, if so.
    pub no_compare: Option<String>,
}

/// The status of a job some rank of which left nothing: `timeout` past the deadline,
/// `error` when the launcher started no rank (bad options, refused to run as root...)
/// or exited cleanly, `crash` when it died or failed. Both jobs use it (`values`).
pub fn lost_ranks_status(c: &Collected) -> Status {
    match &c.ended {
        Some(Ended::TimedOut(_)) => Status::Timeout,
        _ if c.started == 0 => Status::Error,
        Some(Ended::Signaled(_)) => Status::Crash,
        Some(Ended::Exited(code)) if *code != 0 => Status::Crash,
        _ => Status::Error,
    }
}

/// The problem of a launch some rank of which left no dump: what the launcher said,
/// what the processes that knew no rank said, the launcher's last lines.
fn lost_ranks(c: &Collected, missing: &[i32], unknown: &[&RankDump]) -> (Status, String) {
    let status = lost_ranks_status(c);
    let said: Vec<String> = unknown
        .iter()
        .filter_map(|d| d.error.as_ref().map(|e| format!("pid {}: {e}", d.pid)))
        .collect();
    (
        status,
        format!(
            "{}; {}{}{}",
            if c.started == 0 {
                "the launcher started no rank".to_string()
            } else if missing.is_empty() {
                "no rank wrote a dump".to_string()
            } else {
                let m: Vec<String> = missing.iter().map(|r| r.to_string()).collect();
                format!("no dump from rank {}", m.join(", "))
            },
            c.ended.as_ref().map_or("?".into(), super::launch::said),
            if said.is_empty() {
                String::new()
            } else {
                format!("; {}", said.join("; "))
            },
            match (c.stderr_tail.is_empty(), c.stdout_tail.is_empty()) {
                (false, _) => format!("; launcher stderr: {}", c.stderr_tail.join(" | ")),
                (true, false) => format!("; launcher stdout: {}", c.stdout_tail.join(" | ")),
                (true, true) => String::new(),
            }
        ),
    )
}

/// The ranks whose calls failed: a `fail` when an MPI_T call did, else an `error`
/// (MPI_Init failing is not MPI_T's).
fn failed_calls(by_rank: &BTreeMap<i32, &RankDump>) -> Vec<(Status, String)> {
    let mut out = Vec::new();
    for (r, d) in by_rank {
        let failed: Vec<String> = d
            .calls
            .iter()
            .filter(|x| !x.ok && x.rc.is_some())
            .map(|x| {
                format!(
                    "{} returned {}",
                    x.call.c_name(),
                    x.rc.as_deref().unwrap_or("?")
                )
            })
            .collect();
        if failed.is_empty() && d.error.is_none() {
            continue;
        }
        // An MPI_T call that failed is the finding; MPI_Init failing is not MPI_T's.
        let mpit = d
            .calls
            .iter()
            .any(|x| !x.ok && x.rc.is_some() && x.call.group() == Group::MpiT);
        let what = if failed.is_empty() {
            d.error.clone().unwrap_or_default()
        } else {
            failed.join(", ")
        };
        out.push((
            if mpit { Status::Fail } else { Status::Error },
            format!("rank {r}: {what}"),
        ));
    }
    out
}

/// Judges one collected launch. `requested`: the number of ranks the launcher line asks
/// for, when it says; `launcher`: the line, for evidence.
pub fn judge<'a>(c: &'a Collected, requested: Option<usize>, launcher: &str) -> Judged<'a> {
    let mut by_rank: BTreeMap<i32, &RankDump> = BTreeMap::new();
    let mut dups: Vec<&str> = Vec::new();
    let mut unknown: Vec<&RankDump> = Vec::new();
    for (file, d) in &c.dumps {
        match d.rank {
            Some(_) if file.contains(".dup-") => dups.push(file),
            Some(r) => {
                by_rank.insert(r, d);
            }
            None => unknown.push(d),
        }
    }
    let sizes: std::collections::BTreeSet<i32> = by_rank.values().filter_map(|d| d.size).collect();
    let n = requested.or_else(|| sizes.iter().max().and_then(|s| usize::try_from(*s).ok()));
    let mut problems: Vec<(Status, String)> = Vec::new();
    let one_job = dups.is_empty() && sizes.iter().all(|s| Some(*s as usize) == n);
    if !one_job {
        let seen: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
        problems.push((
            Status::Error,
            format!(
                "the processes are not one MPI job of {} (MPI_Comm_size: {}{}): does the launcher belong to this library?",
                n.map_or("?".into(), |n| n.to_string()),
                seen.join(", "),
                if dups.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} more process(es) claimed a rank another one had",
                        dups.len()
                    )
                }
            ),
        ));
    }
    let missing: Vec<i32> = n.map_or_else(Vec::new, |n| {
        (0..n as i32).filter(|r| !by_rank.contains_key(r)).collect()
    });
    let nothing = by_rank.is_empty();
    if !missing.is_empty() || nothing {
        problems.push(lost_ranks(c, &missing, &unknown));
    }
    problems.extend(failed_calls(&by_rank));
    let status = [Status::Timeout, Status::Crash, Status::Error, Status::Fail]
        .into_iter()
        .find(|s| problems.iter().any(|(p, _)| p == s))
        .unwrap_or(Status::Pass);
    let subject = n.map_or_else(|| "? ranks".to_string(), |n| format!("{n} ranks"));
    let message = if status == Status::Pass {
        format!(
            "MPI_T_init_thread after MPI_Init, the get_num calls and MPI_T_finalize returned MPI_SUCCESS on all {} ranks (launcher {:.1} s)",
            by_rank.len(),
            c.wall.as_secs_f64()
        )
    } else {
        problems
            .iter()
            .map(|(_, m)| m.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    };
    // What each rank's catalog holds; entries the profile could not decode (Open MPI's
    // MPI_C_BOOL cvars) are not in it and so not compared.
    let catalogs: serde_json::Map<String, serde_json::Value> = by_rank
        .iter()
        .filter_map(|(rank, d)| {
            let c = d.dump.as_deref()?;
            let k = &c.catalog;
            Some((
                rank.to_string(),
                json!({
                    "cvars": k.cvars.len(), "pvars": k.pvars.len(),
                    "categories": k.categories.len(), "enums": k.enums.len(),
                    "events": k.events.len(), "undecoded": c.undecoded.len(),
                }),
            ))
        })
        .collect();
    let mut r = WORKS.result(subject, status, message);
    r.duration_ms = c.wall.as_secs_f64() * 1000.0;
    r.evidence.push(Evidence {
        call: "launcher".into(),
        args: (json!({"command": launcher, "ranks": n})).into(),
        rc: None,
        out: (json!({
            "ended": c.ended.as_ref().map(super::launch::said),
            "wall_s": (c.wall.as_secs_f64() * 10.0).round() / 10.0,
            "dumps": c.dumps.iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>(),
            "catalogs": catalogs,
            "unreadable": c.unreadable.iter().map(|(f, e)| format!("{f}: {e}")).collect::<Vec<_>>(),
            "stderr_tail": if status == Status::Pass { Vec::new() } else { c.stderr_tail.clone() },
            "stdout_tail": if status == Status::Pass { Vec::new() } else { c.stdout_tail.clone() },
        }))
        .into(),
        expected: (!missing.is_empty() || nothing)
            .then(|| "every rank 0..n-1 writes rank-<r>.json".to_string()),
    });
    for (rank, d) in &by_rank {
        for x in &d.calls {
            r.evidence.push(Evidence {
                call: x.call.c_name().to_string(),
                args: (json!({"rank": rank, "pid": d.pid})).into(),
                rc: x.rc.clone(),
                out: (x.out.clone()).into(),
                expected: (!x.ok && x.rc.is_some()).then(|| "MPI_SUCCESS".to_string()),
            });
        }
    }
    let catalogs: Vec<(i32, &CatalogDump)> = if one_job {
        by_rank
            .iter()
            .filter_map(|(r, d)| d.dump.as_deref().map(|c| (*r, c)))
            .collect()
    } else {
        Vec::new()
    };
    let no_compare = if !one_job {
        Some("the processes were not one MPI job (ranks.mpi_t_works)".to_string())
    } else if catalogs.len() < 2 {
        Some(format!(
            "{} rank(s) wrote a catalog: nothing to compare (ranks.mpi_t_works)",
            catalogs.len()
        ))
    } else {
        None
    };
    Judged {
        result: r,
        catalogs,
        no_compare,
    }
}

#[cfg(test)]
mod tests {
    use super::super::RankCall;
    use super::*;
    use mpit_spec::cases::funcs::Func;
    use std::time::Duration;

    fn call(f: Func, ok: bool) -> RankCall {
        RankCall {
            call: f,
            rc: Some(
                if ok {
                    "MPI_SUCCESS"
                } else {
                    "MPI_T_ERR_INVALID"
                }
                .into(),
            ),
            ok,
            out: serde_json::Value::Null,
        }
    }

    fn rank(r: i32, size: i32, init_ok: bool) -> (String, RankDump) {
        let d = RankDump {
            rank: Some(r),
            size: Some(size),
            pid: 100 + r as u32,
            launcher_rank: None,
            calls: vec![call(Func::MpiInit, true), call(Func::InitThread, init_ok)],
            dump: None,
            error: None,
            values: None,
        };
        (format!("rank-{r}.json"), d)
    }

    fn collected(dumps: Vec<(String, RankDump)>, ended: Ended) -> Collected {
        Collected {
            started: dumps.len(),
            ended: Some(ended),
            dumps,
            stderr_tail: vec!["last words".into()],
            wall: Duration::from_millis(1500),
            ..Collected::default()
        }
    }

    #[test]
    fn all_ranks_fine_pass_with_evidence_per_rank() {
        let c = collected(vec![rank(0, 2, true), rank(1, 2, true)], Ended::Exited(0));
        let j = judge(&c, Some(2), "mpiexec -n 2");
        assert_eq!(j.result.status, Status::Pass, "{}", j.result.message);
        assert_eq!(j.result.subject, "2 ranks");
        let ranks: Vec<serde_json::Value> = j
            .result
            .evidence
            .iter()
            .filter(|e| e.call == "MPI_T_init_thread")
            .map(|e| e.args.value()["rank"].clone())
            .collect();
        assert_eq!(ranks, [json!(0), json!(1)]);
        // No catalogs in these dumps: nothing to compare.
        assert!(j.no_compare.is_some());
    }

    #[test]
    fn a_missing_rank_is_named_with_the_launcher_tail() {
        let c = collected(
            vec![rank(0, 3, true), rank(2, 3, true)],
            Ended::Signaled(11),
        );
        let j = judge(&c, None, "mpiexec -n 3");
        assert_eq!(j.result.status, Status::Crash);
        let m = &j.result.message;
        assert!(m.contains("no dump from rank 1"), "{m}");
        assert!(m.contains("SIGSEGV") && m.contains("last words"), "{m}");
    }

    #[test]
    fn a_failing_mpi_t_call_fails_and_a_timeout_is_a_timeout() {
        let c = collected(vec![rank(0, 2, true), rank(1, 2, false)], Ended::Exited(0));
        let j = judge(&c, Some(2), "mpiexec -n 2");
        assert_eq!(j.result.status, Status::Fail);
        assert!(j
            .result
            .message
            .contains("rank 1: MPI_T_init_thread returned"));
        let c = collected(Vec::new(), Ended::TimedOut(Duration::from_secs(60)));
        let j = judge(&c, Some(2), "mpiexec -n 2");
        assert_eq!(j.result.status, Status::Timeout, "{}", j.result.message);
        let c = collected(Vec::new(), Ended::Exited(1));
        let j = judge(&c, Some(2), "mpiexec -n 2");
        assert_eq!(j.result.status, Status::Error, "{}", j.result.message);
        assert!(j.result.message.starts_with("the launcher started no rank"));
    }
}
