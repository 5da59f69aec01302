//! The target engine in a worker process: the supervisor sends a sequence, the worker
//! (`runner::worker`, the same process the suite uses) answers one observation per
//! call. A crash or hang ends the trace at the call in flight; the next sequence gets
//! a fresh worker.

use crate::differential::engine::{EngineError, Runner};
use crate::differential::obs::{Died, Obs, Trace};
use crate::differential::op::Call;
use crate::differential::Mirror;
use crate::runner::pool::{Broke, Worker};
use crate::runner::protocol::{FromWorker, Hello, TargetFacts, ToWorker};
use crate::runner::zygote::{self, Shared, Zygotes};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Workers for one library.
pub struct Remote {
    hello: Hello,
    timeout: Duration,
    stop: Arc<AtomicBool>,
    mirror: Arc<Mirror>,
    /// The held worker, and the kind of zygote it is a child of (`None`: exec'd).
    worker: Option<(Worker, Option<usize>)>,
    seq: u64,
    /// Worker processes started so far (zygotes included, their children not).
    pub started: u64,
    /// Zygotes (`runner::zygote`), unless `--workers exec`.
    zygotes: Option<Zygotes>,
    shared: Arc<Shared>,
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
                sequences: true,
                ..Hello::bare(lib, abi, force)
            },
            timeout,
            stop,
            mirror,
            worker: None,
            seq: 0,
            started: 0,
            zygotes: None,
            shared: Shared::new(false),
        }
    }

    /// Pristine workers forked by zygotes (`--workers fork`) instead of exec'd: the
    /// zygote gets the mirror once, its children inherit it.
    pub fn with_zygotes(mut self, on: bool) -> Remote {
        self.shared = Shared::new(on);
        let mut z = Zygotes::new(
            &self.hello,
            self.timeout,
            self.stop.clone(),
            self.shared.clone(),
        );
        z.first(ToWorker::Mirror(Box::new((*self.mirror).clone())));
        self.zygotes = on.then_some(z);
        self
    }

    /// Workers forked so far, and the path taken (`zygote::Shared::path`).
    pub fn forked(&self) -> (u64, String) {
        (
            self.shared.forked.load(Ordering::SeqCst),
            self.shared.path(),
        )
    }

    /// A worker for the next sequence: a zygote's child when there is one.
    /// A lifecycle sequence's child is forked with its `Ops` (`then`) and ends by
    /// itself after them.
    fn fresh(
        &mut self,
        base_init: bool,
        then: Option<&ToWorker>,
    ) -> Result<(Worker, Option<usize>), EngineError> {
        let kind = zygote::kind(base_init, false);
        if let Some(z) = self.zygotes.as_mut() {
            let before = self.shared.started.load(Ordering::SeqCst);
            let w = z.fork(kind, then.is_some(), None, then);
            self.started += self.shared.started.load(Ordering::SeqCst) - before;
            if let Some(w) = w {
                return Ok((w, Some(kind)));
            }
        }
        Ok((self.spawn(base_init)?.0, None))
    }

    /// Ends a worker after its sequence: a zygote's child is told to quit and its
    /// zygote kept.
    fn end(&mut self, w: (Worker, Option<usize>)) {
        match w {
            (mut w, Some(kind)) => {
                let _ = w.end_child(true);
                if let Some(z) = self.zygotes.as_mut() {
                    z.put(kind, w);
                }
            }
            (w, None) => {
                let _ = w.quit();
            }
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
        self.seq += 1;
        let seq = self.seq;
        let msg = ToWorker::Ops {
            seq,
            ops: ops.to_vec(),
        };
        let (mut w, kind, sent) = match self.worker.take() {
            Some((w, k)) if !lifecycle => (w, k, false),
            other => {
                if let Some(w) = other {
                    self.end(w);
                }
                let (w, k) = self.fresh(!lifecycle, lifecycle.then_some(&msg))?;
                (w, k, lifecycle && k.is_some())
            }
        };
        let mut trace = Trace::default();
        let mut outcome = match sent {
            true => Ok(()),
            false => w.send(&msg),
        };
        while outcome.is_ok() {
            match w.next(self.timeout) {
                // The zygote would not fork (a thread of the library's): switched off,
                // and the sequence runs on an exec'd worker.
                Ok(FromWorker::NoFork(why)) if sent => {
                    if let Some(kind) = kind {
                        self.shared.off(kind, why);
                    }
                    w.kill();
                    return self.run(ops, lifecycle);
                }
                Ok(FromWorker::Observed { seq: s, obs, .. }) if s == seq => trace.obs.push(*obs),
                Ok(FromWorker::OpsDone { seq: s }) if s == seq => break,
                Ok(FromWorker::CannotRun(e)) => outcome = Err(Broke::Other(e)),
                Ok(other) => outcome = Err(Broke::Other(format!("unexpected message {other:?}"))),
                Err(b) => outcome = Err(b),
            }
        }
        // The calls that returned, from the worker's log, come before any it sent on
        // its channel (a line the log had no room for, and every one after it).
        // A line that does not parse: the log was written over (by the library), and
        // no trace is told from it.
        match in_order(&w.logged(), seq, std::mem::take(&mut trace.obs)) {
            Ok(obs) => trace.obs = obs,
            Err(e) => outcome = Err(Broke::Other(format!("its log of observations: {e}"))),
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
                if let (true, Some(kind), Some(z)) = (sent, kind, self.zygotes.as_mut()) {
                    z.put_ending(kind, w);
                } else if lifecycle {
                    self.end((w, kind));
                } else {
                    self.worker = Some((w, kind));
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
                // A zygote whose child died goes on forking.
                if let (Some(kind), Some(z)) = (kind, self.zygotes.as_mut()) {
                    z.put(kind, w);
                }
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
            self.end(w);
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        self.discard();
    }
}

/// Sequence `seq`'s observations in call order: those in the worker's log
/// (`target::ffi::log`: an earlier sequence's, left by a worker that died before
/// clearing it, are not), then those it sent on its channel (`channel`: once a line did
/// not fit in the log, it and every later one went there).
fn in_order(log: &[u8], seq: u64, mut channel: Vec<Obs>) -> Result<Vec<Obs>, String> {
    let mut obs = Vec::new();
    for line in log.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let m = std::str::from_utf8(line)
            .ok()
            .and_then(FromWorker::parse)
            .ok_or("a line that is no message")??;
        match m {
            FromWorker::Observed { seq: s, obs: o, .. } if s == seq => obs.push(*o),
            FromWorker::Observed { .. } => {}
            other => return Err(format!("unexpected message {other:?}")),
        }
    }
    obs.append(&mut channel);
    Ok(obs)
}

impl Runner for Remote {
    fn run(&mut self, ops: &[Call], lifecycle: bool) -> Result<Trace, EngineError> {
        Remote::run(self, ops, lifecycle)
    }
    fn discard(&mut self) {
        Remote::discard(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpit_vocab::profile::ReturnCode;
    use mpit_vocab::spec::TErr;

    fn line(seq: u64, n: usize, rc: ReturnCode) -> String {
        let obs = Box::new(Obs::rc(rc));
        format!("{}\n", FromWorker::Observed { seq, n, obs }.line())
    }

    /// The log's lines of this sequence, in order, before the channel's; another
    /// sequence's lines are passed over; a line that is no observation is an error,
    /// never a shorter trace.
    #[test]
    fn the_log_comes_first_and_only_this_sequences_lines_count() {
        let invalid = || ReturnCode::T(TErr::InvalidIndex);
        let uninit = || ReturnCode::T(TErr::NotInitialized);
        let log = line(6, 0, invalid()) + &line(7, 0, ReturnCode::Success) + &line(7, 1, uninit());
        let got = in_order(log.as_bytes(), 7, vec![Obs::rc(invalid())]).unwrap();
        let rcs: Vec<ReturnCode> = got.into_iter().map(|o| o.rc).collect();
        assert_eq!(rcs, [ReturnCode::Success, uninit(), invalid()]);
        assert!(in_order(b"not a message\n", 7, Vec::new()).is_err());
        let done = format!("{}\n", FromWorker::OpsDone { seq: 7 }.line());
        assert!(in_order(done.as_bytes(), 7, Vec::new()).is_err());
        assert!(in_order(b"", 7, Vec::new()).unwrap().is_empty());
    }
}
