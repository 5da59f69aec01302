//! A case as written: its id, clause and rule ids, level, the MPI versions it applies
//! to, what it requires of the target (else `skip`), whether the executor brackets its
//! steps with MPI_T init/finalize, its subjects and the buffer sizes it varies (MPI-4.1
//! §15.3.3), and its steps.

use super::expr::Size;
use super::funcs::Func;
use super::select::{Filter, Scalar, SubjectKind};
use super::step::{Callee, Step};
use crate::verdict::{Area, CaseMeta, Level, Oracle};
use serde::{Deserialize, Serialize};

/// One file of cases: all of one area.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    pub area: Area,
    pub cases: Vec<Case>,
}

/// Requirements a target (or the run) must meet, else the case is `skip`ped. Read
/// and written (`written`) by the one spelling below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Require {
    /// Run after MPI_Init (singleton), in a fresh worker process.
    MpiInit,
    /// A fresh worker process even without MPI_Init.
    FreshProcess,
    /// The reference's test hooks (`MPIT_Reference_simulate`, `_raise_event`).
    ReferenceHooks,
}

/// Whether the executor brackets the steps with MPI_T_init_thread / MPI_T_finalize.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InitMode {
    #[default]
    Auto,
    /// The steps manage initialization themselves (lifecycle cases).
    Manual,
}

/// Vary one string argument over buffer sizes (MPI-4.1 §15.3.3 corner cases); the steps
/// pass it as `$buffer`, and `len` in the sizes is strlen+1 of that string.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Buffers {
    /// `name` or `desc` of the subject.
    pub string: StringField,
    pub sizes: Vec<Size>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StringField {
    Name,
    Desc,
}

/// An MPI version `major.minor`. Read only (`since:`, `until:` as "4.0"): no writer
/// sets them, and a derived `Serialize` would write `[4, 0]`, which this does not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct MpiVersion(pub i32, pub i32);

impl<'de> Deserialize<'de> for MpiVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MpiVersion, D::Error> {
        let s = Scalar::deserialize(d)?.text();
        let mut it = s.split('.');
        let parse = |p: Option<&str>| p.and_then(|x| x.parse::<i32>().ok());
        match (parse(it.next()), parse(it.next().or(Some("0"))), it.next()) {
            (Some(a), Some(b), None) => Ok(MpiVersion(a, b)),
            _ => Err(serde::de::Error::custom(format!(
                "bad MPI version `{s}` (want e.g. \"4.0\")"
            ))),
        }
    }
}

/// One case as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub id: String,
    #[serde(default)]
    pub title: String,
    /// e.g. `MPI-4.1 §15.3.3`.
    pub clause: String,
    /// Rule ids of specs/clauses.yaml, e.g. `R-STR-2`.
    pub rules: Vec<String>,
    pub level: Level,
    #[serde(default)]
    pub since: Option<MpiVersion>,
    #[serde(default)]
    pub until: Option<MpiVersion>,
    #[serde(default)]
    pub requires: Vec<Require>,
    #[serde(default)]
    pub init: InitMode,
    #[serde(default)]
    pub for_each: Option<SubjectKind>,
    #[serde(default, rename = "where")]
    pub filter: Filter,
    /// Only the first N subjects (in index order) that `where` accepts: for a check one
    /// subject shows as well as all (e.g. a use-after-free probe, undefined behaviour).
    #[serde(default)]
    pub first: Option<usize>,
    #[serde(default)]
    pub buffers: Option<Buffers>,
    pub steps: Vec<Step>,
    /// Set by the loader.
    #[serde(skip)]
    pub area: Option<Area>,
    /// `file:line` of the case, for messages.
    #[serde(skip)]
    pub origin: String,
}

impl Case {
    pub fn area(&self) -> Area {
        self.area.unwrap_or(Area::Strings)
    }
    /// `MPI-4.1 §15.3.3 R-STR-1 R-STR-2`: the clause as reports show it.
    pub fn clause_text(&self) -> String {
        let mut s = self.clause.clone();
        for r in &self.rules {
            s.push(' ');
            s.push_str(r);
        }
        s
    }
    /// What names this case in its results; `clause` is [`Case::clause_text`].
    pub fn meta<'a>(&'a self, clause: &'a str) -> CaseMeta<'a> {
        CaseMeta {
            case: &self.id,
            area: self.area(),
            level: self.level,
            clause,
            oracle: Oracle::Spec,
        }
    }
    pub fn requires(&self, r: Require) -> bool {
        self.requires.contains(&r)
    }
    /// Cases that must run in a process of their own.
    pub fn needs_fresh_process(&self) -> bool {
        self.requires(Require::MpiInit) || self.requires(Require::FreshProcess)
    }
    /// What one subject of the case costs a library, roughly, in MPI_T initializations
    /// (the slow part of the slowest libraries: Open MPI 4.1.4 opens its components in
    /// each): a step that loops to a time budget counts as a thousand, MPI_Init as ten.
    /// The pool starts costly jobs first, so that they do not end a run alone.
    pub fn cost(&self) -> u64 {
        let per_run: u64 = self
            .steps
            .iter()
            .map(|s| {
                let n = u64::from(s.repeat.unwrap_or(1));
                match s.callee() {
                    Some(Callee::Func(f)) if f.runs_to_a_budget() => 1000,
                    _ if s.exercises() == Some("mpi_init") => 10,
                    Some(Callee::Func(Func::InitThread)) => n,
                    _ => 0,
                }
            })
            .sum();
        let base = u64::from(self.init == InitMode::Auto)
            + 10 * u64::from(self.requires(Require::MpiInit));
        // Each buffer size runs the steps again (MPI-4.1 §15.3.3's corner cases).
        let runs = self.buffers.as_ref().map_or(1, |b| b.sizes.len().max(1)) as u64;
        (base + per_run) * runs
    }
    /// Cases whose process calls MPI_Init or MPI_Init_thread: before its steps, or in
    /// one of them.
    pub fn calls_mpi_init(&self) -> bool {
        self.requires(Require::MpiInit)
            || self.steps.iter().any(|s| s.exercises() == Some("mpi_init"))
    }
}
