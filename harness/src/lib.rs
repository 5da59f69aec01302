//! mpit-conform as a library: the binary (`main.rs`), the integration tests and the
//! fuzz targets all enter here.
//!
//! Layers (DESIGN.md "Shape"): `cli` → `runner` (pool · worker · protocol) → `exec` → `judge`
//! → `target` (safe API · ffi); `verdict` and `report` beside them. `repro` writes a case
//! as a C program (the compiler of the case language, where `exec` is its interpreter).

pub mod abi_probe;
pub mod abi_tags;
pub mod bench;
pub mod capabilities;
pub mod cases;
pub mod cli;
pub mod coverage;
pub mod differential;
pub mod exec;
pub mod exit_code;
pub mod fuzzing;
pub mod judge;
pub mod pvar_relations;
pub mod readings;
pub mod report;
pub mod repro;
pub mod runner;
pub mod specs;
pub mod target;
pub mod verdict;
