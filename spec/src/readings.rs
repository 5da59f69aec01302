//! The readings, conflicts and tolerances of specs/readings.yaml: the one place the
//! harness is allowed to be lenient, each with its sentence (docs/ARCHITECTURE.md,
//! "Readings").
//! Cases name an entry in `or_reading:` (the loader checks it exists); the comparator
//! names the entries it applies by the constants below (a test checks they exist).

use crate::specs;
use mpit_vocab::yaml::{self, YamlError};
use serde::Deserialize;
use std::sync::OnceLock;

/// Two readings of one sentence (R-STR-2, "the length of the string plus one").
pub const STR2_LENGTH_OF_THE_TRUNCATED_STRING: &str = "str2.length_of_the_truncated_string";
/// An extra MPI_T_finalize "returns a corresponding return code" (R-FIN-1).
pub const FIN1_CORRESPONDING_RETURN_CODE: &str = "fin1.corresponding_return_code";
/// An empty description asked with desc_len = 0 (R-STR-3 against the description
/// sentence).
pub const DESC_EMPTY_DESCRIPTION_ZERO_BUFFER: &str = "desc.empty_description_zero_buffer";
/// A cvar whose scope allows writing may still refuse (R-CVAR-9).
pub const CVAR_WRITE_A_WRITABLE_VARIABLE_MAY_REFUSE: &str =
    "cvar_write.a_writable_variable_may_refuse";
/// Whether a source takes ad-hoc timestamps is not declared (R-SRC-TS).
pub const SOURCE_TIMESTAMP_SUPPORT_IS_NOT_DECLARED: &str =
    "source_timestamp.support_is_not_declared";
/// A second start of a started pvar handle: the text is silent.
pub const PVAR_START_OF_A_STARTED_HANDLE: &str = "pvar.start_of_a_started_handle";
/// A nested MPI_T_init_thread "has no effect beyond increasing the reference count"
/// (R-INIT-1): `provided` left unwritten.
pub const INIT_NESTED_CALL_HAS_NO_EFFECT: &str = "init.nested_call_has_no_effect";
/// An invalid event registration, instance or element index: INVALID_HANDLE and
/// INVALID_INDEX, the codes specs/return-codes.yaml `groups: events` allows.
pub const EVENTS_HANDLE_AND_INDEX_CODES: &str = "events.handle_and_index_codes";

/// A pvar's readonly/continuous/atomic flag other than 0 or 1 (R-PVAR-2 against the
/// C binding's logical flags).
pub const PVAR_FLAGS_NONZERO_IS_TRUE: &str = "pvar_flags.nonzero_is_true";

/// Every id the harness's code applies.
pub const USED_BY_CODE: &[&str] = &[
    STR2_LENGTH_OF_THE_TRUNCATED_STRING,
    FIN1_CORRESPONDING_RETURN_CODE,
    DESC_EMPTY_DESCRIPTION_ZERO_BUFFER,
    CVAR_WRITE_A_WRITABLE_VARIABLE_MAY_REFUSE,
    SOURCE_TIMESTAMP_SUPPORT_IS_NOT_DECLARED,
    PVAR_START_OF_A_STARTED_HANDLE,
    INIT_NESTED_CALL_HAS_NO_EFFECT,
    PVAR_FLAGS_NONZERO_IS_TRUE,
    EVENTS_HANDLE_AND_INDEX_CODES,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadingKind {
    Reading,
    Conflict,
    Tolerance,
    Silent,
    Downgrade,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reading {
    pub id: String,
    pub kind: ReadingKind,
    pub rules: Vec<String>,
    /// The sentence (kinds other than `conflict`).
    #[serde(default)]
    pub sentence: Option<String>,
    /// Both sentences (`conflict`).
    #[serde(default)]
    pub sentences: Vec<String>,
    #[serde(default)]
    pub literal: Option<String>,
    #[serde(default)]
    pub other: Option<String>,
    #[serde(default)]
    pub choice: Option<String>,
    #[serde(default)]
    pub meaning: Option<String>,
    /// The codes that conform (`tolerance`).
    #[serde(default)]
    pub codes: Vec<String>,
    /// Case ids, and `comparator` for the differential oracle.
    pub used_by: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    readings: Vec<Reading>,
}

/// The bundled list.
pub fn bundled() -> Result<Vec<Reading>, YamlError> {
    let text = specs::text("readings.yaml").unwrap_or_default();
    yaml::parse::<File>(text, "specs/readings.yaml").map(|f| f.readings)
}

/// The bundled list, parsed once per process (empty if it does not parse; a unit test
/// keeps it parsing).
pub fn all() -> &'static [Reading] {
    static R: OnceLock<Vec<Reading>> = OnceLock::new();
    R.get_or_init(|| bundled().unwrap_or_default())
}

pub fn get(id: &str) -> Option<&'static Reading> {
    all().iter().find(|r| r.id == id)
}

/// Whether `code` (its spelling, `MPI_SUCCESS` or `MPI_T_ERR_*`) is one of the codes
/// the `tolerance` entry `id` lets conform. An id the bundled list lacks tolerates
/// nothing (a unit test checks every id the code names).
pub fn tolerates(id: &str, code: &str) -> bool {
    get(id).is_some_and(|r| r.codes.iter().any(|c| c == code))
}

/// How a result cites an entry: its id, what the library did (the `other` reading or
/// the entry's meaning) and the sentence.
pub fn cite(id: &str) -> String {
    match get(id) {
        Some(r) => {
            let what = r.other.as_deref().or(r.meaning.as_deref()).unwrap_or("");
            let sentence = r
                .sentence
                .clone()
                .unwrap_or_else(|| r.sentences.join(" / "));
            format!("{id} (specs/readings.yaml): {what} — {sentence}")
        }
        None => id.to_string(),
    }
}
