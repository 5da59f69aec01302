//! The reference cdylib opened as a target in this process, for
//! harness/tests/target_api.rs: the reference keeps one model per process, so a test
//! takes the lock of `serial` and opens the reference with MPI_T initialized (`Ref`,
//! finalized on drop).

use crate::common::reference_lib;
use mpit_target::ffi::BufOut;
use mpit_target::{AbiChoice, Target};
use mpit_vocab::catalog::Catalog;
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::{CbSafety, PvarClass, ThreadLevel};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// One test at a time in the reference's process-wide model.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The reference opened as a target, with MPI_T initialized (finalized on drop).
pub struct Ref {
    pub t: Target,
}

impl Ref {
    pub fn open() -> Ref {
        let t = Target::open(&reference_lib(), &AbiChoice::Auto, false).expect("open");
        let single = t
            .profile
            .thread_level
            .num(ThreadLevel::Single)
            .expect("single");
        let (rc, _) = t.lib.init_thread(single as i32).expect("init_thread");
        assert_eq!(t.rc(rc), ReturnCode::Success);
        Ref { t }
    }
    pub fn ok(&self, rc: i32) {
        assert_eq!(self.t.rc(rc), ReturnCode::Success);
    }
    pub fn err(&self, rc: i32) -> ReturnCode {
        self.t.rc(rc)
    }
    pub fn handle(&self, name: &str) -> u64 {
        *self.t.handles.get(name).unwrap_or_else(|| panic!("{name}"))
    }
    pub fn safety(&self, s: CbSafety) -> i32 {
        self.t.profile.cb_safety.num(s).expect("cb_safety") as i32
    }
    pub fn cvar(&self, name: &str) -> i32 {
        let (rc, i) = self.t.lib.cvar_get_index(name).expect("cvar_get_index");
        self.ok(rc);
        i
    }
    pub fn pvar(&self, name: &str, class: PvarClass) -> i32 {
        let c = self.t.profile.pvar_class.num(class).expect("class") as i32;
        let (rc, i) = self.t.lib.pvar_get_index(name, c).expect("pvar_get_index");
        self.ok(rc);
        i
    }
}

impl Drop for Ref {
    fn drop(&mut self) {
        self.t.lib.finalize();
    }
}

pub fn default_catalog() -> Catalog {
    Catalog::default_catalog()
}

pub fn u64_of(b: &BufOut) -> u64 {
    u64::from_le_bytes(b.bytes[..8].try_into().expect("8 bytes"))
}
