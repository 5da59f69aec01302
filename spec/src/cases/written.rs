//! A case as a program writes it (`fuzz-props` writes each divergence it shrinks as a
//! case of specs/README.md's format): the fields `case` and `step` read, as data that
//! serializes with serde to YAML the loader reads back. A step names its function
//! through the function table (`funcs::Func`), and its arguments, saved values and
//! expected OUT values by the names the table lists for that function; [`WrittenStep::
//! vocabulary`] says which it names that the table does not (the loader would reject
//! them: `validate`).

use super::case::{InitMode, Require};
use super::funcs::Func;
use super::select::SubjectKind;
use super::step::{Builtin, StrCheck};
use crate::verdict::{Area, Level};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// A scalar as written: a number, or text (a `$variable`, an expression, an MPI
/// constant, a name), which serde quotes where YAML would read it as something else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Int(i64),
    /// A number past `i64`: the case language has none, and the loader says so
    /// ("number ... out of range") at its line.
    UInt(u64),
    Text(String),
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(s)
    }
}

/// `key: value` pairs in the order written (a YAML mapping; the loader's maps sort them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pairs<V>(pub Vec<(String, V)>);

impl<V> Default for Pairs<V> {
    fn default() -> Self {
        Pairs(Vec::new())
    }
}

impl<V> Pairs<V> {
    pub fn push(&mut self, key: impl Into<String>, value: V) {
        self.0.push((key.into(), value));
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }
}

impl<V: Serialize> Serialize for Pairs<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// A file of cases, all of one area.
#[derive(Debug, Clone, Serialize)]
pub struct WrittenFile {
    pub area: Area,
    pub cases: Vec<WrittenCase>,
}

/// One case: the header fields of `case::Case` a writer sets, and its steps.
#[derive(Debug, Clone, Serialize)]
pub struct WrittenCase {
    pub id: String,
    pub title: String,
    pub clause: String,
    pub rules: Vec<String>,
    pub level: Level,
    #[serde(skip_serializing_if = "is_auto")]
    pub init: InitMode,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<Require>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub for_each: Option<SubjectKind>,
    /// The subject's attributes (`name`, `var_class`).
    #[serde(rename = "where", skip_serializing_if = "Pairs::is_empty")]
    pub filter: Pairs<Value>,
    pub steps: Vec<WrittenStep>,
}

fn is_auto(m: &InitMode) -> bool {
    *m == InitMode::Auto
}

/// What a step iterates over (`step::ForAll`, the forms a writer uses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WrittenForAll {
    /// `null_outs`: each OUT argument NULL in turn, then all.
    NullOuts,
    /// `$name`: the elements of a saved list.
    List(String),
}

impl Serialize for WrittenForAll {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            WrittenForAll::NullOuts => s.serialize_str("null_outs"),
            WrittenForAll::List(v) => s.serialize_str(&format!("${v}")),
        }
    }
}

/// One step: a call of a function of the table, or a built-in check.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WrittenStep {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<Func>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<Builtin>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub for_all: Option<WrittenForAll>,
    #[serde(skip_serializing_if = "Pairs::is_empty")]
    pub args: Pairs<Value>,
    /// `variable: OUT name`.
    #[serde(skip_serializing_if = "Pairs::is_empty")]
    pub save: Pairs<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub erroneous: bool,
    /// Not written when it expects nothing (the loader reads no `expect:` as none).
    #[serde(skip_serializing_if = "WrittenExpect::is_empty")]
    pub expect: WrittenExpect,
}

impl WrittenStep {
    pub fn call(f: Func) -> WrittenStep {
        WrittenStep {
            call: Some(f),
            ..WrittenStep::default()
        }
    }

    pub fn check(b: Builtin) -> WrittenStep {
        WrittenStep {
            check: Some(b),
            ..WrittenStep::default()
        }
    }

    pub fn arg(&mut self, name: &str, v: impl Into<Value>) {
        self.args.push(name, v.into());
    }

    /// The argument, saved value and expected OUT names the function table does not
    /// list for this step's function (`Func::params`, `Func::outs`): none in a step the
    /// loader accepts.
    pub fn vocabulary(&self) -> Vec<String> {
        let Some(f) = self.call else {
            return Vec::new();
        };
        let mut bad = Vec::new();
        for a in self.args.keys() {
            if f.param(a).is_none() {
                bad.push(format!("`{}` has no parameter `{a}`", f.yaml()));
            }
        }
        for (_, o) in &self.save.0 {
            if !f.outs().contains(o) {
                bad.push(format!("`{}` has no OUT value `{o}` to save", f.yaml()));
            }
        }
        let mut outs = vec![&self.expect];
        if let Some(r) = &self.expect.or_reading {
            outs.push(&r.expect);
        }
        for x in outs {
            let strings = [("name", x.name.is_some()), ("desc", x.desc.is_some())];
            let named = strings.iter().filter(|(_, set)| *set).map(|(n, _)| *n);
            for o in x.out.keys().chain(named) {
                if !f.outs().contains(&o) {
                    bad.push(format!("`{}` has no OUT value `{o}` to expect", f.yaml()));
                }
            }
        }
        bad
    }
}

/// A step's `rc:`: one return code or any of several.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum WrittenRc {
    One(String),
    AnyOf(Vec<String>),
}

/// What a step expects (`step::Expect`, the fields a writer sets).
#[derive(Debug, Clone, Default, Serialize)]
pub struct WrittenExpect {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rc: Option<WrittenRc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<StrCheck>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desc: Option<StrCheck>,
    #[serde(skip_serializing_if = "Pairs::is_empty")]
    pub out: Pairs<WrittenPred>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub or_reading: Option<Box<WrittenReading>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
}

impl WrittenExpect {
    pub fn is_empty(&self) -> bool {
        self.rc.is_none()
            && self.name.is_none()
            && self.desc.is_none()
            && self.out.is_empty()
            && self.or_reading.is_none()
            && self.level.is_none()
    }
}

/// `or_reading:` the other reading of an ambiguous sentence (specs/readings.yaml).
#[derive(Debug, Clone, Serialize)]
pub struct WrittenReading {
    pub reading: String,
    pub expect: WrittenExpect,
}

/// An expectation on one OUT value: a bare value (equality) or operators.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum WrittenPred {
    Is(Value),
    Ops(Box<Ops>),
}

/// The operators of `expr::Pred` a writer uses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Ops {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eq: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ne: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lt: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub le: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gt: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ge: Option<Value>,
    /// Inclusive bounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub between: Option<(Value, Value)>,
    #[serde(rename = "in", skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Value>>,
    /// For lists: the number of elements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<Value>,
    /// For lists: the checks after it look past the first N elements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip: Option<Value>,
    /// For lists: every element satisfies this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub each: Option<Box<Ops>>,
}

impl Ops {
    /// The comparison named `word` (`eq`, `ne`, `lt`, `le`, `gt`, `ge`) with `v`.
    pub fn compare(word: &str, v: impl Into<Value>) -> Option<Ops> {
        let mut o = Ops::default();
        let slot = match word {
            "eq" => &mut o.eq,
            "ne" => &mut o.ne,
            "lt" => &mut o.lt,
            "le" => &mut o.le,
            "gt" => &mut o.gt,
            "ge" => &mut o.ge,
            _ => return None,
        };
        *slot = Some(v.into());
        Some(o)
    }
}

// The spellings of the case format's keywords, as `case` and `step` read them
// (`rename_all = "snake_case"` there); the tests below read each back.

impl Serialize for InitMode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            InitMode::Auto => "auto",
            InitMode::Manual => "manual",
        })
    }
}

impl Serialize for Require {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Require::MpiInit => "mpi_init",
            Require::FreshProcess => "fresh_process",
            Require::ReferenceHooks => "reference_hooks",
        })
    }
}

impl Serialize for StrCheck {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            StrCheck::Truncated => "truncated",
            StrCheck::TruncatedN => "truncated_n",
            StrCheck::Exact => "exact",
            StrCheck::NonEmpty => "non_empty",
        })
    }
}

impl Serialize for Builtin {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Builtin::NamesUnique => "names_unique",
            Builtin::CategoriesAcyclic => "categories_acyclic",
            Builtin::ErrorCodes => "error_codes",
            Builtin::VerbosityOrder => "verbosity_order",
            Builtin::CatalogExtends => "catalog_extends",
            Builtin::CategoriesExtend => "categories_extend",
            Builtin::CategoryChangedTracks => "category_changed_tracks",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;
    use std::fmt::Debug;

    /// Written, then read back as the loader reads it (JSON is YAML).
    fn back<T: Serialize, U: DeserializeOwned>(v: &T) -> U {
        let text = serde_json::to_string(v).unwrap();
        mpit_reference::yaml::parse(&text, "t").unwrap()
    }

    fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(all: &[T]) {
        for v in all {
            assert_eq!(&back::<T, T>(v), v);
        }
    }

    #[test]
    fn keywords_read_back() {
        round_trip(&[InitMode::Auto, InitMode::Manual]);
        round_trip(&[
            Require::MpiInit,
            Require::FreshProcess,
            Require::ReferenceHooks,
        ]);
        round_trip(&[
            StrCheck::Truncated,
            StrCheck::TruncatedN,
            StrCheck::Exact,
            StrCheck::NonEmpty,
        ]);
        round_trip(&[
            Builtin::NamesUnique,
            Builtin::CategoriesAcyclic,
            Builtin::ErrorCodes,
            Builtin::VerbosityOrder,
            Builtin::CatalogExtends,
            Builtin::CategoriesExtend,
            Builtin::CategoryChangedTracks,
        ]);
    }

    #[test]
    fn a_step_names_only_what_its_function_has() {
        let mut s = WrittenStep::call(Func::CvarRead);
        s.arg("handle", "$c0");
        s.save.push("vc0", "bytes");
        s.expect.out.push("overrun", WrittenPred::Is(0.into()));
        assert!(s.vocabulary().is_empty(), "{:?}", s.vocabulary());
        s.arg("index", 3);
        s.save.push("e0", "enumtype");
        s.expect.name = Some(StrCheck::Truncated);
        let bad = s.vocabulary();
        assert_eq!(bad.len(), 3, "{bad:?}");
        assert!(bad[0].contains("no parameter `index`"), "{bad:?}");
        assert!(bad[1].contains("`enumtype` to save"), "{bad:?}");
        assert!(bad[2].contains("`name` to expect"), "{bad:?}");
    }

    #[test]
    fn a_written_case_loads() {
        let mut step = WrittenStep::call(Func::CvarGetInfo);
        step.arg("index", "$index");
        step.arg("name", 2);
        step.arg("desc", "null_buf");
        step.expect.rc = Some(WrittenRc::One("MPI_SUCCESS".into()));
        step.expect.name = Some(StrCheck::Truncated);
        let mut between = Ops::compare("ge", -1).unwrap();
        between.between = Some((Value::Int(0), Value::Text("$num_cvars + 1".into())));
        step.expect
            .out
            .push("verbosity", WrittenPred::Ops(Box::new(between)));
        let mut filter = Pairs::default();
        filter.push("name", Value::from("123"));
        let file = WrittenFile {
            area: Area::Differential,
            cases: vec![WrittenCase {
                id: "differential.cvar_get_info.0".into(),
                title: "a title: with a colon".into(),
                clause: "MPI-4.1 §15.3.3".into(),
                rules: vec!["R-STR-2".into()],
                level: Level::Must,
                init: InitMode::Manual,
                requires: vec![Require::FreshProcess],
                for_each: Some(SubjectKind::Cvar),
                filter,
                steps: vec![step, WrittenStep::check(Builtin::NamesUnique)],
            }],
        };
        let text = serde_json::to_string(&file).unwrap();
        let cases = super::super::parse_file(&text, "t.yaml").unwrap();
        let c = &cases[0];
        assert_eq!(c.title, "a title: with a colon");
        assert_eq!(c.init, InitMode::Manual);
        assert_eq!(c.steps.len(), 2);
        assert_eq!(
            c.steps[0].callee(),
            Some(super::super::Callee::Func(Func::CvarGetInfo))
        );
        assert!(c.steps[1].call.is_none() && c.steps[1].check == Some(Builtin::NamesUnique));
        assert_eq!(
            format!("{:?}", c.filter),
            r#"Filter({"name": One(Str("123"))})"#
        );
    }
}
