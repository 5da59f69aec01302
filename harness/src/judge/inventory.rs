//! The inventory: every catalog entry of a target by its MPI index, with the attributes
//! case filters name and the variables steps use. Unlike the decoded `Catalog` (which
//! drops an entry whose datatype the profile cannot name), nothing is skipped here:
//! an index the library answers is a subject.

use crate::cases::funcs::Func;
use crate::cases::Kind;
use crate::target::ffi::{RawHandle, StrArg, StrOut};
use crate::target::reading::{Guard, Lost};
use crate::target::Target;
use mpit_reference::model::Members;
use mpit_reference::profile::ReturnCode;
use mpit_reference::spec::{Bind, PvarClass, Scope, ThreadLevel, Verbosity};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// One subject: a catalog entry, an MPI_T function or a thread level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub kind: Kind,
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
            Kind::Function | Kind::ThreadLevel => self.name.clone(),
            Kind::Item => format!(
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
pub struct IndexCache(std::sync::OnceLock<HashMap<(Kind, i32), Vec<usize>>>);

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
    pub fn of(&self, kind: Kind) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(move |e| e.kind == kind)
    }
    /// The entries of `kind` with MPI index `index`, in inventory order (items: one per
    /// enum that has an item of that index).
    pub fn at(&self, kind: Kind, index: i32) -> impl Iterator<Item = &Entry> {
        let map = self.by_index.0.get_or_init(|| {
            let mut m: HashMap<(Kind, i32), Vec<usize>> = HashMap::new();
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
    pub fn find(&self, kind: Kind, index: i32) -> Option<&Entry> {
        self.at(kind, index).next()
    }
}

fn text(o: &StrOut) -> String {
    o.text().unwrap_or_default()
}

fn flag(b: i32) -> String {
    (b != 0).to_string()
}

/// Reads a string pair's lengths first (R-STR-3), then the strings into exact buffers.
fn two_strings<T>(
    f: impl Fn(StrArg, StrArg) -> Option<(i32, T)>,
    lens: impl Fn(&T) -> (Option<i32>, Option<i32>),
) -> Option<(i32, T)> {
    let (rc, first) = f(StrArg::LEN_ONLY, StrArg::LEN_ONLY)?;
    if rc != 0 {
        return Some((rc, first));
    }
    let (n, d) = lens(&first);
    let cap = |l: Option<i32>| l.unwrap_or(1).clamp(1, 1 << 20) as usize;
    // Slack: a library whose length is short by one still gets its whole string read.
    f(StrArg::sized(cap(n) + 8), StrArg::sized(cap(d) + 8))
}

/// Reads the inventory of an initialized target (MPI_T_init_thread already called).
pub fn read(t: &Target) -> Inventory {
    let skip = std::collections::BTreeSet::new();
    read_guarded(t, &mut Guard::new(&skip, &|_| {}))
}

/// [`read`], entry by entry through `g` (which may pass entries over).
pub fn read_guarded(t: &Target, g: &mut Guard) -> Inventory {
    let p = &t.profile;
    let mut inv = Inventory::default();
    let num = |r: Option<(i32, i32)>| r.map_or(0, |(rc, n)| if rc == 0 { n.max(0) } else { 0 });
    let mut count = |name: &str, f: &dyn Fn() -> Option<(i32, i32)>| {
        if g.enter(name.to_string()) {
            num(f())
        } else {
            0
        }
    };
    let n_cvars = count("MPI_T_cvar_get_num", &|| t.lib.cvar_get_num());
    let n_pvars = count("MPI_T_pvar_get_num", &|| t.lib.pvar_get_num());
    let n_cats = count("MPI_T_category_get_num", &|| t.lib.category_get_num());
    let n_events = count("MPI_T_event_get_num", &|| t.lib.event_get_num());
    let n_sources = count("MPI_T_source_get_num", &|| t.lib.source_get_num());
    let enum_null = t.handles.get("MPI_T_ENUM_NULL").copied().unwrap_or(0) as RawHandle;
    let mut enums: Vec<RawHandle> = Vec::new();
    let mut note_enum = |h: RawHandle| {
        if h != enum_null && !enums.contains(&h) {
            enums.push(h);
        }
    };
    let dt_name = |raw: u64| {
        t.datatype(raw)
            .map_or_else(|| t.describe_datatype(raw), |d| d.spelling().to_string())
    };
    let c_name = |prefix: &str, s: Option<&str>, raw: i32| {
        s.map_or_else(|| format!("unknown({raw})"), |s| format!("{prefix}{s}"))
    };

    for i in 0..n_cvars {
        if !g.enter(format!("MPI_T_cvar_get_info({i})")) {
            continue;
        }
        let Some((rc, o)) = two_strings(
            |n, d| t.lib.cvar_get_info(i, n, d),
            |o| (o.name.len, o.desc.len),
        ) else {
            break;
        };
        if rc != 0 {
            inv.failures
                .push(format!("MPI_T_cvar_get_info({i}) returned {}", t.rc(rc)));
            continue;
        }
        note_enum(o.enumtype);
        let scope = p.scope.lookup(o.scope as i64);
        let mut e = entry(Kind::Cvar, i, &o.name, &o.desc);
        e.attrs.insert(
            "scope".into(),
            c_name("MPI_T_SCOPE_", scope.map(Scope::spelling), o.scope),
        );
        e.attrs.insert(
            "writable".into(),
            (!matches!(scope, Some(Scope::Constant | Scope::Readonly))).to_string(),
        );
        common(
            &mut e,
            t,
            o.verbosity,
            o.bind,
            &dt_name(o.datatype),
            o.enumtype != enum_null,
        );
        e.vars.insert("enumtype".into(), o.enumtype as i64);
        inv.entries.push(e);
    }
    for i in 0..n_pvars {
        if !g.enter(format!("MPI_T_pvar_get_info({i})")) {
            continue;
        }
        let Some((rc, o)) = two_strings(
            |n, d| t.lib.pvar_get_info(i, n, d),
            |o| (o.name.len, o.desc.len),
        ) else {
            break;
        };
        if rc != 0 {
            inv.failures
                .push(format!("MPI_T_pvar_get_info({i}) returned {}", t.rc(rc)));
            continue;
        }
        note_enum(o.enumtype);
        let class = p.pvar_class.lookup(o.var_class as i64);
        let mut e = entry(Kind::Pvar, i, &o.name, &o.desc);
        e.attrs.insert(
            "var_class".into(),
            c_name(
                "MPI_T_PVAR_CLASS_",
                class.map(PvarClass::spelling),
                o.var_class,
            ),
        );
        e.attrs.insert("readonly".into(), flag(o.readonly));
        e.attrs.insert("continuous".into(), flag(o.continuous));
        e.attrs.insert("atomic".into(), flag(o.atomic));
        common(
            &mut e,
            t,
            o.verbosity,
            o.bind,
            &dt_name(o.datatype),
            o.enumtype != enum_null,
        );
        e.vars.insert("var_class".into(), o.var_class as i64);
        e.vars.insert("enumtype".into(), o.enumtype as i64);
        inv.entries.push(e);
    }
    for i in 0..n_cats {
        if !g.enter(format!("MPI_T_category_get_info({i})")) {
            continue;
        }
        let Some((rc, o)) = two_strings(
            |n, d| t.lib.category_get_info(i, n, d),
            |o| (o.name.len, o.desc.len),
        ) else {
            break;
        };
        if rc != 0 {
            inv.failures.push(format!(
                "MPI_T_category_get_info({i}) returned {}",
                t.rc(rc)
            ));
            continue;
        }
        let mut e = entry(Kind::Category, i, &o.name, &o.desc);
        let events = t
            .lib
            .category_get_num_events(i)
            .map_or(0, |(rc, n)| if rc == 0 { n } else { 0 });
        for (which, key, n) in [
            (Members::Cvars, "cvars", o.num_cvars),
            (Members::Pvars, "pvars", o.num_pvars),
            (Members::Categories, "categories", o.num_categories),
            (Members::Events, "events", events),
        ] {
            e.vars.insert(format!("num_{key}"), n as i64);
            let n = n.clamp(0, 1 << 20) as usize;
            // Guard entries past `n`: a library writing more than it was told (R-CAT-1)
            // is a finding for the category cases, not a corrupted heap here.
            let got = t
                .lib
                .category_members_guarded(which, i, n, -1)
                .filter(|(rc, _)| *rc == 0);
            if let Some((_, (_, true))) = got {
                inv.failures.push(format!(
                    "MPI_T_category_get_{key}({i}, {n}) wrote past {n} entries"
                ));
            }
            e.members
                .insert(key.into(), got.map(|(_, (v, _))| v).unwrap_or_default());
        }
        inv.entries.push(e);
    }
    for i in 0..n_events {
        if !g.enter(format!("MPI_T_event_get_info({i})")) {
            continue;
        }
        let Some((rc, o)) = two_strings(
            |n, d| t.lib.event_get_info(i, n, d, 64),
            |o| (o.name.len, o.desc.len),
        ) else {
            break;
        };
        if rc != 0 {
            inv.failures
                .push(format!("MPI_T_event_get_info({i}) returned {}", t.rc(rc)));
            continue;
        }
        note_enum(o.enumtype);
        let mut e = entry(Kind::Event, i, &o.name, &o.desc);
        let dts: Vec<String> = o
            .datatypes
            .iter()
            .take(o.num_elements.clamp(0, 64) as usize)
            .map(|d| dt_name(*d))
            .collect();
        common(
            &mut e,
            t,
            o.verbosity,
            o.bind,
            &dts.join(","),
            o.enumtype != enum_null,
        );
        e.vars.insert("num_elements".into(), o.num_elements as i64);
        e.vars.insert("enumtype".into(), o.enumtype as i64);
        inv.entries.push(e);
    }
    for i in 0..n_sources {
        if !g.enter(format!("MPI_T_source_get_info({i})")) {
            continue;
        }
        let Some((rc, o)) = two_strings(
            |n, d| t.lib.source_get_info(i, n, d),
            |o| (o.name.len, o.desc.len),
        ) else {
            break;
        };
        if rc != 0 {
            inv.failures
                .push(format!("MPI_T_source_get_info({i}) returned {}", t.rc(rc)));
            continue;
        }
        let mut e = entry(Kind::Source, i, &o.name, &o.desc);
        e.vars.insert("ordering".into(), o.ordering as i64);
        inv.entries.push(e);
    }
    let n_enums = enums.len();
    for (k, h) in enums.into_iter().enumerate() {
        // Enumerations are numbered in the order the variables name them (their handles
        // differ from one process to the next).
        if !g.enter(format!("MPI_T_enum_get_info(enum #{k})")) {
            continue;
        }
        let got = two_strings(|a, _| t.lib.enum_get_info(h, a), |(_, s)| (s.len, None));
        let Some((rc, (num, name))) = got else {
            break;
        };
        if rc != 0 {
            inv.failures
                .push(format!("MPI_T_enum_get_info({h:#x}) returned {}", t.rc(rc)));
            continue;
        }
        let mut e = entry(Kind::Enum, k as i32, &name, &StrOut::default());
        e.vars.insert("enumtype".into(), h as i64);
        e.vars.insert("num_items".into(), num as i64);
        let ename = e.name.clone();
        inv.entries.push(e);
        for item in 0..num.clamp(0, 10_000) {
            if !g.enter(format!("MPI_T_enum_get_item(enum #{k}, {item})")) {
                continue;
            }
            let got = two_strings(
                |a, _| t.lib.enum_get_item(h, item, a),
                |(_, s)| (s.len, None),
            );
            let Some((0, (value, iname))) = got else {
                inv.failures
                    .push(format!("MPI_T_enum_get_item({ename}, {item}) failed"));
                continue;
            };
            let mut it = entry(Kind::Item, item, &iname, &StrOut::default());
            it.attrs.insert("enum".into(), ename.clone());
            it.vars.insert("enumtype".into(), h as i64);
            it.vars.insert("item".into(), item as i64);
            it.vars.insert("value".into(), value as i64);
            it.vars.insert("num_items".into(), num as i64);
            inv.entries.push(it);
        }
    }
    g.leave();
    inv.passed = std::mem::take(&mut g.passed);
    for (k, v) in [
        ("num_cvars", n_cvars),
        ("num_pvars", n_pvars),
        ("num_categories", n_cats),
        ("num_events", n_events),
        ("num_sources", n_sources),
        ("num_enums", n_enums as i32),
    ] {
        inv.globals.insert(k.into(), v as i64);
    }
    for f in Func::mpi_t() {
        let mut e = entry(Kind::Function, 0, &StrOut::default(), &StrOut::default());
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
            Kind::ThreadLevel,
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

fn entry(kind: Kind, index: i32, name: &StrOut, desc: &StrOut) -> Entry {
    let bytes = |o: &StrOut| {
        let b = o.buf.as_deref().unwrap_or(&[]);
        b[..b.iter().position(|c| *c == 0).unwrap_or(b.len())].to_vec()
    };
    let mut raw = BTreeMap::new();
    for (field, o) in [("name", name), ("desc", desc)] {
        let b = bytes(o);
        if std::str::from_utf8(&b).is_err() {
            raw.insert(field.to_string(), b);
        }
    }
    let (name_bytes, desc_bytes) = (bytes(name).len(), bytes(desc).len());
    let (name, desc) = (text(name), text(desc));
    let mut vars = BTreeMap::new();
    vars.insert("index".into(), index as i64);
    vars.insert("len".into(), name_bytes as i64 + 1);
    vars.insert("desc_len".into(), desc_bytes as i64 + 1);
    let mut attrs = BTreeMap::new();
    attrs.insert("has_desc".into(), (!desc.is_empty()).to_string());
    // `where: {name: ...}`: a case about one named entry (e.g. of the reference's catalog).
    attrs.insert("name".into(), name.clone());
    Entry {
        kind,
        index,
        name,
        desc,
        attrs,
        vars,
        members: BTreeMap::new(),
        raw,
    }
}

fn common(e: &mut Entry, t: &Target, verbosity: i32, bind: i32, datatype: &str, has_enum: bool) {
    let p = &t.profile;
    let v = p
        .verbosity
        .lookup(verbosity as i64)
        .map(Verbosity::spelling);
    let b = p.bind.lookup(bind as i64).map(Bind::spelling);
    e.attrs.insert(
        "verbosity".into(),
        v.map_or_else(
            || format!("unknown({verbosity})"),
            |s| format!("MPI_T_VERBOSITY_{s}"),
        ),
    );
    e.attrs.insert(
        "bind".into(),
        b.map_or_else(|| format!("unknown({bind})"), |s| format!("MPI_T_BIND_{s}")),
    );
    e.attrs.insert("datatype".into(), datatype.to_string());
    e.attrs.insert("has_enum".into(), has_enum.to_string());
}

/// Whether a return code is MPI_SUCCESS (helper for callers holding a raw code).
pub fn ok(t: &Target, rc: i32) -> bool {
    t.rc(rc) == ReturnCode::Success
}
