//! The subjects a case runs on (`for_each:` a kind, one result per subject) and the
//! variables each defines for the steps; the `where:` filters on a subject's attributes
//! that narrow a case's or a `for_all` step's subjects.

use serde::Deserialize;
use std::collections::BTreeMap;

/// What a case runs on: one result per subject.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize,
)]
#[serde(rename_all = "snake_case")]
pub enum SubjectKind {
    Cvar,
    Pvar,
    Category,
    Enum,
    Item,
    Event,
    Source,
    /// Every MPI_T function (e.g. "returns NOT_INITIALIZED before init").
    Function,
    /// Each of the four thread levels.
    ThreadLevel,
}

impl SubjectKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SubjectKind::Cvar => "cvar",
            SubjectKind::Pvar => "pvar",
            SubjectKind::Category => "category",
            SubjectKind::Enum => "enum",
            SubjectKind::Item => "item",
            SubjectKind::Event => "event",
            SubjectKind::Source => "source",
            SubjectKind::Function => "function",
            SubjectKind::ThreadLevel => "thread_level",
        }
    }

    /// The variables a subject of this kind defines for the steps.
    pub fn vars(self) -> &'static [&'static str] {
        match self {
            SubjectKind::Cvar | SubjectKind::Category | SubjectKind::Source => {
                &["index", "name", "len", "desc_len"]
            }
            SubjectKind::Pvar => &["index", "name", "len", "desc_len", "var_class", "enumtype"],
            SubjectKind::Event => &["index", "name", "len", "desc_len", "num_elements"],
            SubjectKind::Enum => &["enumtype", "name", "len", "num_items"],
            SubjectKind::Item => &["enumtype", "item", "name", "len", "value", "num_items"],
            SubjectKind::Function => &["function"],
            SubjectKind::ThreadLevel => &["required"],
        }
    }
}

/// Variables every case can use: the catalog sizes (e.g. `index: $num_cvars` is one
/// past the last valid index).
pub const GLOBAL_VARS: &[&str] = &[
    "num_cvars",
    "num_pvars",
    "num_categories",
    "num_events",
    "num_sources",
    "num_enums",
];

/// Filter on subject attributes (`where:`), e.g. `scope: [MPI_T_SCOPE_CONSTANT]`,
/// `continuous: false`, `datatype: {not: [MPI_INT]}`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filter(pub BTreeMap<String, FilterValues>);

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum FilterValues {
    One(Scalar),
    Any(Vec<Scalar>),
    Not { not: Vec<Scalar> },
}

/// A scalar in a filter, kept as the text attributes are compared with.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Str(String),
}

impl Scalar {
    pub fn text(&self) -> String {
        match self {
            Scalar::Bool(b) => b.to_string(),
            Scalar::Int(i) => i.to_string(),
            Scalar::Str(s) => s.clone(),
        }
    }
}

impl FilterValues {
    pub fn accepts(&self, v: &str) -> bool {
        match self {
            FilterValues::One(s) => s.text() == v,
            FilterValues::Any(l) => l.iter().any(|s| s.text() == v),
            FilterValues::Not { not } => !not.iter().any(|s| s.text() == v),
        }
    }
}

/// The attributes a filter may name, per the inventory (`judge::inventory`).
pub const FILTER_KEYS: &[&str] = &[
    "scope",
    "bind",
    "datatype",
    "var_class",
    "verbosity",
    "readonly",
    "continuous",
    "atomic",
    "has_enum",
    "has_desc",
    "writable",
    "function",
    "handle_args",
    "name",
];

impl<'de> Deserialize<'de> for Filter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Filter, D::Error> {
        let m = BTreeMap::<String, FilterValues>::deserialize(d)?;
        for k in m.keys() {
            if !FILTER_KEYS.contains(&k.as_str()) {
                return Err(serde::de::Error::custom(format!(
                    "unknown filter key `{k}` (want one of {})",
                    FILTER_KEYS.join(", ")
                )));
            }
        }
        Ok(Filter(m))
    }
}

impl Filter {
    pub fn accepts(&self, attrs: &BTreeMap<String, String>) -> bool {
        self.0.iter().all(|(k, want)| {
            let v = attrs.get(k).map(String::as_str).unwrap_or("");
            want.accepts(v)
        })
    }
}
