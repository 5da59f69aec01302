//! The catalog: everything an MPI_T implementation exposes (cvars, pvars, categories,
//! enums, events, sources), as data. The reference loads any catalog, so it can mirror a
//! vendor's (`MPIT_REFERENCE_CATALOG=path`); `specs/catalogs/default.yaml` is its own.

mod validate;

pub use validate::Deviation;

use crate::spec::{Bind, Datatype, PvarClass, Scope, SourceOrder, Verbosity};
use crate::yaml::{self, YamlError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
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
    /// Rules this entry breaks as the vendor's library serves it ([`Deviation`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deviations: Vec<Deviation>,
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
    /// Rules this entry breaks as the vendor's library serves it ([`Deviation`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deviations: Vec<Deviation>,
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

/// The conforming variations that are a property of the catalog (the reference's
/// faults `empty-descriptions` and `long-names`: `Faults::variations`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Variations {
    pub empty_descriptions: bool,
    pub long_names: bool,
}

/// The length of every name under the conforming variation `long-names`.
pub const LONG_NAME_LEN: usize = 2000;

impl Catalog {
    /// The catalog a library with these conforming variations serves (the variations
    /// that are a property of the catalog rather than of a call):
    /// * `empty-descriptions`: every description absent (R-STR-6: optional), except those
    ///   of GROUP/GROUP_EQ/ALL/ALL_EQ cvars, which must explain how to set them (R-SCOPE-1);
    /// * `long-names`: every cvar, pvar and category name padded to [`LONG_NAME_LEN`]
    ///   characters (R-STR-6 bounds no length; the string convention of §15.3.3 exists so
    ///   a tool can learn a length and truncation is defined), category members renamed
    ///   alike, so names stay unique and lookups by name keep working.
    pub fn varied(mut self, v: Variations) -> Catalog {
        if v.empty_descriptions {
            let group =
                |s: Scope| matches!(s, Scope::Group | Scope::GroupEq | Scope::All | Scope::AllEq);
            self.cvars
                .iter_mut()
                .filter(|v| !group(v.scope))
                .for_each(|v| v.desc = None);
            self.pvars.iter_mut().for_each(|v| v.desc = None);
            self.categories.iter_mut().for_each(|v| v.desc = None);
            self.events.iter_mut().for_each(|v| v.desc = None);
            self.sources.iter_mut().for_each(|v| v.desc = None);
        }
        if v.long_names {
            let long = |n: &mut String| {
                let pad = LONG_NAME_LEN.saturating_sub(n.len() + 1);
                if pad > 0 {
                    n.push('_');
                    n.extend(std::iter::repeat_n('x', pad));
                }
            };
            for v in &mut self.cvars {
                long(&mut v.name);
            }
            for v in &mut self.pvars {
                long(&mut v.name);
            }
            for c in &mut self.categories {
                long(&mut c.name);
                c.cvars.iter_mut().for_each(long);
                c.pvars.iter_mut().for_each(|p| long(&mut p.name));
                c.categories.iter_mut().for_each(long);
            }
        }
        self
    }
}

fn no_object() -> Bind {
    Bind::NoObject
}
fn one() -> u32 {
    1
}

/// The reference's own catalog, compiled in.
pub const DEFAULT_CATALOG: &str = include_str!("../../../specs/catalogs/default.yaml");

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
