//! What a step of a case expects: the `rc:` the comparator accepts there (the model's
//! code and those the policy of specs/return-codes.yaml lets stand beside it, MPI-4.1
//! §15.3.10), and for the diverging call its outputs as `out:` predicates and string
//! checks, as far as the case language says them and the standard fixes them (a
//! vendor's catalog is asserted by form only where the comparator judges it so).

use super::entry;
use super::steps::{null_value, Subject, Writer};
use crate::differential::compare::{accepted, Divergence};
use crate::differential::gen::Gen;
use crate::differential::obs::{Obs, Out, PVAR_FLAGS};
use crate::differential::op::{Call, Kind, Ref, Sees};
use crate::differential::HandleKind;
use mpit_spec::cases::written::{Ops, Pairs, Value, WrittenExpect, WrittenPred, WrittenRc};
use mpit_spec::cases::StrCheck;
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::TErr;
use mpit_vocab::value::Value as VarValue;

pub(super) fn rc_name(rc: &ReturnCode) -> String {
    match rc {
        ReturnCode::Success => "MPI_SUCCESS".into(),
        ReturnCode::T(e) => e.spelling().into(),
        other => other.to_string(),
    }
}

/// The `rc:` of a step: the codes the comparator accepts there (`compare::accepted`,
/// which asks the policy of specs/return-codes.yaml), `None` when it accepts every
/// code (the text is silent).
pub(super) fn rc_expect(g: &Gen, op: &Call, m: &Obs) -> Option<WrittenRc> {
    let codes = accepted(g, op, m);
    if codes.len() > TErr::ALL.len() {
        return None;
    }
    Some(match codes.as_slice() {
        [one] => WrittenRc::One(rc_name(one)),
        _ => WrittenRc::AnyOf(codes.iter().map(rc_name).collect()),
    })
}

/// How a case written for a divergence asks a true pvar flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FlagTrue {
    /// `1`, as R-PVAR-2 states it (specs/readings.yaml pvar_flags.nonzero_is_true).
    One,
    /// `{ne: 0}`, a C logical flag (the other reading).
    Nonzero,
}

fn is(v: Value) -> WrittenPred {
    WrittenPred::Is(v)
}

fn ops(o: Ops) -> WrittenPred {
    WrittenPred::Ops(Box::new(o))
}

/// The diverging call's outputs as `out:` predicates and string checks, into `x`.
/// `flags`: how a true pvar flag is written: `1`, or `{ne: 0}` for the other reading of
/// R-PVAR-2 (specs/readings.yaml pvar_flags.nonzero_is_true).
pub(super) fn out_expect(
    x: &mut WrittenExpect,
    c: &Call,
    m: &Obs,
    w: &Writer<'_>,
    d: &Divergence,
    g: &Gen,
    flags: FlagTrue,
) {
    let subject_step = entry(c).is_some() && entry(c) == w.subject.entry();
    // Written as `for_all: null_outs` (every OUT NULL in turn): no OUT value is there in
    // every iteration, so only the return code is asked, and the name's string check:
    // the executor judges it in the iterations that pass the name's buffer (a missing
    // NUL in an event's name was otherwise seen by no step of the case).
    if c.null_outs {
        if subject_step && matches!(m.out("name"), Some(Out::Str(_))) {
            x.name = Some(StrCheck::Truncated);
        }
        return;
    }
    for (name, o) in &m.outs {
        let name = name.as_str();
        // A divergence of the string convention: the entry's other OUT values are one
        // release's catalog, not the standard, so the case does not assert them.
        if d.convention && c.is_get_info() && !matches!(o, Out::Str(_)) {
            continue;
        }
        // `*_get_info_name_only` returns the name alone.
        if c.sees == Sees::NameOnly && name != "name" {
            continue;
        }
        let out = &mut x.out;
        match o {
            Out::Str(_) => str_check(x, name, c, w, subject_step),
            Out::Int(n) => int_pred(out, name, *n, c, m, w, d),
            Out::Ints(v) => list_pred(out, name, v, c),
            Out::Handle { null } => handle_pred(out, name, *null, c),
            // R-PVAR-2: 0 or 1 (the other reading, any nonzero, is `or_reading:`).
            Out::Flag(b) if PVAR_FLAGS.contains(&name) => out.push(
                name,
                match (b, flags) {
                    (false, _) => is(Value::Int(0)),
                    (true, FlagTrue::One) => is(Value::Int(1)),
                    (true, FlagTrue::Nonzero) => ops(Ops {
                        ne: Some(Value::Int(0)),
                        ..Ops::default()
                    }),
                },
            ),
            Out::Flag(_) => {}
            Out::Enum(None) => out.push(name, is("MPI_T_ENUM_NULL".into())),
            Out::Enum(Some(_)) => out.push(
                name,
                ops(Ops {
                    ne: Some("MPI_T_ENUM_NULL".into()),
                    ..Ops::default()
                }),
            ),
            Out::Name(s) => name_pred(out, name, s),
            Out::Bytes(b) => bytes_pred(out, name, b, c, w, d, g),
        }
    }
    // Nothing written past the array or buffer the standard sizes (the target engine's
    // `overrun`, which the model never has).
    if matches!(c.sees, Sees::Members(_) | Sees::Read(..)) && m.ok() {
        x.out.push("overrun", is(Value::Int(0)));
    }
}

/// A string OUT: the name's (and for the subject's `*_get_info`, the description's)
/// string check; the strings themselves are the library's.
fn str_check(x: &mut WrittenExpect, name: &str, c: &Call, w: &Writer<'_>, subject_step: bool) {
    if w.subject == Subject::Item && name == "name" {
        x.name = Some(StrCheck::Truncated)
    } else if subject_step && c.is_get_info() {
        match name {
            "name" => x.name = Some(StrCheck::Truncated),
            "desc" => x.desc = Some(StrCheck::Truncated),
            _ => {}
        }
    }
}

/// An integer OUT: its value in the target's numbering, but for the numbers the
/// library chooses.
fn int_pred(
    out: &mut Pairs<WrittenPred>,
    name: &str,
    n: i64,
    c: &Call,
    m: &Obs,
    w: &Writer<'_>,
    d: &Divergence,
) {
    match name {
        // R-CAT: the number is the library's own; it never decreases.
        "update_number" if w.updates >= 2 => {
            let rel = d.relation.as_deref().unwrap_or("ge");
            let earlier = w.var(&format!("u{}", w.updates - 2));
            if let Some(p) = earlier.and_then(|v| Ops::compare(rel, v)) {
                out.push(name, ops(p))
            }
        }
        "update_number" => {}
        // The recorder's calls inside the callbacks: all SUCCESS, in the case
        // language's raw codes (0 in every ABI).
        "failed_calls" if n == 0 => {
            if matches!(m.out("count"), Some(Out::Int(n)) if *n > 0) {
                out.push("call_rcs", is("MPI_SUCCESS".into()))
            }
        }
        "failed_calls" => {}
        "count"
            if matches!(
                c.sees,
                Sees::Alloc {
                    kind: HandleKind::Pvar,
                    ..
                }
            ) && !w.m.declared => {}
        // R-CAT: a library's categories may gain members; the comparator judges
        // them by form only, and so does the case.
        _ if name.starts_with("num_")
            && c.is_get_info()
            && matches!(c.entry(), Some((Kind::Category, _)))
            && !w.m.declared => {}
        _ => {
            // In the target's numbering.
            let v = match (c.sees, name) {
                (Sees::Index(k), "index") => w.m.target_index(k, n as i32).into(),
                (Sees::Count(k), "num") => n + i64::from(w.m.holes(k)),
                _ => n,
            };
            out.push(name, is(v.into()))
        }
    }
}

/// A list OUT: a raised event's callback lists by length and range, and the indices
/// a category leaves past its count untouched.
fn list_pred(out: &mut Pairs<WrittenPred>, name: &str, v: &[i64], c: &Call) {
    if matches!(c.sees, Sees::Raise(_)) {
        // Lists of a raised event's callbacks: their length and values (the case
        // language has no list literal: one value, or the range of values).
        if !["tags", "dropped", "dropped_tags", "dropped_at"].contains(&name) {
            return;
        }
        let each = match (v.iter().min(), v.iter().max()) {
            (Some(lo), Some(hi)) if lo == hi => Some(Ops {
                eq: Some((*lo).into()),
                ..Ops::default()
            }),
            (Some(lo), Some(hi)) => Some(Ops {
                between: Some(((*lo).into(), (*hi).into())),
                ..Ops::default()
            }),
            _ => None,
        };
        out.push(
            name,
            ops(Ops {
                length: Some((v.len() as i64).into()),
                each: each.map(Box::new),
                ..Ops::default()
            }),
        )
    } else if name == "indices" {
        out.push(
            name,
            ops(Ops {
                skip: Some((v.len() as i64).into()),
                each: Some(Box::new(Ops {
                    eq: Some(Value::Int(-7)),
                    ..Ops::default()
                })),
                ..Ops::default()
            }),
        )
    }
}

/// A handle OUT: the kind's NULL handle, or not.
fn handle_pred(out: &mut Pairs<WrittenPred>, name: &str, null: bool, c: &Call) {
    let n: Value = match c.sees {
        Sees::Alloc { kind, .. } | Sees::Free { kind, .. } => null_value(kind),
        Sees::InfoObject => "MPI_INFO_NULL".into(),
        _ => null_value(HandleKind::Cvar),
    };
    out.push(
        name,
        if null {
            is(n)
        } else {
            ops(Ops {
                ne: Some(n),
                ..Ops::default()
            })
        },
    )
}

/// A constant OUT, by the name the standard gives it (a datatype list is not asked).
fn name_pred(out: &mut Pairs<WrittenPred>, name: &str, s: &str) {
    match name {
        // R-INIT-1: any of the four levels, not necessarily the one asked for.
        "provided" => {
            let levels = [
                "MPI_THREAD_SINGLE",
                "MPI_THREAD_FUNNELED",
                "MPI_THREAD_SERIALIZED",
                "MPI_THREAD_MULTIPLE",
            ];
            out.push(
                name,
                ops(Ops {
                    one_of: Some(levels.iter().map(|l| Value::from(*l)).collect()),
                    ..Ops::default()
                }),
            )
        }
        "datatypes" => {}
        _ => {
            let c = match name {
                "verbosity" => format!("MPI_T_VERBOSITY_{s}"),
                "bind" => format!("MPI_T_BIND_{s}"),
                "scope" => format!("MPI_T_SCOPE_{s}"),
                "var_class" => format!("MPI_T_PVAR_CLASS_{s}"),
                "ordering" => format!("MPI_T_SOURCE_{s}"),
                _ => s.to_string(),
            };
            out.push(name, is(c.into()))
        }
    }
}

/// A read buffer: zeros where R-PRESET-1 diverged, else the `value` the calls
/// determine or its relation with an earlier reading.
fn bytes_pred(
    out: &mut Pairs<WrittenPred>,
    name: &str,
    b: &[u8],
    c: &Call,
    w: &Writer<'_>,
    d: &Divergence,
    g: &Gen,
) {
    if d.rule == "R-PRESET-1" && b.iter().all(|x| *x == 0) {
        out.push(name, is(Value::Int(0)))
    } else if name == "value" && d.relation.is_some() {
        // A relation with the library's earlier reading (relations.rs): the case
        // asks the same of the value it saved then.
        let pred = match (d.relation.as_deref(), c.sees) {
            (Some("nonneg"), _) => Ops {
                ge: Some(Value::Int(0)),
                ..Ops::default()
            },
            (Some("fraction"), _) => Ops {
                between: Some((Value::Int(0), Value::Int(1))),
                ..Ops::default()
            },
            (Some(r), Sees::Read(HandleKind::Pvar, Ref::Made(n))) => {
                match w.var(&format!("vv{n}")).and_then(|v| Ops::compare(r, v)) {
                    Some(p) => p,
                    // No earlier read saved (it failed): nothing to relate to.
                    None => return,
                }
            }
            _ => return,
        };
        out.push(name, ops(pred))
    } else if name == "value" {
        // A value the calls determine (a written one, or any of the reference's):
        // the model's, decoded, for numbers.
        if let Some(v) = number_pred(g, c, b) {
            out.push(name, v)
        }
    }
}

/// A read's bytes as a predicate on the case language's `value`: the number, or the
/// range of the elements' numbers (`None` for MPI_CHAR: strings are not numbers, and
/// for a double no integer of the language reaches).
fn number_pred(g: &Gen, op: &Call, b: &[u8]) -> Option<WrittenPred> {
    let dt = g.read_datatype(op)?;
    let count = b.len() / dt.size().max(1);
    // Whole numbers exactly (an MPI_UINT64_T value past `i64` included): the smallest
    // and the largest element.
    let whole = |x: f64| (x.abs() < 1e38).then_some(x as i128);
    let (lo, hi, open): (i128, i128, (bool, bool)) = match VarValue::from_bytes(dt, count, b) {
        VarValue::Ints(v) => (*v.iter().min()?, *v.iter().max()?, (false, false)),
        // The case language's numbers are integers: a fraction is bounded by the
        // integers around it, the bound left open (0.5 → greater than 0 and less than
        // 1, which still rejects a percentage of 1.5, and a timer's 1.0 where 0.001
        // seconds passed, R-PCLASS).
        VarValue::Doubles(v) => {
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let open = (lo.floor() != lo, hi.ceil() != hi);
            (whole(lo.floor())?, whole(hi.ceil())?, open)
        }
        VarValue::Chars(_) => return None,
    };
    match (Value::whole(lo)?, Value::whole(hi)?) {
        (v, _) if lo == hi => Some(WrittenPred::Is(v)),
        (lo, hi) if open == (false, false) => Some(WrittenPred::Ops(Box::new(Ops {
            between: Some((lo, hi)),
            ..Ops::default()
        }))),
        (lo, hi) => {
            let (lo_open, hi_open) = open;
            Some(WrittenPred::Ops(Box::new(Ops {
                gt: lo_open.then(|| lo.clone()),
                ge: (!lo_open).then_some(lo),
                lt: hi_open.then(|| hi.clone()),
                le: (!hi_open).then_some(hi),
                ..Ops::default()
            })))
        }
    }
}
