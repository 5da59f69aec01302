//! What a library's performance variables must do whatever it counts: the relations the
//! standard fixes between two reads of one handle (MPI-4.1 §15.3.7), held against the
//! library's own earlier reading. The model decides which relation applies (the handle's
//! class, whether it was started since the last read, whether a reset or a write came in
//! between); the values compared are the library's alone, so a vendor whose numbers the
//! model cannot predict is still judged:
//!
//! * a non-continuous handle stopped since its last read reads the same value
//!   (R-PSTART-1: "not updated until started");
//! * COUNTER, AGGREGATE, TIMER and HIGHWATERMARK never decrease and LOWWATERMARK never
//!   increases without a reset or write in between (R-PCLASS; overflow of the first three
//!   is not judged);
//! * LEVEL and SIZE are never negative, PERCENTAGE stays within [0, 1] (R-PCLASS).

use super::gen::Gen;
use super::op::{Act, Op, Ref};
use mpit_reference::spec::PvarClass;
use mpit_reference::value::Value;

/// One pvar handle, as the library's answers left it.
#[derive(Debug, Clone, Default)]
pub(super) struct Sample {
    /// Started and not stopped (continuous handles always count as started).
    started: bool,
    /// Started at any time since the last read.
    active_since: bool,
    /// The library's last reading, unless a reset or write came after it.
    last: Option<Vec<u8>>,
}

/// A relation the library's value broke: the rule, the relation of the case language
/// (`eq`, `ge`, `le`, or `nonneg` and `fraction` for the ranges) and what was seen.
pub(super) struct Broken {
    pub rule: &'static str,
    pub relation: &'static str,
    pub what: String,
}

fn numbers(g: &Gen, op: &Op, b: &[u8]) -> Option<Vec<f64>> {
    let dt = g.read_datatype(op)?;
    let count = b.len() / dt.size().max(1);
    match Value::from_bytes(dt, count, b) {
        Value::Ints(v) => Some(v.into_iter().map(|x| x as f64).collect()),
        Value::Doubles(v) => Some(v),
        Value::Chars(_) => None,
    }
}

/// The class and continuity of the variable handle `n` measures (the model's catalog).
fn variable(g: &Gen, n: usize) -> Option<(PvarClass, bool, bool)> {
    let l = g.pvar_handles.get(n)?;
    let p = g.mirror.catalog.pvars.get(usize::try_from(l.index).ok()?)?;
    Some((p.class, p.continuous, p.readonly))
}

/// The relation the read `op` (its bytes `now`) breaks, if any.
pub(super) fn check(g: &Gen, samples: &[Sample], op: &Op, now: &[u8]) -> Option<Broken> {
    let Op::PvarRead {
        handle: Ref::Made(n),
        ..
    } = op
    else {
        return None;
    };
    let n = usize::from(*n);
    let (class, continuous, _) = variable(g, n)?;
    let v = numbers(g, op, now)?;
    match class {
        PvarClass::Level | PvarClass::Size if v.iter().any(|x| *x < 0.0) => {
            return Some(Broken {
                rule: "R-PCLASS",
                relation: "nonneg",
                what: format!("a {} variable reads {v:?}, below 0", class.spelling()),
            })
        }
        PvarClass::Percentage if v.iter().any(|x| !(0.0..=1.0).contains(x)) => {
            return Some(Broken {
                rule: "R-PCLASS",
                relation: "fraction",
                what: format!("a PERCENTAGE variable reads {v:?}, outside [0, 1]"),
            })
        }
        _ => {}
    }
    let s = samples.get(n)?;
    let before = numbers(g, op, s.last.as_ref()?)?;
    if before.len() != v.len() {
        return None;
    }
    let all = |f: fn(f64, f64) -> bool| before.iter().zip(&v).all(|(b, x)| f(*b, *x));
    if !continuous && !s.active_since {
        return (!all(|b, x| b == x)).then(|| Broken {
            rule: "R-PSTART-1",
            relation: "eq",
            what: format!("a stopped handle read {before:?}, then {v:?}"),
        });
    }
    let (ok, relation, word) = match class {
        PvarClass::Counter | PvarClass::Aggregate | PvarClass::Timer | PvarClass::HighWatermark => {
            (all(|b, x| x >= b), "ge", "decreased")
        }
        PvarClass::LowWatermark => (all(|b, x| x <= b), "le", "increased"),
        _ => return None,
    };
    (!ok).then(|| Broken {
        rule: "R-PCLASS",
        relation,
        what: format!(
            "a {} {word} from {before:?} to {v:?} with no reset or write in between",
            class.spelling()
        ),
    })
}

/// Updates the samples with the library's answer `ok` to `op`. `made` says whether the
/// model counts a new handle (handles are numbered as the model makes them).
pub(super) fn track(
    g: &Gen,
    samples: &mut Vec<Sample>,
    op: &Op,
    made: bool,
    ok: bool,
    read: Option<&[u8]>,
) {
    match op {
        Op::PvarHandleAlloc { index, .. } if made => {
            let continuous = g
                .mirror
                .catalog
                .pvars
                .get(*index as usize)
                .is_some_and(|p| p.continuous);
            samples.push(Sample {
                started: continuous,
                active_since: continuous,
                last: None,
            });
        }
        Op::Pvar {
            act,
            handle,
            session,
        } if ok => {
            for n in g.pvar_targets(*handle, *session) {
                let Some((_, continuous, readonly)) = variable(g, n) else {
                    continue;
                };
                let Some(s) = samples.get_mut(n) else {
                    continue;
                };
                match act {
                    Act::Start if !continuous => {
                        s.started = true;
                        s.active_since = true;
                    }
                    Act::Stop if !continuous => s.started = false,
                    Act::Reset if !readonly => s.last = None,
                    _ => {}
                }
            }
        }
        Op::PvarRead {
            handle: Ref::Made(n),
            reset,
            ..
        } if ok => {
            if let Some(s) = samples.get_mut(usize::from(*n)) {
                s.last = if *reset {
                    None
                } else {
                    read.map(<[u8]>::to_vec)
                };
                s.active_since = s.started;
            }
        }
        Op::PvarWrite {
            handle: Ref::Made(n),
            ..
        } if ok => {
            if let Some(s) = samples.get_mut(usize::from(*n)) {
                s.last = None;
            }
        }
        _ => {}
    }
}
