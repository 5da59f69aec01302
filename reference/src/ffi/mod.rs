//! The C ABI: every MPI-4.1 MPI_T function (and its `PMPI_T_` twin, R-GEN-8) with the
//! MPI-5 standard-ABI signature, the few MPI functions a tool needs, and the
//! reference-only hooks. Declared in `reference/include/mpit_reference.h`.
//!
//! The same functions also speak MPICH's ABI (the reference as a test double
//! for tools linked against MPICH or Intel MPI), chosen once per process ([`abi`]):
//! `MPIT_REFERENCE_ABI=mpich|standard`, else MPICH's when the library was loaded under
//! one of MPICH's file names (`crate::MPICH_FILE_NAMES`), else the standard ABI. The two
//! differ only in numbers (all from `specs/abi/*.yaml`) and in the width of `MPI_Datatype`,
//! `MPI_Comm` and `MPI_Info` (a C `int` in MPICH, pointer-sized in the standard ABI);
//! every MPI_T handle is a pointer in both. So each such handle crosses the boundary
//! through [`Abi::mpi_handle`] (by value: the low 32 bits, the `int` the x86-64 SysV
//! caller put in the register or stack slot) or the `*_mpi_handle` helpers of `args`
//! (through a pointer: 4 or 8 bytes), never as a bare `usize`.
//!
//! This is the only module of the crate with `unsafe` and raw pointers. Its rules:
//! * one process-wide [`Model`] behind a mutex (MPI_THREAD_MULTIPLE by locking);
//! * numbers come only from the chosen profile (return codes through [`code`]);
//! * only pointers the caller passes are trusted; every handle value goes through the
//!   model's registries, so stale or garbage handles give an error code, never UB;
//! * a NULL pointer is never dereferenced: NULL OUT arguments of `*_get_info` are
//!   ignored (R-CVAR-3), any other NULL pointer gives MPI_T_ERR_INVALID;
//! * no panic crosses the boundary (each body runs under `catch_unwind`);
//! * user callbacks run with the lock released (they may call MPI_T functions).

#![allow(non_snake_case)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

mod args;
mod category;
mod cvar;
mod enums;
mod event;
mod hooks;
mod hostile;
mod init;
pub mod linked;
mod mpi;
mod process;
mod pvar;
mod world;

pub(crate) use args::{
    bound_object, c_name, copy_in, copy_out, free_inout, need, out_desc, out_str, put,
    put_mpi_handle, put_mpi_handle_at, put_string, put_unchecked_if, read_mpi_handle,
};

use crate::faults::{Fault, Faults};
use crate::model::{BoundObject, InfoHandle, Model};
use mpit_vocab::catalog::{Catalog, Variations};
use mpit_vocab::profile::{AbiProfile, CompleteTables, HandleValue, HandleWidth};
use mpit_vocab::spec::{Datatype, TErr, TResult};
use std::ffi::{c_int, OsString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

/// Emits `PMPI_<name>` with the body and `<name>` calling it (R-GEN-8: a tool that
/// interposes `<name>` reaches the implementation through `PMPI_<name>`).
macro_rules! export {
    ($(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),* $(,)?) -> $r:ty $body:block) => {
        #[doc(hidden)]
        pub mod $name {
            #[allow(unused_imports)]
            use super::*;
            $(#[$m])*
            #[export_name = concat!("P", stringify!($name))]
            pub unsafe extern "C" fn pmpi($($a: $t),*) -> $r $body
        }
        $(#[$m])*
        #[no_mangle]
        pub unsafe extern "C" fn $name($($a: $t),*) -> $r {
            // SAFETY: the same contract as `PMPI_<name>`; arguments are forwarded unchanged.
            unsafe { $name::pmpi($($a),*) }
        }
    };
}
pub(crate) use export;

/// The model, created at the first call that needs it (see [`model_in`]).
static STATE: Mutex<Option<Model>> = Mutex::new(None);

/// Locks the global state. A panic caught while the lock was held poisons the mutex;
/// the model is still consistent enough to go on (every call validates its inputs).
fn lock() -> MutexGuard<'static, Option<Model>> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Builds the model from `MPIT_REFERENCE_CATALOG` and `MPIT_REFERENCE_FAULTS`.
fn build_model() -> Result<Model, String> {
    let faults = match std::env::var(crate::ENV_FAULTS) {
        Ok(s) if s.trim() == "list" => {
            let a = abi();
            eprintln!("mpit-reference: {} ABI ({})", a.p.family, a.why);
            eprint!("{}", Faults::listing());
            eprint!("{}", Faults::conforming_listing());
            eprint!("{}", Faults::corpus_listing());
            eprint!("{}", crate::faults::ProcessFault::listing());
            eprint!("{}", crate::faults::hostile::HostileFault::listing());
            Faults::none()
        }
        Ok(s) => Faults::parse(&s).map_err(|e| e.to_string())?,
        Err(_) => Faults::none(),
    };
    let cat = catalog()?;
    let v = faults.variations();
    let cat = match v == Variations::default() {
        true => cat,
        false => Arc::new(Catalog::clone(&cat).varied(v)),
    };
    Ok(Model::new(cat, faults))
}

/// The catalog `MPIT_REFERENCE_CATALOG` names (the compiled-in one without it), parsed
/// once per process and kept with the variable's value it was read for: the model of
/// each initialization starts from it as from a fresh parse (the catalog is never
/// changed; values, handles and sessions are the model's, MPI-4.1 §15.3.6). Parsing it
/// was most of a pristine process's work: [`parse_early`] parses it at the first MPI
/// query, so that processes forked afterwards (the harness's zygotes) inherit it.
fn catalog() -> Result<Arc<Catalog>, String> {
    type Parsed = (Option<OsString>, Result<Arc<Catalog>, String>);
    static PARSED: Mutex<Option<Parsed>> = Mutex::new(None);
    let key = std::env::var_os(crate::ENV_CATALOG).filter(|p| !p.is_empty());
    let mut g = PARSED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, cat)) = g.as_ref().filter(|(k, _)| *k == key) {
        return cat.clone();
    }
    let cat = match &key {
        Some(p) => Catalog::load(std::path::Path::new(p)).map_err(|e| e.to_string()),
        None => Ok(Catalog::default_catalog()),
    }
    .map(Arc::new);
    *g = Some((key, cat.clone()));
    cat
}

/// Parses the catalog ([`catalog`]; an error is reported by the first
/// `MPI_T_init_thread` as before) and the ABI profile ([`abi`]) now, once. Called by
/// `MPI_Get_version` and `MPI_Get_library_version`, the queries a tool makes before
/// anything else.
pub(crate) fn parse_early() {
    static DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !DONE.swap(true, std::sync::atomic::Ordering::SeqCst) {
        // Whatever happens here is the first MPI_T_init_thread's to report.
        let _ = catch_unwind(|| {
            abi();
            catalog()
        });
    }
}

/// The model in `slot`, built if needed. The initialization calls (`report`) print a
/// bad catalog or fault list on stderr; other calls build it quietly (so fault
/// `works-uninitialized` is visible before the first `MPI_T_init_thread`).
fn model_in(slot: &mut Option<Model>, report: bool) -> Option<&mut Model> {
    if slot.is_none() {
        match build_model() {
            Ok(m) => *slot = Some(m),
            Err(e) => {
                if report {
                    eprintln!("mpit-reference: {e}");
                }
                return None;
            }
        }
    }
    slot.as_mut()
}

/// The numbers of the ABI this process speaks, derived once from its profile.
pub(crate) struct Abi {
    pub(crate) p: AbiProfile,
    /// The enum-like tables as plain numbers: both ABIs the reference speaks define
    /// every constant (unit-tested in profile.rs).
    pub(crate) c: CompleteTables,
    /// `MPI_Datatype`, `MPI_Comm`, `MPI_Info`: a C `int` (MPICH) or pointer-sized.
    pub(crate) width: HandleWidth,
    /// Why this ABI was chosen (in MPICH's `MPI_Get_library_version` string, and on
    /// stderr under `MPIT_REFERENCE_FAULTS=list`).
    pub(crate) why: String,
    comm_world: usize,
    comm_self: usize,
    info_null: usize,
    all_handles: usize,
    /// Every `*_NULL` handle value (and 0).
    nulls: Vec<usize>,
    datatypes: Vec<(usize, Datatype)>,
}

/// MPICH's `MPI_T_PVAR_ALL_HANDLES` is not a constant but this exported variable
/// (`specs/abi/mpich-*.yaml`: `{symbol: MPI_T_PVAR_ALL_HANDLES, deref: true}`; MPICH
/// itself stores the address of an internal object there: docs/ABI.md). The reference
/// stores `(MPI_T_pvar_handle)-1` in it, a value no model handle takes.
/// Exported under both ABIs: the standard ABI's constant (1) does not read it.
#[no_mangle]
pub static MPI_T_PVAR_ALL_HANDLES: usize = usize::MAX;

/// The file this library was loaded from (`dladdr` of one of its own functions).
fn own_file_name() -> Option<String> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    let addr = own_file_name as fn() -> Option<String> as *const libc::c_void;
    // SAFETY: `addr` is an address inside this library; `info` is writable storage for
    // one Dl_info, which dladdr fills when it returns non-zero.
    let found = unsafe { libc::dladdr(addr, info.as_mut_ptr()) };
    if found == 0 {
        return None;
    }
    // SAFETY: dladdr returned non-zero, so it initialized `info`.
    let info = unsafe { info.assume_init() };
    if info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated path owned by the dynamic loader, valid
    // while the library stays loaded (the whole process: nobody dlcloses the MPI library
    // it calls into); copied at once.
    let path = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let path = path.to_string_lossy();
    Some(path.rsplit('/').next().unwrap_or(&path).to_string())
}

/// Which ABI this process speaks, and why (see the module doc).
fn choose_profile() -> (AbiProfile, String) {
    match std::env::var(crate::ENV_ABI).as_deref() {
        Ok("mpich") => return (AbiProfile::mpich(), format!("{}=mpich", crate::ENV_ABI)),
        Ok("standard") => {
            return (
                AbiProfile::standard(),
                format!("{}=standard", crate::ENV_ABI),
            )
        }
        Ok(other) if !other.is_empty() => {
            eprintln!(
                "mpit-reference: {}={other:?} is neither mpich nor standard; choosing by file name",
                crate::ENV_ABI
            );
        }
        _ => {}
    }
    match own_file_name() {
        Some(f) if crate::MPICH_FILE_NAMES.contains(&f.as_str()) => {
            (AbiProfile::mpich(), format!("loaded as {f}"))
        }
        Some(f) => (AbiProfile::standard(), format!("loaded as {f}")),
        None => (AbiProfile::standard(), "no file name from dladdr".into()),
    }
}

pub(crate) fn abi() -> &'static Abi {
    static ABI: OnceLock<Abi> = OnceLock::new();
    ABI.get_or_init(|| {
        let (p, why) = choose_profile();
        let width = p.mpi_handle_width;
        let num = |v: &HandleValue| match v {
            HandleValue::Num(n) => narrow(width, *n as usize),
            // The one symbol handle of the two profiles: the variable above.
            HandleValue::Symbol {
                symbol,
                deref: true,
            } if symbol == "MPI_T_PVAR_ALL_HANDLES" => MPI_T_PVAR_ALL_HANDLES,
            // Open MPI's addresses of exported objects: not an ABI the reference speaks.
            HandleValue::Symbol { .. } => usize::MAX,
        };
        let h = |name: &str| p.handles.get(name).map(num).unwrap_or(usize::MAX);
        let mut nulls: Vec<usize> = p
            .handles
            .iter()
            .filter(|(k, _)| k.ends_with("_NULL"))
            .map(|(_, v)| num(v))
            .collect();
        nulls.push(0);
        // Like the profiles themselves, fixed data checked by unit tests (profile.rs,
        // standard_tables_are_complete, mpich_tables_are_complete_and_extend_mpich_4).
        let c = p
            .complete_tables()
            .expect("both ABIs of the reference define every enum-like constant (unit-tested)");
        Abi {
            c,
            width,
            why,
            comm_world: h("MPI_COMM_WORLD"),
            comm_self: h("MPI_COMM_SELF"),
            info_null: h("MPI_INFO_NULL"),
            all_handles: h("MPI_T_PVAR_ALL_HANDLES"),
            nulls,
            datatypes: p.datatype.iter().map(|(d, v)| (num(v), d)).collect(),
            p,
        }
    })
}

/// An MPI object handle as the ABI passes it: under MPICH the low 32 bits (a C `int`,
/// zero-extended so profile values and caller values compare equal).
fn narrow(width: HandleWidth, v: usize) -> usize {
    match width {
        HandleWidth::Int => v as u32 as usize,
        HandleWidth::Pointer => v,
    }
}

impl Abi {
    /// A by-value `MPI_Datatype`/`MPI_Comm`/`MPI_Info` argument, declared `usize` in
    /// the signatures: under MPICH only its low 32 bits are the caller's `int`.
    pub(crate) fn mpi_handle(&self, v: usize) -> usize {
        narrow(self.width, v)
    }

    /// The predefined datatype a handle stands for, if any.
    pub(crate) fn datatype_of(&self, v: usize) -> Option<Datatype> {
        let v = self.mpi_handle(v);
        self.datatypes
            .iter()
            .find(|(n, _)| *n == v)
            .map(|(_, d)| *d)
    }

    pub(crate) fn datatype(&self, d: Datatype) -> usize {
        self.datatypes
            .iter()
            .find(|(_, x)| *x == d)
            .map_or(0, |(n, _)| *n)
    }

    /// Decodes the handle stored at a non-NULL `obj_handle` (R-BIND-3).
    fn object(&self, v: usize) -> BoundObject {
        let v = self.mpi_handle(v);
        if v == self.comm_world {
            BoundObject::CommWorld
        } else if v == self.comm_self {
            BoundObject::CommSelf
        } else if let Some((_, d)) = self.datatypes.iter().find(|(n, _)| *n == v) {
            BoundObject::Datatype(*d)
        } else if self.nulls.contains(&v) {
            BoundObject::Null
        } else {
            // The model treats Other as an info handle for MPI_INFO binds.
            BoundObject::Other(v as u64)
        }
    }

    /// An `MPI_Info` argument: MPI_INFO_NULL is no hints.
    pub(crate) fn info_arg(&self, v: usize) -> Option<InfoHandle> {
        let v = self.mpi_handle(v);
        (v != self.info_null).then_some(InfoHandle(v as u64))
    }

    /// An info OUT value: `None` (fault `event-info-null`) is MPI_INFO_NULL.
    pub(crate) fn info_out(&self, h: Option<InfoHandle>) -> usize {
        h.map_or(self.info_null, |h| h.0 as usize)
    }

    pub(crate) fn pvar_target(&self, h: usize) -> crate::model::PvarTarget {
        if h == self.all_handles {
            crate::model::PvarTarget::All
        } else {
            crate::model::PvarTarget::One(crate::model::PvarHandle(h as u64))
        }
    }

    /// An MPI (non-MPI_T) error class by name, e.g. `MPI_ERR_ARG`.
    pub(crate) fn mpi_err(&self, name: &str) -> c_int {
        self.p
            .mpi_err
            .get(name)
            .copied()
            .unwrap_or(self.p.err_lastcode) as c_int
    }

    pub(crate) fn success(&self) -> c_int {
        self.p.success as c_int
    }
}

/// The internal code Open MPI's pvar_get_info passed through (ompi#7084: "-18").
const OPAL_ERR_NOT_FOUND: i64 = -18;
/// Open MPI's internal MPI_T_ERR_NOT_INITIALIZED (ompi f8d0f599d6: "55 internally but
/// 1003 in the MPI Forum ABI").
const OMPI_NOT_INITIALIZED: i64 = 55;

/// THE mapping of a model result to an MPI_T return code (the chosen ABI), including
/// the faults that only exist where codes are numbers.
pub(crate) fn code(r: TResult<()>, faults: &Faults) -> c_int {
    let p = &abi().p;
    let n = match r {
        Ok(()) => p.success,
        Err(TErr::InvalidHandle) if faults.has(Fault::ErrorCodeOutOfRange) => p.err_lastcode + 1,
        Err(TErr::InvalidName) if faults.has(Fault::MpiErrClassReturned) => {
            abi().mpi_err("MPI_ERR_ARG") as i64
        }
        // mpich#2051: the error goes through MPI's error handler, MPI_ERRORS_ARE_FATAL
        // (R-GEN-2: "Such errors neither impact the execution of the MPI process nor
        // invoke MPI error handlers").
        Err(_) if faults.has(Fault::UpstreamMpich2051) => std::process::abort(),
        // mpich#1978: ARGNULL checks that return an MPI error class.
        Err(TErr::InvalidHandle | TErr::InvalidSession) if faults.has(Fault::UpstreamMpich1978) => {
            abi().mpi_err("MPI_ERR_ARG") as i64
        }
        Err(TErr::Invalid)
            if faults.has(Fault::UpstreamMpich7cdc468dbe)
                || faults.has(Fault::UpstreamOmpi7610) =>
        {
            abi().mpi_err("MPI_ERR_ARG") as i64
        }
        // ompi#7610: a failed lookup of the variable became MPI_ERR_OTHER.
        Err(TErr::InvalidIndex) if faults.has(Fault::UpstreamOmpi7610) => {
            abi().mpi_err("MPI_ERR_OTHER") as i64
        }
        // ompi#658: no MPI_T_ERR_INVALID_NAME yet, the generic conversion instead.
        Err(TErr::InvalidName) if faults.has(Fault::UpstreamOmpi658) => {
            p.code(TErr::Invalid).unwrap_or(p.err_lastcode)
        }
        // ompi#7084: the model's Memory stands for the internal OPAL code passed through.
        Err(TErr::Memory) if faults.has(Fault::UpstreamOmpi7084) => OPAL_ERR_NOT_FOUND,
        // ompi f8d0f599d6: the internal number of MPI_T_ERR_NOT_INITIALIZED.
        Err(TErr::NotInitialized) if faults.has(Fault::UpstreamOmpiF8d0f599d6) => {
            OMPI_NOT_INITIALIZED
        }
        Err(e) => p.code(e).unwrap_or(p.err_lastcode),
    };
    n as c_int
}

/// Runs a body with no panic escaping: a panic is MPI_T_ERR_INVALID.
fn guard(f: impl FnOnce() -> c_int) -> c_int {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| code(Err(TErr::Invalid), &Faults::none()))
}

/// The body of an MPI_T function: runs `f` on the model under the lock and maps its
/// result. Without a model (bad catalog or fault list) MPI_T is not initialized.
pub(crate) fn t_call(f: impl FnOnce(&mut Model) -> TResult<()>) -> c_int {
    guard(|| {
        let mut g = lock();
        match model_in(&mut g, false) {
            None => code(Err(TErr::NotInitialized), &Faults::none()),
            Some(m) => {
                let r = f(m);
                code(r, m.faults())
            }
        }
    })
}

/// Like [`t_call`] for bodies that return callbacks to run: they run after the lock
/// is released, because a callback may call MPI_T functions.
pub(crate) fn t_call_deliver(
    f: impl FnOnce(&mut Model) -> TResult<Vec<crate::model::Delivery>>,
) -> c_int {
    guard(|| {
        let mut g = lock();
        let Some(m) = model_in(&mut g, false) else {
            return code(Err(TErr::NotInitialized), &Faults::none());
        };
        let (rc, deliveries) = match f(m) {
            Ok(d) => (code(Ok(()), m.faults()), d),
            Err(e) => (code(Err(e), m.faults()), Vec::new()),
        };
        drop(g);
        event::deliver(deliveries);
        rc
    })
}

/// Dies by SIGSEGV, as a real invalid access would (faults `crash-in-call`,
/// `null-len-deref`). A handler that returns does not resume the call: the default
/// action is restored and the signal raised again.
pub(crate) fn crash() -> ! {
    // SAFETY: raise and signal have no memory-safety preconditions.
    unsafe {
        libc::raise(libc::SIGSEGV);
        libc::signal(libc::SIGSEGV, libc::SIG_DFL);
        libc::raise(libc::SIGSEGV);
    }
    std::process::abort()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No panic crosses the boundary; a panic under the lock leaves it usable.
    #[test]
    fn panics_become_invalid_and_the_lock_recovers() {
        let invalid = abi().p.code(TErr::Invalid).expect("standard code") as c_int;
        assert_eq!(guard(|| panic!("injected")), invalid);
        let rc = guard(|| {
            let _g = lock();
            panic!("injected while locked")
        });
        assert_eq!(rc, invalid);
        drop(lock());
    }

    /// The ABI-level faults change only the numbers they name.
    #[test]
    fn code_applies_the_abi_faults() {
        let p = &abi().p;
        let none = Faults::none();
        assert_eq!(code(Ok(()), &none), 0);
        assert_eq!(code(Err(TErr::InvalidHandle), &none), 1010);
        let f = Faults::one(Fault::ErrorCodeOutOfRange);
        assert_eq!(
            code(Err(TErr::InvalidHandle), &f) as i64,
            p.err_lastcode + 1
        );
        assert_eq!(code(Err(TErr::InvalidName), &f), 1011);
        let f = Faults::one(Fault::MpiErrClassReturned);
        assert_eq!(
            code(Err(TErr::InvalidName), &f) as i64,
            p.mpi_err["MPI_ERR_ARG"]
        );
    }
}
