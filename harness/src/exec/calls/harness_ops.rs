//! The harness operations: several calls in one step (init/finalize cycles on one or
//! several threads, a catalog snapshot, MPI work, the PMPI twins), the event callbacks'
//! deliveries as the recorder saw them (§15.3.8.6), and the reference's test hooks.

use super::{int, outs, Arg, Args, Layout, OutMap, Outs};
use crate::judge::inventory;
use crate::judge::value::Val;
use mpit_spec::cases::funcs::Func;
use mpit_spec::kind::Kind;
use mpit_target::activity::Plan;
use mpit_target::ffi::{self, StrArg, StrOut};
use mpit_target::Target;

/// Adds the `failed_call` OUT (the text of the call that ended a harness operation:
/// `activity`, `init_cycles`, `init_threads`) when there is one.
fn with_failed_call(mut o: (i32, OutMap), failed: &str) -> (i32, OutMap) {
    if !failed.is_empty() {
        o.1.insert(
            "failed_call",
            Val::Str(StrOut {
                buf: Some(failed.as_bytes().to_vec()),
                ..StrOut::default()
            }),
        );
    }
    o
}

pub(super) fn call(t: &Target, layout: &dyn Layout, f: Func, a: &Args) -> Outs {
    let lib = &t.lib;
    Some(match f {
        Func::InitCycles | Func::InitThreads => {
            let n = |k: &str| a.int(k).clamp(0, 1_000_000) as u32;
            let c = match f {
                Func::InitThreads => {
                    t.init_threads(a.int("required"), n("threads").min(64), n("cycles"))?
                }
                _ => t.init_cycles(a.int("required"), n("cycles"))?,
            };
            let (rc, failed) = c.failed.map_or((0, String::new()), |(what, rc)| (rc, what));
            let o = outs(
                rc,
                [
                    ("completed", int(c.completed)),
                    ("budget_hit", int(c.budget_hit as i32)),
                    (
                        "provided",
                        Val::List(c.provided.into_iter().map(int).collect()),
                    ),
                ],
            );
            with_failed_call(o, &failed)
        }
        Func::CatalogSnapshot => {
            let snap = inventory::read(t);
            let counts = Val::Outs(
                snap.globals
                    .iter()
                    .map(|(k, v)| (k.clone(), int(*v)))
                    .collect(),
            );
            outs(
                0,
                [
                    ("catalog", Val::Snapshot(Box::new(snap))),
                    ("counts", counts),
                ],
            )
        }
        Func::PmpiTwins => {
            // R-GEN-8: every exported MPI_T_* has its PMPI_T_* twin.
            let exported: Vec<Func> = Func::mpi_t().filter(|f| lib.exports(f.c_name())).collect();
            let missing: Vec<Val> = exported
                .iter()
                .filter(|f| !lib.exports(&format!("P{}", f.c_name())))
                .map(|f| {
                    Val::Str(StrOut {
                        buf: Some(format!("P{}", f.c_name()).into_bytes()),
                        ..StrOut::default()
                    })
                })
                .collect();
            outs(
                0,
                [
                    ("exported", int(exported.len() as i64)),
                    ("missing", Val::List(missing)),
                ],
            )
        }
        Func::Deliveries => {
            let d = ffi::take_deliveries();
            let dropped = ffi::take_dropped();
            let dropped_at = ffi::take_dropped_positions();
            let freed = ffi::take_freed();
            let list = |v: Vec<Val>| Val::List(v);
            outs(
                0,
                [
                    ("count", int(d.len() as i64)),
                    ("tags", list(d.iter().map(|x| int(x.tag as u64)).collect())),
                    ("safeties", list(d.iter().map(|x| int(x.safety)).collect())),
                    (
                        "sources",
                        list(
                            d.iter()
                                .map(|x| int(x.source.map_or(-1, |s| s.1)))
                                .collect(),
                        ),
                    ),
                    (
                        "timestamps",
                        list(
                            d.iter()
                                .map(|x| int(x.timestamp.map_or(-1, |s| s.1)))
                                .collect(),
                        ),
                    ),
                    (
                        "instances",
                        list(d.iter().map(|x| int(x.instance as u64)).collect()),
                    ),
                    ("call_rcs", list(d.iter().flat_map(call_rcs).collect())),
                    (
                        "data_ok",
                        list(d.iter().map(|x| int(data_ok(t, layout, x))).collect()),
                    ),
                    ("dropped", list(dropped.iter().map(|x| int(x.1)).collect())),
                    (
                        "dropped_tags",
                        list(dropped.iter().map(|x| int(x.0 as u64)).collect()),
                    ),
                    (
                        "dropped_sources",
                        list(dropped.iter().map(|x| int(x.2)).collect()),
                    ),
                    (
                        "dropped_at",
                        list(dropped_at.iter().map(|x| int(*x as u64)).collect()),
                    ),
                    (
                        "freed",
                        list(freed.iter().map(|x| int(*x as u64)).collect()),
                    ),
                ],
            )
        }
        Func::Activity => {
            let n = |k: &str| a.int(k).clamp(0, 100_000) as u32;
            let plan = Plan {
                messages: n("messages"),
                // Around the ranks: the cross-rank run's (runner::ranks::values); a case
                // runs in one process.
                ring: 0,
                unexpected: n("unexpected"),
                collectives: n("collectives"),
                comms: n("comms"),
                sessions: n("sessions"),
                hold: n("hold"),
                drain: a.int("drain") != 0,
            };
            let d = t.activity(&plan)?;
            let (rc, failed) = d.failed.map_or((0, ""), |(c, rc)| (rc, c));
            let o = outs(
                rc,
                [("calls", int(d.calls)), ("seconds", Val::Float(d.seconds))],
            );
            with_failed_call(o, failed)
        }
        Func::Simulate => lib
            .reference_simulate(a.int("steps"))
            .map(|(rc, ())| outs(rc, []))?,
        Func::RaiseEvent => lib
            .reference_raise_event(a.int("index"), a.int("cb_safety"))
            .map(|(rc, ())| outs(rc, []))?,
        // `calls::call` sends only this group here (`Func::group`); a row added to the
        // table without its call here stops at the first case that makes it.
        _ => unreachable!("{f:?} is not a harness operation with a call here"),
    })
}

/// The return codes of the calls the recorder made inside one callback
/// (event_get_timestamp, event_get_source, event_read per element, event_copy), raw.
fn call_rcs(d: &ffi::Delivery) -> Vec<Val> {
    let mut v: Vec<i32> = Vec::new();
    v.extend(d.timestamp.map(|x| x.0));
    v.extend(d.source.map(|x| x.0));
    v.extend(d.elements.iter().map(|x| x.0));
    v.extend(d.copy.as_ref().map(|x| x.0));
    v.into_iter().map(int).collect()
}

/// Whether one delivery's data agree (§15.3.8.6): every element read and the copy
/// succeeded, nothing was written past a buffer, and element k of the copy, at the
/// displacement `event_get_info` gives, holds the bytes event_read returned for it.
/// 1 yes, 0 no, -1 when the registration is unknown to the executor (not judged).
fn data_ok(t: &Target, layout: &dyn Layout, d: &ffi::Delivery) -> i32 {
    let Some(event) = layout.event_of(d.registration as u64) else {
        return -1;
    };
    // The event type's displacements, through the engine (the strings by length only).
    let args = [
        ("index", Arg::Int(event.into())),
        ("name", Arg::Str(StrArg::LEN_ONLY)),
        ("desc", Arg::Str(StrArg::LEN_ONLY)),
        ("capacity", Arg::Int(64)),
    ];
    let Some((0, info)) = super::invoke(t, layout, Kind::Event.get_info(), &Args::List(&args))
    else {
        return -1;
    };
    let num_elements = info.get("num_elements").and_then(Val::int).unwrap_or(0);
    let displacements = match info.get("displacements") {
        Some(Val::List(v)) => v.iter().map(|x| x.int().unwrap_or(-1)).collect(),
        _ => Vec::new(),
    };
    let Some((0, copy)) = &d.copy else { return 0 };
    if copy.overrun || d.elements.len() != num_elements.max(0) as usize {
        return 0;
    }
    for ((rc, el), disp) in d.elements.iter().zip(&displacements) {
        let Ok(at) = usize::try_from(*disp) else {
            return 0;
        };
        let got = copy.bytes.get(at..at + el.bytes.len());
        if *rc != 0 || el.overrun || got != Some(&el.bytes[..]) {
            return 0;
        }
    }
    1
}
