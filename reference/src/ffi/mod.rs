//! The C ABI: every MPI-4.1 MPI_T function (and its `PMPI_T_` twin, R-GEN-8) with the
//! MPI-5 standard-ABI signature, the few MPI functions a tool needs, and the
//! reference-only hooks. Declared in `reference/include/mpit_reference.h`.
//!
//! This is the only module of the crate with `unsafe` and raw pointers. Its rules:
//! * one process-wide [`Model`] behind a mutex (MPI_THREAD_MULTIPLE by locking);
//! * numbers come only from `AbiProfile::standard()` (return codes through [`code`]);
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
mod init;
mod mpi;
mod process;
mod pvar;
mod world;

pub(crate) use args::{
    bound_object, c_name, copy_in, copy_out, free_inout, need, out_desc, out_str, put, put_string,
    put_unchecked_if,
};

use crate::catalog::Catalog;
use crate::faults::{Fault, Faults};
use crate::model::{BoundObject, InfoHandle, Model};
use crate::profile::{AbiProfile, CompleteTables, HandleValue};
use crate::spec::{Datatype, TErr, TResult};
use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

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
            eprint!("{}", Faults::listing());
            eprint!("{}", Faults::conforming_listing());
            eprint!("{}", crate::faults::ProcessFault::listing());
            Faults::none()
        }
        Ok(s) => Faults::parse(&s).map_err(|e| e.to_string())?,
        Err(_) => Faults::none(),
    };
    let cat = match std::env::var_os(crate::ENV_CATALOG) {
        Some(p) if !p.is_empty() => {
            Catalog::load(std::path::Path::new(&p)).map_err(|e| e.to_string())?
        }
        _ => Catalog::default_catalog(),
    };
    Ok(Model::new(cat, faults))
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

/// The standard-ABI numbers, derived once from `AbiProfile::standard()`.
pub(crate) struct Abi {
    pub(crate) p: AbiProfile,
    /// The enum-like tables as plain numbers: the standard ABI defines every constant.
    pub(crate) c: CompleteTables,
    comm_world: usize,
    comm_self: usize,
    info_null: usize,
    all_handles: usize,
    /// Every `*_NULL` handle value (and 0).
    nulls: Vec<usize>,
    datatypes: Vec<(usize, Datatype)>,
}

pub(crate) fn abi() -> &'static Abi {
    static ABI: OnceLock<Abi> = OnceLock::new();
    ABI.get_or_init(|| {
        let p = AbiProfile::standard();
        let num = |v: &HandleValue| match v {
            HandleValue::Num(n) => *n as usize,
            // The standard ABI has no symbol handles (specs/abi/standard.yaml).
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
        // Like `AbiProfile::standard` itself, this is fixed data checked by a unit test
        // (profile.rs, standard_tables_are_complete), so it cannot fail at run time.
        let c = p
            .complete_tables()
            .expect("the standard ABI defines every enum-like constant (unit-tested)");
        Abi {
            c,
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

impl Abi {
    pub(crate) fn datatype(&self, d: Datatype) -> usize {
        self.datatypes
            .iter()
            .find(|(_, x)| *x == d)
            .map_or(0, |(n, _)| *n)
    }

    /// Decodes the handle stored at a non-NULL `obj_handle` (R-BIND-3).
    fn object(&self, v: usize) -> BoundObject {
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

/// THE mapping of a model result to an MPI_T return code (standard ABI), including
/// the faults that only exist where codes are numbers.
pub(crate) fn code(r: TResult<()>, faults: &Faults) -> c_int {
    let p = &abi().p;
    let n = match r {
        Ok(()) => p.success,
        Err(TErr::InvalidHandle) if faults.has(Fault::ErrorCodeOutOfRange) => p.err_lastcode + 1,
        Err(TErr::InvalidName) if faults.has(Fault::MpiErrClassReturned) => {
            abi().mpi_err("MPI_ERR_ARG") as i64
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
