//! MPI (not MPI_T) calls the harness needs: version queries (legal before MPI_Init),
//! MPI_Init/MPI_Finalize for a singleton, MPI_T init/finalize (MPI-4.1 §15.3.4),
//! communicator queries and MPI_Info objects through the profile's handle values, and
//! the reference's hooks.

use super::{cstring, Called, Lib, RawObj};
use std::ffi::c_int;

/// `MPI_MAX_INFO_KEY` is 36 in Open MPI and 256 elsewhere; this holds any of them.
const INFO_KEY_BUF: usize = 1024;
/// The buffer `info_get_string` offers for a value.
const INFO_VALUE_BUF: usize = 4096;

fn text(buf: &[u8]) -> String {
    let end = buf.iter().position(|c| *c == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

impl Lib {
    /// `MPI_Get_version` (legal before MPI_Init).
    pub fn get_version(&self) -> Called<(i32, i32)> {
        let f = self.raw.get_version?;
        let (mut a, mut b) = (0, 0);
        // SAFETY: two valid int pointers.
        let rc = unsafe { f(&mut a, &mut b) };
        Some((rc, (a, b)))
    }

    /// `MPI_Get_library_version` with an 8192-byte buffer, the largest any family needs.
    pub fn get_library_version(&self) -> Called<String> {
        let f = self.raw.get_library_version?;
        let mut buf = vec![0u8; 8192 + 1];
        let mut len: c_int = 0;
        // SAFETY: the buffer holds MPI_MAX_LIBRARY_VERSION_STRING (8192) bytes and a spare.
        let rc = unsafe { f(buf.as_mut_ptr().cast(), &mut len) };
        Some((rc, text(&buf).trim().to_string()))
    }

    /// `MPI_Abi_get_version` (MPI-5; legal at any time).
    pub fn abi_get_version(&self) -> Called<(i32, i32)> {
        let f = self.raw.abi_get_version?;
        let (mut a, mut b) = (0, 0);
        // SAFETY: two valid int pointers.
        let rc = unsafe { f(&mut a, &mut b) };
        Some((rc, (a, b)))
    }

    /// `MPI_Init(NULL, NULL)`: a singleton, no launcher.
    pub fn mpi_init(&self) -> Called<()> {
        let f = self.raw.mpi_init?;
        // SAFETY: MPI allows NULL argc/argv.
        Some((unsafe { f(std::ptr::null_mut(), std::ptr::null_mut()) }, ()))
    }

    pub fn mpi_finalize(&self) -> Called<()> {
        let f = self.raw.mpi_finalize?;
        // SAFETY: no arguments.
        Some((unsafe { f() }, ()))
    }

    /// `MPI_Initialized`: whether MPI_Init has been called (also after MPI_Finalize).
    pub fn initialized(&self) -> Called<bool> {
        let f = self.raw.initialized?;
        let mut flag: c_int = -1;
        // SAFETY: a valid int pointer.
        let rc = unsafe { f(&mut flag) };
        Some((rc, flag != 0))
    }

    /// `MPI_Finalized`.
    pub fn finalized(&self) -> Called<bool> {
        let f = self.raw.finalized?;
        let mut flag: c_int = -1;
        // SAFETY: a valid int pointer.
        let rc = unsafe { f(&mut flag) };
        Some((rc, flag != 0))
    }

    /// `MPI_T_init_thread(required, &provided)` (MPI-4.1 §15.3.4, R-INIT-1).
    pub fn init_thread(&self, required: i32) -> Called<i32> {
        let f = self.raw.init_thread?;
        let mut provided = -1;
        // SAFETY: a valid int pointer.
        Some((unsafe { f(required, &mut provided) }, provided))
    }

    /// `MPI_T_finalize` (R-FIN-1).
    pub fn finalize(&self) -> Called<()> {
        let f = self.raw.finalize?;
        // SAFETY: no arguments.
        Some((unsafe { f() }, ()))
    }

    /// `MPI_Comm_rank(comm, &rank)` with the profile's handle value of `comm`.
    pub fn comm_rank(&self, comm: RawObj) -> Called<i32> {
        let f = self.raw.comm_rank?;
        let mut r = -1;
        // SAFETY: `comm` by value (raw.rs: a register of either width); a valid int
        // pointer. A bad handle value is the library's to reject (MPI_ERR_COMM).
        Some((unsafe { f(comm, &mut r) }, r))
    }

    /// `MPI_Comm_size(comm, &size)`.
    pub fn comm_size(&self, comm: RawObj) -> Called<i32> {
        let f = self.raw.comm_size?;
        let mut n = -1;
        // SAFETY: as in `comm_rank`.
        Some((unsafe { f(comm, &mut n) }, n))
    }

    /// `MPI_Info_create(&info)`: the new handle (decoded with the family's width).
    pub fn info_create(&self) -> Called<RawObj> {
        let f = self.raw.info_create?;
        let mut slot: RawObj = 0;
        // SAFETY: an 8-byte slot, room for an MPI_Info of any family.
        let rc = unsafe { f(&mut slot) };
        Some((rc, self.obj_out(slot)))
    }

    /// `MPI_Info_set(info, key, value)` (keys and values cut at a NUL).
    pub fn info_set(&self, info: RawObj, key: &str, value: &str) -> Called<()> {
        let f = self.raw.info_set?;
        let (k, v) = (cstring(key), cstring(value));
        // SAFETY: `info` by value (raw.rs); two NUL-terminated strings that outlive the call.
        Some((unsafe { f(info, k.as_ptr(), v.as_ptr()) }, ()))
    }

    /// `MPI_Info_get_nkeys(info, &nkeys)`.
    pub fn info_get_nkeys(&self, info: RawObj) -> Called<i32> {
        let f = self.raw.info_get_nkeys?;
        let mut n = -1;
        // SAFETY: `info` by value; a valid int pointer.
        Some((unsafe { f(info, &mut n) }, n))
    }

    /// `MPI_Info_get_nthkey(info, n, key)` into a buffer larger than every family's
    /// `MPI_MAX_INFO_KEY`.
    pub fn info_get_nthkey(&self, info: RawObj, n: i32) -> Called<String> {
        let f = self.raw.info_get_nthkey?;
        let mut buf = vec![0u8; INFO_KEY_BUF];
        // SAFETY: `info` by value; the key buffer holds more than MPI_MAX_INFO_KEY bytes.
        let rc = unsafe { f(info, n, buf.as_mut_ptr().cast()) };
        Some((rc, text(&buf)))
    }

    /// `MPI_Info_get_string(info, key, &buflen, value, &flag)` (MPI-4.0): `None` when the
    /// key is not set (`flag` = 0). Values longer than 4095 bytes come back truncated.
    pub fn info_get_string(&self, info: RawObj, key: &str) -> Called<Option<String>> {
        let f = self.raw.info_get_string?;
        let k = cstring(key);
        let mut buf = vec![0u8; INFO_VALUE_BUF];
        let mut buflen = INFO_VALUE_BUF as c_int;
        let mut flag: c_int = 0;
        // SAFETY: `info` by value; the value buffer holds `buflen` bytes; valid ints.
        let rc = unsafe {
            f(
                info,
                k.as_ptr(),
                &mut buflen,
                buf.as_mut_ptr().cast(),
                &mut flag,
            )
        };
        Some((rc, (flag != 0).then(|| text(&buf))))
    }

    /// `MPI_Info_free(&info)`: the handle variable after the call (MPI_INFO_NULL on
    /// success).
    pub fn info_free(&self, info: RawObj) -> Called<RawObj> {
        let f = self.raw.info_free?;
        let mut slot = self.obj_in(info);
        // SAFETY: an 8-byte INOUT slot holding the handle as the family's variable would.
        let rc = unsafe { f(&mut slot) };
        Some((rc, self.obj_out(slot)))
    }

    /// The reference's `MPIT_Reference_simulate(steps)`: `steps` units of simulated MPI
    /// activity (counters count, levels move). Only the reference exports it.
    pub fn reference_simulate(&self, steps: i32) -> Called<()> {
        let f = self.raw.reference_simulate?;
        // SAFETY: plain integer argument.
        Some((unsafe { f(steps) }, ()))
    }

    /// The reference's `MPIT_Reference_raise_event(event_index, required)`: one event of
    /// that type observed in a context requiring `required` (a `MPI_T_cb_safety` number);
    /// the callbacks run before it returns. Only the reference exports it.
    pub fn reference_raise_event(&self, event_index: i32, required: i32) -> Called<()> {
        let f = self.raw.reference_raise_event?;
        // SAFETY: plain integer arguments; callbacks it runs are the recorder's, which
        // never unwind (recorder.rs).
        Some((unsafe { f(event_index, required) }, ()))
    }
}
