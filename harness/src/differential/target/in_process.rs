//! The target engine's runner in this process: the `ops_differential` fuzz target's
//! and the bench's (a crash inside the library is the fuzzer's finding), beside
//! `runner::remote::Remote`, the runner in a worker process.

use super::TargetEngine;
use crate::differential::engine::{trace, EngineError, Runner};
use crate::differential::obs::Trace;
use crate::differential::op::Call;
use crate::differential::Mirror;
use mpit_target::Target;

/// A library loaded in this process (the fuzzer's: a crash is what it looks for). It
/// holds one MPI_T init of its own, so sequences nest inside it.
pub struct InProcess<'a> {
    pub target: &'a Target,
    pub mirror: &'a Mirror,
}

impl Runner for InProcess<'_> {
    fn run(&mut self, ops: &[Call], _lifecycle: bool) -> Result<Trace, EngineError> {
        Ok(trace(&mut TargetEngine::new(self.target, self.mirror), ops))
    }
}
