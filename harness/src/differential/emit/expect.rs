//! What a step of a case expects: the `rc:` the comparator accepts there (the model's
//! code and those the policy of specs/return-codes.yaml lets stand beside it, MPI-4.1
//! §15.3.10), and for the diverging call its outputs as `out:` predicates and string
//! checks, as far as the case language says them and the standard fixes them (a
//! vendor's catalog is asserted by form only where the comparator judges it so).

use super::entry;
use super::steps::Writer;
use crate::differential::compare::{accepted, Divergence};
use crate::differential::gen::Gen;
use crate::differential::obs::{Obs, Out, PVAR_FLAGS};
use crate::differential::op::{Kind, Op, Ref, Str};
use mpit_reference::profile::ReturnCode;
use mpit_reference::spec::TErr;

pub(super) fn rc_name(rc: &ReturnCode) -> String {
    match rc {
        ReturnCode::Success => "MPI_SUCCESS".into(),
        ReturnCode::T(e) => e.spelling().into(),
        other => other.to_string(),
    }
}

/// What a call may return, as the comparator accepts it (specs/return-codes.yaml).
/// The `rc:` of a step: the codes the comparator accepts there
/// (`compare::accepted`, which asks the policy of specs/return-codes.yaml), `None` when
/// it accepts every code (the text is silent).
pub(super) fn rc_expect(g: &Gen, op: &Op, m: &Obs) -> Option<String> {
    let codes = accepted(g, op, m);
    if codes.len() > TErr::ALL.len() {
        return None;
    }
    Some(match codes.as_slice() {
        [one] => rc_name(one),
        _ => format!(
            "[{}]",
            codes.iter().map(rc_name).collect::<Vec<_>>().join(", ")
        ),
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

/// The diverging call's outputs as `out:` predicates and string checks.
/// `flags`: how a true pvar flag is written: `1`, or `{ne: 0}` for the other reading of
/// R-PVAR-2 (specs/readings.yaml pvar_flags.nonzero_is_true).
pub(super) fn out_expect(
    op: &Op,
    m: &Obs,
    w: &Writer<'_>,
    d: &Divergence,
    g: &Gen,
    flags: FlagTrue,
) -> Vec<String> {
    // Written as `for_all: null_outs` (every OUT NULL in turn): no OUT value is there in
    // every iteration, so only the return code is asked.
    let none = Str::NONE;
    match op {
        Op::EnumGetInfo { name, .. } | Op::EnumGetItem { name, .. } if *name == none => {
            return Vec::new()
        }
        Op::GetInfo {
            kind: Kind::Event | Kind::Source,
            desc,
            ..
        } if *desc == none => return Vec::new(),
        _ => {}
    }
    let mut lines = Vec::new();
    let mut out = Vec::new();
    let subject_step = entry(op).is_some() && entry(op) == w.subject;
    for (name, o) in &m.outs {
        // A divergence of the string convention: the entry's other OUT values are one
        // release's catalog, not the standard, so the case does not assert them.
        if d.convention && matches!(op, Op::GetInfo { .. }) && !matches!(o, Out::Str(_)) {
            continue;
        }
        // `*_get_info_name_only` returns the name alone.
        if matches!(op, Op::GetInfo { desc, .. } if *desc == Str::NONE) && name != "name" {
            continue;
        }
        match o {
            Out::Str(_) if subject_step && matches!(op, Op::GetInfo { .. }) => {
                lines.push(format!("{name}: truncated"))
            }
            // R-CAT: the number is the library's own; it never decreases.
            Out::Int(_) if name == "update_number" && w.updates >= 2 => out.push(format!(
                "{name}: {{{}: $u{}}}",
                d.relation.as_deref().unwrap_or("ge"),
                w.updates - 2
            )),
            Out::Int(_) if name == "update_number" => {}
            // The recorder's calls inside the callbacks: all SUCCESS, in the case
            // language's raw codes (0 in every ABI).
            Out::Int(0) if name == "failed_calls" => {
                if matches!(m.out("count"), Some(Out::Int(n)) if *n > 0) {
                    out.push("call_rcs: MPI_SUCCESS".into())
                }
            }
            Out::Int(_) if name == "failed_calls" => {}
            // Lists of a raised event's callbacks: their length and values (the case
            // language has no list literal: one value, or the range of values).
            Out::Ints(v) if matches!(op, Op::RaiseEvent { .. }) => {
                if !["tags", "dropped", "dropped_tags", "dropped_at"].contains(&name.as_str()) {
                    continue;
                }
                let each = match (v.iter().min(), v.iter().max()) {
                    (Some(lo), Some(hi)) if lo == hi => format!(", each: {{eq: {lo}}}"),
                    (Some(lo), Some(hi)) => format!(", each: {{between: [{lo}, {hi}]}}"),
                    _ => String::new(),
                };
                out.push(format!("{name}: {{length: {}{each}}}", v.len()))
            }
            Out::Int(_)
                if name == "count"
                    && matches!(op, Op::PvarHandleAlloc { .. })
                    && !w.m.declared => {}
            // R-CAT: a library's categories may gain members; the comparator judges
            // them by form only, and so does the case.
            Out::Int(_)
                if name.starts_with("num_")
                    && matches!(op, Op::GetInfo { kind: Kind::Category, .. })
                    && !w.m.declared => {}
            Out::Int(n) => {
                let v = match (op, name.as_str()) {
                    (Op::GetIndex { kind, .. }, "index") => w.m.target_index(*kind, *n as i32).into(),
                    (Op::PvarGetIndex { .. }, "index") => w.m.target_index(Kind::Pvar, *n as i32).into(),
                    (Op::GetNum(k), "num") => *n + i64::from(w.m.holes(*k)),
                    _ => *n,
                };
                out.push(format!("{name}: {v}"))
            }
            Out::Handle { null } => {
                let n = match op {
                    Op::SessionCreate | Op::SessionFree { .. } => "MPI_T_PVAR_SESSION_NULL",
                    Op::PvarHandleAlloc { .. } | Op::PvarHandleFree { .. } => "MPI_T_PVAR_HANDLE_NULL",
                    Op::EventHandleAlloc { .. } | Op::EventHandleFree { .. } => "0",
                    Op::EventInfoObject { .. } => "MPI_INFO_NULL",
                    _ => "MPI_T_CVAR_HANDLE_NULL",
                };
                out.push(if *null {
                    format!("{name}: {n}")
                } else {
                    format!("{name}: {{ne: {n}}}")
                })
            }
            // R-PVAR-2: 0 or 1 (the other reading, any nonzero, is `or_reading:`).
            Out::Flag(b) if PVAR_FLAGS.contains(&name.as_str()) => {
                out.push(match (b, flags) {
                    (false, _) => format!("{name}: 0"),
                    (true, FlagTrue::One) => format!("{name}: 1"),
                    (true, FlagTrue::Nonzero) => format!("{name}: {{ne: 0}}"),
                })
            }
            Out::Enum(None) => out.push(format!("{name}: MPI_T_ENUM_NULL")),
            Out::Enum(Some(_)) => out.push(format!("{name}: {{ne: MPI_T_ENUM_NULL}}")),
            // R-INIT-1: any of the four levels, not necessarily the one asked for.
            Out::Name(_) if name == "provided" => out.push(format!(
                "{name}: {{in: [MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE]}}"
            )),
            Out::Name(s) if name != "datatypes" => {
                let c = match name.as_str() {
                    "verbosity" => format!("MPI_T_VERBOSITY_{s}"),
                    "bind" => format!("MPI_T_BIND_{s}"),
                    "scope" => format!("MPI_T_SCOPE_{s}"),
                    "var_class" => format!("MPI_T_PVAR_CLASS_{s}"),
                    "ordering" => format!("MPI_T_SOURCE_{s}"),
                    _ => s.clone(),
                };
                out.push(format!("{name}: {c}"))
            }
            Out::Ints(v) if name == "indices" => {
                out.push(format!("{name}: {{skip: {}, each: {{eq: -7}}}}", v.len()))
            }
            Out::Bytes(b) if d.rule == "R-PRESET-1" && b.iter().all(|x| *x == 0) => {
                out.push(format!("{name}: 0"))
            }
            // A relation with the library's earlier reading (relations.rs): the case
            // asks the same of the value it saved then.
            Out::Bytes(_) if name == "value" && d.relation.is_some() => {
                let pred = match (d.relation.as_deref(), op) {
                    (Some("nonneg"), _) => "{ge: 0}".to_string(),
                    (Some("fraction"), _) => "{between: [0, 1]}".to_string(),
                    (
                        Some(r),
                        Op::PvarRead {
                            handle: Ref::Made(n),
                            ..
                        },
                    ) => format!("{{{r}: $vv{n}}}"),
                    _ => continue,
                };
                out.push(format!("{name}: {pred}"))
            }
            // A value the calls determine (a written one, or any of the reference's):
            // the model's, decoded, for numbers.
            Out::Bytes(b) if name == "value" => {
                if let Some(v) = number_pred(g, op, b) {
                    out.push(format!("{name}: {v}"))
                }
            }
            _ => {}
        }
    }
    // Nothing written past the array or buffer the standard sizes (the target engine's
    // `overrun`, which the model never has).
    if matches!(
        op,
        Op::CategoryMembers { .. } | Op::CvarRead { .. } | Op::PvarRead { .. }
    ) && m.ok()
    {
        out.push("overrun: 0".into());
    }
    if !out.is_empty() {
        lines.push(format!("out: {{{}}}", out.join(", ")));
    }
    lines
}

/// A read's bytes as a predicate on the case language's `value`: the number, or the
/// range of the elements' numbers (`None` for MPI_CHAR: strings are not numbers).
fn number_pred(g: &Gen, op: &Op, b: &[u8]) -> Option<String> {
    let dt = g.read_datatype(op)?;
    let count = b.len() / dt.size().max(1);
    let nums: Vec<f64> = match mpit_reference::value::Value::from_bytes(dt, count, b) {
        mpit_reference::value::Value::Ints(v) => v.into_iter().map(|x| x as f64).collect(),
        mpit_reference::value::Value::Doubles(v) => v,
        mpit_reference::value::Value::Chars(_) => return None,
    };
    let lo = nums.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = nums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // The case language's numbers are integers: a fraction is bounded by the integers
    // around it (0.5 → between 0 and 1, which still rejects a percentage of 1.5).
    let (lo, hi) = (lo.floor(), hi.ceil());
    match nums.len() {
        0 => None,
        _ if lo == hi => Some(format!("{lo}")),
        _ => Some(format!("{{between: [{lo}, {hi}]}}")),
    }
}
