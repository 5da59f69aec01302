//! Spec cases: the typed form of specs/cases/*.yaml (format documented in
//! specs/README.md). Parsing and validation live here; running a case is `exec`'s job
//! and judging an observation is `judge`'s.
//!
//! One concept per module: `case` a case and what it requires, `step` a step and its
//! expectations, `select` the subjects a case or a step runs on (kinds and `where:`
//! filters), `load` the suite read from the case files with errors located at
//! file:line:col, `validate` the rules a case must follow to load; `expr` the
//! expressions, `funcs` the callable functions, `clauses` the clause list, `builtin`
//! the cross-rank cases' definitions.

pub mod builtin;
mod case;
pub mod clauses;
pub mod expr;
pub mod funcs;
mod load;
mod neutral;
#[cfg(test)]
mod readings_check;
pub mod roles;
mod select;
mod step;
mod validate;
pub mod written;

pub use case::{Buffers, Case, CaseFile, InitMode, MpiVersion, Require, StringField};
pub use load::{parse_file, Suite};
pub use neutral::Neutral;
pub use select::{Filter, FilterValues, Scalar, SubjectKind, FILTER_KEYS, GLOBAL_VARS};
pub use step::{Builtin, Callee, Expect, ForAll, Reading, Step, StrCheck};
pub use validate::pred_exprs;
