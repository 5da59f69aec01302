//! mpit-conform's exit codes, named where they are set or read back (the bench reads a
//! run's; the supervisor a worker's: `mpit_process::exit_code` has the Rust panic's).

/// Nothing unexpected.
pub const OK: u8 = 0;
/// A check failed, or the library crashed or hung: findings, a normal run's end. The
/// other commands' 1 (docs/ARCHITECTURE.md, "Exit codes"): a worse report (`diff`), an
/// entry not read (`catalog`), a divergence (`fuzz-props`, `replay`), no C translation
/// (`repro`).
pub const FINDINGS: u8 = 1;
/// Could not run (bad input, library not loadable).
pub const CANNOT_RUN: u8 = 2;
/// A worker whose channel to the supervisor closed (the supervisor is gone) or was taken
/// for good by the library; recorded in the worker's page before it exits, so the
/// supervisor does not take it for the library's `exit(3)`.
pub const WORKER_ORPHANED: i32 = 3;
