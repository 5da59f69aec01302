//! The library's performance variables held to the relations the standard fixes
//! ([`crate::pvar_relations`]) against its own earlier reading of each handle. The model
//! decides what came in between (started since the last read, a reset or a write); the
//! values compared are the library's alone, so a vendor whose numbers the model cannot
//! predict is still judged.

use super::gen::Gen;
use super::op::{Act, Call, Ref, Sees};
use super::HandleKind;
use crate::pvar_relations::{self, Between};
use mpit_vocab::spec::PvarClass;
use mpit_vocab::value::Value;

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

pub(super) use crate::pvar_relations::Broken;

fn numbers(g: &Gen, op: &Call, b: &[u8]) -> Option<Vec<f64>> {
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
    let p = g
        .mirror()
        .catalog
        .pvars
        .get(usize::try_from(l.index).ok()?)?;
    Some((p.class, p.continuous, p.readonly))
}

/// The relation the read `op` (its bytes `now`) breaks, if any.
pub(super) fn check(g: &Gen, samples: &[Sample], op: &Call, now: &[u8]) -> Option<Broken> {
    let Sees::Read(HandleKind::Pvar, Ref::Made(n)) = op.sees else {
        return None;
    };
    let n = usize::from(n);
    let (class, continuous, _) = variable(g, n)?;
    let v = numbers(g, op, now)?;
    let s = samples.get(n);
    let before = s
        .and_then(|s| s.last.as_ref())
        .and_then(|b| numbers(g, op, b));
    let between = Between {
        active: continuous || s.is_some_and(|s| s.active_since),
    };
    pvar_relations::check(class, between, before.as_deref(), &v)
}

/// Updates the samples with the library's answer `ok` to `op`. `made` says whether the
/// model counts a new handle (handles are numbered as the model makes them).
pub(super) fn track(
    g: &Gen,
    samples: &mut Vec<Sample>,
    c: &Call,
    made: bool,
    ok: bool,
    read: Option<&[u8]>,
) {
    match (c.act(), c.sees, c.data()) {
        (
            _,
            Sees::Alloc {
                kind: HandleKind::Pvar,
                index,
                ..
            },
            _,
        ) if made => {
            let continuous = g.continuous(index);
            samples.push(Sample {
                started: continuous,
                active_since: continuous,
                last: None,
            });
        }
        (Some(act), ..) if ok => {
            for n in g.pvar_targets(c.handle("handle"), c.handle("session")) {
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
        (_, Sees::Read(HandleKind::Pvar, Ref::Made(n)), _) if ok => {
            if let Some(s) = samples.get_mut(usize::from(n)) {
                s.last = if c.resets() {
                    None
                } else {
                    read.map(<[u8]>::to_vec)
                };
                s.active_since = s.started;
            }
        }
        (_, _, Some((HandleKind::Pvar, Ref::Made(n), _))) if ok => {
            if let Some(s) = samples.get_mut(usize::from(n)) {
                s.last = None;
            }
        }
        _ => {}
    }
}
