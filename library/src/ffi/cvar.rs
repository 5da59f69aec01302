//! Control variables (MPI-4.1 §15.3.6): queries, handles, read and write.

use super::buffers::{BufSlot, ObjSlot};
use super::strings::{Nulls, StrSlot};
use super::{BufOut, Called, Lib, ObjArg, RawHandle, RawObj, StrArg, StrOut};
use std::ffi::c_int;

/// Every OUT value of `MPI_T_cvar_get_info` (datatype widened to 64 bits).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawCvarInfo {
    pub name: StrOut,
    pub verbosity: c_int,
    pub datatype: RawObj,
    pub enumtype: RawHandle,
    pub desc: StrOut,
    pub bind: c_int,
    pub scope: c_int,
}

impl Lib {
    pub fn cvar_get_num(&self) -> Called<i32> {
        Self::get_num(self.raw.cvar_get_num)
    }

    pub fn cvar_get_index(&self, name: &str) -> Called<i32> {
        Self::get_index(self.raw.cvar_get_index, name)
    }

    pub fn cvar_get_info(&self, i: i32, name: StrArg, desc: StrArg) -> Called<RawCvarInfo> {
        self.cvar_get_info_nulls(i, name, desc, Nulls::NONE)
    }

    /// `MPI_T_cvar_get_info` with the OUT arguments `nulls` names passed as NULL.
    pub fn cvar_get_info_nulls(
        &self,
        i: i32,
        name: StrArg,
        desc: StrArg,
        nulls: Nulls,
    ) -> Called<RawCvarInfo> {
        let f = self.raw.cvar_get_info?;
        let (mut n, mut d) = (StrSlot::new(name), StrSlot::new(desc));
        let mut o = RawCvarInfo::default();
        // SAFETY: every pointer is NULL (where StrArg or `nulls` asks) or points to storage of this
        // frame sized as the prototype requires (datatype widened to 8 bytes).
        let rc = unsafe {
            f(
                i,
                n.buf_ptr(),
                n.len_ptr(),
                nulls.ptr("verbosity", &mut o.verbosity),
                nulls.ptr("datatype", &mut o.datatype),
                nulls.ptr("enumtype", &mut o.enumtype),
                d.buf_ptr(),
                d.len_ptr(),
                nulls.ptr("bind", &mut o.bind),
                nulls.ptr("scope", &mut o.scope),
            )
        };
        o.name = n.out();
        o.desc = d.out();
        o.datatype = self.obj_out(o.datatype);
        Some((rc, o))
    }

    /// `MPI_T_cvar_get_info` asking only for the name: every other OUT argument NULL,
    /// which R-CVAR-3 says is ignored ("a NULL OUT parameter to *_get_info").
    pub fn cvar_get_info_name_only(&self, i: i32, name: StrArg) -> Called<StrOut> {
        let f = self.raw.cvar_get_info?;
        let mut n = StrSlot::new(name);
        use std::ptr::null_mut as null;
        // SAFETY: the name pair is NULL or storage of this frame (as in `cvar_get_info`);
        // every other OUT pointer is NULL.
        let rc = unsafe {
            f(
                i,
                n.buf_ptr(),
                n.len_ptr(),
                null(),
                null(),
                null(),
                null(),
                null(),
                null(),
                null(),
            )
        };
        Some((rc, n.out()))
    }

    /// `MPI_T_cvar_handle_alloc(index, obj_handle, &handle, &count)` (R-CVAR-6, R-BIND-3):
    /// the handle and count as the library left them (`-1`: count not written).
    pub fn cvar_handle_alloc(&self, index: i32, obj: ObjArg) -> Called<(RawHandle, i32)> {
        let f = self.raw.cvar_handle_alloc?;
        let mut o = ObjSlot::new(obj);
        let mut h: RawHandle = 0;
        let mut count: c_int = -1;
        // SAFETY: obj_handle is NULL or the address of a local handle variable of this
        // frame (16 bytes, more than any family's handle); h and count are ours.
        let rc = unsafe { f(index, o.ptr(), &mut h, &mut count) };
        Some((rc, (h, count)))
    }

    /// `MPI_T_cvar_handle_free(&handle)`: the handle variable after the call (R-CVAR-7:
    /// MPI_T_CVAR_HANDLE_NULL on success).
    pub fn cvar_handle_free(&self, h: RawHandle) -> Called<RawHandle> {
        let f = self.raw.cvar_handle_free?;
        let mut v = h;
        // SAFETY: a valid INOUT handle variable; the value is the caller's to choose
        // (a stale or garbage handle is a robustness probe, R-GEN-3).
        let rc = unsafe { f(&mut v) };
        Some((rc, v))
    }

    /// `MPI_T_cvar_read(handle, buf)` into `bytes` bytes (count × datatype size,
    /// R-CVAR-8) followed by guard bytes.
    pub fn cvar_read(&self, h: RawHandle, bytes: usize) -> Called<BufOut> {
        let f = self.raw.cvar_read?;
        let mut b = BufSlot::new(bytes);
        // SAFETY: the buffer holds `bytes` + GUARD bytes, 8-byte aligned.
        let rc = unsafe { f(h, b.ptr()) };
        Some((rc, b.out()))
    }

    /// `MPI_T_cvar_write(handle, buf)` from `data` (count × datatype size, R-CVAR-9).
    pub fn cvar_write(&self, h: RawHandle, data: &[u8]) -> Called<()> {
        let f = self.raw.cvar_write?;
        let mut b = BufSlot::with_data(data);
        // SAFETY: the buffer holds `data` and guard bytes; the library only reads it.
        let rc = unsafe { f(h, b.ptr().cast_const()) };
        Some((rc, ()))
    }

    /// `MPI_T_cvar_handle_alloc` for an unbound cvar (`obj_handle` NULL, ignored for
    /// NO_OBJECT: R-BIND-3), then `MPI_T_cvar_read` into `count × elem` bytes and free.
    pub fn cvar_read_unbound(&self, i: i32, elem_size: usize) -> Called<(i32, Vec<u8>)> {
        // All three must exist before any is called (no handle leaks on a partial table).
        self.raw.cvar_read?;
        self.raw.cvar_handle_free?;
        let (rc, (h, count)) = self.cvar_handle_alloc(i, ObjArg::Null)?;
        if rc != 0 {
            return Some((rc, (count.max(0), Vec::new())));
        }
        let bytes = (count.max(0) as usize).min(1 << 20) * elem_size;
        // The guard past count × size catches an implementation writing more than it said.
        let (rc, out) = self.cvar_read(h, bytes)?;
        self.cvar_handle_free(h);
        Some((rc, (count, out.bytes)))
    }
}
