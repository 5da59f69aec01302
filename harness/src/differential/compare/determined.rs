//! Which values the calls so far determine, tracked call by call after both engines
//! answered: a cvar written and accepted reads back what was written (MPI-4.1
//! §15.3.6); a pvar handle reset while stopped holds its class's starting value
//! (§15.3.7, R-PRESET-1); the library's own readings of a variable, for the relations
//! its class fixes between them; the last update number of each engine (§15.3.9).
//! Only the reference's values are determined by the calls alone
//! (`Mirror::exact_values`).

use crate::differential::gen::Gen;
use crate::differential::obs::{Obs, Out};
use crate::differential::op::{Act, Call, Ref, Sees};
use crate::differential::relations::{self, Sample};
use crate::differential::HandleKind;

/// What the comparator tracks to know which values the calls determine.
#[derive(Debug, Clone, Default)]
pub(super) struct Determined {
    /// Per pvar handle (creation order): started, value determined.
    pub(super) pvars: Vec<(bool, bool)>,
    /// Pvar handles reset (by themselves or through ALL_HANDLES) at least once.
    pub(super) reset: std::collections::BTreeSet<usize>,
    /// Per cvar handle: value determined (written and accepted by both).
    pub(super) cvars: Vec<bool>,
    /// The target's last `category_changed` (R-CAT: it never decreases).
    pub(super) update_number: Option<i64>,
    /// The model's last `category_changed`: when it moved, the categories changed.
    pub(super) model_update_number: Option<i64>,
    /// Per pvar handle, the library's own readings (relations::check).
    pub(super) samples: Vec<Sample>,
}

/// Whether the value this read returns is fixed by the calls so far.
pub(super) fn determined(g: &Gen, det: &Determined, op: &Call) -> bool {
    if g.mirror().exact_values {
        return true;
    }
    match op.sees {
        Sees::Read(HandleKind::Cvar, Ref::Made(n)) => {
            det.cvars.get(n as usize).copied().unwrap_or(false)
        }
        Sees::Read(HandleKind::Pvar, Ref::Made(n)) => {
            det.pvars.get(n as usize).is_some_and(|(_, d)| *d)
        }
        _ => false,
    }
}

pub(super) fn track(det: &mut Determined, g: &Gen, c: &Call, m: &Obs, t: &Obs) {
    let both = m.ok() && t.ok();
    let read = match t.out("value") {
        Some(Out::Bytes(b)) => Some(b.as_slice()),
        _ => None,
    };
    relations::track(g, &mut det.samples, c, m.ok(), t.ok(), read);
    let pvar = |n: usize| {
        g.pvar_handles
            .get(n)
            .and_then(|l| g.mirror().catalog.pvars.get(l.index as usize))
    };
    if let (Some(Out::Int(mn)), Some(Out::Int(n))) =
        (m.out("update_number"), t.out("update_number"))
    {
        det.update_number = Some(*n);
        det.model_update_number = Some(*mn);
    }
    match (c.act(), c.sees, c.data()) {
        (
            _,
            Sees::Alloc {
                kind: HandleKind::Cvar,
                ..
            },
            _,
        ) if m.ok() => det.cvars.push(false),
        (_, _, Some((HandleKind::Cvar, Ref::Made(n), _))) => {
            if let Some(d) = det.cvars.get_mut(n as usize) {
                *d = both;
            }
        }
        (
            _,
            Sees::Alloc {
                kind: HandleKind::Pvar,
                index,
                ..
            },
            _,
        ) if m.ok() => {
            det.pvars.push((g.continuous(index), false));
        }
        (Some(act), ..) if both => {
            for n in g.pvar_targets(c.handle("handle"), c.handle("session")) {
                let Some(p) = pvar(n) else { continue };
                let (cont, ro) = (p.continuous, p.readonly);
                let zero = p.class.starts_at_zero();
                if let Some(s) = det.pvars.get_mut(n) {
                    match act {
                        Act::Start if !cont => *s = (true, false),
                        Act::Stop if !cont => s.0 = false,
                        // R-PRESET-1: reset sets the start value; it stays while stopped.
                        Act::Reset if !ro => {
                            s.1 = !s.0 && zero;
                            det.reset.insert(n);
                        }
                        _ => {}
                    }
                }
            }
        }
        (_, Sees::Read(HandleKind::Pvar, Ref::Made(n)), _) if both && c.resets() => {
            let zero = pvar(n as usize).is_some_and(|p| p.class.starts_at_zero());
            if let Some(s) = det.pvars.get_mut(n as usize) {
                s.1 = !s.0 && zero;
            }
        }
        (_, _, Some((HandleKind::Pvar, Ref::Made(n), _))) => {
            if let Some(s) = det.pvars.get_mut(n as usize) {
                s.1 = both && !s.0;
            }
        }
        _ => {}
    }
}
