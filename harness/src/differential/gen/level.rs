//! At which level the standard fixes a call's outcome in a state (MPI-4.1 §15.3.10 and
//! each routine's clause; the conditions' levels are specs/return-codes.yaml `levels:`),
//! and the states where it lets more than one outcome stand, which the comparator asks
//! about: a pvar handle with another session (§15.3.7, R-PH-1), a variable that refuses
//! the call whatever the session, a second start of a started handle, a readreset of a
//! read-only non-atomic variable.

use super::Gen;
use crate::differential::op::{Act, Call, Ref, A};
use crate::differential::HandleKind;
use crate::judge::policy::{self, Policy};
use crate::judge::return_codes::{
    Table, BAD_INDEX_EXPLICIT, BAD_INDEX_TABLE_ONLY, NULL_OUT_UNSTATED, UNDEFINED_ARGUMENT,
};
use mpit_spec::cases::funcs::Group;
use mpit_spec::verdict::Level;
use mpit_vocab::spec::TErr;
use std::sync::OnceLock;

/// The `levels:` conditions [`Gen::level`] asks for, read from the table once per
/// process (the comparator asks for each call fuzz-props compares).
struct Levels {
    table_only: Level,
    explicit: Level,
    undefined: Level,
    null_out_unstated: Level,
}

impl Levels {
    fn shared() -> &'static Levels {
        static L: OnceLock<Levels> = OnceLock::new();
        L.get_or_init(|| Levels {
            table_only: Table::shared_level(BAD_INDEX_TABLE_ONLY),
            explicit: Table::shared_level(BAD_INDEX_EXPLICIT),
            undefined: Table::shared_level(UNDEFINED_ARGUMENT),
            null_out_unstated: Table::shared_level(NULL_OUT_UNSTATED),
        })
    }
}

impl Gen {
    /// The live pvar handle and live session a call names, when the handle was not
    /// allocated in that session (R-PH-1).
    pub fn foreign_session(&self, c: &Call) -> bool {
        let (Ref::Made(s), Some(Ref::Made(h))) = (c.handle("session"), pvar_handle(c)) else {
            return false;
        };
        Self::live(&self.sessions, Ref::Made(s))
            && self
                .pvar_handles
                .get(usize::from(h))
                .is_some_and(|l| l.live && l.session != s)
    }

    /// The error a pvar call gets from its variable alone, whatever the session:
    /// start/stop of a continuous one (R-PSTART-1), write or reset of a read-only one
    /// (R-PWRITE-1, R-PRESET-1), readreset of a non-atomic one (R-PRR-1).
    pub fn refusal(&self, c: &Call) -> Option<TErr> {
        let (act, h) = match (c.act(), pvar_handle(c)) {
            (Some(act), Some(Ref::Made(h))) => (Some(act), h),
            // A write refuses what a reset refuses.
            (_, Some(Ref::Made(h))) if c.data().is_some() => (Some(Act::Reset), h),
            (_, Some(Ref::Made(h))) if c.resets() => (None, h),
            _ => return None,
        };
        let l = self.pvar_handles.get(usize::from(h))?;
        let p = self
            .mirror()
            .catalog
            .pvars
            .get(usize::try_from(l.index).ok()?)?;
        match act {
            Some(Act::Start | Act::Stop) if p.continuous => Some(TErr::PvarNoStartstop),
            Some(Act::Reset) if p.readonly => Some(TErr::PvarNoWrite),
            None if !p.atomic => Some(TErr::PvarNoAtomic),
            _ => None,
        }
    }

    /// Whether `op` starts a started (or stops a stopped) handle of a non-continuous
    /// variable with its own session. §15.3.7 says what MPI_T_PVAR_ALL_HANDLES does
    /// with such a handle ("ignored"); for the handle itself it says nothing, so any
    /// answer conforms (specs/readings.yaml `restart_of_a_started_handle`).
    pub fn repeat_start_stop(&self, op: &Call) -> bool {
        let (Some(act @ (Act::Start | Act::Stop)), session, Ref::Made(n)) =
            (op.act(), op.handle("session"), op.handle("handle"))
        else {
            return false;
        };
        Self::live(&self.sessions, session)
            && self.pvar_handles.get(usize::from(n)).is_some_and(|l| {
                l.live
                    && session == Ref::Made(l.session)
                    && l.started == (act == Act::Start)
                    && !self.continuous(l.index)
            })
    }

    /// Whether `op` is a readreset of a handle on a read-only variable that cannot be
    /// read and reset atomically (two refusals at once).
    pub fn readonly_non_atomic(&self, op: &Call) -> bool {
        let Some(Ref::Made(h)) = pvar_handle(op).filter(|_| op.resets()) else {
            return false;
        };
        self.pvar_handles
            .get(usize::from(h))
            .and_then(|l| {
                self.mirror()
                    .catalog
                    .pvars
                    .get(usize::try_from(l.index).ok()?)
            })
            .is_some_and(|p| p.readonly && !p.atomic)
    }

    /// The level at which the standard fixes this op's outcome here, by the condition
    /// of its call's arguments (the conditions' levels are specs/return-codes.yaml
    /// `levels:`, which the spec suite's cases follow too; which functions meet one is
    /// `judge::policy`): a handle argument that is not valid, an index out of range,
    /// an enumeration item out of range, every OUT argument NULL.
    pub fn level(&self, c: &Call) -> Level {
        if !self.initialized() {
            // R-INIT-1: NOT_INITIALIZED from every routine but init, before init; an
            // extra finalize's code is read two ways (R-FIN-1).
            return match c.func.depth() < 0 {
                true => Level::Should,
                false => Level::Must,
            };
        }
        let &Levels {
            table_only,
            explicit,
            undefined,
            null_out_unstated,
        } = Levels::shared();
        let f = c.func;
        // Every OUT argument NULL where no sentence says NULL is ignored.
        if c.null_outs && policy::has(f, Policy::NullOutUnstated) {
            return null_out_unstated;
        }
        // A handle, session or registration not valid here: undefined, unless the
        // function's text names the code for a freed one (R-EVT-FREE).
        for (_, a) in &c.args {
            let A::Handle(k, r) = *a else { continue };
            // R-EVT-INST: an instance is valid only during its callback.
            if k == HandleKind::Instance {
                return undefined;
            }
            let table = self.table(k);
            // MPI_T_PVAR_ALL_HANDLES: read, write and readreset "cannot" take it, no code
            // given (R-PREAD-1, `judge::policy`); start, stop and reset take it
            // (R-PSTART-2); it is no handle of any other call.
            if r == Ref::All {
                match c.takes_all_handles() {
                    true => continue,
                    false => return undefined,
                }
            }
            // The function's own sentence names the code for a handle that no longer
            // matches a valid allocated one: one the sequence made and freed. A NULL
            // (0, which no name of the standard defines for a registration) or a
            // handle of another kind is no handle at all: undefined (R-GEN-3).
            let explicit_code = policy::has(f, Policy::HandleExplicit) && matches!(r, Ref::Made(_));
            if !Self::live(table, r) && !explicit_code {
                return undefined;
            }
        }
        // An enumtype no get_info returned (MPI_T_ENUM_NULL or garbage): an invalid
        // parameter value, undefined (R-GEN-3); the table's code for it is the
        // enumeration group's INVALID_INDEX ("The enumeration index is invalid").
        if matches!(c.arg("enumtype"), Some(A::Enumtype(e)) if usize::from(*e) >= self.enums.len())
        {
            return undefined;
        }
        // An index out of range: explicit where the function's text names the code
        // (R-EVT-IDX, R-SRC-TS), else only the table lists it (SHOULD). Not the
        // reference's hooks, which are no MPI_T function.
        if let Some((k, i)) = c.entry() {
            if !self.in_range(k, i) && f.group() != Group::Harness {
                return match policy::has(f, Policy::BadIndexExplicit) {
                    true => explicit,
                    false => table_only,
                };
            }
        }
        // An enumeration's item out of range: only the table lists the code.
        if f.param("item").is_some() && (!self.valid(c) || self.mode.robustness) {
            let n = self
                .enums
                .get(c.int("enumtype") as usize)
                .and_then(|e| self.mirror().catalog.enums.iter().find(|x| &x.name == e))
                .map_or(0, |x| x.items.len() as i32);
            let item = c.int("item") as i32;
            if item < 0 || item >= n {
                return table_only;
            }
        }
        Level::Must
    }
}

/// The pvar handle a call passes (`MPI_T_PVAR_ALL_HANDLES` included), if any.
fn pvar_handle(c: &Call) -> Option<Ref> {
    c.args.iter().find_map(|(_, a)| match a {
        A::Handle(HandleKind::Pvar, r) => Some(*r),
        _ => None,
    })
}
