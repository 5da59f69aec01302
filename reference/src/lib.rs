//! mpit-reference: a reference implementation of the MPI-4.1 tool information interface
//! (MPI_T), the oracle of mpit-conform. As an rlib it is a safe Rust model
//! ([`model::Model`]); as a cdylib it exports every MPI_T function with the MPI-5
//! standard ABI, or with MPICH's ABI when loaded as `libmpi.so.12`/`libmpich.so.12`
//! ([`ffi`], the only module with `unsafe`).

#[forbid(unsafe_code)]
pub mod faults;
mod ffi;
/// The C entry points by name, for a program that links this crate ([`linked::symbol`]).
pub use ffi::linked;
#[forbid(unsafe_code)]
pub mod model;
#[forbid(unsafe_code)]
pub mod strings;

/// Environment variable naming a catalog file to load instead of the default one.
pub const ENV_CATALOG: &str = "MPIT_REFERENCE_CATALOG";
/// Environment variable listing faults to switch on (`list` prints them).
pub const ENV_FAULTS: &str = "MPIT_REFERENCE_FAULTS";
/// Environment variable choosing the cdylib's ABI (`mpich` or `standard`) whatever the
/// file name it was loaded under.
pub const ENV_ABI: &str = "MPIT_REFERENCE_ABI";
/// The file names under which the cdylib speaks MPICH's ABI (without `MPIT_REFERENCE_ABI`):
/// the names MPICH's and Intel MPI's tools are linked against (`NEEDED`).
pub const MPICH_FILE_NAMES: &[&str] = &["libmpi.so.12", "libmpich.so.12"];
