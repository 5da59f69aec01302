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
/// There is no number past `i64`, the case language's literals (the loader rejects
/// one: "number ... out of range"): [`Value::whole`] writes such a number as a sum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Int(i64),
    Text(String),
}

impl Value {
    /// A whole number as the case language reads it: the literal when it fits `i64`,
    /// else the sum `K*Q + R` of literals that do (an `MPI_UINT64_T` value such as
    /// 18000000000000000000 is `2*9000000000000000000`), which the executor adds in
    /// 128-bit integers (specs/README.md, "Values"). `None` past what such a sum
    /// reaches (about 8.5e37).
    pub fn whole(v: i128) -> Option<Value> {
        if let Ok(n) = i64::try_from(v) {
            return Some(Value::Int(n));
        }
        // The smallest K with |v / K| <= i64::MAX (below 2^63); then |R| < K.
        let k = i64::try_from(v.unsigned_abs() / (1u128 << 63) + 1).ok()?;
        let q = v / i128::from(k);
        let r = v - i128::from(k) * q;
        let mut text = match q < 0 {
            true => format!("-{k}*{}", q.unsigned_abs()),
            false => format!("{k}*{q}"),
        };
        match r {
            0 => {}
            r if r > 0 => text.push_str(&format!(" + {r}")),
            r => text.push_str(&format!(" - {}", r.unsigned_abs())),
        }
        Some(Value::Text(text))
    }
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

// By hand: serde's attributes derive no mapping from a list of pairs (the loader's
// `BTreeMap`s sort their keys; a writer keeps the order it wrote them in).
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

// By hand: `step::ForAll` reads these as text it parses (`$name`, `null_outs`,
// `range(...)`, a kind), which no serde attribute spells; the tests below read each
// form back as the `ForAll` it means.
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

#[cfg(test)]
mod tests {
    use super::*;
    use mpit_vocab::yaml;
    use serde::de::DeserializeOwned;
    use std::fmt::Debug;

    /// Written, then read back as the loader reads it (JSON is YAML).
    fn back<T: Serialize, U: DeserializeOwned>(v: &T) -> U {
        let text = serde_json::to_string(v).unwrap();
        yaml::parse(&text, "t").unwrap()
    }

    fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(all: &[T]) {
        for v in all {
            assert_eq!(&back::<T, T>(v), v);
        }
    }

    /// Every variant of an enum without fields: the `match` fails to compile when a
    /// variant is added and not listed here.
    macro_rules! every {
        ($t:ident: $($v:ident),+) => {{
            fn _listed(x: $t) {
                match x { $($t::$v)|+ => {} }
            }
            [$($t::$v),+]
        }};
    }

    fn inits() -> [InitMode; 2] {
        every!(InitMode: Auto, Manual)
    }
    fn requires() -> [Require; 3] {
        every!(Require: MpiInit, FreshProcess, ReferenceHooks)
    }
    fn str_checks() -> [StrCheck; 4] {
        every!(StrCheck: Truncated, TruncatedN, Exact, NonEmpty)
    }
    fn builtins() -> [Builtin; 7] {
        every!(
            Builtin: NamesUnique,
            CategoriesAcyclic,
            ErrorCodes,
            VerbosityOrder,
            CatalogExtends,
            CategoriesExtend,
            CategoryChangedTracks
        )
    }

    #[test]
    fn keywords_read_back() {
        round_trip(&inits());
        round_trip(&requires());
        round_trip(&str_checks());
        round_trip(&builtins());
    }

    /// Every keyword a writer uses, written in a case and loaded by the loader: the
    /// same value in the `Case` (serialize → load → same value).
    #[test]
    fn every_keyword_loads_as_written() {
        let case = |init: InitMode, steps: Vec<WrittenStep>| WrittenCase {
            id: "differential.keywords".into(),
            title: String::new(),
            clause: "MPI-4.1 §15.3".into(),
            rules: vec!["R-STR-2".into()],
            level: Level::Must,
            init,
            requires: requires().to_vec(),
            for_each: Some(SubjectKind::Cvar),
            filter: Pairs::default(),
            steps,
        };
        let load = |c: WrittenCase| {
            let file = WrittenFile {
                area: Area::Differential,
                cases: vec![c],
            };
            let text = serde_json::to_string(&file).unwrap();
            let mut cases = super::super::parse_file(&text, "t.yaml").unwrap();
            cases.remove(0)
        };
        for init in inits() {
            let c = load(case(init, vec![WrittenStep::check(Builtin::NamesUnique)]));
            assert_eq!(c.init, init);
            assert_eq!(c.requires, requires());
        }
        let mut steps: Vec<WrittenStep> = builtins().into_iter().map(WrittenStep::check).collect();
        for x in str_checks() {
            let mut s = WrittenStep::call(Func::CvarGetInfo);
            s.expect.name = Some(x);
            steps.push(s);
        }
        let mut s = WrittenStep::call(Func::CvarGetInfo);
        s.for_all = Some(WrittenForAll::NullOuts);
        steps.push(s);
        let mut s = WrittenStep::call(Func::Deliveries);
        s.save.push("i0", "instances");
        steps.push(s);
        let mut s = WrittenStep::call(Func::EventCopy);
        s.for_all = Some(WrittenForAll::List("i0".into()));
        s.arg("instance", "$item");
        steps.push(s);
        let c = load(case(InitMode::Auto, steps));
        let checks: Vec<_> = c.steps.iter().filter_map(|s| s.check).collect();
        assert_eq!(checks, builtins());
        let names: Vec<_> = c
            .steps
            .iter()
            .filter_map(|s| s.expect.as_ref()?.name)
            .collect();
        assert_eq!(names, str_checks());
        let for_alls: Vec<_> = c.steps.iter().filter_map(|s| s.for_all.clone()).collect();
        assert_eq!(
            for_alls,
            [
                super::super::step::ForAll::NullOuts,
                super::super::step::ForAll::List("i0".into())
            ]
        );
    }

    /// A whole number past `i64` is written as a sum the loader reads, whose terms add
    /// up to it (the executor adds them in `i128`); past what such a sum reaches, none.
    #[test]
    fn whole_numbers_past_i64_load_as_sums_of_them() {
        let big = [
            0,
            -1,
            i128::from(i64::MAX),
            i128::from(i64::MIN),
            i128::from(i64::MAX) + 1,
            i128::from(i64::MIN) - 1,
            18_000_000_000_000_000_000,
            i128::from(u64::MAX),
            -i128::from(u64::MAX) - 7,
            i128::from(i64::MAX) * i128::from(i64::MAX),
            -i128::from(i64::MAX) * i128::from(i64::MAX) - 3,
        ];
        for v in big {
            let w = Value::whole(v).unwrap();
            // A bare value (equality) and an operator's operand are read apart.
            let read = |p: WrittenPred| {
                let mut x = WrittenExpect::default();
                x.out.push("value", p);
                let text = serde_json::to_string(&x).unwrap();
                let x: super::super::step::Expect = yaml::parse(&text, "t").unwrap();
                x.out["value"].0.clone()
            };
            let eq = read(WrittenPred::Is(w.clone())).eq.unwrap();
            let (lo, hi) = read(WrittenPred::Ops(Box::new(Ops {
                between: Some((w.clone(), w.clone())),
                ..Ops::default()
            })))
            .between
            .unwrap();
            for e in [eq, lo, hi] {
                let super::super::expr::Expr::Sum(terms) = e else {
                    panic!("{w:?} reads as {e:?}")
                };
                let sum: i128 = terms
                    .iter()
                    .map(|(k, t)| match t {
                        super::super::expr::Term::Int(n) => i128::from(*k) * i128::from(*n),
                        t => panic!("{w:?}: {t:?}"),
                    })
                    .sum();
                assert_eq!(sum, v, "{w:?}");
            }
        }
        assert_eq!(
            Value::whole(18_000_000_000_000_000_000),
            Some(Value::Text("2*9000000000000000000".into()))
        );
        assert_eq!(Value::whole(i128::MAX), None);
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
