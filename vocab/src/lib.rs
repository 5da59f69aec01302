//! mpit-vocab: the words every other crate of mpit-conform speaks, with no behaviour of
//! an MPI library. The MPI_T chapter's named constants as closed enums ([`spec`]), the
//! numbers an ABI family gives them ([`profile`]), the catalog of what an
//! implementation exposes ([`catalog`]), variable and event values with their byte
//! layout ([`value`]), and YAML loading with `file:line:col` errors ([`yaml`]).
//!
//! The reference (mpit-reference, the oracle) and the harness's crates (mpit-spec,
//! mpit-target, mpit-report) stand on it; it depends on no crate of the workspace.

#![forbid(unsafe_code)]

pub mod catalog;
pub mod profile;
pub mod spec;
pub mod value;
pub mod yaml;
