//! mpit-conform: a conformance harness for MPI_T implementations.
//!
//! Exit codes: 0 nothing unexpected; 1 a check failed, or the library crashed or hung;
//! 2 could not run (bad input, library not loadable).

#![forbid(unsafe_code)]

mod cli;

use mpit_process::default_sigpipe;
use mpit_report::exit_code;
use std::process::ExitCode;

fn main() -> ExitCode {
    default_sigpipe();
    match cli::main() {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // One line, no backtrace: bad input is the user's to fix.
            eprintln!("mpit-conform: error: {e:#}");
            ExitCode::from(exit_code::CANNOT_RUN)
        }
    }
}
