//! The calls on cvar and pvar handles and sessions, with their checks (R-CVAR-7,
//! R-CVAR-8, R-SESS-1, R-PH-1, R-PREAD-1).

use super::{Pool, Run, MAX_BUF};
use crate::fuzzing::reference_ffi::check_buf;
use crate::fuzzing::reference_ffi::input::Op;
use crate::kind::Kind;
use crate::target::ffi::RawHandle;

impl Run<'_> {
    /// The calls on handles: cvar and pvar handles, sessions, registrations,
    /// instances, info objects, and the reference's hooks.
    pub(super) fn exec_handles(&mut self, op: &Op) {
        let f = self.f;
        let lib = &f.target.lib;
        match op {
            Op::CvarHandleAlloc(i, o) => {
                let i = self.idx(*i, self.count(Kind::Cvar));
                if let Some((rc, (h, count))) = lib.cvar_handle_alloc(i, self.obj(*o)) {
                    if self.t("MPI_T_cvar_handle_alloc", rc) {
                        let elem = f.cvar_elem.get(i as usize).copied().unwrap_or(8);
                        let need = (count.max(0) as usize).saturating_mul(elem).min(MAX_BUF);
                        self.cvars.push((h as u64, need));
                    }
                }
            }
            Op::CvarHandleFree(h) => {
                let h = self.h(*h, Pool::Cvar);
                if let Some((rc, after)) = lib.cvar_handle_free(h as RawHandle) {
                    if self.t("MPI_T_cvar_handle_free", rc) {
                        self.stale_cvar("MPI_T_cvar_handle_free", h);
                        assert_eq!(
                            after as u64, f.nulls.cvar,
                            "R-CVAR-7: MPI_T_cvar_handle_free leaves MPI_T_CVAR_HANDLE_NULL"
                        );
                        self.freed_cvars.push(h);
                        self.forget(h);
                    }
                }
            }
            Op::CvarRead(h, extra) => {
                let h = self.h(*h, Pool::Cvar);
                let need = self.cvar_need(h);
                if let Some((rc, out)) = lib.cvar_read(h as RawHandle, Self::buf_size(need, *extra))
                {
                    let ok = self.t("MPI_T_cvar_read", rc);
                    if ok {
                        self.stale_cvar("MPI_T_cvar_read", h);
                    }
                    check_buf("MPI_T_cvar_read", "R-CVAR-8", &out, need, ok);
                }
            }
            Op::CvarWrite(h, data) => {
                let h = self.h(*h, Pool::Cvar);
                let data = Self::data(self.cvar_need(h), data);
                if let Some((rc, ())) = lib.cvar_write(h as RawHandle, &data) {
                    if self.t("MPI_T_cvar_write", rc) {
                        self.stale_cvar("MPI_T_cvar_write", h);
                    }
                }
            }
            Op::SessionCreate => {
                if let Some((rc, s)) = lib.pvar_session_create() {
                    if self.t("MPI_T_pvar_session_create", rc) {
                        self.sessions.push(s as u64);
                    }
                }
            }
            Op::SessionFree(s) => {
                let s = self.h(*s, Pool::Session);
                if let Some((rc, after)) = lib.pvar_session_free(s as RawHandle) {
                    if self.t("MPI_T_pvar_session_free", rc) {
                        assert_eq!(
                            after as u64, f.nulls.session,
                            "R-SESS-1: MPI_T_pvar_session_free leaves MPI_T_PVAR_SESSION_NULL"
                        );
                        self.forget_session(s);
                    }
                }
            }
            Op::PvarHandleAlloc(s, i, o) => {
                let s = self.h(*s, Pool::Session);
                let i = self.idx(*i, self.count(Kind::Pvar));
                if let Some((rc, (h, count))) =
                    lib.pvar_handle_alloc(s as RawHandle, i, self.obj(*o))
                {
                    if self.t("MPI_T_pvar_handle_alloc", rc) {
                        let elem = f.pvar_elem.get(i as usize).copied().unwrap_or(8);
                        let need = (count.max(0) as usize).saturating_mul(elem).min(MAX_BUF);
                        self.pvars.push((s, h as u64, need));
                    }
                }
            }
            Op::PvarHandleFree(s, h) => {
                let (s, h) = (self.rh(*s, Pool::Session), self.h(*h, Pool::Pvar));
                if let Some((rc, after)) = lib.pvar_handle_free(s, h as RawHandle) {
                    if self.t("MPI_T_pvar_handle_free", rc) {
                        assert_eq!(
                            after as u64, f.nulls.pvar,
                            "R-PH-1: MPI_T_pvar_handle_free leaves MPI_T_PVAR_HANDLE_NULL"
                        );
                        self.forget(h);
                    }
                }
            }
            Op::PvarStart(s, h) | Op::PvarStop(s, h) | Op::PvarReset(s, h) => {
                let (s, h) = (self.rh(*s, Pool::Session), self.rh(*h, Pool::Pvar));
                let (call, r) = match op {
                    Op::PvarStart(..) => ("MPI_T_pvar_start", lib.pvar_start(s, h)),
                    Op::PvarStop(..) => ("MPI_T_pvar_stop", lib.pvar_stop(s, h)),
                    _ => ("MPI_T_pvar_reset", lib.pvar_reset(s, h)),
                };
                if let Some((rc, ())) = r {
                    self.t(call, rc);
                }
            }
            Op::PvarRead(s, h, extra) | Op::PvarReadreset(s, h, extra) => {
                let (s, h) = (self.rh(*s, Pool::Session), self.h(*h, Pool::Pvar));
                let need = self.pvar_need(h);
                let bytes = Self::buf_size(need, *extra);
                let (call, r) = match op {
                    Op::PvarRead(..) => {
                        ("MPI_T_pvar_read", lib.pvar_read(s, h as RawHandle, bytes))
                    }
                    _ => (
                        "MPI_T_pvar_readreset",
                        lib.pvar_readreset(s, h as RawHandle, bytes),
                    ),
                };
                if let Some((rc, out)) = r {
                    let ok = self.t(call, rc);
                    self.not_all_handles(call, h, ok);
                    check_buf(call, "R-PREAD-1", &out, need, ok);
                }
            }
            Op::PvarWrite(s, h, data) => {
                let (s, h) = (self.rh(*s, Pool::Session), self.h(*h, Pool::Pvar));
                let data = Self::data(self.pvar_need(h), data);
                if let Some((rc, ())) = lib.pvar_write(s, h as RawHandle, &data) {
                    let ok = self.t("MPI_T_pvar_write", rc);
                    self.not_all_handles("MPI_T_pvar_write", h, ok);
                }
            }
            _ => self.exec_events(op),
        }
    }

    /// R-CVAR-7 as the reference implements it: a freed cvar handle is refused.
    fn stale_cvar(&self, call: &str, h: u64) {
        assert!(
            !self.freed_cvars.contains(&h),
            "R-CVAR-7: {call} accepted the cvar handle {h:#x} freed before"
        );
    }

    /// R-PREAD-1: `MPI_T_PVAR_ALL_HANDLES` may not be passed to read, readreset, write.
    fn not_all_handles(&self, call: &str, h: u64, ok: bool) {
        assert!(
            !(ok && h == self.f.nulls.all_handles),
            "R-PREAD-1: {call} accepted MPI_T_PVAR_ALL_HANDLES"
        );
    }
}
