//! MPI-4.1 §15.3.8: event sources, event types, registrations, callbacks, dropped-event
//! handlers and callback-only instance access. (Contract stub: bodies to be written.)
//!
//! Callbacks are C function pointers and `user_data` is a C pointer: the model keeps both
//! as opaque `usize` tokens and never calls them. Raising an event returns the
//! [`Delivery`]s the C ABI must run, in order, *outside* the model's lock (a callback may
//! call MPI_T functions, e.g. `MPI_T_event_read`), then `end_delivery` for each instance.

use super::{BoundObject, EnumHandle, InfoHandle, Instance, Model, Registration};
use crate::spec::{Bind, CbSafety, Datatype, SourceOrder, TResult, Verbosity};

/// What `MPI_T_source_get_info` returns besides the info object.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceInfo {
    pub name: String,
    pub desc: Option<String>,
    pub ordering: SourceOrder,
    pub ticks_per_second: i64,
    pub max_ticks: i64,
}

/// What `MPI_T_event_get_info` returns besides the info object.
#[derive(Debug, Clone, PartialEq)]
pub struct EventInfo {
    pub name: String,
    pub verbosity: Verbosity,
    pub datatypes: Vec<Datatype>,
    /// Byte offsets, ascending from 0.
    pub displacements: Vec<i64>,
    pub enumtype: EnumHandle,
    pub desc: Option<String>,
    pub bind: Bind,
}

/// A callback the C ABI must invoke, outside the model's lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// `event_cb_function(instance, registration, safety, user_data)`.
    Event {
        cb: usize,
        instance: Instance,
        registration: Registration,
        safety: CbSafety,
        user_data: usize,
    },
    /// `dropped_cb_function(count, registration, source_index, safety, user_data)`.
    Dropped {
        cb: usize,
        count: i64,
        registration: Registration,
        source_index: i32,
        safety: CbSafety,
        user_data: usize,
    },
    /// `free_cb_function(registration, safety, user_data)`.
    Free {
        cb: usize,
        registration: Registration,
        safety: CbSafety,
        user_data: usize,
    },
}

#[derive(Debug, Default)]
pub(super) struct EventState {}

impl EventState {
    /// Invalidate every registration (full MPI_T finalize).
    pub(super) fn clear_registrations(&mut self) {}
}

#[allow(unused_variables)]
impl Model {
    /// `MPI_T_source_get_num`.
    pub fn source_get_num(&self) -> TResult<i32> {
        unimplemented!()
    }
    /// `MPI_T_source_get_info`; with `want_info`, a new info object (MPI_INFO_NULL never).
    pub fn source_get_info(&mut self, i: i32, want_info: bool) -> TResult<(SourceInfo, Option<InfoHandle>)> {
        unimplemented!()
    }
    /// `MPI_T_source_get_timestamp`.
    pub fn source_get_timestamp(&mut self, i: i32) -> TResult<i64> {
        unimplemented!()
    }
    /// `MPI_T_event_get_num`.
    pub fn event_get_num(&self) -> TResult<i32> {
        unimplemented!()
    }
    /// `MPI_T_event_get_info`; with `want_info`, a new info object (`None` under fault
    /// `event-info-null`, which the C ABI writes as MPI_INFO_NULL).
    pub fn event_get_info(&mut self, i: i32, want_info: bool) -> TResult<(EventInfo, Option<InfoHandle>)> {
        unimplemented!()
    }
    /// `MPI_T_event_get_index`.
    pub fn event_get_index(&self, name: &str) -> TResult<i32> {
        unimplemented!()
    }
    /// `MPI_T_event_handle_alloc`.
    pub fn event_handle_alloc(&mut self, i: i32, obj: BoundObject, info: Option<InfoHandle>) -> TResult<Registration> {
        unimplemented!()
    }
    /// `MPI_T_event_handle_set_info`.
    pub fn event_handle_set_info(&mut self, r: Registration, info: Option<InfoHandle>) -> TResult<()> {
        unimplemented!()
    }
    /// `MPI_T_event_handle_get_info`: a new info object.
    pub fn event_handle_get_info(&mut self, r: Registration) -> TResult<InfoHandle> {
        unimplemented!()
    }
    /// `MPI_T_event_register_callback`; `cb: None` removes the callback of that level.
    pub fn event_register_callback(&mut self, r: Registration, safety: CbSafety, info: Option<InfoHandle>, user_data: usize, cb: Option<usize>) -> TResult<()> {
        unimplemented!()
    }
    /// `MPI_T_event_callback_set_info`.
    pub fn event_callback_set_info(&mut self, r: Registration, safety: CbSafety, info: Option<InfoHandle>) -> TResult<()> {
        unimplemented!()
    }
    /// `MPI_T_event_callback_get_info`: a new info object.
    pub fn event_callback_get_info(&mut self, r: Registration, safety: CbSafety) -> TResult<InfoHandle> {
        unimplemented!()
    }
    /// `MPI_T_event_handle_free`: the free callback to run (if any).
    pub fn event_handle_free(&mut self, r: Registration, user_data: usize, free_cb: Option<usize>) -> TResult<Vec<Delivery>> {
        unimplemented!()
    }
    /// `MPI_T_event_set_dropped_handler`; `None` disables.
    pub fn event_set_dropped_handler(&mut self, r: Registration, cb: Option<usize>) -> TResult<()> {
        unimplemented!()
    }
    /// `MPI_T_event_read`: element `element` of a live instance.
    pub fn event_read(&self, inst: Instance, element: i32) -> TResult<Vec<u8>> {
        unimplemented!()
    }
    /// `MPI_T_event_copy`: the whole event data (extent bytes).
    pub fn event_copy(&self, inst: Instance) -> TResult<Vec<u8>> {
        unimplemented!()
    }
    /// `MPI_T_event_get_timestamp`.
    pub fn event_get_timestamp(&self, inst: Instance) -> TResult<i64> {
        unimplemented!()
    }
    /// `MPI_T_event_get_source`.
    pub fn event_get_source(&self, inst: Instance) -> TResult<i32> {
        unimplemented!()
    }
    /// Reference-only hook (`MPIT_Reference_raise_event`): the implementation observes one
    /// event of type `i` in a context that requires `required` safety; returns the
    /// callbacks to run in order.
    pub fn raise_event(&mut self, i: i32, required: CbSafety) -> TResult<Vec<Delivery>> {
        unimplemented!()
    }
    /// After the C ABI ran an `Event` delivery: its instance is no longer valid.
    pub fn end_delivery(&mut self, inst: Instance) {
        unimplemented!()
    }
}
