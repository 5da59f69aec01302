//! The floor-bound of a suite run: what it cannot go below, the library's own floor for
//! every worker process the run made, spread over the workers the cores can run at once.
//! One formula for `BENCH.md` (`derive`) and `WORKERS.md` (`workers`).

use super::floor::Floor;
use super::probe::Phases;
use serde::{Deserialize, Serialize};

/// The library's floor per kind of process, ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Floors {
    /// An exec'd process: (a) plain (start, dlopen, MPI_T init, enumeration, finalize),
    /// (b) the same inside MPI_Init/MPI_Finalize; walls of fresh processes.
    pub exec: (f64, f64),
    /// A child forked by a zygote that holds the library: no start, no dlopen, so only
    /// the library's calls of (a) and (b), as the floor process timed them inside.
    pub forked: (f64, f64),
}

impl Floors {
    /// From the floor's walls and phases; `None` without floor (a).
    pub fn of(f: &Floor) -> Option<Floors> {
        let a = f.enumerate_ms.as_ref()?.median;
        let b = f.mpi_init_ms.as_ref().map_or(a, |s| s.median);
        Some(Floors::new(
            (a, b),
            f.phases.as_ref(),
            f.phases_mpi_init.as_ref(),
        ))
    }

    /// Walls (a), (b) and the median runs' phases (a forked child's floor is theirs
    /// without the open; the exec'd wall stands in when a phase is missing).
    pub fn new(walls: (f64, f64), a: Option<&Phases>, b: Option<&Phases>) -> Floors {
        let calls = |p: &Phases| {
            let us = p.mpi_init_us
                + p.init_thread_us
                + p.enumerate_us
                + p.finalize_us
                + p.mpi_finalize_us;
            us as f64 / 1000.0
        };
        Floors {
            exec: walls,
            forked: (a.map_or(walls.0, calls), b.map_or(walls.1, calls)),
        }
    }
}

/// The worker processes a suite run made (report.json's `workers_*` counts): exec'd
/// (zygotes and inventory readers included) and forked, and of each those that called
/// MPI_Init.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Processes {
    pub started: u64,
    pub started_mpi_init: u64,
    pub forked: u64,
    pub forked_mpi_init: u64,
}

/// The floor of every process the run made, over the workers at once the cores can run
/// (`min(lanes, cores)`: with no -j a run may start more than cores when its workers
/// mostly sleep; they still share the cores).
pub fn floor_bound_ms(f: &Floors, p: &Processes, lanes: usize, cores: usize) -> f64 {
    let kind = |all: u64, mpi_init: u64, (plain_ms, mpi_init_ms): (f64, f64)| {
        all.saturating_sub(mpi_init) as f64 * plain_ms + mpi_init as f64 * mpi_init_ms
    };
    let work =
        kind(p.started, p.started_mpi_init, f.exec) + kind(p.forked, p.forked_mpi_init, f.forked);
    work / lanes.min(cores).max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_process_counts_at_its_own_floor_over_the_cores() {
        let phases = |mpi_init_us, init_thread_us| Phases {
            open_us: 40_000,
            mpi_init_us,
            init_thread_us,
            enumerate_us: 500,
            finalize_us: 500,
            ..Phases::default()
        };
        let (a, b) = (phases(0, 1_000), phases(20_000, 1_000));
        let f = Floors::new((45.0, 65.0), Some(&a), Some(&b));
        assert_eq!(f.forked, (2.0, 22.0));
        let p = Processes {
            started: 7,
            started_mpi_init: 1,
            forked: 170,
            forked_mpi_init: 10,
        };
        // 6 x 45 + 1 x 65 + 160 x 2 + 10 x 22 = 875 ms of floor, on 2 of the 8 lanes.
        assert_eq!(floor_bound_ms(&f, &p, 8, 2), 437.5);
        assert_eq!(floor_bound_ms(&f, &p, 1, 2), 875.0);
        // Without phases, a forked child is held to an exec'd process's floor.
        assert_eq!(Floors::new((45.0, 65.0), None, None).forked, (45.0, 65.0));
    }
}
