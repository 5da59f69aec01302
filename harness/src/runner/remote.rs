//! The target engine in a worker process: the supervisor sends a sequence, the worker
//! (`runner::worker`, the same process the suite uses) answers one observation per
//! call. A crash or hang ends the trace at the call in flight; the next sequence gets
//! a fresh worker.

use crate::differential::engine::{EngineError, Runner};
use crate::differential::obs::{Died, Trace};
use crate::differential::op::Call;
use crate::differential::Mirror;
use crate::runner::pool::{Broke, Worker};
use crate::runner::protocol::{FromWorker, Hello, TargetFacts, ToWorker};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Workers for one library.
pub struct Remote {
    hello: Hello,
    timeout: Duration,
    stop: Arc<AtomicBool>,
    mirror: Arc<Mirror>,
    worker: Option<Worker>,
    seq: u64,
    /// Worker processes started so far.
    pub started: u64,
}

impl Remote {
    pub fn new(
        lib: PathBuf,
        abi: String,
        force: bool,
        timeout: Duration,
        mirror: Arc<Mirror>,
        stop: Arc<AtomicBool>,
    ) -> Remote {
        Remote {
            hello: Hello {
                single_job: false,
                ..Hello::bare(lib, abi, force)
            },
            timeout,
            stop,
            mirror,
            worker: None,
            seq: 0,
            started: 0,
        }
    }

    /// Starts a worker: with the base init (sequences nest inside it), or none for a
    /// lifecycle sequence.
    fn spawn(&mut self, base_init: bool) -> Result<(Worker, TargetFacts), EngineError> {
        let hello = Hello {
            base_init,
            single_job: !base_init,
            ..self.hello.clone()
        };
        let (mut w, facts) =
            Worker::spawn(&hello, self.timeout, self.stop.clone()).map_err(EngineError::Spawn)?;
        self.started += 1;
        w.send(&ToWorker::Mirror(Box::new((*self.mirror).clone())))
            .map_err(|b| EngineError::Protocol(w.explain(b)))?;
        Ok((w, facts))
    }

    /// Runs `ops`; `lifecycle` sequences get a process of their own with MPI_T not
    /// initialized.
    pub fn run(&mut self, ops: &[Call], lifecycle: bool) -> Result<Trace, EngineError> {
        let mut w = match self.worker.take() {
            Some(w) if !lifecycle => w,
            other => {
                if let Some(w) = other {
                    let _ = w.quit();
                }
                self.spawn(!lifecycle)?.0
            }
        };
        self.seq += 1;
        let seq = self.seq;
        let mut trace = Trace::default();
        let sent = w.send(&ToWorker::Ops {
            seq,
            ops: ops.to_vec(),
        });
        let mut outcome = sent;
        while outcome.is_ok() {
            match w.next(self.timeout) {
                Ok(FromWorker::Observed { seq: s, obs, .. }) if s == seq => trace.obs.push(*obs),
                Ok(FromWorker::OpsDone { seq: s }) if s == seq => break,
                Ok(FromWorker::CannotRun(e)) => outcome = Err(Broke::Other(e)),
                Ok(other) => outcome = Err(Broke::Other(format!("unexpected message {other:?}"))),
                Err(b) => outcome = Err(b),
            }
        }
        match outcome {
            // Every op answered, or the protocol broke: a short trace is never returned
            // as if the library had agreed.
            Ok(()) if trace.obs.len() != ops.len() => {
                w.kill();
                Err(EngineError::Protocol(format!(
                    "{} of {} calls answered before the sequence ended",
                    trace.obs.len(),
                    ops.len()
                )))
            }
            Ok(()) => {
                if lifecycle {
                    let _ = w.quit();
                } else {
                    self.worker = Some(w);
                }
                Ok(trace)
            }
            Err(Broke::Interrupted) => Err(EngineError::Interrupted),
            Err(Broke::Timeout) => {
                trace.died = Some((trace.obs.len(), Died::Timeout));
                w.kill();
                Ok(trace)
            }
            Err(b @ Broke::Crash(_)) => {
                trace.died = Some((trace.obs.len(), Died::Crash(w.explain(b))));
                Ok(trace)
            }
            Err(b) => {
                let e = w.explain(b);
                w.kill();
                Err(EngineError::Protocol(e))
            }
        }
    }

    /// Drops the current worker (after a divergence its state is not the model's).
    pub fn discard(&mut self) {
        if let Some(w) = self.worker.take() {
            let _ = w.quit();
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        self.discard();
    }
}

impl Runner for Remote {
    fn run(&mut self, ops: &[Call], lifecycle: bool) -> Result<Trace, EngineError> {
        Remote::run(self, ops, lifecycle)
    }
    fn discard(&mut self) {
        Remote::discard(self)
    }
}
