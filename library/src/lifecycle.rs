//! The interface's life as a long-running tool lives it (the `init_cycles` and
//! `init_threads` steps of specs/cases/lifecycle.yaml): many `MPI_T_init_thread` /
//! `MPI_T_finalize` cycles in one process, and cycles from several threads at once.
//!
//! MPI-4.1 §15.3.4: "MPI_T_INIT_THREAD [...] can be called multiple times", "additional
//! calls to MPI_T_INIT_THREAD after one or more calls to MPI_T_FINALIZE are
//! permissible" and "The interface can be reinitialized" (R-INIT-1, R-FIN-2, R-FIN-3):
//! no number of cycles is a reason to fail. With `MPI_THREAD_MULTIPLE` provided, the
//! interface's routines may be called from any thread at any time, these two included.
//!
//! Each cycle is `MPI_T_init_thread(required)` (`provided` pre-filled with -1, so a
//! library that never writes it is seen), `MPI_T_cvar_get_num` (the interface is usable
//! inside the cycle), `MPI_T_finalize`. The first call that does not return
//! `MPI_SUCCESS`, or a `provided` that is not one of the four levels, ends the run.
//!
//! A run also ends at its time budget ([`BUDGET`]): some libraries take a quarter of a
//! second per cycle (Open MPI 4.1.4 registers its 1259 variables again each time), and
//! a slow library is not a hung one. The result says how many cycles completed and
//! whether the budget ended the run.

use super::ffi::in_flight;
use super::Target;
use mpit_vocab::spec::ThreadLevel;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Wall time a run of cycles may take (under the worker's per-case timeout).
pub const BUDGET: Duration = Duration::from_secs(4);

/// What a run of cycles did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cycles {
    /// Cycles that completed with every call successful.
    pub completed: u32,
    /// The call that ended the run: its text, and its raw return code (0 when it was a
    /// `provided` outside the four levels).
    pub failed: Option<(String, i32)>,
    /// Every distinct `provided` the init calls returned, in first-seen order (-1: not
    /// written).
    pub provided: Vec<i32>,
    /// The time budget ended the run before every cycle was done.
    pub budget_hit: bool,
}

impl Target {
    /// `cycles` init/use/finalize cycles on the calling thread. `None` when the library
    /// does not export the three functions.
    pub fn init_cycles(&self, required: i32, cycles: u32) -> Option<Cycles> {
        let stop = AtomicBool::new(false);
        let out = self.cycle(required, cycles, "", &stop, false)?;
        in_flight::set(None);
        Some(out)
    }

    /// `threads` threads, each running `cycles` cycles at once (the caller holds the
    /// interface initialized with MPI_THREAD_MULTIPLE provided). The first failure
    /// stops the others at their next cycle. `None` when a function is not exported.
    /// Their inits are nested in the caller's, so a `provided` left unwritten (-1) is
    /// recorded, not a failure: a nested call may have "no effect beyond increasing the
    /// reference count" (specs/readings.yaml, init.nested_call_has_no_effect).
    pub fn init_threads(&self, required: i32, threads: u32, cycles: u32) -> Option<Cycles> {
        let stop = AtomicBool::new(false);
        let results: Vec<Option<Cycles>> = std::thread::scope(|s| {
            let spawned: Vec<_> = (0..threads)
                .map(|i| {
                    let stop = &stop;
                    let label = format!(" in thread {i}");
                    s.spawn(move || self.cycle(required, cycles, &label, stop, true))
                })
                .collect();
            spawned
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Some(Cycles {
                            failed: Some(("a cycling thread panicked".into(), 0)),
                            ..Cycles::default()
                        })
                    })
                })
                .collect()
        });
        in_flight::set(None);
        let mut all = Cycles::default();
        for r in results {
            let r = r?;
            all.completed += r.completed;
            all.budget_hit |= r.budget_hit;
            if all.failed.is_none() {
                all.failed = r.failed;
            }
            for p in r.provided {
                if !all.provided.contains(&p) {
                    all.provided.push(p);
                }
            }
        }
        Some(all)
    }

    fn cycle(
        &self,
        required: i32,
        cycles: u32,
        label: &str,
        stop: &AtomicBool,
        nested: bool,
    ) -> Option<Cycles> {
        let lib = &self.lib;
        let mut levels = self.thread_levels();
        if nested {
            levels.push(-1);
        }
        let deadline = Instant::now() + BUDGET;
        let mut out = Cycles::default();
        for n in 0..cycles {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            if Instant::now() >= deadline {
                out.budget_hit = true;
                break;
            }
            let at = |call: &str| format!("{call} (cycle {}{label})", n + 1);
            in_flight::set(Some(&at("MPI_T_init_thread")));
            let (rc, provided) = lib.init_thread(required)?;
            let mut fail = |what: String, rc: i32| {
                stop.store(true, Ordering::Relaxed);
                out.failed = Some((what, rc));
            };
            if rc != 0 {
                fail(at("MPI_T_init_thread"), rc);
                break;
            }
            if !out.provided.contains(&provided) {
                out.provided.push(provided);
            }
            if !levels.contains(&provided) {
                fail(
                    format!("{} gave provided = {provided}", at("MPI_T_init_thread")),
                    0,
                );
                break;
            }
            in_flight::set(Some(&at("MPI_T_cvar_get_num")));
            let (rc, _) = lib.cvar_get_num()?;
            if rc != 0 {
                fail(at("MPI_T_cvar_get_num"), rc);
                break;
            }
            in_flight::set(Some(&at("MPI_T_finalize")));
            let (rc, ()) = lib.finalize()?;
            if rc != 0 {
                fail(at("MPI_T_finalize"), rc);
                break;
            }
            out.completed += 1;
        }
        Some(out)
    }

    /// The four thread levels in the profile's numbers.
    fn thread_levels(&self) -> Vec<i32> {
        ThreadLevel::ALL
            .iter()
            .filter_map(|l| self.profile.thread_level.num(*l))
            .map(|v| v as i32)
            .collect()
    }
}
