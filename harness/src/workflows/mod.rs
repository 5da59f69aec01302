//! The second oracle's workflows, each one module with one entry point, below the CLI
//! (`cli/` parses the arguments, calls the entry point and prints what it returns):
//!
//! - [`fuzz_props`]: the property search of `mpit-conform fuzz-props`: per mode, search
//!   and shrink (`differential::props`), then the shortest sequence written as a YAML
//!   case (`differential::emit`), replayed on the library in workers (`runner`) and
//!   the C program of each failing result written (`repro`), all in [`replayed`];
//! - [`replay`]: `mpit-conform replay`, one cargo-fuzz artifact of `ops_differential`
//!   replayed in a worker, and optionally written and replayed as a case the same way;
//! - [`model_check`]: `run --model-check`, the reference serving the library's catalog
//!   on the same YAML cases.
//!
//! The mirror both searches judge against is [`mirror`]'s; fuzz-props' searches run
//! side by side as [`streams`].

pub mod fuzz_props;
mod mirror;
pub mod model_check;
pub mod replay;
pub mod replayed;
pub mod streams;

/// Why a workflow could not run: one line (the CLI adds `mpit-conform: error: `).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct WorkflowError(pub String);

impl WorkflowError {
    /// The error of anything that displays (a library's, a runner's, an I/O error).
    pub fn of(e: impl std::fmt::Display) -> WorkflowError {
        WorkflowError(e.to_string())
    }
}
