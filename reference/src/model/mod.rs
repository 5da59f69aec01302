//! The reference MPI_T as one state machine: a catalog plus all runtime state.
//!
//! Safe Rust only, no FFI types: handles are opaque numbers, strings go through
//! `crate::strings`, return codes are `TErr`. The C ABI (`crate::ffi`) and the harness's
//! in-process oracle both drive this type.

mod category;
mod cvar;
mod enums;
mod event;
mod info;
mod init;
mod pvar;
mod world;

pub use category::CategoryInfo;
pub use cvar::CvarInfo;
pub use enums::{EnumInfo, EnumItemInfo};
pub use event::{Delivery, EventInfo, SourceInfo};
pub use pvar::{PvarInfo, TIMER_STEP_SECS};
pub use world::{WorldErr, FAULT_CYCLE_LIMIT};

use crate::faults::{Fault, Faults};
use mpit_vocab::catalog::{Appears, Catalog};
use mpit_vocab::spec::{Datatype, TErr, TResult};
use std::collections::BTreeMap;
use std::sync::Arc;

macro_rules! handle_types {
    ($($(#[$m:meta])* $name:ident;)+) => {$(
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u64);
    )+};
}

handle_types! {
    /// `MPI_T_cvar_handle`; 0 is MPI_T_CVAR_HANDLE_NULL.
    CvarHandle;
    /// `MPI_T_pvar_handle`; 0 is MPI_T_PVAR_HANDLE_NULL (ALL_HANDLES is `PvarTarget::All`).
    PvarHandle;
    /// `MPI_T_pvar_session`; 0 is MPI_T_PVAR_SESSION_NULL.
    Session;
    /// `MPI_T_enum`; 0 is MPI_T_ENUM_NULL.
    EnumHandle;
    /// `MPI_T_event_registration`.
    Registration;
    /// `MPI_T_event_instance`, valid only during one callback.
    Instance;
    /// `MPI_Info` created by the reference (MPI_INFO_NULL is `None` where allowed).
    InfoHandle;
}

/// Which handles a pvar start/stop/reset/read/... call names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PvarTarget {
    /// `MPI_T_PVAR_ALL_HANDLES` (MPI-4.1 §15.3.7).
    All,
    One(PvarHandle),
}

/// The MPI object a handle allocation binds to, as the C ABI decoded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundObject {
    /// `obj_handle` not looked at (bind = NO_OBJECT).
    None,
    /// A null handle of the right kind.
    Null,
    CommWorld,
    CommSelf,
    Datatype(Datatype),
    Info(InfoHandle),
    /// Any other non-null handle value (kinds the reference has no objects for).
    Other(u64),
}

/// Where MPI itself is (MPI_T works in every state: R-GEN-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MpiState {
    NotInitialized,
    Initialized,
    Finalized,
}

/// Values handles may take never collide with MPI_T's predefined ones (0, 1) nor with
/// the standard ABI's small MPI handle constants, and are never reused.
const FIRST_ID: u64 = 0x1_0000;
/// Enum handles are stable (R-CVAR-2: get_info returns the same enumtype every time).
const ENUM_BASE: u64 = 0x7E00_0000;

/// The reference MPI_T. A clone is an independent reference in the same state (the
/// catalog shared): cheaper than building a fresh one from the catalog.
#[derive(Debug, Clone)]
pub struct Model {
    /// Shared, never changed: a model per generated sequence (the harness's differential
    /// engine) costs no copy of the catalog.
    cat: Arc<Catalog>,
    faults: Faults,
    init_count: u32,
    mpi: MpiState,
    next_id: u64,
    cvar: cvar::CvarState,
    pvar: pvar::PvarState,
    category: category::CategoryState,
    event: event::EventState,
    info: info::InfoState,
    world: world::WorldState,
}

impl Model {
    /// A reference with this catalog and these faults, MPI_T not yet initialized.
    pub fn new(cat: impl Into<Arc<Catalog>>, faults: Faults) -> Model {
        let cat = cat.into();
        let cvar = cvar::CvarState::new(&cat);
        let pvar = pvar::PvarState::new(&cat);
        Model {
            cvar,
            pvar,
            category: category::CategoryState::default(),
            event: event::EventState::default(),
            info: info::InfoState::default(),
            world: world::WorldState::default(),
            cat,
            faults,
            init_count: 0,
            mpi: MpiState::NotInitialized,
            next_id: FIRST_ID,
        }
    }

    /// The catalog this model serves.
    pub fn catalog(&self) -> &Catalog {
        &self.cat
    }

    /// The faults switched on.
    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    /// Whether MPI_T is initialized (init count > 0).
    pub fn is_initialized(&self) -> bool {
        self.init_count > 0
    }

    /// The MPI_T reference count (R-INIT-1).
    pub fn init_count(&self) -> u32 {
        self.init_count
    }

    /// Where MPI itself is.
    pub fn mpi_state(&self) -> MpiState {
        self.mpi
    }

    fn fault(&self, f: Fault) -> bool {
        self.faults.has(f)
    }

    /// R-INIT-1: every routine other than init returns NOT_INITIALIZED before init.
    fn require_init(&self) -> TResult<()> {
        if self.init_count > 0 || self.fault(Fault::WorksUninitialized) {
            Ok(())
        } else {
            Err(TErr::NotInitialized)
        }
    }

    fn new_id(&mut self) -> u64 {
        let id = self.next_id;
        // Step by 16 so small garbage offsets of a valid handle are never valid.
        self.next_id += 16;
        id
    }

    /// Fault `upstream-mpich-6337`: an MPI_T_init_thread after a full MPI_T_finalize
    /// skipped the catalog's set-up, so no entry of any kind is there.
    fn catalog_skipped(&self) -> bool {
        self.fault(Fault::UpstreamMpich6337) && self.world.full_finalizes > 0
    }

    fn visible(&self, a: Appears) -> bool {
        a == Appears::Always || self.mpi != MpiState::NotInitialized
    }

    /// How many entries of a list are visible now (late ones are a suffix: validated).
    fn visible_count<T>(&self, list: &[T], appears: impl Fn(&T) -> Appears) -> usize {
        list.iter().take_while(|x| self.visible(appears(x))).count()
    }

    /// An index into a list of `n` visible entries (R-CVAR-1: `0..n-1`).
    fn index(&self, i: i32, n: usize) -> TResult<usize> {
        match usize::try_from(i) {
            Ok(u) if u < n => Ok(u),
            // MPI-4.1 §15.3.10: bad indices give INVALID_INDEX.
            _ if self.fault(Fault::BadIndexWrongCode) => Err(TErr::InvalidName),
            _ => Err(TErr::InvalidIndex),
        }
    }

    fn enum_handle(&self, name: &Option<String>) -> EnumHandle {
        match name {
            None => EnumHandle(0),
            Some(n) => {
                let i = self
                    .cat
                    .enums
                    .iter()
                    .position(|e| &e.name == n)
                    .unwrap_or(0);
                EnumHandle(ENUM_BASE + 16 * i as u64)
            }
        }
    }

    /// Reference-only hook: simulate `steps` units of MPI activity so counters count,
    /// levels and watermarks move and timers accumulate (exported to C as
    /// `MPIT_Reference_simulate`).
    pub fn simulate(&mut self, steps: u32) {
        for _ in 0..steps {
            self.pvar.step(&self.cat, &self.faults);
        }
    }
}

/// Deliberately never returns (fault `hang-in-call`): the harness must see a timeout.
fn hang() -> ! {
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}

/// Keeps `BTreeMap` in scope for the submodules' state types.
type Registry<K, V> = BTreeMap<K, V>;
