//! The only module of the harness with `unsafe` and raw FFI types: it dlopens a library,
//! resolves its MPI_T entry points, and wraps each call in a safe function.
//!
//! Widths: the MPI_T handles are pointer-sized in every family; `MPI_Datatype`,
//! `MPI_Comm` and `MPI_Info` are an `int` in the MPICH family and pointer-sized
//! elsewhere, so OUT parameters of those types get an 8-byte zeroed slot and the caller
//! decodes it with the profile's width (abi-facts.md). Only pointers this module made
//! itself are passed to the library.

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;

pub use mpit_reference::model::Members;

/// A handle as the library gave it (pointer-sized in every family).
pub type RawHandle = usize;
/// An MPI object handle (`MPI_Datatype`, `MPI_Comm`, `MPI_Info`) widened to 64 bits.
pub type RawObj = u64;

macro_rules! symbols {
    ($($field:ident = $sym:literal : ($($arg:ty),*);)+) => {
        /// Resolved entry points; `None` when the library does not export one.
        #[derive(Clone, Copy)]
        struct Raw { $( $field: Option<unsafe extern "C" fn($($arg),*) -> c_int>, )+ }

        impl Raw {
            /// SAFETY: each name is resolved to a function of the C signature the MPI-4.1
            /// standard (and every family's mpi.h) declares for it.
            unsafe fn resolve(lib: &Library) -> Raw {
                Raw { $( $field: lib
                    .get::<unsafe extern "C" fn($($arg),*) -> c_int>(concat!($sym, "\0").as_bytes())
                    .ok()
                    .map(|s| *s), )+ }
            }

            fn names(&self) -> Vec<(&'static str, bool)> {
                vec![$( ($sym, self.$field.is_some()), )+]
            }
        }
    };
}

symbols! {
    get_version = "MPI_Get_version": (*mut c_int, *mut c_int);
    get_library_version = "MPI_Get_library_version": (*mut c_char, *mut c_int);
    abi_get_version = "MPI_Abi_get_version": (*mut c_int, *mut c_int);
    mpi_init = "MPI_Init": (*mut c_int, *mut c_void);
    mpi_finalize = "MPI_Finalize": ();
    init_thread = "MPI_T_init_thread": (c_int, *mut c_int);
    finalize = "MPI_T_finalize": ();
    enum_get_info = "MPI_T_enum_get_info": (RawHandle, *mut c_int, *mut c_char, *mut c_int);
    enum_get_item = "MPI_T_enum_get_item": (RawHandle, c_int, *mut c_int, *mut c_char, *mut c_int);
    cvar_get_num = "MPI_T_cvar_get_num": (*mut c_int);
    cvar_get_info = "MPI_T_cvar_get_info": (c_int, *mut c_char, *mut c_int, *mut c_int, *mut RawObj, *mut RawHandle, *mut c_char, *mut c_int, *mut c_int, *mut c_int);
    cvar_get_index = "MPI_T_cvar_get_index": (*const c_char, *mut c_int);
    cvar_handle_alloc = "MPI_T_cvar_handle_alloc": (c_int, *mut c_void, *mut RawHandle, *mut c_int);
    cvar_handle_free = "MPI_T_cvar_handle_free": (*mut RawHandle);
    cvar_read = "MPI_T_cvar_read": (RawHandle, *mut c_void);
    pvar_get_num = "MPI_T_pvar_get_num": (*mut c_int);
    pvar_get_info = "MPI_T_pvar_get_info": (c_int, *mut c_char, *mut c_int, *mut c_int, *mut c_int, *mut RawObj, *mut RawHandle, *mut c_char, *mut c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_int);
    pvar_get_index = "MPI_T_pvar_get_index": (*const c_char, c_int, *mut c_int);
    category_get_num = "MPI_T_category_get_num": (*mut c_int);
    category_get_info = "MPI_T_category_get_info": (c_int, *mut c_char, *mut c_int, *mut c_char, *mut c_int, *mut c_int, *mut c_int, *mut c_int);
    category_get_num_events = "MPI_T_category_get_num_events": (c_int, *mut c_int);
    category_get_index = "MPI_T_category_get_index": (*const c_char, *mut c_int);
    category_get_cvars = "MPI_T_category_get_cvars": (c_int, c_int, *mut c_int);
    category_get_pvars = "MPI_T_category_get_pvars": (c_int, c_int, *mut c_int);
    category_get_events = "MPI_T_category_get_events": (c_int, c_int, *mut c_int);
    category_get_categories = "MPI_T_category_get_categories": (c_int, c_int, *mut c_int);
    category_changed = "MPI_T_category_changed": (*mut c_int);
    source_get_num = "MPI_T_source_get_num": (*mut c_int);
    source_get_info = "MPI_T_source_get_info": (c_int, *mut c_char, *mut c_int, *mut c_char, *mut c_int, *mut c_int, *mut i64, *mut i64, *mut RawObj);
    event_get_num = "MPI_T_event_get_num": (*mut c_int);
    event_get_info = "MPI_T_event_get_info": (c_int, *mut c_char, *mut c_int, *mut c_int, *mut RawObj, *mut isize, *mut c_int, *mut RawHandle, *mut RawObj, *mut c_char, *mut c_int, *mut c_int);
    event_get_index = "MPI_T_event_get_index": (*const c_char, *mut c_int);
}

/// Why a library could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}: no such file")]
    NotFound(String),
    #[error("{path}: cannot load: {reason}")]
    Dlopen { path: String, reason: String },
}

/// One (buf, len) argument pair of the string convention, as the harness passes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrArg {
    /// Buffer capacity in bytes; `None` passes a NULL buffer.
    pub cap: Option<usize>,
    /// Value of `*len` on input; `None` passes a NULL length pointer.
    pub len: Option<i32>,
}

impl StrArg {
    /// A buffer of `n` bytes with `*len = n`.
    pub fn sized(n: usize) -> Self {
        StrArg {
            cap: Some(n),
            len: Some(n as i32),
        }
    }
    /// NULL buffer, `*len = 0`: asks only for the length (R-STR-3).
    pub const LEN_ONLY: StrArg = StrArg {
        cap: None,
        len: Some(0),
    };
}

/// What came back in one (buf, len) pair.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct StrOut {
    /// The buffer after the call (`cap` bytes), if one was passed.
    pub buf: Option<Vec<u8>>,
    /// `*len` after the call, if a length pointer was passed.
    pub len: Option<i32>,
    /// Whether the call wrote into the guard bytes just past the buffer.
    pub overrun: bool,
}

impl StrOut {
    /// The string up to the first NUL (lossy UTF-8), if a buffer was passed.
    pub fn text(&self) -> Option<String> {
        self.buf.as_ref().map(|b| {
            let end = b.iter().position(|c| *c == 0).unwrap_or(b.len());
            String::from_utf8_lossy(&b[..end]).into_owned()
        })
    }
}

/// Guard bytes after every string buffer: a write past `cap` lands here and is reported.
const GUARD: usize = 16;
const FILL: u8 = 0xA5;

/// Storage for one string pair during a call: `cap` bytes and a guard.
struct StrSlot {
    arg: StrArg,
    buf: Vec<u8>,
    len: c_int,
}

impl StrSlot {
    fn new(arg: StrArg) -> Self {
        // A fill byte that is not NUL, so a missing terminator is visible.
        StrSlot {
            arg,
            buf: vec![FILL; arg.cap.unwrap_or(0) + GUARD],
            len: arg.len.unwrap_or(0),
        }
    }
    fn buf_ptr(&mut self) -> *mut c_char {
        match self.arg.cap {
            Some(_) => self.buf.as_mut_ptr().cast(),
            None => std::ptr::null_mut(),
        }
    }
    fn len_ptr(&mut self) -> *mut c_int {
        match self.arg.len {
            Some(_) => &mut self.len,
            None => std::ptr::null_mut(),
        }
    }
    fn out(mut self) -> StrOut {
        let cap = self.arg.cap.unwrap_or(0);
        let overrun = self.buf[cap..].iter().any(|b| *b != FILL);
        self.buf.truncate(cap);
        StrOut {
            buf: self.arg.cap.map(|_| self.buf),
            len: self.arg.len.map(|_| self.len),
            overrun,
        }
    }
}

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

/// Every OUT value of `MPI_T_pvar_get_info`.
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

/// Every OUT value of `MPI_T_category_get_info`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawCategoryInfo {
    pub name: StrOut,
    pub desc: StrOut,
    pub num_cvars: c_int,
    pub num_pvars: c_int,
    pub num_categories: c_int,
}

/// Every OUT value of `MPI_T_source_get_info` (info handle not requested).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawSourceInfo {
    pub name: StrOut,
    pub desc: StrOut,
    pub ordering: c_int,
    pub ticks_per_second: i64,
    pub max_ticks: i64,
}

/// Every OUT value of `MPI_T_event_get_info` (arrays sized by the caller).
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
}

/// A loaded library and its resolved entry points.
pub struct Lib {
    lib: Library,
    raw: Raw,
}

/// A call's return code, or `None` when the symbol is not exported ("unsupported").
pub type Called<T> = Option<(c_int, T)>;

fn cstring(s: &str) -> CString {
    // Names containing NUL cannot be passed to C; pass them cut at the NUL.
    CString::new(s.split('\0').next().unwrap_or("")).unwrap_or_default()
}

impl Lib {
    /// dlopen with RTLD_NOW | RTLD_LOCAL: measured sufficient for all seven real targets,
    /// Open MPI's plugins included (scripts/TARGETS.md), and it keeps two targets loaded in
    /// one process from resolving each other's symbols.
    pub fn open(path: &Path) -> Result<Lib, OpenError> {
        if !path.exists() {
            return Err(OpenError::NotFound(path.display().to_string()));
        }
        // SAFETY: loading runs the library's initializers; this is the point of the tool
        // and it happens only in worker processes, never in the supervisor.
        let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }.map_err(|e| {
            OpenError::Dlopen {
                path: path.display().to_string(),
                reason: e.to_string(),
            }
        })?;
        // SAFETY: see `Raw::resolve`.
        let raw = unsafe { Raw::resolve(&lib) };
        Ok(Lib { lib, raw })
    }

    /// Whether the library exports `name` (function or data).
    pub fn exports(&self, name: &str) -> bool {
        // SAFETY: the symbol is only looked up, never used.
        unsafe {
            self.lib
                .get::<*const c_void>(cstring(name).as_bytes_with_nul())
        }
        .is_ok()
    }

    /// The address of an exported object (Open MPI's predefined handles).
    pub fn symbol_address(&self, name: &str) -> Option<u64> {
        // SAFETY: the address is only taken, not dereferenced.
        let s = unsafe {
            self.lib
                .get::<*const c_void>(cstring(name).as_bytes_with_nul())
        }
        .ok()?;
        Some(s.into_raw() as u64)
    }

    /// The name of the exported object that starts exactly at `addr`, if any (Open MPI's
    /// handles are such addresses: a value no profile entry matches can still be named).
    pub fn symbol_at(&self, addr: u64) -> Option<String> {
        let mut info = libc::Dl_info {
            dli_fname: std::ptr::null(),
            dli_fbase: std::ptr::null_mut(),
            dli_sname: std::ptr::null(),
            dli_saddr: std::ptr::null_mut(),
        };
        // SAFETY: dladdr(3) only looks the address up in the loaded objects' tables, it
        // never dereferences it; `info` is a valid out-parameter of this frame.
        let found = unsafe { libc::dladdr(addr as usize as *const c_void, &mut info) };
        if found == 0 || info.dli_sname.is_null() || info.dli_saddr as usize as u64 != addr {
            return None;
        }
        // SAFETY: dli_sname is non-NULL and points to a NUL-terminated name in the string
        // table of a loaded object, which stays loaded while `self` lives.
        let name = unsafe { std::ffi::CStr::from_ptr(info.dli_sname) };
        Some(name.to_string_lossy().into_owned())
    }

    /// The pointer-sized value stored in an exported variable (MPICH's
    /// `MPI_T_PVAR_ALL_HANDLES` is such a variable).
    pub fn symbol_value(&self, name: &str) -> Option<u64> {
        // SAFETY: the family's mpi.h declares this symbol as a pointer-sized constant
        // object, so reading one pointer from its address is in bounds.
        unsafe {
            let s = self
                .lib
                .get::<*const usize>(cstring(name).as_bytes_with_nul())
                .ok()?;
            let p: *const usize = *s;
            Some(p.read() as u64)
        }
    }

    /// MPI-4.1 entry points and whether each is exported.
    pub fn entry_points(&self) -> Vec<(&'static str, bool)> {
        self.raw.names()
    }

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
        let end = buf.iter().position(|c| *c == 0).unwrap_or(buf.len());
        Some((rc, String::from_utf8_lossy(&buf[..end]).trim().to_string()))
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

    pub fn init_thread(&self, required: i32) -> Called<i32> {
        let f = self.raw.init_thread?;
        let mut provided = -1;
        // SAFETY: a valid int pointer.
        Some((unsafe { f(required, &mut provided) }, provided))
    }

    pub fn finalize(&self) -> Called<()> {
        let f = self.raw.finalize?;
        // SAFETY: no arguments.
        Some((unsafe { f() }, ()))
    }

    fn get_num(f: Option<unsafe extern "C" fn(*mut c_int) -> c_int>) -> Called<i32> {
        let f = f?;
        let mut n = -1;
        // SAFETY: a valid int pointer.
        Some((unsafe { f(&mut n) }, n))
    }

    pub fn cvar_get_num(&self) -> Called<i32> {
        Self::get_num(self.raw.cvar_get_num)
    }
    pub fn pvar_get_num(&self) -> Called<i32> {
        Self::get_num(self.raw.pvar_get_num)
    }
    pub fn category_get_num(&self) -> Called<i32> {
        Self::get_num(self.raw.category_get_num)
    }
    pub fn source_get_num(&self) -> Called<i32> {
        Self::get_num(self.raw.source_get_num)
    }
    pub fn event_get_num(&self) -> Called<i32> {
        Self::get_num(self.raw.event_get_num)
    }
    pub fn category_changed(&self) -> Called<i32> {
        Self::get_num(self.raw.category_changed)
    }

    pub fn cvar_get_info(&self, i: i32, name: StrArg, desc: StrArg) -> Called<RawCvarInfo> {
        let f = self.raw.cvar_get_info?;
        let (mut n, mut d) = (StrSlot::new(name), StrSlot::new(desc));
        let mut o = RawCvarInfo::default();
        // SAFETY: every pointer is NULL (where StrArg asks) or points to storage of this
        // frame sized as the prototype requires (datatype widened to 8 bytes).
        let rc = unsafe {
            f(
                i,
                n.buf_ptr(),
                n.len_ptr(),
                &mut o.verbosity,
                &mut o.datatype,
                &mut o.enumtype,
                d.buf_ptr(),
                d.len_ptr(),
                &mut o.bind,
                &mut o.scope,
            )
        };
        o.name = n.out();
        o.desc = d.out();
        Some((rc, o))
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
        Some((rc, o))
    }

    pub fn category_get_info(&self, i: i32, name: StrArg, desc: StrArg) -> Called<RawCategoryInfo> {
        let f = self.raw.category_get_info?;
        let (mut n, mut d) = (StrSlot::new(name), StrSlot::new(desc));
        let mut o = RawCategoryInfo::default();
        // SAFETY: as in `cvar_get_info`.
        let rc = unsafe {
            f(
                i,
                n.buf_ptr(),
                n.len_ptr(),
                d.buf_ptr(),
                d.len_ptr(),
                &mut o.num_cvars,
                &mut o.num_pvars,
                &mut o.num_categories,
            )
        };
        o.name = n.out();
        o.desc = d.out();
        Some((rc, o))
    }

    pub fn category_get_num_events(&self, i: i32) -> Called<i32> {
        let f = self.raw.category_get_num_events?;
        let mut n = -1;
        // SAFETY: a valid int pointer.
        Some((unsafe { f(i, &mut n) }, n))
    }

    /// `MPI_T_source_get_info` with a NULL info pointer (R-CVAR-3: ignored).
    pub fn source_get_info(&self, i: i32, name: StrArg, desc: StrArg) -> Called<RawSourceInfo> {
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
                &mut o.ordering,
                &mut o.ticks_per_second,
                &mut o.max_ticks,
                std::ptr::null_mut(),
            )
        };
        o.name = n.out();
        o.desc = d.out();
        Some((rc, o))
    }

    /// `MPI_T_event_get_info` with arrays of `capacity` elements and a NULL info pointer.
    pub fn event_get_info(
        &self,
        i: i32,
        name: StrArg,
        desc: StrArg,
        capacity: usize,
    ) -> Called<RawEventInfo> {
        let f = self.raw.event_get_info?;
        let (mut n, mut d) = (StrSlot::new(name), StrSlot::new(desc));
        let mut o = RawEventInfo {
            datatypes: vec![0; capacity],
            displacements: vec![-1; capacity],
            num_elements: capacity as c_int,
            ..RawEventInfo::default()
        };
        // SAFETY: the arrays hold `capacity` elements and num_elements says so (INOUT);
        // the datatype slots are 8 bytes wide, enough for every family.
        let rc = unsafe {
            f(
                i,
                n.buf_ptr(),
                n.len_ptr(),
                &mut o.verbosity,
                o.datatypes.as_mut_ptr(),
                o.displacements.as_mut_ptr(),
                &mut o.num_elements,
                &mut o.enumtype,
                std::ptr::null_mut(),
                d.buf_ptr(),
                d.len_ptr(),
                &mut o.bind,
            )
        };
        o.name = n.out();
        o.desc = d.out();
        Some((rc, o))
    }

    fn get_index(
        f: Option<unsafe extern "C" fn(*const c_char, *mut c_int) -> c_int>,
        name: &str,
    ) -> Called<i32> {
        let f = f?;
        let c = cstring(name);
        let mut i = -1;
        // SAFETY: a NUL-terminated string and a valid int pointer.
        Some((unsafe { f(c.as_ptr(), &mut i) }, i))
    }

    pub fn cvar_get_index(&self, name: &str) -> Called<i32> {
        Self::get_index(self.raw.cvar_get_index, name)
    }
    pub fn category_get_index(&self, name: &str) -> Called<i32> {
        Self::get_index(self.raw.category_get_index, name)
    }
    pub fn event_get_index(&self, name: &str) -> Called<i32> {
        Self::get_index(self.raw.event_get_index, name)
    }

    pub fn pvar_get_index(&self, name: &str, class: i32) -> Called<i32> {
        let f = self.raw.pvar_get_index?;
        let c = cstring(name);
        let mut i = -1;
        // SAFETY: a NUL-terminated string and a valid int pointer.
        Some((unsafe { f(c.as_ptr(), class, &mut i) }, i))
    }

    /// `MPI_T_category_get_{cvars,pvars,events,categories}` into an array of `len` ints
    /// pre-filled with `sentinel`, so entries the call must not touch can be checked.
    pub fn category_members(
        &self,
        which: Members,
        cat: i32,
        len: usize,
        sentinel: i32,
    ) -> Called<Vec<i32>> {
        let f = match which {
            Members::Cvars => self.raw.category_get_cvars,
            Members::Pvars => self.raw.category_get_pvars,
            Members::Events => self.raw.category_get_events,
            Members::Categories => self.raw.category_get_categories,
        }?;
        let mut v = vec![sentinel; len];
        // SAFETY: the array holds `len` ints and `len` is passed.
        let rc = unsafe { f(cat, len as c_int, v.as_mut_ptr()) };
        Some((rc, v))
    }

    pub fn enum_get_info(&self, e: RawHandle, name: StrArg) -> Called<(i32, StrOut)> {
        let f = self.raw.enum_get_info?;
        let mut n = StrSlot::new(name);
        let mut num = -1;
        // SAFETY: `e` is a value the library returned as an enum handle; the others are
        // storage of this frame.
        let rc = unsafe { f(e, &mut num, n.buf_ptr(), n.len_ptr()) };
        Some((rc, (num, n.out())))
    }

    pub fn enum_get_item(&self, e: RawHandle, item: i32, name: StrArg) -> Called<(i32, StrOut)> {
        let f = self.raw.enum_get_item?;
        let mut n = StrSlot::new(name);
        let mut value = 0;
        // SAFETY: as in `enum_get_info`.
        let rc = unsafe { f(e, item, &mut value, n.buf_ptr(), n.len_ptr()) };
        Some((rc, (value, n.out())))
    }

    /// `MPI_T_cvar_handle_alloc` for an unbound cvar (`obj_handle` NULL, ignored for
    /// NO_OBJECT: R-BIND-3), then `MPI_T_cvar_read` into `count × elem` bytes and free.
    pub fn cvar_read_unbound(&self, i: i32, elem_size: usize) -> Called<(i32, Vec<u8>)> {
        let (alloc, read, free) = (
            self.raw.cvar_handle_alloc?,
            self.raw.cvar_read?,
            self.raw.cvar_handle_free?,
        );
        let mut h: RawHandle = 0;
        let mut count: c_int = 0;
        // SAFETY: NULL obj_handle is ignored for unbound variables; h and count are ours.
        let rc = unsafe { alloc(i, std::ptr::null_mut(), &mut h, &mut count) };
        if rc != 0 {
            return Some((rc, (count, Vec::new())));
        }
        let bytes = (count.max(0) as usize).min(1 << 20) * elem_size;
        // Room past count × size catches an implementation writing more than it said.
        let mut buf = vec![0u8; bytes + 64];
        // SAFETY: the buffer holds count × size bytes (plus slack) as R-CVAR-8 requires.
        let rc = unsafe { read(h, buf.as_mut_ptr().cast()) };
        // SAFETY: h came from the successful alloc above.
        unsafe { free(&mut h) };
        buf.truncate(bytes);
        Some((rc, (count, buf)))
    }
}

/// SIGKILL to a whole process group (a worker and whatever the library started, e.g.
/// Open MPI's orted). std offers `Child::kill` for the leader only.
pub fn kill_process_group(pgid: i32) {
    if pgid > 0 {
        // SAFETY: kill(2) takes plain integers; a negative pid names the group, which the
        // supervisor created for this worker alone.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
    }
}

/// Restores the default SIGPIPE action, so `mpit-conform catalog | head` ends quietly like
/// any Unix filter instead of failing on a closed pipe (Rust ignores SIGPIPE by default).
pub fn default_sigpipe() {
    // SAFETY: signal(2) with SIG_DFL installs no Rust code as a handler.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}
