//! The MPI_T entity kinds with a `*_get_num` and an index space: control variables
//! (MPI-4.1 §15.3.6), performance variables (§15.3.7), events and their sources
//! (§15.3.8), categories (§15.3.9). Indices run `0..num` per kind (R-CVAR-2, R-PVAR-1,
//! R-EVT-1, R-SRC-1, R-CAT-1).
//!
//! Not the subject kinds of a case's `for_all:` (`cases::Kind`, which also has enums,
//! items, functions and thread levels). The function-table entries of a kind
//! (`Kind::get_num`, `Kind::get_info`) sit with the table, in `cases::funcs`.

use serde::{Deserialize, Serialize};

/// An entity kind with a `*_get_num` and an index space.
///
/// The variant order is the differential oracle's (its `Ord` sorts by it); the fuzz
/// input's byte decoding has an order of its own (`Arbitrary` below).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Kind {
    Cvar,
    Pvar,
    Category,
    Event,
    Source,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Cvar,
        Kind::Pvar,
        Kind::Category,
        Kind::Event,
        Kind::Source,
    ];

    /// The kind's position in [`Kind::ALL`], for arrays with one entry per kind.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The word used in function names (`cvar` in `MPI_T_cvar_get_num`).
    pub fn word(self) -> &'static str {
        match self {
            Kind::Cvar => "cvar",
            Kind::Pvar => "pvar",
            Kind::Category => "category",
            Kind::Event => "event",
            Kind::Source => "source",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;

    #[test]
    fn index_is_the_position_in_all() {
        for (i, k) in Kind::ALL.into_iter().enumerate() {
            assert_eq!(k.index(), i, "{k:?}");
        }
    }
}
