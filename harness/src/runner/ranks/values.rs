//! `ranks.pvars.values`: the values tools read, under MPI work between the processes of
//! one job ("under `--launcher`, the same between ranks": R-GEN-6, R-GEN-7). A second job after
//! the catalog job: each rank allocates a handle of every pvar bound to no object or to
//! a communicator (`&MPI_COMM_WORLD`) in one session, starts them all
//! (`MPI_T_PVAR_ALL_HANDLES`), reads them, does MPI work with the other ranks (ring
//! exchanges on `MPI_COMM_WORLD`, collectives, communicator dups, messages to self:
//! `target::activity`), and reads them again. The supervisor holds every pair of reads
//! to the relations the standard fixes ([`crate::pvar_relations`], R-PCLASS) and says how
//! many variables the work moved on some rank.
//!
//! A pvar whose handle allocation killed a worker earlier in the run (F-10: Open MPI
//! 4.1.4's PSM2 variables) is passed over, and named; a rank that dies anyway leaves
//! the call it was in (`at-<rank>`), and the result is a `crash` naming it.

use super::launch::Collected;
use super::{Ask, RankDump};
use crate::exec::resolve_constant;
use crate::pvar_relations::{self, Between};
use mpit_spec::cases::builtin::VALUES;
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::SubjectKind;
use mpit_spec::verdict::{CaseResult, Evidence, Status};
use mpit_target::activity::Plan;
use mpit_target::catalog;
use mpit_target::ffi::ObjArg;
use mpit_target::Target;
use mpit_vocab::catalog::Pvar;
use mpit_vocab::spec::{Bind, PvarClass};
use mpit_vocab::value::Value;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// The MPI work between the two reads, on every rank.
pub const WORK: Plan = Plan {
    messages: 10,
    ring: 40,
    unexpected: 10,
    collectives: 4,
    comms: 2,
    sessions: 2,
    // Left in the unexpected-message queue while the second read is made, drained after.
    hold: 20,
    drain: false,
};

/// Two reads of one handle on one rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub index: i32,
    pub name: String,
    /// The class's spelling (`COUNTER`).
    pub class: String,
    pub continuous: bool,
    /// Counting between the reads: continuous, or started by the ALL_HANDLES start.
    #[serde(default)]
    pub active: bool,
    pub before: Vec<f64>,
    pub after: Vec<f64>,
}

/// What one rank of the values job measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub samples: Vec<Sample>,
    /// Pvars left out, and why (passed over, refused allocation, unreadable).
    pub left_out: Vec<String>,
    /// MPI calls of the work that returned MPI_SUCCESS.
    pub work_calls: u32,
    /// The first call of the work that did not, with its code.
    pub work_failed: Option<String>,
}

/// The rank's side: measures every eligible pvar around [`WORK`]. `at` is told each
/// call that could kill the process before it is made.
pub fn measure(t: &Target, ask: &Ask, at: &dyn Fn(&str)) -> Result<Measured, String> {
    let lib = &t.lib;
    let mut m = Measured::default();
    let dump = catalog::read(t, true);
    let world = resolve_constant(t, "MPI_COMM_WORLD")? as u64;
    let all = resolve_constant(t, "MPI_T_PVAR_ALL_HANDLES")? as u64 as usize;
    let avoid: BTreeSet<&str> = ask.avoid.iter().map(String::as_str).collect();
    at("MPI_T_pvar_session_create");
    let (rc, s) = lib
        .pvar_session_create()
        .ok_or("MPI_T_pvar_session_create is not exported")?;
    if rc != 0 {
        return Err(format!("MPI_T_pvar_session_create returned {}", t.rc(rc)));
    }
    let mut handles = Vec::new();
    for (k, p) in dump.catalog.pvars.iter().enumerate() {
        let index = dump.origins.pvars.get(k).copied().unwrap_or(k as i32);
        if !matches!(p.bind, Bind::NoObject | Bind::MpiComm) {
            continue;
        }
        if avoid.contains(p.name.as_str()) {
            m.left_out.push(format!(
                "{index} {}: passed over (its allocation killed a worker)",
                p.name
            ));
            continue;
        }
        at(&format!("MPI_T_pvar_handle_alloc({index} {})", p.name));
        let obj = ObjArg::Local {
            value: world,
            width: lib.handle_width(),
        };
        match lib.pvar_handle_alloc(s, index, obj) {
            Some((0, (h, count))) if count > 0 => handles.push((index, p, h, count as usize)),
            Some((rc, _)) => m.left_out.push(format!(
                "{index} {}: MPI_T_pvar_handle_alloc returned {}",
                p.name,
                t.rc(rc)
            )),
            None => return Err("MPI_T_pvar_handle_alloc is not exported".into()),
        }
    }
    if handles.is_empty() {
        // Nothing to measure; ALL_HANDLES on an empty session after MPI_Init is F-17's
        // crash (MPICH 5's standard ABI), judged by the suite, not here.
        lib.pvar_session_free(s);
        return Ok(m);
    }
    at("MPI_T_pvar_start(MPI_T_PVAR_ALL_HANDLES)");
    // A start that failed leaves the non-continuous handles stopped: their values are
    // then held to "not updated until started" (R-PSTART-1) instead.
    let started = match lib.pvar_start(s, all) {
        Some((0, ())) => true,
        Some((rc, ())) => {
            m.left_out.push(format!(
                "MPI_T_pvar_start(MPI_T_PVAR_ALL_HANDLES) returned {}: the non-continuous handles were compared as stopped",
                t.rc(rc)
            ));
            false
        }
        None => false,
    };
    let read = |m: &mut Measured, (index, p, h, count): &(i32, &Pvar, usize, usize)| {
        at(&format!("MPI_T_pvar_read({index} {})", p.name));
        match lib.pvar_read(s, *h, count * p.datatype.size()) {
            Some((0, b)) => match Value::from_bytes(p.datatype, *count, &b.bytes) {
                Value::Ints(v) => Some(v.into_iter().map(|x| x as f64).collect::<Vec<f64>>()),
                Value::Doubles(v) => Some(v),
                Value::Chars(_) => None,
            },
            Some((rc, _)) => {
                m.left_out.push(format!(
                    "{index} {}: MPI_T_pvar_read returned {}",
                    p.name,
                    t.rc(rc)
                ));
                None
            }
            None => None,
        }
    };
    let before: Vec<Option<Vec<f64>>> = handles.iter().map(|h| read(&mut m, h)).collect();
    at("the MPI work between the reads (target::activity)");
    if let Some(done) = t.activity(&WORK) {
        m.work_calls = done.calls;
        m.work_failed = done.failed.map(|(c, rc)| format!("{c} returned {rc}"));
    }
    for (h, b) in handles.iter().zip(before) {
        let (Some(before), Some(after)) = (b, read(&mut m, h)) else {
            continue;
        };
        m.samples.push(Sample {
            index: h.0,
            name: h.1.name.clone(),
            class: h.1.class.spelling().to_string(),
            continuous: h.1.continuous,
            active: h.1.continuous || started,
            before,
            after,
        });
    }
    at("the MPI work after the reads (receiving the held messages)");
    t.activity(&Plan {
        drain: true,
        ..Plan::default()
    });
    at("MPI_T_pvar_session_free");
    lib.pvar_session_free(s);
    Ok(m)
}

/// The supervisor's side: the verdict on the values job.
pub fn judge(c: &Collected, requested: Option<usize>, ask: &Ask) -> CaseResult {
    let subject = requested.map_or_else(|| "? ranks".into(), |n| format!("{n} ranks"));
    let by_rank: BTreeMap<i32, &RankDump> = c
        .dumps
        .iter()
        .filter_map(|(_, d)| Some((d.rank?, d)))
        .collect();
    if c.dumps.iter().any(|(f, _)| f.contains(".dup-")) {
        return VALUES.result(
            subject,
            Status::Error,
            "the processes are not one MPI job (two claimed one rank)".into(),
        );
    }
    let n = requested.unwrap_or(by_rank.len());
    let missing: Vec<i32> = (0..n as i32).filter(|r| !by_rank.contains_key(r)).collect();
    if !missing.is_empty() {
        let status = super::mpi_t_works::lost_ranks_status(c);
        let at: Vec<String> = missing
            .iter()
            .filter_map(|r| c.progress.get(r).map(|a| format!("rank {r} in {a}")))
            .collect();
        let m = format!(
            "no values from rank {} ({}){}{}",
            missing
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            c.ended.as_ref().map_or("?".into(), super::launch::said),
            if at.is_empty() {
                String::new()
            } else {
                format!("; last call: {}", at.join("; "))
            },
            if c.stderr_tail.is_empty() {
                String::new()
            } else {
                format!("; launcher stderr: {}", c.stderr_tail.join(" | "))
            }
        );
        return VALUES.result(subject, status, m);
    }
    let mut evidence = Vec::new();
    let mut broken = Vec::new();
    let mut moved: BTreeSet<&str> = BTreeSet::new();
    let mut names: BTreeSet<&str> = BTreeSet::new();
    let mut pairs = 0;
    for (r, d) in &by_rank {
        let Some(v) = &d.values else {
            return VALUES.result(
                subject,
                Status::Error,
                format!(
                    "rank {r} measured nothing: {}",
                    d.error.as_deref().unwrap_or("?")
                ),
            );
        };
        if let Some(f) = &v.work_failed {
            evidence.push(note(
                *r,
                "the MPI work",
                json!({"failed": f, "calls": v.work_calls}),
            ));
        }
        for s in &v.samples {
            let Some(class) = PvarClass::from_spelling(&s.class) else {
                continue;
            };
            names.insert(&s.name);
            pairs += 1;
            if s.before != s.after {
                moved.insert(&s.name);
            }
            // Started with ALL_HANDLES (or continuous) before the first read: active.
            // A handle the start failed to start is held to "not updated until started".
            if let Some(b) = pvar_relations::check(
                class,
                Between { active: s.active },
                Some(&s.before),
                &s.after,
            ) {
                broken.push(format!(
                    "rank {r}: pvar {} {} ({}): {}",
                    s.index, s.name, s.class, b.what
                ));
                let mut e = note(
                    *r,
                    "MPI_T_pvar_read",
                    json!({"index": s.index, "name": s.name, "before": s.before, "after": s.after}),
                );
                e.expected = Some(format!("{} ({})", b.relation, b.rule));
                evidence.push(e);
            }
        }
        if !v.left_out.is_empty() {
            evidence.push(note(*r, "left out", json!(v.left_out)));
        }
    }
    let avoided = if ask.avoid.is_empty() {
        String::new()
    } else {
        format!(
            "; passed over (their allocation killed a worker in this run): {}",
            ask.avoid.join(", ")
        )
    };
    let mut result = if !broken.is_empty() {
        VALUES.result(subject, Status::Fail, broken.join("; "))
    } else if pairs == 0 {
        VALUES.result(
            subject,
            Status::Skip,
            format!(
                "no pvar bound to no object or a communicator could be read on the ranks{avoided}"
            ),
        )
    } else {
        VALUES.result(
            subject,
            Status::Pass,
            format!(
                "{} pvars read before and after MPI work between the {n} ranks ({} reads paired); the work moved {} of them ({}){avoided}",
                names.len(),
                pairs,
                moved.len(),
                moved.iter().copied().collect::<Vec<_>>().join(", ")
            ),
        )
    };
    result.exercised = (pairs > 0).then_some(!moved.is_empty());
    result.evidence = evidence;
    result
}

/// The name of the pvar whose `MPI_T_pvar_handle_alloc` killed the worker of `r`: the
/// call in flight, which the pool records as the last evidence of a crash.
pub fn crashed_alloc(r: &CaseResult) -> Option<String> {
    let in_flight = &r.evidence.last()?.call;
    // The function in flight (`MPI_T_pvar_handle_alloc(...)`) by the table: the one
    // that makes a pvar handle.
    let called = in_flight
        .split_once('(')
        .map_or(in_flight.as_str(), |(f, _)| f);
    let allocates_pvar = Func::ALL
        .iter()
        .any(|f| f.c_name() == called && f.allocates() == Some(SubjectKind::Pvar));
    if r.status != Status::Crash || !allocates_pvar {
        return None;
    }
    // The subject is `pvar <index> <name>`.
    let name = r.subject.strip_prefix("pvar ")?.split_once(' ')?.1;
    Some(name.to_string())
}

fn note(rank: i32, call: &str, out: serde_json::Value) -> Evidence {
    Evidence {
        call: call.into(),
        args: json!({"rank": rank}).into(),
        rc: None,
        out: out.into(),
        expected: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::launch::Ended;
    use super::*;
    use crate::runner::death;
    use mpit_spec::verdict::{Area, CaseMeta, Level, Oracle};

    fn rank(r: i32, samples: Vec<Sample>) -> (String, RankDump) {
        let d = RankDump {
            rank: Some(r),
            size: Some(2),
            pid: 1,
            launcher_rank: None,
            calls: Vec::new(),
            dump: None,
            error: None,
            values: Some(Measured {
                samples,
                ..Measured::default()
            }),
        };
        (format!("rank-{r}.json"), d)
    }

    fn sample(class: &str, before: f64, after: f64) -> Sample {
        Sample {
            index: 3,
            name: "x_count".into(),
            class: class.into(),
            continuous: false,
            active: true,
            before: vec![before],
            after: vec![after],
        }
    }

    fn collected(dumps: Vec<(String, RankDump)>) -> Collected {
        Collected {
            ended: Some(Ended::Exited(0)),
            dumps,
            started: 2,
            ..Collected::default()
        }
    }

    #[test]
    fn a_counter_that_decreased_on_one_rank_fails_naming_it() {
        let c = collected(vec![
            rank(0, vec![sample("COUNTER", 1.0, 5.0)]),
            rank(1, vec![sample("COUNTER", 7.0, 2.0)]),
        ]);
        let r = judge(&c, Some(2), &Ask::default());
        assert_eq!(r.status, Status::Fail, "{}", r.message);
        assert!(
            r.message.contains("rank 1: pvar 3 x_count (COUNTER)"),
            "{}",
            r.message
        );
        assert_eq!(r.evidence.len(), 1);
    }

    #[test]
    fn a_handle_the_start_did_not_start_must_not_move() {
        let mut stopped = sample("COUNTER", 1.0, 5.0);
        stopped.active = false;
        let c = collected(vec![rank(0, vec![stopped]), rank(1, Vec::new())]);
        let r = judge(&c, Some(2), &Ask::default());
        assert_eq!(r.status, Status::Fail, "{}", r.message);
        assert!(r.message.contains("a stopped handle read"), "{}", r.message);
    }

    #[test]
    fn relations_that_hold_pass_and_say_what_moved() {
        let c = collected(vec![
            rank(
                0,
                vec![sample("COUNTER", 1.0, 5.0), sample("LEVEL", 3.0, 0.0)],
            ),
            rank(
                1,
                vec![sample("COUNTER", 1.0, 1.0), sample("LEVEL", 3.0, 3.0)],
            ),
        ]);
        let r = judge(&c, Some(2), &Ask::default());
        assert_eq!(r.status, Status::Pass, "{}", r.message);
        assert!(
            r.message.contains("the work moved 1 of them (x_count)"),
            "{}",
            r.message
        );
        assert_eq!(r.exercised, Some(true));
    }

    #[test]
    fn a_rank_without_values_is_a_crash_naming_its_last_call() {
        let mut c = collected(vec![rank(0, Vec::new())]);
        c.ended = Some(Ended::Exited(139));
        c.progress
            .insert(1, "MPI_T_pvar_handle_alloc(33 psm2)".into());
        let r = judge(&c, Some(2), &Ask::default());
        assert_eq!(r.status, Status::Crash);
        assert!(
            r.message
                .contains("rank 1 in MPI_T_pvar_handle_alloc(33 psm2)"),
            "{}",
            r.message
        );
    }

    #[test]
    fn nothing_read_is_a_skip() {
        let c = collected(vec![rank(0, Vec::new()), rank(1, Vec::new())]);
        assert_eq!(judge(&c, Some(2), &Ask::default()).status, Status::Skip);
    }

    #[test]
    fn the_pvar_of_a_crashed_allocation_is_named() {
        let meta = CaseMeta {
            case: "pvars.handle.alloc_free",
            area: Area::Pvars,
            level: Level::Must,
            clause: "",
            oracle: Oracle::Spec,
        };
        let died_in = |call: &str| {
            let mut r = CaseResult::new(
                meta,
                "pvar 1 mtl_psm2_rx_user_bytes".into(),
                Status::Crash,
                "worker killed by SIGSEGV".into(),
            );
            r.evidence.push(death::evidence(
                call.into(),
                Status::Crash,
                &[],
                std::time::Duration::from_secs(1),
            ));
            r
        };
        let r = died_in("MPI_T_pvar_handle_alloc(index: 1, obj: \"NULL\")");
        assert_eq!(crashed_alloc(&r).as_deref(), Some("mtl_psm2_rx_user_bytes"));
        assert_eq!(crashed_alloc(&died_in("MPI_T_pvar_read(handle: 3)")), None);
        let warned = CaseResult {
            status: Status::Warn,
            ..r
        };
        assert_eq!(crashed_alloc(&warned), None);
    }
}
