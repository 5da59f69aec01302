//! The catalog: everything an MPI_T implementation exposes (cvars, pvars, categories,
//! enums, events, sources), as data. The reference loads any catalog, so it can mirror a
//! vendor's (`MPIT_REFERENCE_CATALOG=path`); `specs/catalogs/default.yaml` is its own.

use crate::spec::{Bind, Datatype, PvarClass, Scope, SourceOrder, Verbosity};
use crate::yaml::{self, YamlError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// When an entry becomes visible. MPI-4.1 §15.3.6 (R-CVAR-1): the number of variables may
/// grow during execution, e.g. when MPI_Init loads components; indices never move.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Appears {
    /// From MPI_T_init_thread on.
    #[default]
    Always,
    /// Only once MPI_Init has been called (appended after the others).
    MpiInit,
}

impl Appears {
    fn is_always(&self) -> bool {
        *self == Appears::Always
    }
}

/// A value as written in a catalog: a scalar, a string (MPI_CHAR), or a list (count > 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CatValue {
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    List(Vec<CatValue>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cvar {
    pub name: String,
    /// Absent: the variable has no description (MPI-4.1 §15.3.3: `desc[0]==0`, len 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
    pub verbosity: Verbosity,
    pub datatype: Datatype,
    /// Name of an enum (only for MPI_INT, R-ENUM-1).
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enumtype: Option<String>,
    #[serde(default = "no_object")]
    pub bind: Bind,
    pub scope: Scope,
    /// Elements; for MPI_CHAR the capacity including the NUL (R-TYPE-2).
    #[serde(default = "one")]
    pub count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<CatValue>,
    /// Writes return MPI_T_ERR_CVAR_SET_NOT_NOW until MPI_Init has been called.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_now_until_init: bool,
    #[serde(default, skip_serializing_if = "Appears::is_always")]
    pub appears: Appears,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pvar {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
    pub verbosity: Verbosity,
    pub class: PvarClass,
    pub datatype: Datatype,
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enumtype: Option<String>,
    #[serde(default = "no_object")]
    pub bind: Bind,
    #[serde(default)]
    pub readonly: bool,
    #[serde(default)]
    pub continuous: bool,
    #[serde(default)]
    pub atomic: bool,
    #[serde(default = "one")]
    pub count: u32,
    /// The live value the variable starts from (levels, sizes, states).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<CatValue>,
    #[serde(default, skip_serializing_if = "Appears::is_always")]
    pub appears: Appears,
}

/// A pvar is identified by (name, class): R-PVAR-2.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PvarRef {
    pub name: String,
    pub class: PvarClass,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Category {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cvars: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pvars: Vec<PvarRef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    #[serde(default, skip_serializing_if = "Appears::is_always")]
    pub appears: Appears,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnumItem {
    pub value: i32,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Enum {
    pub name: String,
    pub items: Vec<EnumItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventElement {
    pub datatype: Datatype,
    /// Byte offset for MPI_T_event_copy; default: packed after the previous element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub displacement: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
    pub verbosity: Verbosity,
    #[serde(default = "no_object")]
    pub bind: Bind,
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enumtype: Option<String>,
    pub elements: Vec<EventElement>,
    /// The source that raises this event (by name).
    pub source: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub info: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Appears::is_always")]
    pub appears: Appears,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
    pub ordering: SourceOrder,
    pub ticks_per_second: i64,
    pub max_ticks: i64,
    /// Whether MPI_T_source_get_timestamp works (else MPI_T_ERR_NOT_SUPPORTED).
    #[serde(default)]
    pub timestamps: bool,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub info: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Appears::is_always")]
    pub appears: Appears,
}

/// Everything an implementation exposes, in index order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    #[serde(default)]
    pub cvars: Vec<Cvar>,
    #[serde(default)]
    pub pvars: Vec<Pvar>,
    #[serde(default)]
    pub categories: Vec<Category>,
    #[serde(default)]
    pub enums: Vec<Enum>,
    #[serde(default)]
    pub events: Vec<Event>,
    #[serde(default)]
    pub sources: Vec<Source>,
}

fn no_object() -> Bind {
    Bind::NoObject
}
fn one() -> u32 {
    1
}

/// The reference's own catalog, compiled in.
pub const DEFAULT_CATALOG: &str = include_str!("../../specs/catalogs/default.yaml");

impl Catalog {
    /// Parses and validates catalog text; `origin` names it in errors.
    pub fn from_yaml(text: &str, origin: &str) -> Result<Catalog, YamlError> {
        let c: Catalog = yaml::parse(text, origin)?;
        c.validate()
            .map_err(|(needle, msg)| YamlError::near(origin, text, &needle, msg))?;
        Ok(c)
    }

    /// Reads and validates a catalog file.
    pub fn load(path: &Path) -> Result<Catalog, YamlError> {
        let (text, origin) = yaml::read(path)?;
        Catalog::from_yaml(&text, &origin)
    }

    /// The compiled-in default catalog.
    pub fn default_catalog() -> Catalog {
        Catalog::from_yaml(DEFAULT_CATALOG, "specs/catalogs/default.yaml")
            .expect("the default catalog is valid (unit-tested)")
    }

    /// Serializes to the YAML format `from_yaml` reads.
    pub fn to_yaml(&self) -> String {
        yaml_serde::to_string(self).unwrap_or_default()
    }

    /// The rules of MPI-4.1 §15.3 a catalog must satisfy for the reference to be
    /// conformant. Returns (text to locate, message).
    pub fn validate(&self) -> Result<(), (String, String)> {
        let err = |needle: &str, msg: String| Err((needle.to_string(), msg));
        // R-STR-6: names non-empty and unique (pvars by name+class, items within an enum).
        unique(self.cvars.iter().map(|v| v.name.clone()), "cvar")?;
        unique(
            self.pvars
                .iter()
                .map(|p| format!("{}\u{0}{}", p.name, p.class)),
            "pvar (name, class)",
        )?;
        unique(self.categories.iter().map(|c| c.name.clone()), "category")?;
        unique(self.enums.iter().map(|e| e.name.clone()), "enum")?;
        unique(self.events.iter().map(|e| e.name.clone()), "event")?;
        unique(self.sources.iter().map(|s| s.name.clone()), "source")?;
        let enums: BTreeSet<&str> = self.enums.iter().map(|e| e.name.as_str()).collect();
        for e in &self.enums {
            if e.items.is_empty() {
                // R-ENUM-2: num > 0.
                return err(&e.name, format!("enum `{}` has no items", e.name));
            }
            unique(e.items.iter().map(|i| i.name.clone()), "enum item")?;
        }
        let check_enum = |name: &str, dt: Datatype, en: &Option<String>| match en {
            Some(en) if dt != Datatype::Int => err(
                name,
                format!("`{name}`: only MPI_INT variables may carry an enum (R-ENUM-1)"),
            ),
            Some(en) if !enums.contains(en.as_str()) => {
                err(name, format!("`{name}`: unknown enum `{en}`"))
            }
            _ => Ok(()),
        };
        for v in &self.cvars {
            check_enum(&v.name, v.datatype, &v.enumtype)?;
            if v.count == 0 {
                return err(&v.name, format!("cvar `{}`: count must be >= 1", v.name));
            }
            if let (Datatype::Char, Some(CatValue::Str(s))) = (v.datatype, &v.value) {
                if s.len() + 1 > v.count as usize {
                    return err(
                        &v.name,
                        format!(
                            "cvar `{}`: count {} does not hold the value and its NUL (R-TYPE-2)",
                            v.name, v.count
                        ),
                    );
                }
            }
        }
        for p in &self.pvars {
            check_enum(&p.name, p.datatype, &p.enumtype)?;
            if !p.class.allowed_datatypes().contains(&p.datatype) {
                return err(
                    &p.name,
                    format!(
                        "pvar `{}`: class {} may not use {} (R-PCLASS)",
                        p.name, p.class, p.datatype
                    ),
                );
            }
            if p.count == 0 {
                return err(&p.name, format!("pvar `{}`: count must be >= 1", p.name));
            }
        }
        let sources: BTreeSet<&str> = self.sources.iter().map(|s| s.name.as_str()).collect();
        for e in &self.events {
            check_enum(&e.name, Datatype::Int, &e.enumtype)?;
            if !sources.contains(e.source.as_str()) {
                return err(
                    &e.name,
                    format!("event `{}`: unknown source `{}`", e.name, e.source),
                );
            }
            let mut last = -1i64;
            for d in e.displacements() {
                if d <= last {
                    return err(
                        &e.name,
                        format!("event `{}`: displacements must ascend from 0", e.name),
                    );
                }
                last = d;
            }
            if e.displacements().first().is_some_and(|d| *d != 0) {
                return err(
                    &e.name,
                    format!("event `{}`: displacements must start at 0", e.name),
                );
            }
        }
        self.validate_categories()?;
        self.validate_appends()
    }

    fn validate_categories(&self) -> Result<(), (String, String)> {
        let cvars: BTreeSet<&str> = self.cvars.iter().map(|v| v.name.as_str()).collect();
        let events: BTreeSet<&str> = self.events.iter().map(|v| v.name.as_str()).collect();
        let cats: BTreeMap<&str, usize> = self
            .categories
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.as_str(), i))
            .collect();
        for c in &self.categories {
            let bad = |what: &str, n: &str| {
                Err((
                    c.name.clone(),
                    format!("category `{}`: unknown {what} `{n}`", c.name),
                ))
            };
            for n in &c.cvars {
                if !cvars.contains(n.as_str()) {
                    return bad("cvar", n);
                }
            }
            for p in &c.pvars {
                if self.pvar_index(&p.name, p.class).is_none() {
                    return bad("pvar", &format!("{} ({})", p.name, p.class));
                }
            }
            for n in &c.events {
                if !events.contains(n.as_str()) {
                    return bad("event", n);
                }
            }
            for n in &c.categories {
                if !cats.contains_key(n.as_str()) {
                    return bad("category", n);
                }
            }
        }
        // MPI-4.1 §15.3.9 (R-CAT-1): no category contains itself, directly or transitively.
        for (start, c) in self.categories.iter().enumerate() {
            let mut stack: Vec<usize> = c.categories.iter().map(|n| cats[n.as_str()]).collect();
            let mut seen = BTreeSet::new();
            while let Some(i) = stack.pop() {
                if i == start {
                    return Err((
                        c.name.clone(),
                        format!("category `{}` contains itself (R-CAT-1)", c.name),
                    ));
                }
                if seen.insert(i) {
                    stack.extend(
                        self.categories[i]
                            .categories
                            .iter()
                            .map(|n| cats[n.as_str()]),
                    );
                }
            }
        }
        Ok(())
    }

    /// Entries that appear at MPI_Init must come after all others, so indices never move
    /// (R-CVAR-1); inside a category, members appearing later come after the others so
    /// membership only grows at the end (R-CAT-1).
    fn validate_appends(&self) -> Result<(), (String, String)> {
        fn tail<'a>(
            kind: &str,
            it: impl Iterator<Item = (&'a str, Appears)>,
        ) -> Result<(), (String, String)> {
            let mut late = false;
            for (name, a) in it {
                match a {
                    Appears::MpiInit => late = true,
                    Appears::Always if late => {
                        return Err((name.to_string(), format!("{kind} `{name}` appears always but follows one that appears at MPI_Init; indices would move")))
                    }
                    Appears::Always => {}
                }
            }
            Ok(())
        }
        tail(
            "cvar",
            self.cvars.iter().map(|v| (v.name.as_str(), v.appears)),
        )?;
        tail(
            "pvar",
            self.pvars.iter().map(|v| (v.name.as_str(), v.appears)),
        )?;
        tail(
            "category",
            self.categories.iter().map(|v| (v.name.as_str(), v.appears)),
        )?;
        tail(
            "event",
            self.events.iter().map(|v| (v.name.as_str(), v.appears)),
        )?;
        tail(
            "source",
            self.sources.iter().map(|v| (v.name.as_str(), v.appears)),
        )?;
        for c in &self.categories {
            let cv = c.cvars.iter().map(|n| {
                (
                    n.as_str(),
                    self.cvars
                        .iter()
                        .find(|v| &v.name == n)
                        .map_or(Appears::Always, |v| v.appears),
                )
            });
            tail("category member cvar", cv)?;
            let pv = c.pvars.iter().map(|p| {
                (
                    p.name.as_str(),
                    self.pvar_index(&p.name, p.class)
                        .map_or(Appears::Always, |i| self.pvars[i].appears),
                )
            });
            tail("category member pvar", pv)?;
            let ev = c.events.iter().map(|n| {
                (
                    n.as_str(),
                    self.events
                        .iter()
                        .find(|v| &v.name == n)
                        .map_or(Appears::Always, |v| v.appears),
                )
            });
            tail("category member event", ev)?;
            let cc = c.categories.iter().map(|n| {
                (
                    n.as_str(),
                    self.categories
                        .iter()
                        .find(|v| &v.name == n)
                        .map_or(Appears::Always, |v| v.appears),
                )
            });
            tail("category member category", cc)?;
        }
        Ok(())
    }

    /// Index of the pvar with this (name, class).
    pub fn pvar_index(&self, name: &str, class: PvarClass) -> Option<usize> {
        self.pvars
            .iter()
            .position(|p| p.name == name && p.class == class)
    }
}

impl Event {
    /// Byte displacements of the elements (given, or packed in order).
    pub fn displacements(&self) -> Vec<i64> {
        let mut next = 0i64;
        self.elements
            .iter()
            .map(|el| {
                let d = el.displacement.unwrap_or(next);
                next = d + el.datatype.size() as i64;
                d
            })
            .collect()
    }

    /// Bytes MPI_T_event_copy writes: the extent of the elements.
    pub fn extent(&self) -> usize {
        self.displacements()
            .iter()
            .zip(&self.elements)
            .map(|(d, e)| *d as usize + e.datatype.size())
            .max()
            .unwrap_or(0)
    }
}

fn unique(names: impl Iterator<Item = String>, kind: &str) -> Result<(), (String, String)> {
    let mut seen = BTreeSet::new();
    for n in names {
        let shown = n.replace('\u{0}', " ");
        let first = n.split('\u{0}').next().unwrap_or("").to_string();
        if first.is_empty() {
            return Err((
                String::new(),
                format!("a {kind} has an empty name (R-STR-6)"),
            ));
        }
        if !seen.insert(n) {
            return Err((first, format!("duplicate {kind} name `{shown}` (R-STR-6)")));
        }
    }
    Ok(())
}
