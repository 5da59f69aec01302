//! MPI (not MPI_T) calls the harness needs: version queries (legal before MPI_Init),
//! MPI_Init/MPI_Finalize for a singleton, MPI_T init/finalize (MPI-4.1 §15.3.4),
//! communicator queries and MPI_Info objects through the profile's handle values, and
//! the reference's hooks.

use super::raw::ObjFree;
use super::{cstring, Called, Lib, RawObj};
use std::ffi::c_int;

/// `MPI_MAX_INFO_KEY` is 36 in Open MPI and 256 elsewhere; this holds any of them.
const INFO_KEY_BUF: usize = 1024;
/// The buffer `info_get_string` offers for a value.
const INFO_VALUE_BUF: usize = 4096;
/// Bytes offered for an `MPI_Status`: more than any family's (MPICH 20, Open MPI 24,
/// the MPI-5.0 standard ABI 32).
const STATUS_BYTES: usize = 64;

fn text(buf: &[u8]) -> String {
    let end = buf.iter().position(|c| *c == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// A nonblocking send in flight: its request and the buffer the library may still read.
#[derive(Debug)]
pub struct PendingSend {
    req: RawObj,
    buf: Option<Box<i32>>,
}

impl Drop for PendingSend {
    fn drop(&mut self) {
        // Never waited (or the wait failed): the library may still read the buffer, so it
        // is leaked rather than freed.
        if let Some(b) = self.buf.take() {
            Box::leak(b);
        }
    }
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
        let rc = unsafe { f(std::ptr::null_mut(), std::ptr::null_mut()) };
        super::preload::release();
        Some((rc, ()))
    }

    pub fn mpi_finalize(&self) -> Called<()> {
        let f = self.raw.mpi_finalize?;
        // SAFETY: no arguments.
        Some((unsafe { f() }, ()))
    }

    /// `MPI_Init_thread(NULL, NULL, required, &provided)`: a singleton; `provided` is
    /// pre-filled with -1, so a library that never writes it is seen.
    pub fn mpi_init_thread(&self, required: i32) -> Called<i32> {
        let f = self.raw.mpi_init_thread?;
        let mut provided: c_int = -1;
        // SAFETY: MPI allows NULL argc/argv; a valid int pointer.
        let rc = unsafe {
            f(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                required,
                &mut provided,
            )
        };
        super::preload::release();
        Some((rc, provided))
    }

    /// `MPI_Query_thread(&provided)` (MPI-3.1 §12.4.3, R-MPI-1): the level MPI provides, which
    /// no `MPI_T_init_thread` may change. Pre-filled with -1.
    pub fn query_thread(&self) -> Called<i32> {
        let f = self.raw.query_thread?;
        let mut provided: c_int = -1;
        // SAFETY: a valid int pointer.
        Some((unsafe { f(&mut provided) }, provided))
    }

    /// `MPI_Session_init(info, errhandler, &session)` (the MPI-4.0 Sessions Model): the new
    /// session handle, decoded with the family's width (MPICH's `MPI_Session` is an int).
    pub fn session_init(&self, info: RawObj, errhandler: RawObj) -> Called<RawObj> {
        let f = self.raw.session_init?;
        let mut slot: RawObj = 0;
        // SAFETY: handles by value (raw.rs); an 8-byte OUT slot, room for either width.
        let rc = unsafe { f(info, errhandler, &mut slot) };
        Some((rc, self.obj_out(slot)))
    }

    /// `MPI_Session_finalize(&session)`: the handle variable after the call
    /// (MPI_SESSION_NULL on success).
    pub fn session_finalize(&self, session: RawObj) -> Called<RawObj> {
        self.free_obj(self.raw.session_finalize, session)
    }

    /// `MPI_Comm_dup(comm, &new)`: the new communicator, decoded with the family's width.
    pub fn comm_dup(&self, comm: RawObj) -> Called<RawObj> {
        let f = self.raw.comm_dup?;
        let mut slot: RawObj = 0;
        // SAFETY: a handle by value; an 8-byte OUT slot (either width).
        let rc = unsafe { f(comm, &mut slot) };
        Some((rc, self.obj_out(slot)))
    }

    /// `MPI_Comm_free(&comm)`: the handle variable after the call (MPI_COMM_NULL on
    /// success).
    pub fn comm_free(&self, comm: RawObj) -> Called<RawObj> {
        self.free_obj(self.raw.comm_free, comm)
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
        let rc = unsafe { f(required, &mut provided) };
        // A zygote's child: the library now holds what the zygote held for it (preload).
        super::preload::release();
        Some((rc, provided))
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
        self.free_obj(self.raw.info_free, info)
    }

    /// A `*_free`/`*_finalize` of an MPI object handle passed INOUT (`MPI_Info_free`,
    /// `MPI_Comm_free`, `MPI_Session_finalize`): the handle variable after the call.
    fn free_obj(&self, f: Option<ObjFree>, handle: RawObj) -> Called<RawObj> {
        let f = f?;
        let mut slot = self.obj_in(handle);
        // SAFETY: an 8-byte INOUT slot holding the handle as the family's variable would.
        let rc = unsafe { f(&mut slot) };
        Some((rc, self.obj_out(slot)))
    }

    /// `MPI_Isend` of one `int` (`datatype`: the family's MPI_INT) to `dest` on `comm`:
    /// nonblocking, because a blocking send to self before the receive is posted may
    /// wait forever (MPICH's does; MPI-4.1 §3.5 calls such a program unsafe). Complete
    /// it with [`Lib::wait_send`].
    pub fn isend_int(
        &self,
        value: i32,
        datatype: RawObj,
        dest: i32,
        tag: i32,
        comm: RawObj,
    ) -> Called<PendingSend> {
        let f = self.raw.mpi_isend?;
        let mut p = PendingSend {
            req: 0,
            buf: Some(Box::new(value)),
        };
        let buf: *const i32 = p.buf.as_deref().map_or(std::ptr::null(), |b| b);
        // SAFETY: the buffer is on the heap and lives until the request completed (wait_send)
        // or forever (PendingSend's Drop leaks it); the request slot is 8 bytes (either width).
        let rc = unsafe { f(buf.cast(), 1, datatype, dest, tag, comm, &mut p.req) };
        Some((rc, p))
    }

    /// `MPI_Wait` on a send of [`Lib::isend_int`].
    pub fn wait_send(&self, mut p: PendingSend) -> Called<()> {
        let f = self.raw.mpi_wait?;
        let mut status = [0u8; STATUS_BYTES];
        // SAFETY: the request the library wrote; a status buffer of STATUS_BYTES bytes.
        let rc = unsafe { f(&mut p.req, status.as_mut_ptr().cast()) };
        if rc == 0 {
            // Complete: the library no longer reads the buffer.
            p.buf = None;
        }
        Some((rc, ()))
    }

    /// `MPI_Recv` of one `int` from `source` on `comm`, with a status buffer larger than
    /// any family's `MPI_Status` (MPICH 20 bytes, Open MPI 24, the standard ABI 32).
    pub fn recv_int(&self, datatype: RawObj, source: i32, tag: i32, comm: RawObj) -> Called<i32> {
        let f = self.raw.mpi_recv?;
        let mut v: i32 = -1;
        let mut status = [0u8; STATUS_BYTES];
        // SAFETY: a 4-byte buffer for one int; a status buffer of STATUS_BYTES bytes.
        let rc = unsafe {
            f(
                (&mut v as *mut i32).cast(),
                1,
                datatype,
                source,
                tag,
                comm,
                status.as_mut_ptr().cast(),
            )
        };
        Some((rc, v))
    }

    /// `MPI_Irecv` of one `int` from `source`, then `MPI_Isend` of `value` to `dest`,
    /// then `MPI_Wait` on both: a message whose receive was posted first (to self when
    /// both are the caller's rank; around a ring of ranks otherwise).
    pub fn exchange_nonblocking(
        &self,
        value: i32,
        datatype: RawObj,
        (source, dest): (i32, i32),
        tag: i32,
        comm: RawObj,
    ) -> Called<i32> {
        let (irecv, isend, wait) = (self.raw.mpi_irecv?, self.raw.mpi_isend?, self.raw.mpi_wait?);
        // Boxed: the library keeps the buffer addresses until the waits return.
        let mut buf = Box::new(-1i32);
        let out = Box::new(value);
        let (mut rreq, mut sreq): (RawObj, RawObj) = (0, 0);
        let mut status = [0u8; STATUS_BYTES];
        // SAFETY: the buffers live on the heap until both requests completed below;
        // request slots are 8 bytes (either width); the status buffer as in `recv_int`.
        unsafe {
            let rc = irecv(
                (&mut *buf as *mut i32).cast(),
                1,
                datatype,
                source,
                tag,
                comm,
                &mut rreq,
            );
            if rc != 0 {
                return Some((rc, -1));
            }
            let rc = isend(
                (&*out as *const i32).cast(),
                1,
                datatype,
                dest,
                tag,
                comm,
                &mut sreq,
            );
            if rc != 0 {
                // The posted receive stays pending; the library cleans it up at finalize.
                return Some((rc, -1));
            }
            let rc = wait(&mut sreq, status.as_mut_ptr().cast());
            if rc != 0 {
                return Some((rc, -1));
            }
            let rc = wait(&mut rreq, status.as_mut_ptr().cast());
            Some((rc, *buf))
        }
    }

    /// `MPI_Wtime()`: the library's clock, in seconds (MPI-4.1 §9.6); what a TIMER pvar
    /// of type MPI_DOUBLE counts in (§15.3.7).
    pub fn wtime(&self) -> Option<f64> {
        let f = self.raw.wtime?;
        // SAFETY: no arguments; MPI_Wtime may be called at any time, even before
        // MPI_Init (MPI-4.1 §9.6, §11.2.1's list of such calls).
        Some(unsafe { f() })
    }

    /// `MPI_Barrier(comm)`.
    pub fn barrier(&self, comm: RawObj) -> Called<()> {
        let f = self.raw.mpi_barrier?;
        // SAFETY: a handle by value.
        Some((unsafe { f(comm) }, ()))
    }

    /// `MPI_Bcast` of one `int` from `root` on `comm`.
    pub fn bcast_int(&self, value: i32, datatype: RawObj, root: i32, comm: RawObj) -> Called<i32> {
        let f = self.raw.mpi_bcast?;
        let mut v = value;
        // SAFETY: a 4-byte buffer for one int; handles by value.
        let rc = unsafe { f((&mut v as *mut i32).cast(), 1, datatype, root, comm) };
        Some((rc, v))
    }

    /// `MPI_Comm_dup(comm, &new)` then `MPI_Comm_free(&new)`.
    pub fn comm_dup_free(&self, comm: RawObj) -> Called<()> {
        self.raw.comm_free?;
        let (rc, new) = self.comm_dup(comm)?;
        if rc != 0 {
            return Some((rc, ()));
        }
        self.comm_free(new).map(|(rc, _)| (rc, ()))
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
