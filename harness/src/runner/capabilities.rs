//! The supervisor's side of the capability probe (`runner::capability_probe`): a worker of
//! its own (vendor code crashes; the suite's workers must not carry the probe's
//! registrations or its MPI_Init), asked once, its phases collected as they come. A
//! probe that dies, hangs or cannot start still yields capabilities: what it saw
//! before, the rest `unknown` with the death as evidence.

use super::child::{Start, Worker};
use super::pool::Setup;
use super::protocol::{FromWorker, Hello, ToWorker};
use mpit_report::capabilities::{derive, Capabilities, Died, Observed};
use mpit_spec::verdict::Evidence;

/// Runs the probe; also returns how many workers it started (0 or 1).
pub fn probe(setup: &Setup) -> (Capabilities, u64) {
    let hello = Hello {
        mpi_init: false,
        single_job: true,
        base_init: true,
        ..setup.hello.clone()
    };
    let mut seen = Observed::default();
    let mut w = match Worker::start(&hello, setup.timeout, setup.stop.clone()) {
        Ok((w, _)) => w,
        Err(e) => {
            let evidence = match &e {
                Start::Died(d) => vec![d.evidence(setup.timeout)],
                Start::CannotRun(_) => Vec::new(),
            };
            seen.died = Some(Died {
                message: format!("its worker did not start: {e}"),
                evidence,
            });
            return (derive(&seen), 1);
        }
    };
    let sent = w.send(&ToWorker::Capabilities);
    let end = match sent {
        Err(b) => Some(b),
        Ok(()) => loop {
            match w.next(setup.timeout) {
                Ok(FromWorker::Probe(step)) => seen.add(*step),
                Ok(FromWorker::ProbeDone) => break None,
                Ok(other) => {
                    break Some(super::child::Broke::Other(format!(
                        "unexpected message from the probe: {other:?}"
                    )))
                }
                Err(b) => break Some(b),
            }
        },
    };
    match end {
        None => {
            let _ = w.quit();
        }
        Some(b) => {
            let d = w.death(b);
            w.kill();
            seen.died = Some(Died {
                message: d.message.clone(),
                evidence: vec![d.evidence(setup.timeout)],
            });
        }
    }
    (derive(&seen), 1)
}

/// Capabilities when the library never started (`startup::failed`): nothing could be
/// asked, every state is `unknown`, with the start's death as evidence.
pub fn unstarted(message: &str, evidence: Vec<Evidence>) -> Capabilities {
    derive(&Observed {
        died: Some(Died {
            message: format!("the library did not start: {message}"),
            evidence,
        }),
        ..Observed::default()
    })
}
