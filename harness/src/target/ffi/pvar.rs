//! Performance variables (MPI-4.1 §15.3.7): queries, sessions, handles, start/stop,
//! read/write/reset/readreset. `MPI_T_PVAR_ALL_HANDLES` is just a handle value here (the
//! profile's, resolved by `Target::open`); what the standard allows with it is the
//! cases' business (R-PSTART-2, R-PREAD-1).

use super::buffers::{BufSlot, ObjSlot};
use super::strings::StrSlot;
use super::{BufOut, Called, Lib, ObjArg, RawHandle, RawObj, StrArg, StrOut};
use std::ffi::c_int;

/// Every OUT value of `MPI_T_pvar_get_info` (datatype widened to 64 bits).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawPvarInfo {
    pub name: StrOut,
    pub verbosity: c_int,
    pub var_class: c_int,
    pub datatype: RawObj,
    pub enumtype: RawHandle,
    pub desc: StrOut,
    pub bind: c_int,
    pub readonly: c_int,
    pub continuous: c_int,
    pub atomic: c_int,
}

impl Lib {
    pub fn pvar_get_num(&self) -> Called<i32> {
        Self::get_num(self.raw.pvar_get_num)
    }

    pub fn pvar_get_info(&self, i: i32, name: StrArg, desc: StrArg) -> Called<RawPvarInfo> {
        let f = self.raw.pvar_get_info?;
        let (mut n, mut d) = (StrSlot::new(name), StrSlot::new(desc));
        let mut o = RawPvarInfo::default();
        // SAFETY: as in `cvar_get_info`.
        let rc = unsafe {
            f(
                i,
                n.buf_ptr(),
                n.len_ptr(),
                &mut o.verbosity,
                &mut o.var_class,
                &mut o.datatype,
                &mut o.enumtype,
                d.buf_ptr(),
                d.len_ptr(),
                &mut o.bind,
                &mut o.readonly,
                &mut o.continuous,
                &mut o.atomic,
            )
        };
        o.name = n.out();
        o.desc = d.out();
        o.datatype = self.obj_out(o.datatype);
        Some((rc, o))
    }

    /// `MPI_T_pvar_get_index(name, var_class, &index)` (R-PVAR-4).
    pub fn pvar_get_index(&self, name: &str, class: i32) -> Called<i32> {
        let f = self.raw.pvar_get_index?;
        let c = super::cstring(name);
        let mut i = -1;
        // SAFETY: a NUL-terminated string and a valid int pointer.
        Some((unsafe { f(c.as_ptr(), class, &mut i) }, i))
    }

    /// `MPI_T_pvar_session_create(&session)` (R-SESS-1).
    pub fn pvar_session_create(&self) -> Called<RawHandle> {
        let f = self.raw.pvar_session_create?;
        let mut s: RawHandle = 0;
        // SAFETY: a valid OUT handle variable.
        Some((unsafe { f(&mut s) }, s))
    }

    /// `MPI_T_pvar_session_free(&session)`: the session variable after the call (R-SESS-1:
    /// MPI_T_PVAR_SESSION_NULL on success).
    pub fn pvar_session_free(&self, s: RawHandle) -> Called<RawHandle> {
        let f = self.raw.pvar_session_free?;
        let mut v = s;
        // SAFETY: a valid INOUT handle variable (its value is the caller's probe).
        Some((unsafe { f(&mut v) }, v))
    }

    /// `MPI_T_pvar_handle_alloc(session, index, obj_handle, &handle, &count)` (R-PH-1):
    /// the handle and count as the library left them (`-1`: count not written).
    pub fn pvar_handle_alloc(
        &self,
        s: RawHandle,
        index: i32,
        obj: ObjArg,
    ) -> Called<(RawHandle, i32)> {
        let f = self.raw.pvar_handle_alloc?;
        let mut o = ObjSlot::new(obj);
        let mut h: RawHandle = 0;
        let mut count: c_int = -1;
        // SAFETY: obj_handle is NULL or the address of a local handle variable of this
        // frame; h and count are ours.
        let rc = unsafe { f(s, index, o.ptr(), &mut h, &mut count) };
        Some((rc, (h, count)))
    }

    /// `MPI_T_pvar_handle_free(session, &handle)`: the handle variable after the call
    /// (R-PH-1: MPI_T_PVAR_HANDLE_NULL on success).
    pub fn pvar_handle_free(&self, s: RawHandle, h: RawHandle) -> Called<RawHandle> {
        let f = self.raw.pvar_handle_free?;
        let mut v = h;
        // SAFETY: a valid INOUT handle variable.
        Some((unsafe { f(s, &mut v) }, v))
    }

    /// `MPI_T_pvar_start(session, handle)` (R-PSTART-1/2).
    pub fn pvar_start(&self, s: RawHandle, h: RawHandle) -> Called<()> {
        let f = self.raw.pvar_start?;
        // SAFETY: two handle values by value; no memory is passed.
        Some((unsafe { f(s, h) }, ()))
    }

    /// `MPI_T_pvar_stop(session, handle)`.
    pub fn pvar_stop(&self, s: RawHandle, h: RawHandle) -> Called<()> {
        let f = self.raw.pvar_stop?;
        // SAFETY: as in `pvar_start`.
        Some((unsafe { f(s, h) }, ()))
    }

    /// `MPI_T_pvar_reset(session, handle)` (R-PRESET-1).
    pub fn pvar_reset(&self, s: RawHandle, h: RawHandle) -> Called<()> {
        let f = self.raw.pvar_reset?;
        // SAFETY: as in `pvar_start`.
        Some((unsafe { f(s, h) }, ()))
    }

    /// `MPI_T_pvar_read(session, handle, buf)` into `bytes` bytes (count × datatype
    /// size, R-PREAD-1) followed by guard bytes.
    pub fn pvar_read(&self, s: RawHandle, h: RawHandle, bytes: usize) -> Called<BufOut> {
        let f = self.raw.pvar_read?;
        let mut b = BufSlot::new(bytes);
        // SAFETY: the buffer holds `bytes` + guard bytes, 8-byte aligned.
        let rc = unsafe { f(s, h, b.ptr()) };
        Some((rc, b.out()))
    }

    /// `MPI_T_pvar_readreset(session, handle, buf)` (R-PRR-1), buffer as in `pvar_read`.
    pub fn pvar_readreset(&self, s: RawHandle, h: RawHandle, bytes: usize) -> Called<BufOut> {
        let f = self.raw.pvar_readreset?;
        let mut b = BufSlot::new(bytes);
        // SAFETY: as in `pvar_read`.
        let rc = unsafe { f(s, h, b.ptr()) };
        Some((rc, b.out()))
    }

    /// `MPI_T_pvar_write(session, handle, buf)` from `data` (R-PWRITE-1).
    pub fn pvar_write(&self, s: RawHandle, h: RawHandle, data: &[u8]) -> Called<()> {
        let f = self.raw.pvar_write?;
        let mut b = BufSlot::with_data(data);
        // SAFETY: the buffer holds `data` and guard bytes; the library only reads it.
        let rc = unsafe { f(s, h, b.ptr().cast_const()) };
        Some((rc, ()))
    }
}
