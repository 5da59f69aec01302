//! The engines of the differential oracle, one small trait per level (wasmtime's
//! `crates/fuzzing` style):
//!
//! - [`Engine`] carries out one call of a sequence and says what came back: the
//!   reference model in this process (`model::ModelEngine`) and a loaded library
//!   through the case executor's engine (`target::TargetEngine`) implement it, so the
//!   two give the same [`Obs`] for the same [`Call`];
//! - [`Runner`] runs a whole sequence of the library's on a fresh engine and gives its
//!   [`Trace`]: in this process (`target::InProcess`, the fuzz target's: a crash is
//!   what it looks for) or in a worker process
//!   (`runner::remote::Remote`, where a crash or a hang ends the trace at the call in
//!   flight).
//!
//! The model's side needs no runner: it cannot crash, and [`trace`] runs it
//! (`props::run_model`). The comparator (`compare`) gets the two traces; which one is
//! the model's is the only asymmetry, and it is the comparator's: the model's outcome
//! is the expected one.

use super::obs::{Obs, Trace};
use super::op::Call;

/// Carries out one call of a sequence, a call of the function table as the generator
/// made it, so both engines read one vocabulary of functions and arguments.
pub trait Engine {
    fn call(&mut self, c: &Call) -> Obs;
}

/// Why a sequence could not be run at all (not a divergence: the harness's problem or
/// Ctrl-C).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot start a worker: {0}")]
    Spawn(String),
    #[error("interrupted")]
    Interrupted,
    #[error("worker: {0}")]
    Protocol(String),
}

/// Runs a whole sequence on a fresh engine.
pub trait Runner {
    /// The trace of `ops`; `lifecycle`: the sequence starts with MPI_T not initialized
    /// (else inside one init the sequence never finalizes).
    fn run(&mut self, ops: &[Call], lifecycle: bool) -> Result<Trace, EngineError>;
    /// The engine's state no longer matches the model's: start afresh.
    fn discard(&mut self) {}
}

/// Every call of `ops` on `e`, in order (an engine in this process never dies inside
/// a call: a crash takes the process with it).
pub fn trace(e: &mut dyn Engine, ops: &[Call]) -> Trace {
    Trace {
        obs: ops.iter().map(|o| e.call(o)).collect(),
        died: None,
    }
}
