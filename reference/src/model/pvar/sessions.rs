//! Sessions and handles (MPI-4.1 §15.3.7.2, §15.3.7.3): creating and freeing them, and
//! which handle of which session a call names (R-SESS-1, R-PH-1, R-PREAD-1).

use super::simulation::{starting_value, unzeroed};
use super::HandleState;
use crate::faults::Fault;
use crate::model::{hang, BoundObject, Model, PvarHandle, PvarTarget, Session};
use mpit_vocab::spec::{Datatype, PvarClass, TErr, TResult};

impl Model {
    /// Whether the target is one handle of a HIGH/LOWWATERMARK variable.
    pub fn pvar_handle_is_watermark(&self, s: Session, t: PvarTarget) -> bool {
        matches!(self.pvar_read_target(s, t), Ok(Some(st)) if matches!(
            self.cat.pvars[st.slot].class,
            PvarClass::HighWatermark | PvarClass::LowWatermark
        ))
    }

    /// R-SESS-1: a session that was never created or has been freed is INVALID_SESSION.
    pub(super) fn pvar_session(&self, s: Session) -> TResult<()> {
        self.require_init()?;
        if self.pvar.sessions.contains(&s) {
            Ok(())
        } else {
            Err(TErr::InvalidSession)
        }
    }

    /// A handle in session `s`. R-PH-1: a handle not associated with `s` is
    /// INVALID_HANDLE (fault `foreign-session-handle-accepted`: taken anyway).
    pub(super) fn pvar_handle(&self, s: Session, h: PvarHandle) -> TResult<&HandleState> {
        self.pvar_session(s)?;
        match self.pvar.handles.get(&h) {
            Some(st) if st.session == s || self.fault(Fault::ForeignSessionHandleAccepted) => {
                Ok(st)
            }
            _ => Err(TErr::InvalidHandle),
        }
    }

    /// One handle where MPI_T_PVAR_ALL_HANDLES may not be passed (R-PREAD-1: write,
    /// readreset). The spec names no code for that misuse; INVALID_HANDLE is the natural one.
    pub(super) fn pvar_single(&self, s: Session, t: PvarTarget) -> TResult<PvarHandle> {
        match t {
            PvarTarget::All => {
                self.pvar_session(s)?;
                Err(TErr::InvalidHandle)
            }
            PvarTarget::One(h) => self.pvar_handle(s, h).map(|_| h),
        }
    }

    /// What `pvar_read` reads: one handle, or under fault `read-accepts-all-handles`
    /// the session's first handle for ALL_HANDLES (`None`: the session has none).
    pub(super) fn pvar_read_target(
        &self,
        s: Session,
        t: PvarTarget,
    ) -> TResult<Option<&HandleState>> {
        match t {
            PvarTarget::All if self.fault(Fault::ReadAcceptsAllHandles) => {
                self.pvar_session(s)?;
                Ok(self.pvar.handles.values().find(|st| st.session == s))
            }
            _ => {
                let h = self.pvar_single(s, t)?;
                Ok(self.pvar.handles.get(&h))
            }
        }
    }

    /// `MPI_T_pvar_session_create`.
    pub fn pvar_session_create(&mut self) -> TResult<Session> {
        self.require_init()?;
        if self.fault(Fault::HangInCall) {
            hang();
        }
        let s = Session(self.new_id());
        self.pvar.sessions.insert(s);
        Ok(s)
    }

    /// `MPI_T_pvar_session_free`: returns the value the session variable must hold after.
    pub fn pvar_session_free(&mut self, s: Session) -> TResult<Session> {
        self.pvar_session(s)?;
        self.pvar.sessions.remove(&s);
        self.pvar.handles.retain(|_, st| st.session != s);
        // R-SESS-1: the session variable becomes MPI_T_PVAR_SESSION_NULL.
        Ok(if self.fault(Fault::SessionNotNulled) {
            s
        } else {
            Session(0)
        })
    }

    /// `MPI_T_pvar_handle_alloc`: handle and count.
    pub fn pvar_handle_alloc(
        &mut self,
        s: Session,
        i: i32,
        obj: BoundObject,
    ) -> TResult<(PvarHandle, i32)> {
        self.pvar_session(s)?;
        let slot = self.index(i, self.pvar_visible())?;
        let p = &self.cat.pvars[slot];
        self.check_binding(p.bind, obj)?;
        let count = p.count as usize;
        let st = HandleState {
            session: s,
            slot,
            count,
            continuous: p.continuous,
            // R-PSTART-1: non-continuous handles start stopped.
            started: false,
            value: starting_value(p, &self.pvar.world[slot], count),
        };
        let st = if p.class.starts_at_zero() && self.fault(Fault::UpstreamMpich5970) {
            // mpich#5970: the sum buffer was malloc'ed, not zeroed.
            HandleState {
                value: unzeroed(st.value),
                ..st
            }
        } else {
            st
        };
        let h = PvarHandle(self.new_id());
        self.pvar.handles.insert(h, st);
        Ok((h, count as i32))
    }

    /// `MPI_T_pvar_handle_free`: returns the value the handle variable must hold after.
    pub fn pvar_handle_free(&mut self, s: Session, h: PvarHandle) -> TResult<PvarHandle> {
        self.pvar_handle(s, h)?;
        self.pvar.handles.remove(&h);
        // R-PH-1: the handle variable becomes MPI_T_PVAR_HANDLE_NULL.
        Ok(PvarHandle(0))
    }

    /// Datatype and element count behind a handle (the C ABI copies count × size bytes).
    pub fn pvar_handle_layout(&self, s: Session, t: PvarTarget) -> TResult<(Datatype, usize)> {
        Ok(match self.pvar_read_target(s, t)? {
            Some(st) => (self.cat.pvars[st.slot].datatype, st.count),
            None => (Datatype::Int, 0),
        })
    }
}
