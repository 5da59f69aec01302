//! mpit-spec: what mpit-conform judges against, with no way to call a library. The
//! bottom layers of the harness, a crate of their own so the compiler keeps them
//! there (mpit-conform imports them by name, `use mpit_spec::cases`). Its own modules,
//! bottom to top (`harness/tests/layers.rs` checks the order):
//!
//! 0. `specs`, `verdict`, `kind`: the spec bundle embedded in the binary (specs/); the
//!    result types every report is made of; the entity kinds with an index space
//! 1. `readings`: the strictness readings of ambiguous sentences (specs/readings.yaml)
//! 2. `cases`: the YAML case language (parse, validate with file:line:col, select), the
//!    function table, the clause list (specs/clauses.yaml) and the cases written in Rust

#![forbid(unsafe_code)]

pub mod cases;
pub mod kind;
pub mod readings;
pub mod specs;
pub mod verdict;
