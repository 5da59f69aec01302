//! MPI-4.1 §15.3.7: performance variables, sessions, handles, MPI_T_PVAR_ALL_HANDLES.
//! (Contract stub: bodies to be written.)

use super::{BoundObject, EnumHandle, Model, PvarHandle, PvarTarget, Session};
use crate::catalog::Catalog;
use crate::faults::Faults;
use crate::spec::{Bind, Datatype, PvarClass, TResult, Verbosity};
use crate::value::Value;

/// What `MPI_T_pvar_get_info` returns (strings go through `crate::strings`).
#[derive(Debug, Clone, PartialEq)]
pub struct PvarInfo {
    pub name: String,
    pub verbosity: Verbosity,
    pub var_class: PvarClass,
    pub datatype: Datatype,
    pub enumtype: EnumHandle,
    pub desc: Option<String>,
    pub bind: Bind,
    pub readonly: bool,
    pub continuous: bool,
    pub atomic: bool,
}

#[derive(Debug, Default)]
pub(super) struct PvarState {}

impl PvarState {
    pub(super) fn new(_cat: &Catalog) -> Self {
        PvarState {}
    }
    /// Invalidate every session and handle (full MPI_T finalize).
    pub(super) fn clear_sessions(&mut self) {}
    /// One unit of simulated MPI activity.
    pub(super) fn step(&mut self, _cat: &Catalog, _faults: &Faults) {}
}

#[allow(unused_variables)]
impl Model {
    /// `MPI_T_pvar_get_num`.
    pub fn pvar_get_num(&self) -> TResult<i32> {
        unimplemented!()
    }
    /// `MPI_T_pvar_get_info`.
    pub fn pvar_get_info(&self, i: i32) -> TResult<PvarInfo> {
        unimplemented!()
    }
    /// `MPI_T_pvar_get_index` (R-PVAR-4: by name and class).
    pub fn pvar_get_index(&self, name: &str, class: PvarClass) -> TResult<i32> {
        unimplemented!()
    }
    /// `MPI_T_pvar_session_create`.
    pub fn pvar_session_create(&mut self) -> TResult<Session> {
        unimplemented!()
    }
    /// `MPI_T_pvar_session_free`: returns the value the session variable must hold after.
    pub fn pvar_session_free(&mut self, s: Session) -> TResult<Session> {
        unimplemented!()
    }
    /// `MPI_T_pvar_handle_alloc`: handle and count.
    pub fn pvar_handle_alloc(&mut self, s: Session, i: i32, obj: BoundObject) -> TResult<(PvarHandle, i32)> {
        unimplemented!()
    }
    /// `MPI_T_pvar_handle_free`: returns the value the handle variable must hold after.
    pub fn pvar_handle_free(&mut self, s: Session, h: PvarHandle) -> TResult<PvarHandle> {
        unimplemented!()
    }
    /// Datatype and element count behind a handle (the C ABI copies count × size bytes).
    pub fn pvar_handle_layout(&self, s: Session, t: PvarTarget) -> TResult<(Datatype, usize)> {
        unimplemented!()
    }
    /// `MPI_T_pvar_start`.
    pub fn pvar_start(&mut self, s: Session, t: PvarTarget) -> TResult<()> {
        unimplemented!()
    }
    /// `MPI_T_pvar_stop`.
    pub fn pvar_stop(&mut self, s: Session, t: PvarTarget) -> TResult<()> {
        unimplemented!()
    }
    /// `MPI_T_pvar_read` as a value.
    pub fn pvar_read_value(&self, s: Session, t: PvarTarget) -> TResult<Value> {
        unimplemented!()
    }
    /// `MPI_T_pvar_read`: the bytes for the user's buffer.
    pub fn pvar_read(&self, s: Session, t: PvarTarget) -> TResult<Vec<u8>> {
        unimplemented!()
    }
    /// `MPI_T_pvar_write` from the user's count × size bytes.
    pub fn pvar_write(&mut self, s: Session, t: PvarTarget, bytes: &[u8]) -> TResult<()> {
        unimplemented!()
    }
    /// `MPI_T_pvar_reset`.
    pub fn pvar_reset(&mut self, s: Session, t: PvarTarget) -> TResult<()> {
        unimplemented!()
    }
    /// `MPI_T_pvar_readreset`: the bytes read before the reset.
    pub fn pvar_readreset(&mut self, s: Session, t: PvarTarget) -> TResult<Vec<u8>> {
        unimplemented!()
    }
}
