//! Reads everything a target exposes into the reference's catalog format, plus the raw
//! observations the catalog checks judge (lengths returned, index round trips, codes).
//! Runs inside a worker process.
//!
//! One read serves every use: `read` makes the calls (the table of entity kinds, each
//! call kept undecoded in `raw`), and both the decoded catalog here and the harness's
//! inventory of subjects are views of that read, never loops of their own.
//!
//! This file holds what the decoded view yields (the dump and its parts) and small views
//! of it; `decode` walks the read into a `CatalogDump`, `reader` is its bookkeeping (the
//! string convention, failed calls, enumerations), `categories` the categories and their
//! members.

mod categories;
mod decode;
pub mod raw;
mod read;
mod reader;

pub use decode::{decode, read, read_guarded};
pub use read::read_raw;

use super::ffi::StrOut;
use super::reading::Lost;
use super::Detection;
use mpit_vocab::catalog::Catalog;
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::{Datatype, PvarClass};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The target index of each entry of a mirrored catalog, per kind: the catalog leaves
/// out entries the profile could not decode, so position and index can differ.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origins {
    pub cvars: Vec<i32>,
    pub pvars: Vec<i32>,
    pub categories: Vec<i32>,
    pub events: Vec<i32>,
    pub sources: Vec<i32>,
}

impl Origins {
    /// Each entry at its own index (a catalog read without gaps, or the reference's).
    pub fn identity(c: &Catalog) -> Origins {
        let seq = |n: usize| (0..n as i32).collect();
        Origins {
            cvars: seq(c.cvars.len()),
            pvars: seq(c.pvars.len()),
            categories: seq(c.categories.len()),
            events: seq(c.events.len()),
            sources: seq(c.sources.len()),
        }
    }
}

/// Counts from the `*_get_num` calls (`None`: the function is not exported).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub cvars: Option<i32>,
    pub pvars: Option<i32>,
    pub categories: Option<i32>,
    pub events: Option<i32>,
    pub sources: Option<i32>,
}

/// One name as read through the string convention (MPI-4.1 §15.3.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameObs {
    pub kind: String,
    pub index: i32,
    pub name: String,
    /// `*len` after a call with a NULL buffer (R-STR-3): must be strlen+1.
    pub len_null_buf: Option<i32>,
    /// `*len` after a call with an exact-size buffer: must be strlen+1.
    pub len_exact: Option<i32>,
    /// What `*_get_index(name)` returned: code and index.
    pub get_index: Option<(ReturnCode, i32)>,
    /// A read into a buffer one byte too small (strlen bytes): what came back.
    pub truncated: Option<StrOut>,
}

/// A call that did not return MPI_SUCCESS while reading the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedCall {
    pub call: String,
    pub returned: ReturnCode,
}

/// Everything read from one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogDump {
    pub library_version: String,
    pub mpi_version: Option<(i32, i32)>,
    pub detection: Option<Detection>,
    /// The ABI profile used to decode, and why it was chosen.
    pub profile: String,
    pub after_init: bool,
    pub counts: Counts,
    /// `MPI_T_category_changed` after the read.
    pub category_changed: Option<i32>,
    /// MPI-4.1 entry points the library does not export ("unsupported", never a crash).
    pub unsupported: Vec<String>,
    pub catalog: Catalog,
    /// The target index of each catalog entry (entries that could not be decoded are
    /// left out of the catalog, so positions and indices can differ).
    #[serde(default)]
    pub origins: Origins,
    pub names: Vec<NameObs>,
    pub failed_calls: Vec<FailedCall>,
    /// Values the profile could not decode (each is a finding to look at).
    pub undecoded: Vec<String>,
    /// The profile's predefined handles as the worker saw them (addresses for Open MPI,
    /// the stored value of MPICH's MPI_T_PVAR_ALL_HANDLES).
    pub handles: BTreeMap<String, u64>,
    /// Profile entries naming objects the library does not export.
    pub unresolved: Vec<String>,
    /// The spots the reader was told to pass over (`target::reading`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed: Vec<String>,
    /// The entries that killed or stalled a reader (filled by the supervisor).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lost: Vec<Lost>,
}

/// The pvar classes whose datatype is outside the class table (R-PCLASS), for checks.
pub fn class_mismatches(c: &Catalog) -> Vec<(String, PvarClass, Datatype)> {
    c.pvars
        .iter()
        .filter(|p| !p.class.allowed_datatypes().contains(&p.datatype))
        .map(|p| (p.name.clone(), p.class, p.datatype))
        .collect()
}

/// Spelled-out counts for the table view.
pub fn count_line(d: &CatalogDump) -> String {
    let f = |x: Option<i32>| x.map_or("-".to_string(), |n| n.to_string());
    format!(
        "cvars {} · pvars {} · categories {} · enums {} · events {} · sources {}",
        f(d.counts.cvars),
        f(d.counts.pvars),
        f(d.counts.categories),
        d.catalog.enums.len(),
        f(d.counts.events),
        f(d.counts.sources)
    )
}
