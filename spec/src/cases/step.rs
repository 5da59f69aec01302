//! A step as written: a call with its arguments, or a built-in check; what it iterates
//! over (`for_all`), what it expects of the call (`expect`, with another reading of an
//! ambiguous sentence), what it saves, and whether its call is erroneous (R-GEN-3).

use super::expr::{self, Expr, PredSpec, RcSet};
use super::funcs::Func;
use super::select::{Filter, SubjectKind};
use crate::verdict::Level;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a string OUT value is judged against the subject's string (from the inventory).
/// Read and written (`written`) by the one spelling below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StrCheck {
    /// R-STR-1..4 for whatever buffer was passed; `*len` = strlen+1 (literal reading).
    Truncated,
    /// As `truncated`, but `*len` = the number of bytes written including the NUL when
    /// the string was cut (the other reading of R-STR-2).
    TruncatedN,
    /// The whole string, identical to the inventory's.
    Exact,
    /// Non-empty (R-STR-6: names have length >= 1).
    NonEmpty,
}

/// What a step expects of its call.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub rc: Option<RcSet>,
    #[serde(default)]
    pub out: BTreeMap<String, PredSpec>,
    #[serde(default)]
    pub name: Option<StrCheck>,
    #[serde(default)]
    pub desc: Option<StrCheck>,
    /// Every OUT value equal to those saved (with `save: {x: all}`) from an earlier call.
    #[serde(default)]
    pub same_as: Option<Expr>,
    /// The other reading of an ambiguous sentence (specs/readings.yaml): when the
    /// expectation above fails but this one holds, the result is `warn` (`fail` under
    /// `--strict`) naming the reading.
    #[serde(default)]
    pub or_reading: Option<Box<Reading>>,
    /// The expectation's own level when it differs from the case's (e.g. a robustness
    /// check inside a must case).
    #[serde(default)]
    pub level: Option<Level>,
    /// Not a check: whether the `value` OUT differs from this earlier value is recorded,
    /// so a pass whose value never moved under activity is reported as vacuous
    /// (`exercised: false` in the result) instead of as evidence of the relation.
    #[serde(default)]
    pub moved_from: Option<Expr>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reading {
    pub reading: String,
    pub expect: Expect,
}

/// What a step iterates over (`for_all:`): every catalog entry of a kind (with the
/// step's `where:`), the elements of a saved list (`$name`), or the integers
/// `0..n-1` (`range($num_cvars)`: every index below a count, whether or not the
/// inventory could read it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForAll {
    Kind(SubjectKind),
    List(String),
    Range(Expr),
    /// Each OUT argument of the step's function passed as NULL on its own, then all of
    /// them at once (`Func::nullable_outs`); the iteration's `$null` names it.
    NullOuts,
}

impl<'de> Deserialize<'de> for ForAll {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ForAll, D::Error> {
        let s = String::deserialize(d)?;
        if let Some(inner) = s
            .trim()
            .strip_prefix("range(")
            .and_then(|r| r.strip_suffix(')'))
        {
            return match expr::parse_expr(inner) {
                Ok(e @ Expr::Sum(_)) => Ok(ForAll::Range(e)),
                Ok(_) => Err(serde::de::Error::custom(format!(
                    "`range(...)` takes a number or `$variable` expression, not `{inner}`"
                ))),
                Err(e) => Err(serde::de::Error::custom(e)),
            };
        }
        if let Some(v) = s.strip_prefix('$') {
            return Ok(ForAll::List(v.to_string()));
        }
        if s == "null_outs" {
            return Ok(ForAll::NullOuts);
        }
        let k: SubjectKind =
            SubjectKind::deserialize(serde::de::value::StrDeserializer::<D::Error>::new(&s))?;
        Ok(ForAll::Kind(k))
    }
}

/// A built-in judgement over more than one call's worth of data (documented in
/// specs/README.md); used where a step list would not say it better. Read and written
/// (`written`) by the one spelling below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Builtin {
    /// R-STR-6: names unique per kind (pvars by name+class, items within an enum).
    NamesUnique,
    /// R-CAT-1: no category contains itself, directly or transitively.
    CategoriesAcyclic,
    /// R-RC-2: the profile's MPI_T_ERR_* distinct, in (0, MPI_ERR_LASTCODE], disjoint
    /// from the MPI error classes.
    ErrorCodes,
    /// R-VERB-1: the nine verbosity constants ascend in the standard's order.
    VerbosityOrder,
    /// R-CVAR-1 / R-CAT-1: a later snapshot (`after`) keeps every entry of an earlier
    /// one (`before`) at the same index with the same info; members only appended.
    CatalogExtends,
    /// R-CAT-1: `catalog_extends` of the categories alone (their info and members), so a
    /// category case reports what happened to the categories, not to a variable.
    CategoriesExtend,
    /// R-CAT (§15.3.9: "If two calls to this routine return the same update number, it
    /// is guaranteed that the category information has not changed between the two
    /// calls"): with args `{before, after}` (snapshots) and `{number_before,
    /// number_after}` (the update numbers read next to them), equal numbers require
    /// equal categories: their count, info and members.
    CategoryChangedTracks,
}

impl Builtin {
    pub const ALL: [Builtin; 7] = [
        Builtin::NamesUnique,
        Builtin::CategoriesAcyclic,
        Builtin::ErrorCodes,
        Builtin::VerbosityOrder,
        Builtin::CatalogExtends,
        Builtin::CategoriesExtend,
        Builtin::CategoryChangedTracks,
    ];

    /// The rule (specs/clauses.yaml) a failure of the check breaks: the first its doc
    /// names, the one a case that adds the check cites for it.
    pub fn rule(self) -> &'static str {
        match self {
            Builtin::NamesUnique => "R-STR-6",
            Builtin::CategoriesAcyclic | Builtin::CategoriesExtend => "R-CAT-1",
            Builtin::ErrorCodes => "R-RC-2",
            Builtin::VerbosityOrder => "R-VERB-1",
            Builtin::CatalogExtends => "R-CVAR-1",
            Builtin::CategoryChangedTracks => "R-CAT",
        }
    }
}

/// One step: a call with arguments and expectations, or a built-in check.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default)]
    pub call: Option<String>,
    #[serde(default)]
    pub check: Option<Builtin>,
    #[serde(default)]
    pub args: BTreeMap<String, Expr>,
    #[serde(default)]
    pub expect: Option<Expect>,
    /// `variable: out_name` (or `all`); inside `for_all` the variable collects a list.
    #[serde(default)]
    pub save: BTreeMap<String, String>,
    /// Run the call this many times (each must meet `expect`).
    #[serde(default)]
    pub repeat: Option<u32>,
    #[serde(default)]
    pub for_all: Option<ForAll>,
    #[serde(default, rename = "where")]
    pub filter: Filter,
    /// The call passes an argument the standard lets an implementation leave unchecked
    /// (R-GEN-3: a bad index, a NULL or freed handle): a crash or hang inside it is
    /// reported at the step's level (`warn`, `fail` under --strict), not as `crash`.
    #[serde(default)]
    pub erroneous: bool,
    /// What the call must return for the case to apply at all (e.g. `provided:
    /// MPI_THREAD_MULTIPLE` before a case that calls from several threads): when it does
    /// not, the case is `skip` with the reason, and its later steps are not run.
    #[serde(default)]
    pub skip_unless: Option<Expect>,
}

/// The resolved callee of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Callee {
    Func(Func),
    /// `$function`: the subject of `for_each: function`.
    Subject,
}

impl Step {
    pub fn callee(&self) -> Option<Callee> {
        match self.call.as_deref()? {
            "$function" => Some(Callee::Subject),
            s => Func::from_yaml(s).map(Callee::Func),
        }
    }

    /// What the step does that makes the values read after it differ from the values
    /// read before (`mpit-conform coverage`'s "judged on values"): MPI work
    /// (`activity`), the reference's simulated work (`simulate`), `MPI_Init`, or every
    /// OUT argument NULL in turn (`for_all: null_outs`, the others' values compared).
    pub fn exercises(&self) -> Option<&'static str> {
        if self.for_all == Some(ForAll::NullOuts) {
            return Some("null_outs");
        }
        match self.callee()? {
            Callee::Func(Func::Activity) => Some("activity"),
            Callee::Func(Func::Simulate) => Some("simulate"),
            Callee::Func(Func::MpiInit | Func::MpiInitThread) => Some("mpi_init"),
            _ => None,
        }
    }
}
