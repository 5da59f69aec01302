//! The whole run's bound (`--max-time`). A watcher thread turns Ctrl-C or the deadline
//! into the run's stop flag (lanes stop taking jobs, waits for workers end, workers are
//! killed). When the deadline was the reason, the run still ends with a whole report:
//! every planned (case, subject) that has no result becomes a `timeout` saying the
//! run's time was up, and the report says what stopped it (exit 1, not 2).

use super::queue::Job;
use mpit_report::{result_order, Report, Summary};
use mpit_spec::verdict::{CaseMeta, CaseResult, Oracle, Status};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the watcher looks at Ctrl-C and the deadline.
const TICK: Duration = Duration::from_millis(50);

pub struct Clock {
    /// Set by Ctrl-C or the deadline: the run's stop flag.
    pub stop: Arc<AtomicBool>,
    expired: Arc<AtomicBool>,
    max: Option<Duration>,
    /// Dropped with the clock: the watcher ends.
    _quit: Sender<()>,
    /// What was planned (kept only under a deadline); what came back is the report's.
    planned: Mutex<Vec<Job>>,
}

impl Clock {
    pub fn start(ctrl_c: Arc<AtomicBool>, max: Option<Duration>) -> Clock {
        let stop = Arc::new(AtomicBool::new(false));
        let expired = Arc::new(AtomicBool::new(false));
        let (quit, quit_rx) = mpsc::channel::<()>();
        let (s, e) = (stop.clone(), expired.clone());
        let until = max.map(|m| Instant::now() + m);
        std::thread::spawn(move || loop {
            if ctrl_c.load(Ordering::SeqCst) {
                s.store(true, Ordering::SeqCst);
            }
            if until.is_some_and(|u| Instant::now() >= u) {
                e.store(true, Ordering::SeqCst);
                s.store(true, Ordering::SeqCst);
                return;
            }
            match quit_rx.recv_timeout(TICK) {
                Err(RecvTimeoutError::Timeout) => {}
                _ => return,
            }
        });
        Clock {
            stop,
            expired,
            max,
            _quit: quit,
            planned: Mutex::new(Vec::new()),
        }
    }

    /// `Some(max)` once the deadline passed.
    pub fn expired(&self) -> Option<Duration> {
        self.max.filter(|_| self.expired.load(Ordering::SeqCst))
    }

    /// Jobs handed to the pool.
    pub fn plan(&self, jobs: &[Job]) {
        if self.max.is_some() {
            if let Ok(mut p) = self.planned.lock() {
                p.extend(jobs.iter().cloned());
            }
        }
    }

    /// Completes a report the deadline cut short: a `timeout` for each planned subject
    /// without a result.
    pub fn finish_late(&self, report: &mut Report) {
        let Some(max) = self.max else { return };
        let planned = self.planned.lock().map(|p| p.clone()).unwrap_or_default();
        let why = format!("--max-time {}", humantime::format_duration(max));
        // What came back is in the report: no copy of its keys is kept during the run.
        let finished: HashSet<(&str, &str)> = report
            .results
            .iter()
            .map(|r| (r.case.as_str(), r.subject.as_str()))
            .collect();
        let mut late = Vec::new();
        for job in &planned {
            for name in &job.names {
                if finished.contains(&(job.case.as_str(), name.as_str())) {
                    continue;
                }
                let meta = CaseMeta {
                    case: &job.case,
                    area: job.area,
                    level: job.level,
                    clause: &job.clause,
                    oracle: Oracle::Spec,
                };
                late.push(CaseResult::new(
                    meta,
                    name.clone(),
                    Status::Timeout,
                    format!("not finished: the run's {why} passed before this subject's verdict"),
                ));
            }
        }
        report.results.extend(late);
        report.results.sort_unstable_by(result_order);
        report.summary = Summary::of(&report.results);
        report.interrupted = true;
        report.stopped_by = Some(why);
    }
}
