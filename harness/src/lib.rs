//! mpit-conform as a library: the binary (`main.rs`, which holds the CLI), the
//! integration tests, the maintainer tools (xtask) and the fuzz targets enter here.
//!
//! It stands on the crates below it, each named where it is used (`use mpit_spec::cases`,
//! `use mpit_target::ffi`): `mpit-vocab` (vocab/: the MPI_T vocabulary, YAML errors),
//! `mpit-spec` (spec/: the spec bundle, the case language, the function table, results;
//! it cannot call a library), `mpit-target` (library/: the library under test, ELF, ABI
//! profiles, detection, the catalog reader, and in its `ffi` module all the harness's
//! MPI `unsafe`), `mpit-report` (report/: reports, capabilities, exit codes) and
//! `mpit-process` (process/: the one place child processes start). Their Cargo.toml
//! files keep that graph acyclic; this crate forbids `unsafe` altogether.
//!
//! Its own modules, in layers, bottom to top. A module uses only modules of lower layers:
//! `tests/layers.rs` reads this list and checks every `crate::` path of every file
//! against it, so the module graph stays acyclic (docs/ARCHITECTURE.md walks through it).
//!
//! 0. `pvar_relations`: data with no behaviour of its own (the pvar classes' relations)
//! 1. `judge`, `coverage`: judging (pure: observation against expectation, the
//!    run-wide return-code table, values and inventory); clause coverage
//! 2. `exec`: the interpreter of a case against a target (`exec::calls`: one call on
//!    the target, the engine both oracles call through)
//! 3. `differential`: the second oracle (generated sequences on the reference model and
//!    the target, compared; its target engine calls through `exec::calls`)
//! 4. `runner`, `fuzzing`: the supervisor (plan, worker pool, protocol, the in-worker
//!    engines, cross-rank run); the fuzz oracles
//! 5. `workflows`: the second oracle's workflows under the CLI (`fuzz-props`,
//!    `replay`, `run --model-check`)
//!
//! The CLI (`src/cli/`) is a module of the binary alone: it parses arguments, calls one
//! workflow or the runner, and prints.

#![forbid(unsafe_code)]

pub mod coverage;
pub mod differential;
pub mod exec;
pub mod fuzzing;
pub mod judge;
pub mod pvar_relations;
pub mod runner;
pub mod workflows;
