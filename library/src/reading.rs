//! Reading a catalog entry by entry so that one entry that kills or stalls the reader
//! costs that entry only. Before each entry the reader names the call that reads it
//! (`MPI_T_cvar_get_info(5)`, the spot); the worker tells the supervisor, which, when the
//! worker dies or hangs there, starts a fresh reader told to pass over that spot (and
//! over a whole function that hung on [`GIVE_UP_AFTER`] entries in a row: a library that
//! hangs in every call must still finish in bounded time).

use super::ffi::in_flight;
use mpit_spec::verdict::Status;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Entries of one function that may hang before the rest of that function's entries
/// are passed over unread.
pub const GIVE_UP_AFTER: usize = 3;

/// A spot that passes over every call of `function` (`MPI_T_cvar_get_info(*)`).
pub fn all_of(function: &str) -> String {
    format!("{function}(*)")
}

/// The function of a spot (`MPI_T_cvar_get_info(5)` → `MPI_T_cvar_get_info`).
pub fn function(spot: &str) -> &str {
    spot.split('(').next().unwrap_or(spot)
}

/// The reader's side: which spots to pass over, and who hears of each spot entered.
pub struct Guard<'a> {
    skip: &'a BTreeSet<String>,
    announce: &'a dyn Fn(&str),
    /// The spots passed over, in order.
    pub passed: Vec<String>,
}

impl<'a> Guard<'a> {
    pub fn new(skip: &'a BTreeSet<String>, announce: &'a dyn Fn(&str)) -> Guard<'a> {
        Guard {
            skip,
            announce,
            passed: Vec::new(),
        }
    }

    /// Whether to read the entry at `spot`; when yes, the spot is announced and left
    /// as the call in flight (a crash's marker names it).
    pub fn enter(&mut self, spot: String) -> bool {
        if self.skip.contains(&spot) || self.skip.contains(&all_of(function(&spot))) {
            self.passed.push(spot);
            return false;
        }
        (self.announce)(&spot);
        in_flight::set(Some(&spot));
        true
    }

    /// The reading is over: no call in flight any more.
    pub fn leave(&mut self) {
        in_flight::set(None);
    }
}

/// A catalog entry that could not be read: the call that crashed or hung, or one passed
/// over after its function hung too often. Recorded by the supervisor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lost {
    /// The spot: `MPI_T_cvar_get_info(5)`, `MPI_T_pvar_get_num`.
    pub call: String,
    /// `crash` or `timeout`.
    pub status: Status,
    /// One line: what happened, with the library's last words.
    pub message: String,
    /// The library's last lines of output before it died or stalled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output: Vec<String>,
    /// A thread of the library's own died, not the call at the spot: the reader was
    /// in that call (so the spot is passed over), the call did not kill it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub other_thread: bool,
}
