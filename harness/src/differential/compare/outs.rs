//! The OUT values of a call that succeeded in both engines, one by one: strings through
//! `strings`, then the values the standard fixes: `provided` one of the four
//! thread levels (MPI-4.1 §15.3.4), category members and a growing update number
//! (§15.3.9), handles nulled by their free (§15.3.6, §15.3.7), pvar flags 0 or 1 and
//! values the calls determine (§15.3.7), and no write past a buffer the standard
//! sizes. A vendor's catalog read in another process is judged by form only where the
//! library may change it (member counts, a pvar's count).

use super::determined::{determined, Determined};
use super::strings::compare_str;
use super::{rule_of, Ctx, Divergence};
use crate::differential::gen::Gen;
use crate::differential::obs::{same_name, Obs, Out, StrObs, PVAR_FLAGS};
use crate::differential::op::{Call, Kind, Ref, Sees};
use crate::differential::relations;
use crate::differential::target::SENTINEL;
use crate::differential::HandleKind;
use mpit_spec::cases::SubjectKind;
use mpit_spec::readings::{INIT_NESTED_CALL_HAS_NO_EFFECT, PVAR_FLAGS_NONZERO_IS_TRUE};
use mpit_spec::verdict::Level;
use mpit_vocab::spec::Datatype;

/// A string OUT's divergence, said of what it shows: another entry's name (the
/// catalog), the string convention, an index moved after MPI_Init (R-CVAR-1), or a
/// length alone that fits both readings ([`Divergence::two_readings`]).
fn str_divergence(
    cx: &Ctx<'_>,
    g: &Gen,
    name: &str,
    mut d: Divergence,
    ms: &StrObs,
    ts: &StrObs,
) -> Divergence {
    let op = cx.op;
    // Other characters (not a missing NUL or a short buffer): the
    // index named another entry.
    let text_differs = match (&ms.buf, &ts.buf) {
        (Some(w), Some(b)) => {
            let n = w.iter().position(|x| *x == 0).unwrap_or(w.len());
            b.len() >= n && b[..n] != w[..n]
        }
        _ => false,
    };
    d.other_entry = name == "name" && text_differs && ts.stray.is_empty() && op.is_get_info();
    // Other bytes name another entry (the catalog); anything else is the
    // string convention itself.
    d.convention = !d.other_entry;
    // After MPI_Init an index naming another entry is R-CVAR-1 (indices
    // never move), whatever the string convention says of the bytes.
    let moved = d.level == Level::Must && name == "name";
    if g.mpi && moved && op.is_get_info() {
        d.rule = "R-CVAR-1".into();
        d.what = format!("after MPI_Init, {}", d.what);
    } else {
        // The bytes shown agree (or lie outside the buffer): the
        // length alone cannot say whether the index named another
        // entry ([`Divergence::two_readings`]).
        // A catalog entry's or an enumeration's name (not an item's,
        // which the standard does not require to be unique).
        d.two_readings = name == "name"
            && !d.other_entry
            && op.func.strings_of().is_some_and(|k| k != SubjectKind::Item);
    }
    d
}

/// R-CAT: the update number is the library's own; only its growth is fixed, and with
/// the catalog declared, that it moves when the model's does.
fn update_number(
    cx: &Ctx<'_>,
    g: &Gen,
    det: &Determined,
    mn: i64,
    n: i64,
    m: &Obs,
    t: &Obs,
) -> Option<Divergence> {
    if let Some(prev) = det.update_number.filter(|p| n < *p) {
        return Some(cx.convention(
            "R-CAT",
            format!("update_number went down from {prev} to {n}"),
            m,
            t,
        ));
    }
    // §15.3.9: "If two calls to this routine return the same update number,
    // it is guaranteed that the category information has not changed
    // between the two calls". With the catalog declared (the same in both
    // engines), the model's number moving says the categories changed.
    if let (true, Some(mp), Some(tp)) = (
        g.mirror().declared,
        det.model_update_number,
        det.update_number,
    ) {
        if mn != mp && n == tp {
            return Some(Divergence {
                relation: Some("gt".into()),
                ..cx.convention(
                    "R-CAT",
                    format!(
                        "update_number is {n} again although the categories \
                         changed since the last call"
                    ),
                    m,
                    t,
                )
            });
        }
    }
    None
}

/// A category's members: the model's then untouched entries (R-CAT-1), or with the
/// catalog not declared, only that form.
fn indices(cx: &Ctx<'_>, g: &Gen, mv: &[i64], tv: &[i64], m: &Obs, t: &Obs) -> Option<Divergence> {
    let k = mv.len();
    let sentinel = |x: &i64| *x == i64::from(SENTINEL);
    let ok = if g.mirror().declared {
        tv.len() >= k && tv[..k] == mv[..] && tv[k..].iter().all(sentinel)
    } else {
        // R-CAT: a library's categories may change as it registers
        // variables (category_changed says so), and the mirror was read in
        // another process: only the form is fixed, members then untouched
        // entries (a write past `len` is the engine's `overrun`).
        let written = tv.iter().take_while(|x| !sentinel(x)).count();
        tv[written..].iter().all(sentinel)
    };
    if !ok {
        return Some(cx.div(
            "R-CAT-1",
            Level::Must,
            format!("indices {tv:?} where {mv:?} then untouched entries were expected"),
            m,
            t,
        ));
    }
    None
}

pub(super) fn compare_outs(
    cx: &Ctx<'_>,
    g: &Gen,
    det: &Determined,
    m: &Obs,
    t: &Obs,
) -> Option<Divergence> {
    let op = cx.op;
    if let Some(d) = vocabulary(cx, m, t) {
        return Some(d);
    }
    for (i, (name, mo)) in m.outs.iter().enumerate() {
        // Every name is on both sides (`vocabulary` above), most often at the same
        // position (both engines record a function's OUTs in the table's order).
        let same_place = t.outs.get(i).filter(|(n, _)| same_name(n, name));
        let Some(to) = same_place.map(|(_, o)| o).or_else(|| t.out(name)) else {
            continue;
        };
        match (mo, to) {
            (Out::Str(ms), Out::Str(ts)) => {
                if let Some(d) = compare_str(cx, name, ms, ts, m, t) {
                    return Some(str_divergence(cx, g, name, d, ms, ts));
                }
            }
            // A nested init that leaves provided as the harness set it (-1): the other
            // reading of "no effect beyond increasing the reference count"
            // (specs/readings.yaml init.nested_call_has_no_effect), as the spec suite.
            (_, Out::Name(p)) if name == "provided" && p == "unknown(-1)" && g.initialized() => {
                return Some(cx.div(
                    "R-INIT-1",
                    Level::Should,
                    format!(
                        "a nested MPI_T_init_thread left provided unwritten (the other \
                         reading, {})",
                        INIT_NESTED_CALL_HAS_NO_EFFECT
                    ),
                    m,
                    t,
                ));
            }
            // R-INIT-1: provided is one of the four levels (not necessarily `required`).
            (_, Out::Name(p)) if name == "provided" && p.starts_with("unknown") => {
                return Some(cx.convention(
                    "R-INIT-1",
                    format!("provided is {p}, not a thread level"),
                    m,
                    t,
                ));
            }
            (_, Out::Name(_)) if name == "provided" => {}
            (Out::Ints(mv), Out::Ints(tv)) if name == "indices" => {
                if let Some(d) = indices(cx, g, mv, tv, m, t) {
                    return Some(d);
                }
            }
            (Out::Bytes(mb), Out::Bytes(tb))
                if determined(g, det, op) && !same_value(g, op, mb, tb) =>
            {
                let rule = match op.sees {
                    // A written value read back.
                    Sees::Read(HandleKind::Cvar, _) => "R-CVAR-9",
                    Sees::Raise(_) => "R-EVT-CB",
                    // A handle never reset: the class's semantics (R-PCLASS).
                    Sees::Read(HandleKind::Pvar, Ref::Made(n))
                        if !det.reset.contains(&(n as usize)) =>
                    {
                        "R-PCLASS"
                    }
                    _ => "R-PRESET-1",
                };
                return Some(cx.div(
                    rule,
                    Level::Must,
                    format!("the value read is {to} where the calls made it {mo}"),
                    m,
                    t,
                ));
            }
            (Out::Bytes(_), Out::Bytes(tb)) => {
                if let Some(b) = relations::check(g, &det.samples, op, tb) {
                    return Some(Divergence {
                        relation: Some(b.relation.into()),
                        ..cx.div(b.rule, Level::Must, b.what, m, t)
                    });
                }
            }
            // R-CAT: the update number is the library's own; only its growth is fixed.
            (Out::Int(mn), Out::Int(n)) if name == "update_number" => {
                if let Some(d) = update_number(cx, g, det, *mn, *n, m, t) {
                    return Some(d);
                }
            }
            // R-CAT: member counts of a library's category may change (see `indices`).
            (Out::Int(_), Out::Int(_))
                if name.starts_with("num_")
                    && op.is_get_info()
                    && matches!(op.entry(), Some((Kind::Category, _)))
                    && !g.mirror().declared => {}
            (Out::Int(_), Out::Int(_))
                if name == "num"
                    && matches!(op.entry(), Some((Kind::Category, _)))
                    && !g.mirror().declared => {}
            // A pvar's count is read back only from a handle; unless the catalog was
            // declared, the model's count is a guess (1).
            (Out::Int(_), Out::Int(_))
                if name == "count"
                    && matches!(
                        op.sees,
                        Sees::Alloc {
                            kind: HandleKind::Pvar,
                            ..
                        }
                    )
                    && !g.mirror().declared => {}
            // R-PVAR-2 states the flags as 0 and 1; a C logical flag is true when
            // nonzero (MPI-4.1 §2.6.3): the other reading, SHOULD (specs/readings.yaml
            // pvar_flags.nonzero_is_true), as in the spec suite.
            (Out::Flag(true), Out::Int(n)) if *n != 0 && PVAR_FLAGS.contains(&name.as_str()) => {
                let id = PVAR_FLAGS_NONZERO_IS_TRUE;
                return Some(Divergence {
                    reading: Some(id.into()),
                    ..cx.div(
                        "R-PVAR-2",
                        Level::Should,
                        format!("{name} is {n}: true as a C logical flag, not 1 (the other reading, {id})"),
                        m,
                        t,
                    )
                });
            }
            (a, b) if a != b => {
                let sees = op.sees;
                let rule = match (sees, name.as_str()) {
                    (Sees::Raise(_), d) if d.starts_with("dropped") => "R-EVT-DROP",
                    _ => rule_of(op),
                };
                let what = format!("{name} is {b} where {a} was expected");
                // A free that does not null its handle breaks a convention, not the catalog.
                let freed = matches!(sees, Sees::Free { .. });
                return Some(match freed {
                    true => cx.convention(rule, what, m, t),
                    false => cx.div(rule, Level::Must, what, m, t),
                });
            }
            _ => {}
        }
    }
    // Outputs only the target has: a write past a read buffer or a member array.
    for (name, to) in &t.outs {
        if target_only(name) && m.out(name).is_none() {
            // The rule that sizes the buffer: a category's member array, a cvar's or a
            // pvar's read buffer (R-PREAD-1 for readreset too).
            let rule = match op.sees {
                Sees::Members(_) => "R-CAT-1",
                Sees::Read(HandleKind::Cvar, _) => "R-CVAR-8",
                _ => "R-PREAD-1",
            };
            return Some(cx.convention(
                rule,
                format!("wrote past the buffer the standard sizes ({name}: {to})"),
                m,
                t,
            ));
        }
    }
    None
}

/// What the target engine observes beyond the model, never named by it: bytes written
/// past a read buffer (`stray`, R-CVAR-8, R-PREAD-1) or past a member array
/// (`overrun`, R-CAT-1). The model writes only inside what the standard sizes.
fn target_only(name: &str) -> bool {
    name == "stray" || name == "overrun"
}

/// Both engines speak one vocabulary of OUT names per op, for a call that succeeded in
/// both: an OUT argument the op passes as NULL is recorded by neither (R-CVAR-3: "a
/// NULL OUT parameter is ignored"; R-STR-4 for a NULL length), a function the library
/// does not export never gets here (`Obs::unsupported`, passed over before), and the
/// target's own observations are [`target_only`]. Any other OUT named on one side
/// only is the harness's disagreement with itself: said so, rather than the value
/// passed over unjudged (which would hide the library's answer).
fn vocabulary(cx: &Ctx<'_>, m: &Obs, t: &Obs) -> Option<Divergence> {
    // Checked on every call both engines answered, so nothing is allocated unless they
    // disagree (fuzz-props and the fuzz oracle compare tens of thousands a second).
    fn names(o: &Obs) -> impl Iterator<Item = &str> + '_ {
        o.outs
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| !target_only(n))
    }
    // The same names in the same order: one pass, the usual case.
    if names(m).count() == names(t).count() && names(m).zip(names(t)).all(|(a, b)| same_name(a, b))
    {
        return None;
    }
    let lacks = |a: &Obs, b: &Obs| names(a).any(|n| !names(b).any(|x| same_name(x, n)));
    if !lacks(m, t) && !lacks(t, m) {
        return None;
    }
    let only = |a: &Obs, b: &Obs| -> Vec<String> {
        names(a)
            .filter(|n| !names(b).any(|x| same_name(x, n)))
            .map(str::to_string)
            .collect()
    };
    let (model_only, extra) = (only(m, t), only(t, m));
    Some(cx.div(
        "R-GEN-1",
        Level::Must,
        format!(
            "the engines disagree on the vocabulary of OUT names of {} (a harness bug, \
             not the library's): the model names {model_only:?} the target engine does \
             not, the target engine {extra:?} the model does not",
            cx.op.function()
        ),
        m,
        t,
    ))
}

/// Two reads of the same variable: MPI_CHAR values are defined up to the first NUL
/// (R-TYPE-2); a vendor pvar's count may differ from the model's guess, so lists of
/// different lengths are compared only for being all zero (a reset counter).
fn same_value(g: &Gen, op: &Call, m: &[u8], t: &[u8]) -> bool {
    let dt = g.read_datatype(op);
    if dt == Some(Datatype::Char) {
        let text = |b: &[u8]| {
            b.iter()
                .take_while(|x| **x != 0)
                .copied()
                .collect::<Vec<u8>>()
        };
        return text(m) == text(t);
    }
    if m.len() != t.len() && !g.mirror().declared {
        return !m.iter().all(|x| *x == 0) || t.iter().all(|x| *x == 0);
    }
    m == t
}
