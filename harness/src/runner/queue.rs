//! The pool's job queue: the lanes take jobs from the front; jobs can come in while the
//! pool runs (those that wait for the inventory read after MPI_Init), so an empty queue
//! ends a lane only once no more can come.

use crate::judge::inventory::{Entry, Inventory};
use mpit_spec::verdict::{Area, Level};
use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// One unit of work: a case over some of its subjects.
#[derive(Debug, Clone)]
pub struct Job {
    pub case: String,
    pub area: Area,
    pub level: Level,
    pub clause: String,
    /// Shared with the inventory's other jobs: a large catalog has each entry in the
    /// jobs of dozens of cases, and a copy per job made the plan most of the
    /// supervisor's memory (cloned only into the message sent to a worker).
    pub subjects: Vec<Option<Arc<Entry>>>,
    /// Display names of the subjects (for results the supervisor has to write itself).
    pub names: Vec<String>,
    /// Needs a process of its own (and MPI_Init when `mpi_init`).
    pub fresh: bool,
    pub mpi_init: bool,
    /// Calls MPI_Init, before its steps (`mpi_init`) or in one of them.
    pub calls_mpi_init: bool,
    /// The worker holds a base MPI_T init (see `Hello::base_init`).
    pub base_init: bool,
    /// Sent along when the worker must not read its own (shared, as `subjects`).
    pub inventory: Option<Arc<Inventory>>,
    /// The catalog spots the supervisor's readers lost (`target::reading`): a worker
    /// reading its own inventory passes over them.
    pub skip: Arc<BTreeSet<String>>,
    /// Roughly what one subject costs the library ([`mpit_spec::cases::Case::cost`]):
    /// the queue starts the costly jobs first ([`Job::cost`]).
    pub subject_cost: u64,
}

impl Job {
    /// Roughly what the job costs the library: its subjects' (a job requeued with the
    /// rest of its subjects after a death costs less).
    pub fn cost(&self) -> u64 {
        self.subject_cost * self.subjects.len() as u64
    }
}

/// The jobs not taken yet, and whether more may still come (`later` of
/// [`super::pool::run`]).
pub struct Queue {
    state: Mutex<(VecDeque<Job>, bool)>,
    more: Condvar,
}

impl Queue {
    pub fn new(jobs: VecDeque<Job>, more_coming: bool) -> Queue {
        Queue {
            state: Mutex::new((jobs, more_coming)),
            more: Condvar::new(),
        }
    }

    /// The next job; waits while the queue is empty and more may come (the lane is
    /// idle anyway), `None` once it is empty for good or `stop` is set.
    pub fn pop(&self, stop: &AtomicBool) -> Option<Job> {
        let mut g = self.state.lock().ok()?;
        loop {
            if let Some(j) = g.0.pop_front() {
                return Some(j);
            }
            if !g.1 || stop.load(Ordering::SeqCst) {
                return None;
            }
            g = self.more.wait_timeout(g, Duration::from_millis(50)).ok()?.0;
        }
    }

    pub fn push_front(&self, j: Job) {
        if let Ok(mut g) = self.state.lock() {
            g.0.push_front(j);
        }
        self.more.notify_one();
    }

    /// Adds jobs ahead of those waiting (the late ones are MPI_Init jobs: long, so they
    /// go first and the short ones even out the lanes at the end); `None`: no more.
    pub fn feed(&self, jobs: Option<Vec<Job>>) {
        if let Ok(mut g) = self.state.lock() {
            match jobs {
                Some(v) => {
                    for j in v.into_iter().rev() {
                        g.0.push_front(j);
                    }
                }
                None => g.1 = false,
            }
        }
        self.more.notify_all();
    }
}

/// Fresh-process jobs first (their MPI_Init is the slow part, let it overlap), each
/// group costliest first: a job that loops to a time budget started last would end the
/// run alone (Open MPI 4.1.4: three 4 s jobs once made its last 4.5 s). Stable: jobs of
/// equal cost keep the suite's order.
pub fn fresh_first(mut jobs: Vec<Job>) -> VecDeque<Job> {
    jobs.sort_by_key(|j| (std::cmp::Reverse(j.fresh), std::cmp::Reverse(j.cost())));
    jobs.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(case: &str, fresh: bool, cost: u64) -> Job {
        Job {
            case: case.into(),
            area: Area::Lifecycle,
            level: Level::Must,
            clause: String::new(),
            subjects: vec![None],
            names: vec![String::new()],
            fresh,
            mpi_init: false,
            calls_mpi_init: false,
            base_init: !fresh,
            inventory: None,
            skip: Arc::default(),
            subject_cost: cost,
        }
    }

    #[test]
    fn fresh_jobs_go_first_and_the_costliest_of_each_group_before_the_rest() {
        let jobs = vec![
            job("a", false, 5),
            job("b", true, 1),
            job("c", true, 1000),
            job("d", false, 200),
            job("e", true, 1),
        ];
        let order: Vec<String> = fresh_first(jobs).into_iter().map(|j| j.case).collect();
        // Equal costs keep the suite's order (b before e).
        assert_eq!(order, ["c", "b", "e", "d", "a"]);
    }
}
