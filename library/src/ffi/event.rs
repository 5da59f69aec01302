//! Events (MPI-4.1 §15.3.8, new in MPI-4.0): sources, event types, registration handles
//! and their hints, and the instance accessors. The calls that hand the library one of
//! the harness's callbacks (register_callback, set_dropped_handler, handle_free) are in
//! `recorder.rs`, beside the callbacks.

use super::buffers::ObjSlot;
use super::strings::{Nulls, StrSlot};
use super::{obj_from_bytes, BufOut, Called, Lib, ObjArg, RawHandle, RawObj, StrArg, StrOut};
use std::ffi::c_int;

/// Every OUT value of `MPI_T_source_get_info` (info handle not requested).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawSourceInfo {
    pub name: StrOut,
    pub desc: StrOut,
    pub ordering: c_int,
    pub ticks_per_second: i64,
    pub max_ticks: i64,
}

/// Every OUT value of `MPI_T_event_get_info` (arrays sized by the caller; datatypes
/// decoded with the family's width).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawEventInfo {
    pub name: StrOut,
    pub verbosity: c_int,
    pub datatypes: Vec<RawObj>,
    pub displacements: Vec<isize>,
    pub num_elements: c_int,
    pub enumtype: RawHandle,
    pub desc: StrOut,
    pub bind: c_int,
    /// The call wrote an array entry at or past `capacity` (§15.3.8.2: the arrays are
    /// filled up to the capacity `num_elements` gave), seen in guard entries after them.
    pub overrun: bool,
}

/// Guard entries after each array of `event_get_info`, and the value they hold.
const ARRAY_GUARD: usize = 4;
const DISP_SENTINEL: isize = -7;

impl Lib {
    pub fn source_get_num(&self) -> Called<i32> {
        Self::get_num(self.raw.source_get_num)
    }

    pub fn event_get_num(&self) -> Called<i32> {
        Self::get_num(self.raw.event_get_num)
    }

    pub fn event_get_index(&self, name: &str) -> Called<i32> {
        Self::get_index(self.raw.event_get_index, name)
    }

    /// `MPI_T_source_get_info` with a NULL info pointer (R-CVAR-3: ignored).
    pub fn source_get_info(&self, i: i32, name: StrArg, desc: StrArg) -> Called<RawSourceInfo> {
        self.source_get_info_nulls(i, name, desc, Nulls::NONE)
    }

    /// `MPI_T_source_get_info` with the OUT arguments `nulls` names passed as NULL.
    pub fn source_get_info_nulls(
        &self,
        i: i32,
        name: StrArg,
        desc: StrArg,
        nulls: Nulls,
    ) -> Called<RawSourceInfo> {
        let f = self.raw.source_get_info?;
        let (mut n, mut d) = (StrSlot::new(name), StrSlot::new(desc));
        let mut o = RawSourceInfo::default();
        // SAFETY: as in `cvar_get_info`; the info OUT pointer is NULL, which the standard
        // says is ignored.
        let rc = unsafe {
            f(
                i,
                n.buf_ptr(),
                n.len_ptr(),
                d.buf_ptr(),
                d.len_ptr(),
                nulls.ptr("ordering", &mut o.ordering),
                nulls.ptr("ticks_per_second", &mut o.ticks_per_second),
                nulls.ptr("max_ticks", &mut o.max_ticks),
                std::ptr::null_mut(),
            )
        };
        o.name = n.out();
        o.desc = d.out();
        Some((rc, o))
    }

    /// `MPI_T_source_get_info` asking only for the info object (every other OUT argument
    /// NULL, R-CVAR-3): MPI-4.1 §15.3.8.1 says it must be a new info object, empty if
    /// there are no hints, never MPI_INFO_NULL; the caller frees it.
    pub fn source_get_info_object(&self, i: i32) -> Called<RawObj> {
        let f = self.raw.source_get_info?;
        let mut info: RawObj = 0;
        use std::ptr::null_mut as null;
        // SAFETY: every OUT pointer but `info` is NULL (ignored); `info` is an 8-byte slot.
        let rc = unsafe {
            f(
                i,
                null(),
                null(),
                null(),
                null(),
                null(),
                null(),
                null(),
                &mut info,
            )
        };
        Some((rc, self.obj_out(info)))
    }

    /// `MPI_T_source_get_timestamp(source, &timestamp)` (§15.3.8.1: INVALID_INDEX for a bad
    /// index, NOT_SUPPORTED without ad-hoc timestamps).
    pub fn source_get_timestamp(&self, source: i32) -> Called<i64> {
        let f = self.raw.source_get_timestamp?;
        let mut t: i64 = -1;
        // SAFETY: a valid MPI_Count (int64_t) pointer.
        Some((unsafe { f(source, &mut t) }, t))
    }

    /// `MPI_T_event_get_info` with arrays of `capacity` elements and a NULL info pointer.
    /// `num_elements` is INOUT (§15.3.8.2): it goes in as `capacity` and comes back as the
    /// number of elements the event has.
    pub fn event_get_info(
        &self,
        i: i32,
        name: StrArg,
        desc: StrArg,
        capacity: usize,
    ) -> Called<RawEventInfo> {
        self.event_get_info_nulls(i, name, desc, capacity, Nulls::NONE)
    }

    /// `MPI_T_event_get_info` with the OUT arguments `nulls` names passed as NULL
    /// (`datatypes`, `displacements`: the arrays).
    pub fn event_get_info_nulls(
        &self,
        i: i32,
        name: StrArg,
        desc: StrArg,
        capacity: usize,
        nulls: Nulls,
    ) -> Called<RawEventInfo> {
        let f = self.raw.event_get_info?;
        let (mut n, mut d) = (StrSlot::new(name), StrSlot::new(desc));
        // MPI_Datatype array_of_datatypes[]: `capacity` handles of the family's width
        // (4-byte ints for MPICH); 8 bytes each are allocated so any width fits. Both
        // arrays get ARRAY_GUARD entries more, filled, to catch writes past capacity.
        let mut types = vec![super::FILL; (capacity + ARRAY_GUARD) * 8];
        let mut o = RawEventInfo {
            displacements: vec![-1; capacity + ARRAY_GUARD],
            num_elements: capacity as c_int,
            ..RawEventInfo::default()
        };
        o.displacements[capacity..].fill(DISP_SENTINEL);
        // SAFETY: the arrays hold `capacity` elements of their types and num_elements
        // says so (INOUT); the other pointers are NULL or storage of this frame.
        let rc = unsafe {
            f(
                i,
                n.buf_ptr(),
                n.len_ptr(),
                nulls.ptr("verbosity", &mut o.verbosity),
                if nulls.has("datatypes") {
                    std::ptr::null_mut()
                } else {
                    types.as_mut_ptr().cast()
                },
                if nulls.has("displacements") {
                    std::ptr::null_mut()
                } else {
                    o.displacements.as_mut_ptr()
                },
                nulls.ptr("num_elements", &mut o.num_elements),
                nulls.ptr("enumtype", &mut o.enumtype),
                std::ptr::null_mut(),
                d.buf_ptr(),
                d.len_ptr(),
                nulls.ptr("bind", &mut o.bind),
            )
        };
        let w = self.handle_width;
        o.overrun = types[capacity * w..].iter().any(|b| *b != super::FILL)
            || o.displacements[capacity..]
                .iter()
                .any(|d| *d != DISP_SENTINEL);
        o.displacements.truncate(capacity);
        o.datatypes = (0..capacity)
            .map(|k| obj_from_bytes(&types[k * w..(k + 1) * w], w))
            .collect();
        o.name = n.out();
        o.desc = d.out();
        Some((rc, o))
    }

    /// `MPI_T_event_get_info` asking only for the info object (as
    /// [`Lib::source_get_info_object`]; §15.3.8.2).
    pub fn event_get_info_object(&self, i: i32) -> Called<RawObj> {
        let f = self.raw.event_get_info?;
        let mut info: RawObj = 0;
        use std::ptr::null_mut as null;
        // SAFETY: every OUT pointer but `info` is NULL, which the standard says is
        // ignored (num_elements NULL ignores both arrays); `info` is an 8-byte slot.
        let rc = unsafe {
            f(
                i,
                null(),
                null(),
                null(),
                null(),
                null(),
                null(),
                null(),
                &mut info,
                null(),
                null(),
                null(),
            )
        };
        Some((rc, self.obj_out(info)))
    }

    /// `MPI_T_event_handle_alloc(index, obj_handle, info, &registration)` (§15.3.8.4).
    pub fn event_handle_alloc(&self, index: i32, obj: ObjArg, info: RawObj) -> Called<RawHandle> {
        let f = self.raw.event_handle_alloc?;
        let mut o = ObjSlot::new(obj);
        let mut r: RawHandle = 0;
        // SAFETY: obj_handle is NULL or the address of a local handle variable of this
        // frame; `info` by value (raw.rs); r is ours.
        let rc = unsafe { f(index, o.ptr(), info, &mut r) };
        Some((rc, r))
    }

    /// `MPI_T_event_handle_set_info(registration, info)`.
    pub fn event_handle_set_info(&self, reg: RawHandle, info: RawObj) -> Called<()> {
        let f = self.raw.event_handle_set_info?;
        // SAFETY: two handle values by value.
        Some((unsafe { f(reg, info) }, ()))
    }

    /// `MPI_T_event_handle_get_info(registration, &info_used)`: a new info object.
    pub fn event_handle_get_info(&self, reg: RawHandle) -> Called<RawObj> {
        let f = self.raw.event_handle_get_info?;
        let mut info: RawObj = 0;
        // SAFETY: an 8-byte OUT slot.
        let rc = unsafe { f(reg, &mut info) };
        Some((rc, self.obj_out(info)))
    }

    /// `MPI_T_event_callback_set_info(registration, cb_safety, info)`.
    pub fn event_callback_set_info(&self, reg: RawHandle, safety: i32, info: RawObj) -> Called<()> {
        let f = self.raw.event_callback_set_info?;
        // SAFETY: values only.
        Some((unsafe { f(reg, safety, info) }, ()))
    }

    /// `MPI_T_event_callback_get_info(registration, cb_safety, &info_used)`.
    pub fn event_callback_get_info(&self, reg: RawHandle, safety: i32) -> Called<RawObj> {
        let f = self.raw.event_callback_get_info?;
        let mut info: RawObj = 0;
        // SAFETY: an 8-byte OUT slot.
        let rc = unsafe { f(reg, safety, &mut info) };
        Some((rc, self.obj_out(info)))
    }
}

/// The instance accessors (§15.3.8.6) on a resolved table: shared by the [`Lib`]
/// methods and the recorder's callback, which has no `Lib` (only a copy of its table).
pub(super) mod instance {
    use super::super::buffers::BufSlot;
    use super::super::raw::Raw;
    use super::super::{BufOut, Called, RawHandle};
    use std::ffi::c_int;

    pub(in super::super) fn read(
        raw: &Raw,
        inst: RawHandle,
        element: i32,
        bytes: usize,
    ) -> Called<BufOut> {
        let f = raw.event_read?;
        let mut b = BufSlot::new(bytes);
        // SAFETY: the buffer holds `bytes` + guard bytes; the instance is a value.
        let rc = unsafe { f(inst, element, b.ptr()) };
        Some((rc, b.out()))
    }

    pub(in super::super) fn copy(raw: &Raw, inst: RawHandle, bytes: usize) -> Called<BufOut> {
        let f = raw.event_copy?;
        let mut b = BufSlot::new(bytes);
        // SAFETY: as in `read`.
        let rc = unsafe { f(inst, b.ptr()) };
        Some((rc, b.out()))
    }

    pub(in super::super) fn timestamp(raw: &Raw, inst: RawHandle) -> Called<i64> {
        let f = raw.event_get_timestamp?;
        let mut t: i64 = -1;
        // SAFETY: a valid MPI_Count pointer.
        Some((unsafe { f(inst, &mut t) }, t))
    }

    pub(in super::super) fn source(raw: &Raw, inst: RawHandle) -> Called<i32> {
        let f = raw.event_get_source?;
        let mut s: c_int = -1;
        // SAFETY: a valid int pointer.
        Some((unsafe { f(inst, &mut s) }, s))
    }
}

impl Lib {
    /// `MPI_T_event_read(instance, element, buffer)` into `bytes` bytes and guard bytes.
    /// Valid only inside a callback for the instance it was given (§15.3.8.6); outside,
    /// a robustness probe (R-GEN-3).
    pub fn event_read(&self, inst: RawHandle, element: i32, bytes: usize) -> Called<BufOut> {
        instance::read(&self.raw, inst, element, bytes)
    }

    /// `MPI_T_event_copy(instance, buffer)` into `bytes` bytes (the event's extent).
    pub fn event_copy(&self, inst: RawHandle, bytes: usize) -> Called<BufOut> {
        instance::copy(&self.raw, inst, bytes)
    }

    /// `MPI_T_event_get_timestamp(instance, &timestamp)`.
    pub fn event_get_timestamp(&self, inst: RawHandle) -> Called<i64> {
        instance::timestamp(&self.raw, inst)
    }

    /// `MPI_T_event_get_source(instance, &source_index)`.
    pub fn event_get_source(&self, inst: RawHandle) -> Called<i32> {
        instance::source(&self.raw, inst)
    }
}
