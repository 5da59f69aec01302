//! The only module of the harness with `unsafe` and raw FFI types: it dlopens a library,
//! resolves its MPI_T entry points, and wraps each call in a safe function. Split by
//! function group: `raw` (the symbol table), `strings` (the string convention's
//! buffers), `buffers` (typed data buffers, `obj_handle`), `cvar`, `pvar`, `category`
//! (with enums), `event` (sources, event types, registrations, instances), `recorder`
//! (the callbacks the harness registers), `mpi` (MPI calls, init/finalize, the
//! reference's hooks).
//!
//! Widths: the MPI_T handles are pointer-sized in every family; `MPI_Datatype`,
//! `MPI_Comm` and `MPI_Info` are an `int` in the MPICH family and pointer-sized
//! elsewhere (docs/ABI.md), so [`Lib`] carries the family's width
//! ([`Lib::set_handle_width`]): OUT parameters of those types get an 8-byte zeroed slot
//! decoded with it, IN parameters are passed as a 64-bit register value (why that is
//! sound: `raw.rs`). Only pointers this module made itself are passed to the library.

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

// `raw.rs` passes int-typed MPI handles as 64-bit register arguments; that is argued
// for the System V x86-64 and AAPCS64 calling conventions only.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("target::ffi passes MPI handles as 64-bit register arguments: re-check raw.rs for this architecture");

mod buffers;
mod category;
mod cvar;
mod event;
mod guarded;
pub mod in_flight;
pub mod log;
mod mpi;
pub mod page;
pub mod preload;
mod pvar;
mod raw;
mod recorder;
mod shared;
pub mod stdio;
mod strings;

pub use buffers::{BufOut, ObjArg};
pub use category::RawCategoryInfo;
pub use cvar::RawCvarInfo;
pub use event::{RawEventInfo, RawSourceInfo};
pub use mpi::PendingSend;
pub use mpit_vocab::spec::Members;
pub use pvar::RawPvarInfo;
pub use recorder::{
    lost_records, take_deliveries, take_dropped, take_dropped_positions, take_freed, Delivery,
    Recording,
};
pub use strings::{Nulls, StrArg, StrOut};

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
use mpit_reference::linked;
use raw::Raw;
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;

/// A handle as the library gave it (pointer-sized in every family).
pub type RawHandle = usize;
/// An MPI object handle (`MPI_Datatype`, `MPI_Comm`, `MPI_Info`) widened to 64 bits: a
/// 4-byte MPICH handle is zero-extended.
pub type RawObj = u64;

/// A call's return code, or `None` when the symbol is not exported ("unsupported").
pub type Called<T> = Option<(c_int, T)>;

/// Checked guard bytes after every string and data buffer (then a PROT_NONE page, see
/// `guarded.rs`): a write up to this far past the asked size is reported byte-exactly.
pub const GUARD: usize = 16;
/// The fill byte of buffers and guards: not NUL, so a missing terminator is visible.
pub const FILL: u8 = 0xA5;

/// Why a library could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}: no such file")]
    NotFound(String),
    /// An ELF file this process cannot load (wrong architecture, class or type),
    /// recognized from its header before dlopen.
    #[error(transparent)]
    Elf(#[from] super::elf::ElfError),
    #[error("{path}: cannot load: {reason}")]
    Dlopen { path: String, reason: String },
}

/// Where a library's code comes from.
enum Origin {
    /// A file loaded with dlopen.
    Loaded(Library),
    /// The reference linked into this executable (`mpit_reference::linked`): its C
    /// entry points, looked up by name as dlsym would.
    Linked,
}

impl Origin {
    /// The address of the exported function or object `name`; a symbol whose address
    /// is NULL (an undefined weak one) counts as not exported: nothing can be called
    /// or read there.
    fn address(&self, name: &str) -> Option<*const c_void> {
        let p = match self {
            Origin::Loaded(lib) => {
                // SAFETY: the symbol is only looked up here; what is done with the
                // address is each caller's (and each says why it is sound).
                unsafe { lib.get::<*const c_void>(cstring(name).as_bytes_with_nul()) }
                    .ok()
                    .map(|s| s.into_raw().cast_const())
            }
            Origin::Linked => linked::symbol(name).map(|a| a as *const c_void),
        };
        p.filter(|p| !p.is_null())
    }
}

/// A loaded library and its resolved entry points.
pub struct Lib {
    lib: Origin,
    raw: Raw,
    /// Bytes of an `MPI_Datatype` / `MPI_Comm` / `MPI_Info` in the library's family.
    handle_width: usize,
}

pub(super) fn cstring(s: &str) -> CString {
    // Names containing NUL cannot be passed to C; pass them cut at the NUL.
    CString::new(s.split('\0').next().unwrap_or("")).unwrap_or_default()
}

impl Lib {
    /// dlopen with RTLD_NOW | RTLD_LOCAL: measured sufficient for all seven real targets,
    /// Open MPI's plugins included (scripts/TARGETS.md), and it keeps two targets loaded in
    /// one process from resolving each other's symbols.
    ///
    /// The ELF header is checked first (`target::elf`): dlopen's own message for a
    /// library of another architecture or class is obscure, and the check costs 20 bytes.
    pub fn open(path: &Path) -> Result<Lib, OpenError> {
        if !path.exists() {
            return Err(OpenError::NotFound(path.display().to_string()));
        }
        super::elf::check_loadable(path)?;
        // SAFETY: loading runs the library's initializers; this is the point of the tool
        // and it happens only in worker processes, never in the supervisor.
        let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }.map_err(|e| {
            OpenError::Dlopen {
                path: path.display().to_string(),
                reason: e.to_string(),
            }
        })?;
        let lib = Origin::Loaded(lib);
        // SAFETY: `Origin::address` gives what dlsym gives, the functions of the names
        // the library exports (its mpi.h's prototypes); the table lives in `Lib` beside
        // the library, which stays loaded as long.
        let raw = unsafe { Raw::resolve(&|n| lib.address(n)) };
        Ok(Lib {
            lib,
            raw,
            handle_width: 8,
        })
    }

    /// The reference linked into this executable, called through its C ABI as the
    /// cdylib would be (`mpit_reference::linked`): nothing to load.
    pub fn linked() -> Lib {
        let lib = Origin::Linked;
        // SAFETY: `mpit_reference::linked::symbol` gives the addresses of the reference's
        // own `extern "C"` functions of those names, with the standard's prototypes
        // (reference/src/ffi); they are part of this executable.
        let raw = unsafe { Raw::resolve(&|n| lib.address(n)) };
        Lib {
            lib,
            raw,
            handle_width: 8,
        }
    }

    /// Sets the width of the family's MPI object handles (4: MPICH's `int`; 8:
    /// pointers, the default until the profile is known). `Target::open` calls it
    /// with the chosen profile's `mpi_handle_width`; other values are clamped to 1..=8.
    pub fn set_handle_width(&mut self, bytes: usize) {
        self.handle_width = bytes.clamp(1, 8);
    }

    /// The width set by [`Lib::set_handle_width`].
    pub fn handle_width(&self) -> usize {
        self.handle_width
    }

    /// An MPI object handle the library wrote into an 8-byte zeroed slot: its first
    /// `handle_width` bytes, zero-extended.
    fn obj_out(&self, slot: RawObj) -> RawObj {
        obj_from_bytes(&slot.to_ne_bytes(), self.handle_width)
    }

    /// The 8-byte slot holding `value` as the family's handle variable would: for an
    /// INOUT handle argument (`MPI_Info_free`).
    fn obj_in(&self, value: RawObj) -> RawObj {
        obj_to_slot(value, self.handle_width)
    }

    /// Whether the library exports `name` (function or data).
    pub fn exports(&self, name: &str) -> bool {
        self.lib.address(name).is_some()
    }

    /// The address of an exported object (Open MPI's predefined handles).
    pub fn symbol_address(&self, name: &str) -> Option<u64> {
        self.lib.address(name).map(|p| p as u64)
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
        let p = self.lib.address(name)?.cast::<usize>();
        // SAFETY: the family's mpi.h declares this symbol as a pointer-sized constant
        // object, so reading one pointer from its address is in bounds.
        Some(unsafe { p.read_unaligned() } as u64)
    }

    /// MPI-4.1 entry points and whether each is exported: the 51 MPI_T functions and the
    /// MPI calls the target layer makes before MPI_Init (`raw.rs`, `api` lines).
    pub fn entry_points(&self) -> Vec<(&'static str, bool)> {
        self.raw.names()
    }

    fn get_num(f: Option<unsafe extern "C" fn(*mut c_int) -> c_int>) -> Called<i32> {
        let f = f?;
        let mut n = -1;
        // SAFETY: a valid int pointer.
        Some((unsafe { f(&mut n) }, n))
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
}

/// The handle in the first `width` bytes of `b` (machine byte order), zero-extended.
fn obj_from_bytes(b: &[u8], width: usize) -> RawObj {
    let w = width.clamp(1, 8).min(b.len());
    let mut v = [0u8; 8];
    if cfg!(target_endian = "big") {
        v[8 - w..].copy_from_slice(&b[..w]);
        u64::from_be_bytes(v)
    } else {
        v[..w].copy_from_slice(&b[..w]);
        u64::from_le_bytes(v)
    }
}

/// The inverse of [`obj_from_bytes`] for one 8-byte slot.
fn obj_to_slot(value: RawObj, width: usize) -> RawObj {
    let w = width.clamp(1, 8);
    let mut b = [0u8; 8];
    if cfg!(target_endian = "big") {
        b[..w].copy_from_slice(&value.to_be_bytes()[8 - w..]);
    } else {
        b[..w].copy_from_slice(&value.to_le_bytes()[..w]);
    }
    u64::from_ne_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_handles_round_trip_through_slots_of_either_width() {
        for (v, w) in [(0x4400_0000u64, 4), (0x9c00_0001, 4), (0x7f12_3456_7890, 8)] {
            let slot = obj_to_slot(v, w);
            assert_eq!(obj_from_bytes(&slot.to_ne_bytes(), w), v);
        }
        // A 4-byte family ignores whatever lies beyond its int.
        let slot = obj_to_slot(0xdead_beef_0000_0101, 4);
        assert_eq!(obj_from_bytes(&slot.to_ne_bytes(), 4), 0x0101);
        assert_eq!(obj_from_bytes(&slot.to_ne_bytes(), 8), 0x0101);
    }
}
