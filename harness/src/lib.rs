//! mpit-conform as a library: the binary (`main.rs`), the integration tests and the
//! fuzz targets all enter here.
//!
//! Layers, bottom to top. A module uses only modules of lower layers: `tests/layers.rs`
//! reads this list and checks every `crate::` path of every file against it, so the
//! module graph stays acyclic (docs/ARCHITECTURE.md walks through it).
//!
//! `specs`, `verdict`, `kind`, `readings` and `cases` are the crate `mpit-spec` (spec/), which
//! cannot call a library at all; `report`, `capabilities` and `exit_code` the crate
//! `mpit-report` (report/); `target` the crate `mpit-target` (library/); the others
//! are here. Child processes (workers, the
//! rank launcher, the bench's runs, the compiler) start only through the crate
//! `mpit-process` (process/).
//!
//! 0. `specs`, `verdict`, `kind`, `pvar_relations`, `exit_code`: the
//!    embedded spec bundle, the result types, the entity kinds with an index space, and
//!    data with no behaviour of their own
//! 1. `readings`, `target`, `capabilities`: strictness readings; the library under test
//!    (ELF, ABI profiles, detection, the catalog reader, `target::ffi`: all the MPI
//!    `unsafe`); the capability states
//! 2. `cases`, `report`: the YAML case language, the function table, the clause list;
//!    reports rendered from a stored result file
//! 3. `judge`, `coverage`: judging (pure: observation against expectation, the
//!    run-wide return-code table, values and inventory); clause coverage
//! 4. `exec`: the interpreter of a case against a target (`exec::calls`: one call on
//!    the target, the engine both oracles call through)
//! 5. `differential`: the second oracle (generated sequences on the reference model and
//!    the target, compared; its target engine calls through `exec::calls`)
//! 6. `runner`, `fuzzing`: the supervisor (plan, worker pool, protocol, the in-worker
//!    engines, cross-rank run); the fuzz oracles
//! 7. `workflows`: the second oracle's workflows under the CLI (`fuzz-props`,
//!    `replay`, `run --model-check`)
//! 8. `cli`
//!
//! `target` is the crate `mpit-target` (library/), which holds all the harness's MPI
//! `unsafe` in its `ffi` module; this crate forbids `unsafe` altogether.

#![forbid(unsafe_code)]

// The lower crates, re-exported under their old paths (`crate::cases`, `crate::target`).
pub use mpit_report as report;
pub use mpit_report::{capabilities, exit_code};
pub use mpit_spec::{cases, kind, readings, specs, verdict};
pub use mpit_target as target;

pub mod cli;
pub mod coverage;
pub mod differential;
pub mod exec;
pub mod fuzzing;
pub mod judge;
pub mod pvar_relations;
pub mod runner;
pub mod workflows;
