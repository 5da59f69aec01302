//! At which level the standard fixes a call's outcome in a state (MPI-4.1 §15.3.10 and
//! each routine's clause; the conditions' levels are specs/return-codes.yaml `levels:`),
//! and the states where it lets more than one outcome stand, which the comparator asks
//! about: a pvar handle with another session (§15.3.7, R-PH-1), a variable that refuses
//! the call whatever the session, a second start of a started handle, a readreset of a
//! read-only non-atomic variable.

use super::{Gen, Life};
use crate::differential::op::{Act, Kind, Op, Ref, Str};
use crate::judge::return_codes::{
    Table, BAD_INDEX_EXPLICIT, BAD_INDEX_TABLE_ONLY, NULL_OUT_UNSTATED, UNDEFINED_ARGUMENT,
};
use crate::verdict::Level;
use mpit_reference::spec::TErr;
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
    /// A live pvar handle used with a live session it was not allocated in (R-PH-1).
    pub fn foreign_session(&self, op: &Op) -> bool {
        let (Op::Pvar {
            session: Ref::Made(s),
            handle: Ref::Made(h),
            ..
        }
        | Op::PvarRead {
            session: Ref::Made(s),
            handle: Ref::Made(h),
            ..
        }
        | Op::PvarWrite {
            session: Ref::Made(s),
            handle: Ref::Made(h),
            ..
        }
        | Op::PvarHandleFree {
            session: Ref::Made(s),
            handle: Ref::Made(h),
        }) = op
        else {
            return false;
        };
        Self::live(&self.sessions, Ref::Made(*s))
            && self
                .pvar_handles
                .get(usize::from(*h))
                .is_some_and(|l| l.live && l.session != *s)
    }

    /// The error a pvar call gets from its variable alone, whatever the session:
    /// start/stop of a continuous one (R-PSTART-1), write or reset of a read-only one
    /// (R-PWRITE-1, R-PRESET-1), readreset of a non-atomic one (R-PRR-1).
    pub fn refusal(&self, op: &Op) -> Option<TErr> {
        let (act, h) = match op {
            Op::Pvar {
                act,
                handle: Ref::Made(h),
                ..
            } => (Some(*act), *h),
            Op::PvarWrite {
                handle: Ref::Made(h),
                ..
            } => (Some(Act::Reset), *h),
            Op::PvarRead {
                reset: true,
                handle: Ref::Made(h),
                ..
            } => (None, *h),
            _ => return None,
        };
        let l = self.pvar_handles.get(usize::from(h))?;
        let p = self
            .mirror
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
    pub fn repeat_start_stop(&self, op: &Op) -> bool {
        let Op::Pvar {
            act: act @ (Act::Start | Act::Stop),
            session,
            handle: Ref::Made(n),
        } = op
        else {
            return false;
        };
        Self::live(&self.sessions, *session)
            && self.pvar_handles.get(usize::from(*n)).is_some_and(|l| {
                l.live
                    && *session == Ref::Made(l.session)
                    && l.started == (*act == Act::Start)
                    && !self.continuous(l.index)
            })
    }

    /// Whether `op` is a readreset of a handle on a read-only variable that cannot be
    /// read and reset atomically (two refusals at once).
    pub fn readonly_non_atomic(&self, op: &Op) -> bool {
        let Op::PvarRead {
            reset: true,
            handle: Ref::Made(h),
            ..
        } = op
        else {
            return false;
        };
        self.pvar_handles
            .get(usize::from(*h))
            .and_then(|l| {
                self.mirror
                    .catalog
                    .pvars
                    .get(usize::try_from(l.index).ok()?)
            })
            .is_some_and(|p| p.readonly && !p.atomic)
    }

    /// The level at which the standard fixes this op's outcome here (the
    /// conditions' levels are specs/return-codes.yaml `levels:`, which the spec suite's
    /// cases follow too).
    pub fn level(&self, op: &Op) -> Level {
        if !self.initialized() {
            // R-INIT-1: NOT_INITIALIZED from every routine but init, before init.
            return match op {
                Op::Finalize => Level::Should,
                _ => Level::Must,
            };
        }
        let bad_ref = |t: &[Life], r: Ref| !Self::live(t, r);
        let &Levels {
            table_only,
            explicit,
            undefined,
            null_out_unstated,
        } = Levels::shared();
        match op {
            // Every OUT argument NULL where no sentence says NULL is ignored
            // (specs/return-codes.yaml `null_out_unstated`).
            Op::EnumGetInfo { name, .. } | Op::EnumGetItem { name, .. } if *name == Str::NONE => {
                null_out_unstated
            }
            Op::GetInfo {
                kind: Kind::Source,
                desc,
                ..
            } if *desc == Str::NONE => null_out_unstated,
            // specs/return-codes.yaml `levels:`: a bad index is table-only (SHOULD) for cvar, pvar, category
            // and enum; explicit (MUST) for events and source timestamps.
            Op::GetInfo { kind, index, .. } if !self.in_range(*kind, *index) => match kind {
                Kind::Event => explicit,
                _ => table_only,
            },
            Op::CategoryMembers { index, .. } | Op::CategoryGetNumEvents { index }
                if !self.in_range(Kind::Category, *index) =>
            {
                table_only
            }
            Op::SourceGetTimestamp { index } if !self.in_range(Kind::Source, *index) => explicit,
            Op::EnumGetItem { .. } if !self.valid(op) || self.mode.robustness => match op {
                Op::EnumGetItem { item, enumtype, .. } => {
                    let n = self
                        .enums
                        .get(*enumtype as usize)
                        .and_then(|e| self.mirror.catalog.enums.iter().find(|x| &x.name == e))
                        .map_or(0, |x| x.items.len() as i32);
                    if *item < 0 || *item >= n {
                        table_only
                    } else {
                        Level::Must
                    }
                }
                _ => Level::Must,
            },
            Op::CvarHandleAlloc { index } if !self.in_range(Kind::Cvar, *index) => table_only,
            Op::PvarHandleAlloc { index, session } => {
                if bad_ref(&self.sessions, *session) {
                    undefined
                } else if !self.in_range(Kind::Pvar, *index) {
                    table_only
                } else {
                    Level::Must
                }
            }
            // Its text names no code for a bad index (unlike event_get_info's).
            Op::EventHandleAlloc { index } if !self.in_range(Kind::Event, *index) => table_only,
            Op::CvarHandleFree { handle }
            | Op::CvarRead { handle }
            | Op::CvarWrite { handle, .. }
                if bad_ref(&self.cvar_handles, *handle) =>
            {
                undefined
            }
            Op::SessionFree { session } if bad_ref(&self.sessions, *session) => undefined,
            Op::Pvar {
                session, handle, ..
            } if *handle == Ref::All => {
                if bad_ref(&self.sessions, *session) {
                    undefined
                } else {
                    Level::Must
                }
            }
            // "cannot be used" with read/write/readreset, no code given: undefined.
            Op::PvarRead {
                handle: Ref::All, ..
            }
            | Op::PvarWrite {
                handle: Ref::All, ..
            } => undefined,
            Op::PvarHandleFree { session, handle }
            | Op::Pvar {
                session, handle, ..
            }
            | Op::PvarRead {
                session, handle, ..
            }
            | Op::PvarWrite {
                session, handle, ..
            } => {
                if bad_ref(&self.sessions, *session) || bad_ref(&self.pvar_handles, *handle) {
                    undefined
                } else {
                    // A live handle with another live session: explicit INVALID_HANDLE.
                    Level::Must
                }
            }
            Op::EventRegisterCallback { registration, .. }
            | Op::EventSetDroppedHandler { registration, .. }
                if bad_ref(&self.registrations, *registration) =>
            {
                undefined
            }
            // R-EVT-INST: an instance is valid only during its callback.
            Op::EventReadAfter { .. } => undefined,
            // R-EVT-FREE: INVALID_HANDLE for a freed or NULL registration is explicit;
            // a foreign value is undefined.
            Op::EventHandleFree {
                registration: Ref::Foreign(_),
            } => undefined,
            _ => Level::Must,
        }
    }
}
