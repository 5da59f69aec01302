//! Performance variables (MPI-4.1 §15.3.7): queries, sessions, handles, start/stop,
//! read/write/reset/readreset. `MPI_T_PVAR_ALL_HANDLES` is just a handle value here (the
//! profile's, resolved by `Target::open`); what the standard allows with it is the
//! cases' business (R-PSTART-2, R-PREAD-1).

use super::buffers::{BufSlot, ObjSlot};
use super::strings::{Nulls, StrSlot};
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
        self.pvar_get_info_nulls(i, name, desc, Nulls::NONE)
    }

    /// `MPI_T_pvar_get_info` with the OUT arguments `nulls` names passed as NULL.
    pub fn pvar_get_info_nulls(
        &self,
        i: i32,
        name: StrArg,
        desc: StrArg,
        nulls: Nulls,
    ) -> Called<RawPvarInfo> {
        let f = self.raw.pvar_get_info?;
        let (mut n, mut d) = (StrSlot::new(name), StrSlot::new(desc));
        let mut o = RawPvarInfo::default();
        // SAFETY: as in `cvar_get_info`.
        let rc = unsafe {
            f(
                i,
                n.buf_ptr(),
                n.len_ptr(),
                nulls.ptr("verbosity", &mut o.verbosity),
                nulls.ptr("var_class", &mut o.var_class),
                nulls.ptr("datatype", &mut o.datatype),
                nulls.ptr("enumtype", &mut o.enumtype),
                d.buf_ptr(),
                d.len_ptr(),
                nulls.ptr("bind", &mut o.bind),
                nulls.ptr("readonly", &mut o.readonly),
                nulls.ptr("continuous", &mut o.continuous),
                nulls.ptr("atomic", &mut o.atomic),
            )
        };
        o.name = n.out();
        o.desc = d.out();
        o.datatype = self.obj_out(o.datatype);
        Some((rc, o))
    }

    /// `MPI_T_pvar_get_info` asking only for the name: every other OUT argument NULL
    /// (R-CVAR-3, R-PVAR-1: ignored).
    pub fn pvar_get_info_name_only(&self, i: i32, name: StrArg) -> Called<StrOut> {
        let f = self.raw.pvar_get_info?;
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
                null(),
                null(),
                null(),
            )
        };
        Some((rc, n.out()))
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

/// `MPI_T_pvar_read` from inside a signal handler (MPI-4.1 §15.3.7, R-PVAR-ASYNC: start,
/// stop, read, write and reset should be usable from any context, signal handlers
/// included). The harness raises `SIGUSR2` on its own thread with a handler of its own
/// installed; the handler makes the one call with arguments prepared beforehand and
/// stores the return code. The signal is synchronous (raise on the calling thread, not
/// interrupting the library), so the probe asks only whether the library serves a
/// read in signal-handler context, not whether it is reentrant.
mod in_signal {
    use std::ffi::{c_int, c_void};
    use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
    use std::sync::Mutex;

    /// The call the handler makes: function, session, handle, buffer; its return code.
    static FUNC: AtomicUsize = AtomicUsize::new(0);
    static SESSION: AtomicUsize = AtomicUsize::new(0);
    static HANDLE: AtomicUsize = AtomicUsize::new(0);
    static BUF: AtomicUsize = AtomicUsize::new(0);
    static RC: AtomicI32 = AtomicI32::new(i32::MIN);
    /// One probe at a time (the statics above are its arguments).
    static ONE: Mutex<()> = Mutex::new(());

    type ReadFn = unsafe extern "C" fn(usize, usize, *mut c_void) -> c_int;

    extern "C" fn handler(_sig: c_int) {
        let f = FUNC.load(Ordering::SeqCst);
        if f == 0 {
            return;
        }
        // SAFETY: FUNC holds the resolved MPI_T_pvar_read of the loaded library (set by
        // `read` below, which keeps the library loaded for the whole probe).
        let f = unsafe { std::mem::transmute::<usize, ReadFn>(f) };
        let buf = BUF.load(Ordering::SeqCst) as *mut c_void;
        // SAFETY: the arguments the caller prepared; `buf` is a live BufSlot of the size
        // the handle needs.
        let rc = unsafe {
            f(
                SESSION.load(Ordering::SeqCst),
                HANDLE.load(Ordering::SeqCst),
                buf,
            )
        };
        RC.store(rc, Ordering::SeqCst);
    }

    /// Runs `f(session, handle, buf)` inside a SIGUSR2 handler; `None` when the handler
    /// could not be installed or did not run.
    pub(super) fn read(
        f: ReadFn,
        session: usize,
        handle: usize,
        buf: *mut c_void,
    ) -> Option<c_int> {
        let _one = ONE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        FUNC.store(f as usize, Ordering::SeqCst);
        SESSION.store(session, Ordering::SeqCst);
        HANDLE.store(handle, Ordering::SeqCst);
        BUF.store(buf as usize, Ordering::SeqCst);
        RC.store(i32::MIN, Ordering::SeqCst);
        // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value; the
        // handler has the plain `void (*)(int)` signature sa_sigaction holds without
        // SA_SIGINFO; the previous action is restored before returning.
        let ran = unsafe {
            let mut new: libc::sigaction = std::mem::zeroed();
            let h: extern "C" fn(c_int) = handler;
            new.sa_sigaction = h as usize;
            libc::sigemptyset(&mut new.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGUSR2, &new, &mut old) != 0 {
                false
            } else {
                let raised = libc::raise(libc::SIGUSR2) == 0;
                libc::sigaction(libc::SIGUSR2, &old, std::ptr::null_mut());
                raised
            }
        };
        FUNC.store(0, Ordering::SeqCst);
        let rc = RC.load(Ordering::SeqCst);
        (ran && rc != i32::MIN).then_some(rc)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        extern "C" fn fake_read(s: usize, h: usize, buf: *mut c_void) -> c_int {
            if !buf.is_null() {
                // SAFETY: the test passes a pointer to a live u64.
                unsafe { *buf.cast::<u64>() = 42 };
            }
            (s + h) as c_int
        }

        #[test]
        fn the_call_runs_inside_the_handler() {
            let mut word: u64 = 0;
            let got = read(fake_read, 2, 3, std::ptr::addr_of_mut!(word).cast());
            assert_eq!(got, Some(5));
            assert_eq!(word, 42);
        }
    }
}

impl Lib {
    /// `MPI_T_pvar_read(session, handle, buf)` made from inside a signal handler (see
    /// [`in_signal`]), buffer as in [`Lib::pvar_read`]. A handler that did not run
    /// reports `i32::MIN` as the return code (no MPI code has that value).
    pub fn pvar_read_in_signal_handler(
        &self,
        s: RawHandle,
        h: RawHandle,
        bytes: usize,
    ) -> Called<BufOut> {
        let f = self.raw.pvar_read?;
        let mut b = BufSlot::new(bytes);
        let rc = in_signal::read(f, s, h, b.ptr()).unwrap_or(i32::MIN);
        Some((rc, b.out()))
    }
}
