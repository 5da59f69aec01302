//! MPI itself beside MPI_T, as far as the lifecycle cases look at it: the thread level
//! MPI provided (MPI_Query_thread), MPI sessions, duplicated communicators, and how many
//! times MPI_T was fully finalized. MPI_T's reference count is MPI_T's alone: MPI-4.1
//! §15.3 "uses separate initialization and finalization routines" so that the interface
//! "can be used independently from the MPI communication functionality" (R-MPI-2).

use super::{Model, MpiState};
use crate::faults::Fault;
use mpit_vocab::spec::{TErr, TResult, ThreadLevel};
use std::cell::Cell;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many full MPI_T finalizations the fault `init-fails-after-1000-cycles` allows.
pub const FAULT_CYCLE_LIMIT: u32 = 1000;

/// Why an MPI (not MPI_T) call of this module failed; the C ABI numbers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorldErr {
    /// MPI is not initialized (or already finalized) for a call that needs it.
    NotInitialized,
    /// A communicator the model does not know.
    Comm,
    /// A session the model does not know.
    Session,
    /// The fault `mpi-broken-after-t-finalize`.
    Broken,
}

/// Thread numbers handed out by [`this_thread`] (0: not numbered yet).
static NEXT_THREAD: AtomicUsize = AtomicUsize::new(1);

thread_local! {
    /// This thread's number. Not `std::thread::current()`: that registers a thread-local
    /// destructor inside this library, which runs at the thread's exit, after a program
    /// that dlopened the library may have closed it (harness/tests/target_api.rs does);
    /// a `const` thread-local `Cell` has no destructor to register.
    static THREAD: Cell<usize> = const { Cell::new(0) };
}

/// The calling thread, as a number no other thread of this process has.
fn this_thread() -> usize {
    THREAD.with(|t| {
        if t.get() == 0 {
            t.set(NEXT_THREAD.fetch_add(1, Ordering::Relaxed));
        }
        t.get()
    })
}

#[derive(Debug, Clone, Default)]
pub(super) struct WorldState {
    /// The level MPI_Init_thread returned (MPI_Init: SINGLE); `None` before MPI_Init.
    mpi_thread: Option<ThreadLevel>,
    sessions: BTreeSet<u64>,
    comms: BTreeSet<u64>,
    /// MPI_T's count went to zero this many times.
    pub(super) full_finalizes: u32,
    /// MPI_T was fully finalized while MPI was initialized.
    pub(super) finalized_under_mpi: bool,
    /// MPI_Session_init calls made while MPI_T was initialized (fault
    /// `upstream-ompi-d83e24ac29`).
    sessions_under_t: u32,
    /// The first thread that called MPI_T_init_thread (fault
    /// `init-uncounted-off-first-thread`), as [`this_thread`] tells threads apart.
    first_init_thread: Option<usize>,
}

impl Model {
    /// `MPI_Init_thread`: MPI initialized, `required` the level it provides (the
    /// reference is MPI_THREAD_MULTIPLE-safe).
    pub fn mpi_init_thread(&mut self, required: ThreadLevel) -> TResult<ThreadLevel> {
        self.mpi_init()?;
        self.world.mpi_thread = Some(required);
        Ok(required)
    }

    /// `MPI_Init` provides MPI_THREAD_SINGLE (the level "defined by the
    /// implementation"; a singleton needs no more).
    pub(super) fn world_thread_default(&mut self) {
        self.world.mpi_thread = Some(ThreadLevel::Single);
    }

    /// `MPI_Query_thread`: the level MPI_Init_thread returned. MPI-3.1 §12.4.3: it "will
    /// be the value returned in provided by MPI_INIT_THREAD" (R-MPI-1); no
    /// MPI_T_init_thread changes it (except under the fault that says so).
    pub fn query_thread(&self) -> Result<ThreadLevel, WorldErr> {
        if self.mpi != MpiState::Initialized {
            return Err(WorldErr::NotInitialized);
        }
        self.world.mpi_thread.ok_or(WorldErr::NotInitialized)
    }

    /// What `MPI_T_init_thread` does to MPI's level: nothing, unless the fault
    /// `query-thread-follows-mpi-t` makes it overwrite it.
    pub(super) fn t_init_touches_mpi_thread(&mut self, level: ThreadLevel) {
        if self.fault(Fault::QueryThreadFollowsMpiT) && self.world.mpi_thread.is_some() {
            self.world.mpi_thread = Some(level);
        }
    }

    /// `MPI_Session_init`: a new session. Sessions do not need MPI_Init (the MPI-4.0 Sessions Model).
    pub fn session_init(&mut self) -> Result<u64, WorldErr> {
        if self.init_count > 0 {
            self.world.sessions_under_t += 1;
            // ompi d83e24ac29: the BML's "btls_added" outlived the first session, so
            // the second MPI_Session_init under MPI_T failed ("BTLs attempted: (null)").
            if self.world.sessions_under_t > 1 && self.fault(Fault::UpstreamOmpiD83e24ac29) {
                return Err(WorldErr::Broken);
            }
        }
        let id = self.new_id();
        self.world.sessions.insert(id);
        Ok(id)
    }

    /// `MPI_Session_finalize`. It leaves MPI_T alone (R-FIN-2: the count is of
    /// MPI_T_init_thread and MPI_T_finalize calls), unless the fault
    /// `session-finalize-ends-mpi-t` is on.
    pub fn session_finalize(&mut self, s: u64) -> Result<(), WorldErr> {
        if !self.world.sessions.remove(&s) {
            return Err(WorldErr::Session);
        }
        if self.fault(Fault::SessionFinalizeEndsMpiT) && self.init_count > 0 {
            self.init_count = 1;
            let _ = self.finalize();
        }
        Ok(())
    }

    /// Whether MPI work is possible now: MPI initialized, and not broken by the fault
    /// `mpi-broken-after-t-finalize` (mpich#7954: MPI work after an early
    /// MPI_T_finalize crashed).
    pub fn mpi_usable(&self) -> Result<(), WorldErr> {
        if self.mpi != MpiState::Initialized {
            return Err(WorldErr::NotInitialized);
        }
        if self.fault(Fault::MpiBrokenAfterTFinalize) && self.world.finalized_under_mpi {
            return Err(WorldErr::Broken);
        }
        Ok(())
    }

    /// `MPI_Comm_dup` of MPI_COMM_WORLD, MPI_COMM_SELF or a duplicate (`parent_known`:
    /// the C ABI recognized the parent).
    pub fn comm_dup(&mut self, parent_known: bool) -> Result<u64, WorldErr> {
        self.mpi_usable()?;
        if !parent_known {
            return Err(WorldErr::Comm);
        }
        let id = self.new_id();
        self.world.comms.insert(id);
        Ok(id)
    }

    /// `MPI_Comm_free` of a duplicate.
    pub fn comm_free(&mut self, c: u64) -> Result<(), WorldErr> {
        self.mpi_usable()?;
        if self.world.comms.remove(&c) {
            Ok(())
        } else {
            Err(WorldErr::Comm)
        }
    }

    /// Whether `c` is a live duplicated communicator.
    pub fn comm_exists(&self, c: u64) -> bool {
        self.world.comms.contains(&c)
    }

    /// The fault `init-uncounted-off-first-thread`: an MPI_T_init_thread from any thread
    /// but the first caller's succeeds without counting (a reference count kept per
    /// thread, or lost in a race), so that thread's MPI_T_finalize takes away another
    /// thread's initialization.
    pub(super) fn init_uncounted_here(&mut self) -> bool {
        if !self.fault(Fault::InitUncountedOffFirstThread) {
            return false;
        }
        let me = this_thread();
        let first = *self.world.first_init_thread.get_or_insert(me);
        first != me && self.init_count > 0
    }

    /// Records a full MPI_T finalization (init.rs).
    pub(super) fn note_full_finalize(&mut self) {
        self.world.full_finalizes = self.world.full_finalizes.saturating_add(1);
        if self.mpi == MpiState::Initialized {
            self.world.finalized_under_mpi = true;
        }
    }

    /// The fault `init-fails-after-1000-cycles`: a per-cycle leak runs out.
    pub(super) fn cycles_exhausted(&self) -> TResult<()> {
        if self.fault(Fault::InitFailsAfterManyCycles)
            && self.init_count == 0
            && self.world.full_finalizes >= FAULT_CYCLE_LIMIT
        {
            return Err(TErr::Memory);
        }
        Ok(())
    }
}
