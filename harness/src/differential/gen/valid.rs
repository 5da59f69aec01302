//! Whether a call may come next (proptest-state-machine's precondition, checked again
//! while shrinking, and the filter on cargo-fuzz's picks): it names only objects the
//! sequence made and functions the target exports, with valid arguments unless
//! robustness is asked for (MPI-4.1 §15.3.10: the implementation need not check them).

use super::{Gen, Life};
use crate::differential::op::{Data, Kind, Op, Ref};

impl Gen {
    fn supports(&self, f: &str) -> bool {
        self.mirror.supports(f)
    }

    fn valid_ref(&self, table: &[Life], r: Ref) -> bool {
        match r {
            Ref::Made(n) => {
                (n as usize) < table.len() && (self.mode.robustness || table[n as usize].live)
            }
            Ref::Null | Ref::Foreign(_) => self.mode.robustness,
            Ref::All => false,
        }
    }

    fn writable_data(&self, table: &[Life], h: Ref, d: Data) -> bool {
        d != Data::Readback
            || matches!(h, Ref::Made(n) if table.get(n as usize).is_some_and(|l| l.read))
    }

    /// Whether this op may come next (proptest-state-machine's precondition, also
    /// checked while shrinking): it names only objects the sequence made, and only
    /// valid arguments unless robustness is asked for.
    pub fn valid(&self, op: &Op) -> bool {
        // (The function's name is made only when there is a list to look it up in.)
        let listed = !self.mirror.unsupported.is_empty();
        if listed && !op.needs_hooks() && !self.supports(&op.function()) {
            return false;
        }
        let r = self.mode.robustness;
        match op {
            Op::Simulate { .. } => self.mirror.hooks,
            Op::RaiseEvent { index, .. } => self.mirror.hooks && self.in_range(Kind::Event, *index),
            Op::MpiInit => self.mode.lifecycle && self.mirror.declared && !self.mpi,
            Op::EventInfoObject { index } => r || self.in_range(Kind::Event, *index),
            Op::EventRegisterCallback { registration, .. }
            | Op::EventSetDroppedHandler { registration, .. } => {
                self.valid_ref(&self.registrations, *registration)
            }
            Op::EventReadAfter { instance } => r && *instance < self.instances,
            Op::Finalize => self.mode.lifecycle || self.depth > 0,
            Op::InitThread { .. } => self.depth < 8,
            Op::GetInfo { kind, index, .. } => r || self.in_range(*kind, *index),
            Op::CategoryMembers { index, .. } | Op::CategoryGetNumEvents { index } => {
                r || self.in_range(Kind::Category, *index)
            }
            Op::SourceGetTimestamp { index } => r || self.in_range(Kind::Source, *index),
            Op::EnumGetInfo { enumtype, .. } => (*enumtype as usize) < self.enums.len(),
            Op::EnumGetItem { enumtype, item, .. } => {
                let Some(e) = self.enums.get(*enumtype as usize) else {
                    return false;
                };
                let n = self
                    .mirror
                    .catalog
                    .enums
                    .iter()
                    .find(|x| &x.name == e)
                    .map_or(0, |x| x.items.len() as i32);
                r || (*item >= 0 && *item < n)
            }
            Op::CvarHandleAlloc { index } => {
                (self.unbound.cvars.contains(index) && self.in_range(Kind::Cvar, *index))
                    || (r && !self.in_range(Kind::Cvar, *index))
            }
            Op::EventHandleAlloc { index } => {
                (self.unbound.events.contains(index) && self.in_range(Kind::Event, *index))
                    || (r && !self.in_range(Kind::Event, *index))
            }
            Op::CvarWrite { handle, data } => {
                self.valid_ref(&self.cvar_handles, *handle)
                    && self.writable_data(&self.cvar_handles, *handle, *data)
            }
            Op::PvarWrite { handle, data, .. }
                if !self.writable_data(&self.pvar_handles, *handle, *data) =>
            {
                false
            }
            Op::CvarHandleFree { handle } | Op::CvarRead { handle } => {
                self.valid_ref(&self.cvar_handles, *handle)
            }
            Op::SessionFree { session } => self.valid_ref(&self.sessions, *session),
            Op::PvarHandleAlloc { session, index } => {
                self.valid_ref(&self.sessions, *session)
                    && ((self.unbound.pvars.contains(index) && self.in_range(Kind::Pvar, *index))
                        || (r && !self.in_range(Kind::Pvar, *index)))
            }
            Op::Pvar {
                session, handle, ..
            } if *handle == Ref::All => self.valid_ref(&self.sessions, *session),
            Op::PvarRead {
                session, handle, ..
            } if *handle == Ref::All => r && self.valid_ref(&self.sessions, *session),
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
                self.valid_ref(&self.sessions, *session)
                    && self.valid_ref(&self.pvar_handles, *handle)
            }
            Op::EventHandleFree { registration } => {
                self.valid_ref(&self.registrations, *registration)
            }
            Op::GetNum(_)
            | Op::GetIndex { .. }
            | Op::PvarGetIndex { .. }
            | Op::CategoryChanged
            | Op::SessionCreate => true,
        }
    }
}
