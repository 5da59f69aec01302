//! ABI profiles: the numbers one binary family gives the spec's named constants.
//!
//! A profile is data (`specs/abi/*.yaml`). This module is the one place where return
//! codes and enum-like constants are mapped between the spec's names and an ABI's
//! numbers, for the reference's own C ABI and for every target the harness loads.

use crate::spec::{
    Bind, CbSafety, Datatype, PvarClass, Scope, SourceOrder, SpecEnum, TErr, ThreadLevel, Verbosity,
};
use crate::yaml::{self, YamlError};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

/// The three binary families of MPI (docs/ABI.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Mpich,
    Openmpi,
    Standard,
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Family::Mpich => "mpich",
            Family::Openmpi => "openmpi",
            Family::Standard => "standard",
        })
    }
}

/// Width of MPI object handles (`MPI_Datatype`, `MPI_Comm`, `MPI_Info`) in this family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HandleWidth {
    /// A C `int` (MPICH family).
    Int,
    /// A pointer (Open MPI: addresses of exported objects; standard ABI: small values).
    Pointer,
}

/// The value of a predefined handle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum HandleValue {
    /// A fixed number.
    Num(i64),
    /// The address of an exported object (`deref: false`), or the value stored in an
    /// exported variable (`deref: true`, e.g. MPICH's `MPI_T_PVAR_ALL_HANDLES`).
    Symbol {
        symbol: String,
        #[serde(default)]
        deref: bool,
    },
}

impl fmt::Display for HandleValue {
    /// The YAML spelling: `0x4c000405`, `{symbol: ompi_mpi_int}`,
    /// `{symbol: MPI_T_PVAR_ALL_HANDLES, deref: true}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandleValue::Num(n) if *n < 0 => write!(f, "{n}"),
            HandleValue::Num(n) => write!(f, "{n:#x}"),
            HandleValue::Symbol { symbol, deref } => {
                write!(f, "{{symbol: {symbol}")?;
                if *deref {
                    f.write_str(", deref: true")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// A table that must give a value for every constant of one spec enum: a missing or
/// misspelled key is an error at the table's position in the YAML file.
///
/// The enum-like tables of a profile are `ConstMap<K, Option<i64>>`: every key must be
/// written, and `null` says the family does not define that constant (Open MPI has no
/// `MPI_T_SOURCE_*`, Debian's MPICH 4.0.2 no `MPI_T_BIND_MPI_SESSION`).
#[derive(Debug, Clone, PartialEq)]
pub struct ConstMap<K: SpecEnum, V> {
    entries: BTreeMap<K, V>,
}

impl<K: SpecEnum, V: Clone> ConstMap<K, V> {
    /// The value given for `k` (present for every key once parsed).
    pub fn get(&self, k: K) -> &V {
        &self.entries[&k]
    }
    /// All (constant, value) pairs in the standard's order: the map's own order, a
    /// spec enum being ordered as the standard lists it (`spec_enum!` derives `Ord`
    /// in declaration order; a test checks `ALL` is sorted). No lookup per pair: the
    /// harness decodes every return code through this.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        self.entries.iter().map(|(k, v)| (*k, v))
    }
    /// A table with a value for every constant (the caller supplies all of them).
    pub fn from_fn(f: impl Fn(K) -> V) -> Self {
        ConstMap {
            entries: K::ALL.iter().map(|k| (*k, f(*k))).collect(),
        }
    }
}

/// A table of a family that defines every constant of the enum (see [`CompleteTables`]).
impl<K: SpecEnum> ConstMap<K, i64> {
    /// The constant a number stands for, if any.
    pub fn lookup(&self, n: i64) -> Option<K> {
        self.iter().find(|(_, v)| **v == n).map(|(k, _)| k)
    }
    /// The number of a constant.
    pub fn num(&self, k: K) -> i64 {
        *self.get(k)
    }
}

/// An enum-like table of a profile: `None` where the family does not define a constant.
impl<K: SpecEnum> ConstMap<K, Option<i64>> {
    /// The constant a number stands for, if any (undefined constants match nothing).
    pub fn lookup(&self, n: i64) -> Option<K> {
        self.iter().find(|(_, v)| **v == Some(n)).map(|(k, _)| k)
    }
    /// The number of a constant; `None` if the family does not define it.
    pub fn num(&self, k: K) -> Option<i64> {
        *self.get(k)
    }
    /// The constants the family defines, with their numbers, in the standard's order.
    pub fn defined(&self) -> impl Iterator<Item = (K, i64)> + '_ {
        self.iter().filter_map(|(k, v)| v.map(|n| (k, n)))
    }
    /// The same table without `Option`s, if the family defines every constant.
    pub fn complete(&self) -> Option<ConstMap<K, i64>> {
        let entries = self
            .entries
            .iter()
            .map(|(k, v)| v.map(|n| (*k, n)))
            .collect::<Option<BTreeMap<K, i64>>>()?;
        Some(ConstMap { entries })
    }
}

/// A key of a [`ConstMap`]: parsing it on its own puts an unknown name's error at the
/// key's own line and column.
struct Spelled<K>(K);

impl<'de, K: SpecEnum> Deserialize<'de> for Spelled<K> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let key = String::deserialize(d)?;
        K::from_spelling(&key).map(Spelled).ok_or_else(|| {
            let known: Vec<_> = K::ALL.iter().map(|k| k.spelling()).collect();
            de::Error::custom(format!(
                "unknown constant `{key}`, expected one of {}",
                known.join(", ")
            ))
        })
    }
}

impl<'de, K: SpecEnum, V: Deserialize<'de>> Deserialize<'de> for ConstMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_<K, V>(PhantomData<(K, V)>);
        impl<'de, K: SpecEnum, V: Deserialize<'de>> Visitor<'de> for V_<K, V> {
            type Value = ConstMap<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a mapping from constant names to values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut entries = BTreeMap::new();
                while let Some(Spelled(k)) = m.next_key::<Spelled<K>>()? {
                    let v = m.next_value::<V>()?;
                    if entries.insert(k, v).is_some() {
                        return Err(de::Error::custom(format!("constant `{k}` given twice")));
                    }
                }
                if let Some(missing) = K::ALL.iter().find(|k| !entries.contains_key(k)) {
                    return Err(de::Error::custom(format!("missing constant `{missing}`")));
                }
                Ok(ConstMap { entries })
            }
        }
        d.deserialize_map(V_(PhantomData))
    }
}

impl<K: SpecEnum, V: Serialize> Serialize for ConstMap<K, V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.entries.len()))?;
        for k in K::ALL {
            m.serialize_entry(k.spelling(), &self.entries[k])?;
        }
        m.end()
    }
}

/// One ABI family's constants (issue "load any vendor's libmpi"; docs/ABI.md).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AbiProfile {
    pub family: Family,
    pub description: String,
    pub mpi_handle_width: HandleWidth,
    pub success: i64,
    pub err_lastcode: i64,
    /// Every MPI_T_ERR_*; `null` marks one the family does not define.
    pub t_err: ConstMap<TErr, Option<i64>>,
    /// Other MPI error classes, for the overlap check (R-RC-2).
    #[serde(default)]
    pub mpi_err: BTreeMap<String, i64>,
    // The enum-like tables: every key written, `null` where the family lacks the constant.
    pub thread_level: ConstMap<ThreadLevel, Option<i64>>,
    pub verbosity: ConstMap<Verbosity, Option<i64>>,
    pub bind: ConstMap<Bind, Option<i64>>,
    pub scope: ConstMap<Scope, Option<i64>>,
    pub pvar_class: ConstMap<PvarClass, Option<i64>>,
    pub cb_safety: ConstMap<CbSafety, Option<i64>>,
    pub source_order: ConstMap<SourceOrder, Option<i64>>,
    pub datatype: ConstMap<Datatype, HandleValue>,
    pub handles: BTreeMap<String, HandleValue>,
}

/// The enum-like tables of a profile that defines every constant, as plain numbers: the
/// standard ABI, which the reference speaks (`AbiProfile::complete_tables`).
#[derive(Debug, Clone, PartialEq)]
pub struct CompleteTables {
    pub thread_level: ConstMap<ThreadLevel, i64>,
    pub verbosity: ConstMap<Verbosity, i64>,
    pub bind: ConstMap<Bind, i64>,
    pub scope: ConstMap<Scope, i64>,
    pub pvar_class: ConstMap<PvarClass, i64>,
    pub cb_safety: ConstMap<CbSafety, i64>,
    pub source_order: ConstMap<SourceOrder, i64>,
}

/// A return code as a spec name, decoded through a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReturnCode {
    Success,
    T(TErr),
    /// A non-MPI_T MPI error class (itself a finding: R-RC-3).
    MpiErr(String),
    /// A number the profile does not know (itself a finding).
    Unknown(i64),
}

impl fmt::Display for ReturnCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReturnCode::Success => f.write_str("MPI_SUCCESS"),
            ReturnCode::T(e) => write!(f, "{e}"),
            ReturnCode::MpiErr(n) => f.write_str(n),
            ReturnCode::Unknown(n) => write!(f, "unknown code {n}"),
        }
    }
}

impl AbiProfile {
    /// Parses a profile from YAML text; `origin` names the file in errors.
    pub fn from_yaml(text: &str, origin: &str) -> Result<Self, YamlError> {
        yaml::parse(text, origin)
    }

    /// Reads a profile file.
    pub fn load(path: &Path) -> Result<Self, YamlError> {
        yaml::load(path)
    }

    /// The MPI-5 standard ABI, which is also the reference's own ABI.
    pub fn standard() -> Self {
        // The text is compiled in and covered by a unit test, so this cannot fail at run time.
        Self::from_yaml(
            include_str!("../../specs/abi/standard.yaml"),
            "specs/abi/standard.yaml",
        )
        .expect("the bundled standard ABI profile parses (unit-tested)")
    }

    /// The MPICH ABI the reference speaks when loaded under MPICH's file names
    /// (`libmpi.so.12`, `libmpich.so.12`): MPICH 5.0.2's `mpi.h`, which defines every
    /// MPI-4.1 constant (Debian's 4.0.2 header lacks two, with the same values for the
    /// rest, so tools built against either header agree with it on what they use).
    pub fn mpich() -> Self {
        // Compiled in and covered by a unit test, like `standard`.
        Self::from_yaml(
            include_str!("../../specs/abi/mpich-5.yaml"),
            "specs/abi/mpich-5.yaml",
        )
        .expect("the bundled MPICH 5 ABI profile parses (unit-tested)")
    }

    /// The number of a return code; `None` if the family does not define it.
    pub fn code(&self, e: TErr) -> Option<i64> {
        *self.t_err.get(e)
    }

    /// Maps a number returned by a library to a spec name.
    pub fn decode(&self, n: i64) -> ReturnCode {
        if n == self.success {
            return ReturnCode::Success;
        }
        if let Some((e, _)) = self.t_err.iter().find(|(_, v)| **v == Some(n)) {
            return ReturnCode::T(e);
        }
        if let Some((name, _)) = self.mpi_err.iter().find(|(_, v)| **v == n) {
            return ReturnCode::MpiErr(name.clone());
        }
        ReturnCode::Unknown(n)
    }

    /// The enum-like tables without `Option`s, if the profile defines every constant
    /// (always so for the standard ABI; `None` for e.g. Open MPI, which has no sources).
    pub fn complete_tables(&self) -> Option<CompleteTables> {
        Some(CompleteTables {
            thread_level: self.thread_level.complete()?,
            verbosity: self.verbosity.complete()?,
            bind: self.bind.complete()?,
            scope: self.scope.complete()?,
            pvar_class: self.pvar_class.complete()?,
            cb_safety: self.cb_safety.complete()?,
            source_order: self.source_order.complete()?,
        })
    }

    /// Where two profiles give different values, one line per constant (`description`
    /// is prose and not compared): empty when they describe the same ABI.
    pub fn differences(&self, other: &AbiProfile) -> Vec<String> {
        let mut out = Vec::new();
        let mut cmp = |what: String, a: String, b: String| {
            if a != b {
                out.push(format!("{what}: {a} vs {b}"));
            }
        };
        let show = |v: Option<i64>| v.map_or("null".to_string(), |n| n.to_string());
        cmp(
            "family".into(),
            self.family.to_string(),
            other.family.to_string(),
        );
        cmp(
            "mpi_handle_width".into(),
            format!("{:?}", self.mpi_handle_width),
            format!("{:?}", other.mpi_handle_width),
        );
        cmp(
            "success".into(),
            self.success.to_string(),
            other.success.to_string(),
        );
        cmp(
            "err_lastcode".into(),
            self.err_lastcode.to_string(),
            other.err_lastcode.to_string(),
        );
        fn pairs<K: SpecEnum>(t: &ConstMap<K, Option<i64>>) -> Vec<(String, Option<i64>)> {
            t.iter()
                .map(|(k, v)| (k.spelling().to_string(), *v))
                .collect()
        }
        let tables = [
            ("t_err", pairs(&self.t_err), pairs(&other.t_err)),
            (
                "thread_level",
                pairs(&self.thread_level),
                pairs(&other.thread_level),
            ),
            ("verbosity", pairs(&self.verbosity), pairs(&other.verbosity)),
            ("bind", pairs(&self.bind), pairs(&other.bind)),
            ("scope", pairs(&self.scope), pairs(&other.scope)),
            (
                "pvar_class",
                pairs(&self.pvar_class),
                pairs(&other.pvar_class),
            ),
            ("cb_safety", pairs(&self.cb_safety), pairs(&other.cb_safety)),
            (
                "source_order",
                pairs(&self.source_order),
                pairs(&other.source_order),
            ),
        ];
        for (table, a, b) in tables {
            for ((k, x), (_, y)) in a.iter().zip(b.iter()) {
                cmp(format!("{table}.{k}"), show(*x), show(*y));
            }
        }
        let absent = || "absent".to_string();
        let keys: std::collections::BTreeSet<&String> =
            self.mpi_err.keys().chain(other.mpi_err.keys()).collect();
        for k in keys {
            cmp(
                format!("mpi_err.{k}"),
                self.mpi_err.get(k).map_or_else(absent, |n| n.to_string()),
                other.mpi_err.get(k).map_or_else(absent, |n| n.to_string()),
            );
        }
        for ((k, x), (_, y)) in self.datatype.iter().zip(other.datatype.iter()) {
            cmp(format!("datatype.{k}"), x.to_string(), y.to_string());
        }
        let keys: std::collections::BTreeSet<&String> =
            self.handles.keys().chain(other.handles.keys()).collect();
        for k in keys {
            cmp(
                format!("handles.{k}"),
                self.handles.get(k).map_or_else(absent, |v| v.to_string()),
                other.handles.get(k).map_or_else(absent, |v| v.to_string()),
            );
        }
        out
    }

    /// The numeric value of a predefined handle given as a number.
    pub fn handle_num(&self, name: &str) -> Option<i64> {
        match self.handles.get(name)? {
            HandleValue::Num(n) => Some(*n),
            HandleValue::Symbol { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::{
        Bind, CbSafety, Datatype, PvarClass, Scope, SourceOrder, SpecEnum, TErr, ThreadLevel,
        Verbosity,
    };

    fn sorted<K: SpecEnum>() -> bool {
        K::ALL.windows(2).all(|w| w[0] < w[1])
    }

    /// `ConstMap::iter` walks the map in `Ord` order and promises the standard's
    /// (`ALL`): the two agree for every spec enum.
    #[test]
    fn every_spec_enum_is_ordered_as_the_standard_lists_it() {
        assert!(sorted::<ThreadLevel>());
        assert!(sorted::<Verbosity>());
        assert!(sorted::<Bind>());
        assert!(sorted::<Scope>());
        assert!(sorted::<PvarClass>());
        assert!(sorted::<Datatype>());
        assert!(sorted::<CbSafety>());
        assert!(sorted::<SourceOrder>());
        assert!(sorted::<TErr>());
    }

    use super::*;

    #[test]
    fn standard_profile_parses_and_matches_the_mpi_5_abi() {
        let p = AbiProfile::standard();
        assert_eq!(p.family, Family::Standard);
        assert_eq!(p.code(TErr::CannotInit), Some(1001));
        assert_eq!(p.code(TErr::PvarNoAtomic), Some(1018));
        assert_eq!(p.decode(1007), ReturnCode::T(TErr::InvalidIndex));
        assert_eq!(p.decode(0), ReturnCode::Success);
        assert_eq!(p.decode(13), ReturnCode::MpiErr("MPI_ERR_ARG".into()));
        assert_eq!(p.decode(77777), ReturnCode::Unknown(77777));
        assert_eq!(p.handle_num("MPI_T_PVAR_ALL_HANDLES"), Some(1));
    }

    /// R-VERB-1: the nine verbosity constants increase in the table's order.
    #[test]
    fn standard_verbosity_is_monotonic() {
        let p = AbiProfile::standard();
        let v: Vec<i64> = p.verbosity.defined().map(|(_, n)| n).collect();
        assert_eq!(v.len(), 9);
        assert!(v.windows(2).all(|w| w[0] < w[1]), "{v:?}");
    }

    /// The standard ABI defines every enum-like constant: the reference relies on it.
    #[test]
    fn standard_tables_are_complete() {
        let p = AbiProfile::standard();
        let c = p.complete_tables().expect("every constant defined");
        assert_eq!(c.bind.num(Bind::MpiSession), 12);
        assert_eq!(c.source_order.lookup(2), Some(SourceOrder::Unordered));
        assert!(p.differences(&p).is_empty());
    }

    /// The reference's MPICH ABI defines every constant too, with int-wide handles, and
    /// each of its values of Debian's 4.0.2 header is the same there.
    #[test]
    fn mpich_tables_are_complete_and_extend_mpich_4() {
        let p = AbiProfile::mpich();
        assert_eq!(p.family, Family::Mpich);
        assert_eq!(p.mpi_handle_width, HandleWidth::Int);
        assert!(p.complete_tables().is_some());
        let old = AbiProfile::from_yaml(
            include_str!("../../specs/abi/mpich-4.yaml"),
            "specs/abi/mpich-4.yaml",
        )
        .expect("mpich-4 parses");
        for d in p.differences(&old) {
            assert!(
                d.ends_with(" vs null")
                    || d.ends_with(" vs absent")
                    || d.starts_with("description"),
                "{d}"
            );
        }
    }

    /// `null` marks a constant the family does not define: it decodes nothing, and the
    /// table is no longer complete; the key itself is still required.
    #[test]
    fn null_marks_an_undefined_constant() {
        let text = include_str!("../../specs/abi/standard.yaml")
            .replace("  ORDERED: 1\n", "  ORDERED: null\n")
            .replace("  MPI_SESSION: 12\n", "  MPI_SESSION: ~\n");
        let p = AbiProfile::from_yaml(&text, "p.yaml").expect("nulls parse");
        assert_eq!(p.source_order.num(SourceOrder::Ordered), None);
        assert_eq!(p.source_order.lookup(1), None);
        assert_eq!(p.source_order.lookup(2), Some(SourceOrder::Unordered));
        assert_eq!(p.bind.num(Bind::MpiSession), None);
        assert_eq!(p.bind.defined().count(), 11);
        assert!(p.complete_tables().is_none());
        let diff = p.differences(&AbiProfile::standard());
        assert_eq!(
            diff,
            vec![
                "bind.MPI_SESSION: null vs 12".to_string(),
                "source_order.ORDERED: null vs 1".to_string()
            ]
        );
    }

    #[test]
    fn mistyped_value_is_reported_with_position() {
        let text = include_str!("../../specs/abi/standard.yaml")
            .replace("  TUNER_ALL: 0x14\n", "  TUNER_ALL: 0x1g\n");
        let err = AbiProfile::from_yaml(&text, "p.yaml")
            .unwrap_err()
            .to_string();
        let line = text.lines().position(|l| l.contains("0x1g")).unwrap() + 1;
        assert!(err.starts_with(&format!("p.yaml:{line}:")), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }

    /// R-RC-2: MPI_T_ERR_* unique, in (0, MPI_ERR_LASTCODE], not an MPI error class.
    #[test]
    fn standard_error_codes_are_unique_and_in_range() {
        let p = AbiProfile::standard();
        let mut seen = std::collections::BTreeSet::new();
        for (e, v) in p.t_err.iter() {
            let v = v.expect("standard ABI defines all codes");
            assert!(v > p.success && v <= p.err_lastcode, "{e} = {v}");
            assert!(seen.insert(v), "{e} duplicates {v}");
            assert!(!p.mpi_err.values().any(|c| *c == v), "{e} overlaps a class");
        }
    }

    #[test]
    fn missing_constant_is_reported_with_position() {
        let text = include_str!("../../specs/abi/standard.yaml").replace("  USER_ALL: 0x0c\n", "");
        let err = AbiProfile::from_yaml(&text, "p.yaml")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("p.yaml:"), "{err}");
        assert!(err.contains("missing constant `USER_ALL`"), "{err}");
    }

    #[test]
    fn mistyped_constant_is_reported_with_position() {
        let text = include_str!("../../specs/abi/standard.yaml")
            .replace("USER_DETAIL: 0x0a", "USER_DETAL: 0x0a");
        let err = AbiProfile::from_yaml(&text, "p.yaml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown constant `USER_DETAL`"), "{err}");
        let line = text.lines().position(|l| l.contains("USER_DETAL")).unwrap() + 1;
        assert!(err.starts_with(&format!("p.yaml:{line}:")), "{err}");
    }
}
