//! The inventory: every catalog entry of a target by its MPI index, with the attributes
//! case filters name and the variables steps use. Unlike the decoded `Catalog` (which
//! drops an entry whose datatype the profile cannot name), nothing is skipped here:
//! an index the library answers is a subject.

mod entries;

use entries::entry;
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::SubjectKind;
use mpit_target::catalog::raw::Views;
use mpit_target::catalog::read_raw;
use mpit_target::ffi::StrOut;
use mpit_target::reading::{Guard, Lost};
use mpit_target::Target;
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::ThreadLevel;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// One subject: a catalog entry, an MPI_T function or a thread level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub kind: SubjectKind,
    /// The MPI index (item: the item's index within its enum).
    pub index: i32,
    pub name: String,
    /// Empty when the entry has no description.
    pub desc: String,
    /// Filterable attributes as text (`scope: MPI_T_SCOPE_CONSTANT`, `readonly: true`).
    pub attrs: BTreeMap<String, String>,
    /// Numeric variables for the steps (`index`, `len`, `enumtype`, ...).
    pub vars: BTreeMap<String, i64>,
    /// Category members by kind, in index order (R-CAT-1: only appended).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub members: BTreeMap<String, Vec<i32>>,
    /// The bytes of `name` / `desc` when they are not UTF-8 (those fields then hold a
    /// lossy copy): strings are judged byte by byte (see [`Entry::bytes`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub raw: BTreeMap<String, Vec<u8>>,
}

impl Entry {
    /// The bytes of `name` or `desc` as the library returned them.
    pub fn bytes(&self, field: &str) -> Vec<u8> {
        match self.raw.get(field) {
            Some(b) => b.clone(),
            None if field == "desc" => self.desc.as_bytes().to_vec(),
            None => self.name.as_bytes().to_vec(),
        }
    }

    /// `cvar 12 MPIR_CVAR_ASYNC_PROGRESS`, as reports show a subject.
    pub fn subject(&self) -> String {
        match self.kind {
            SubjectKind::Function | SubjectKind::ThreadLevel => self.name.clone(),
            SubjectKind::Item => format!(
                "item {} of {} {}",
                self.index,
                self.attrs.get("enum").map_or("?", String::as_str),
                self.name
            ),
            k => format!("{} {} {}", k.as_str(), self.index, self.name),
        }
    }
}

/// Everything a worker read from a target at one point (before or after MPI_Init).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Inventory {
    pub entries: Vec<Entry>,
    /// `num_cvars`, `num_pvars`, ... (absent functions count 0).
    pub globals: BTreeMap<String, i64>,
    /// Calls that failed while reading (each a finding for the cases to look at).
    pub failures: Vec<String>,
    /// The spots the reader was told to pass over (`target::reading`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed: Vec<String>,
    /// The entries that killed or stalled a reader, as the supervisor saw it: each is a
    /// result of its own, and the subject of no case.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lost: Vec<Lost>,
    /// Lookup by (kind, index); not part of the value.
    #[serde(skip)]
    pub by_index: IndexCache,
}

/// Positions in `Inventory::entries` by (kind, index), built on first lookup: the
/// executor looks entries up for every subject and handle, and a scan per lookup made a
/// run quadratic in the catalog's size. A clone starts empty (the clone's entries may be
/// changed), and it never makes two inventories unequal.
#[derive(Default)]
pub struct IndexCache(std::sync::OnceLock<HashMap<(SubjectKind, i32), Vec<usize>>>);

impl Clone for IndexCache {
    fn clone(&self) -> Self {
        IndexCache::default()
    }
}

impl PartialEq for IndexCache {
    fn eq(&self, _: &IndexCache) -> bool {
        true
    }
}

impl std::fmt::Debug for IndexCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IndexCache")
    }
}

impl Inventory {
    pub fn of(&self, kind: SubjectKind) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(move |e| e.kind == kind)
    }
    /// The entries of `kind` with MPI index `index`, in inventory order (items: one per
    /// enum that has an item of that index).
    pub fn at(&self, kind: SubjectKind, index: i32) -> impl Iterator<Item = &Entry> {
        let map = self.by_index.0.get_or_init(|| {
            let mut m: HashMap<(SubjectKind, i32), Vec<usize>> = HashMap::new();
            for (i, e) in self.entries.iter().enumerate() {
                m.entry((e.kind, e.index)).or_default().push(i);
            }
            m
        });
        map.get(&(kind, index))
            .into_iter()
            .flatten()
            .filter_map(|i| self.entries.get(*i))
    }
    pub fn find(&self, kind: SubjectKind, index: i32) -> Option<&Entry> {
        self.at(kind, index).next()
    }
}

/// Reads the inventory of an initialized target (MPI_T_init_thread already called).
pub fn read(t: &Target) -> Inventory {
    let skip = std::collections::BTreeSet::new();
    read_guarded(t, &mut Guard::new(&skip, &|_| {}))
}

/// [`read`], entry by entry through `g` (which may pass entries over): the catalog's
/// one read (`target::catalog::read_raw`) seen as subjects, then the MPI_T functions
/// and the thread levels.
pub fn read_guarded(t: &Target, g: &mut Guard) -> Inventory {
    let p = &t.profile;
    let raw = read_raw(t, g, Views::INVENTORY);
    let mut inv = Inventory::default();
    entries::from_read(t, &raw, &mut inv);
    inv.passed = raw.passed;
    for f in Func::mpi_t() {
        let mut e = entry(
            SubjectKind::Function,
            0,
            &StrOut::default(),
            &StrOut::default(),
        );
        e.name = f.c_name().to_string();
        e.attrs.insert("name".into(), e.name.clone());
        e.attrs.insert("function".into(), f.yaml().to_string());
        // A handle argument with a code of its own: outside the interface such a call has
        // two errors (specs/return-codes.yaml `either: handle_outside_the_interface`).
        e.attrs
            .insert("handle_args".into(), two_errors_outside(f).to_string());
        inv.entries.push(e);
    }
    for (i, l) in ThreadLevel::ALL.iter().enumerate() {
        let Some(v) = p.thread_level.num(*l) else {
            continue;
        };
        let mut e = entry(
            SubjectKind::ThreadLevel,
            i as i32,
            &StrOut::default(),
            &StrOut::default(),
        );
        e.name = l.spelling().to_string();
        e.attrs.insert("name".into(), e.name.clone());
        e.vars.insert("required".into(), v);
        inv.entries.push(e);
    }
    inv
}

/// Whether a call of `f` outside the interface has two errors: it takes a handle or
/// session, and the return-code table gives it a code for a bad one besides
/// NOT_INITIALIZED. The one predicate both oracles use (the suite through the
/// `handle_args` filter, the comparator directly).
pub fn two_errors_outside(f: Func) -> bool {
    use crate::judge::return_codes::{Table, HANDLE_OUTSIDE_THE_INTERFACE};
    f.takes_mpi_t_handle()
        && Table::shared()
            .is_some_and(|t| t.either(HANDLE_OUTSIDE_THE_INTERFACE, f.c_name()).len() > 1)
}

/// Whether a return code is MPI_SUCCESS (helper for callers holding a raw code).
pub fn ok(t: &Target, rc: i32) -> bool {
    t.rc(rc) == ReturnCode::Success
}
