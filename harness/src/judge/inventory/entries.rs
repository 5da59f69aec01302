//! The catalog entries of an inventory: a view of the target's one catalog read
//! (`target::catalog::read_raw`), taking of each entry the read with slack (a library
//! whose length is short by one still gets its whole string read) and skipping nothing
//! the library answers. The calls are the reader's; here they are only looked at.

use super::{Entry, Inventory};
use mpit_spec::cases::SubjectKind;
use mpit_target::catalog::raw::{EnumRead, Info, InfoRead, RawCatalog};
use mpit_target::ffi::{Called, RawHandle, StrOut};
use mpit_target::Target;
use mpit_vocab::spec::{Bind, PvarClass, Scope, Verbosity};
use std::collections::BTreeMap;

/// Items of one enumeration at the most.
const MAX_ITEMS: i32 = 10_000;
/// Element datatypes of one event at the most (the capacity the reader asked for).
const MAX_ELEMENTS: i32 = 64;

fn text(o: &StrOut) -> String {
    o.text().unwrap_or_default()
}

fn flag(b: i32) -> String {
    (b != 0).to_string()
}

/// What the inventory makes of one entry's read.
enum Got<T> {
    Entry(T),
    /// A call failed: a failure, then the next entry.
    Failed,
    /// The function is not exported: the kind ends here.
    Absent,
}

/// An entry's lengths (R-STR-3), then its strings into buffers with slack: a call that
/// did not return 0 is a failure (`MPI_T_cvar_get_info(5) returned ...`).
fn slack<'r, T: Info>(t: &Target, r: &'r InfoRead<T>, failures: &mut Vec<String>) -> Got<&'r T> {
    let fail = |rc: i32, failures: &mut Vec<String>| {
        failures.push(format!(
            "MPI_T_{}_get_info({}) returned {}",
            T::KIND,
            r.index,
            t.rc(rc)
        ));
        Got::Failed
    };
    match (&r.lens, &r.slack) {
        (None, _) => Got::Absent,
        (Some((rc, _)), _) if *rc != 0 => fail(*rc, failures),
        (Some(_), None) => Got::Absent,
        (Some(_), Some((rc, _))) if *rc != 0 => fail(*rc, failures),
        (Some(_), Some((_, o))) => Got::Entry(o),
    }
}

/// The same for an enumeration or item: `None` when the function is not exported.
fn enum_slack(e: &EnumRead) -> Option<&Called<(i32, StrOut)>> {
    match &e.lens {
        None => None,
        Some((rc, _)) if *rc != 0 => Some(&e.lens),
        Some(_) => e.slack.as_ref().map(|_| &e.slack),
    }
}

/// The count a kind's entries run to: a failed or absent `*_get_num` counts 0.
fn num(c: &Called<i32>) -> i32 {
    c.map_or(0, |(rc, n)| if rc == 0 { n.max(0) } else { 0 })
}

/// The entries of a read, its failures and counts, into `inv`: each kind in the
/// order of its indices, kind after kind.
pub(super) fn from_read(t: &Target, raw: &RawCatalog, inv: &mut Inventory) {
    let n_cvars = num(&raw.counts.cvars);
    let n_pvars = num(&raw.counts.pvars);
    let n_cats = num(&raw.counts.categories);
    let n_events = num(&raw.counts.events);
    let n_sources = num(&raw.counts.sources);
    let mut enums = Enumtypes {
        null: t.predefined.enum_null as RawHandle,
        seen: Vec::new(),
    };
    cvars(t, raw, n_cvars, &mut enums, inv);
    pvars(t, raw, n_pvars, &mut enums, inv);
    categories(t, raw, n_cats, inv);
    events(t, raw, n_events, &mut enums, inv);
    sources(t, raw, n_sources, inv);
    let n_enums = enums.seen.len();
    enumerations(t, raw, enums.seen, inv);
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
}

/// The enumtypes the variables and events name, in the order first named
/// (MPI_T_ENUM_NULL left out): the enumerations' numbering.
struct Enumtypes {
    null: RawHandle,
    seen: Vec<RawHandle>,
}

impl Enumtypes {
    fn note(&mut self, h: RawHandle) {
        if h != self.null && !self.seen.contains(&h) {
            self.seen.push(h);
        }
    }
}

/// A datatype by its MPI name, else as the target describes the handle.
fn dt_name(t: &Target, raw: u64) -> String {
    t.datatype(raw)
        .map_or_else(|| t.describe_datatype(raw), |d| d.spelling().to_string())
}

/// A constant by its MPI name, `unknown(N)` when the profile has none for it.
fn c_name(prefix: &str, s: Option<&str>, raw: i32) -> String {
    s.map_or_else(|| format!("unknown({raw})"), |s| format!("{prefix}{s}"))
}

fn cvars(t: &Target, raw: &RawCatalog, n: i32, enums: &mut Enumtypes, inv: &mut Inventory) {
    for v in raw.cvars.iter().take_while(|v| v.info.index < n) {
        let o = match slack(t, &v.info, &mut inv.failures) {
            Got::Entry(o) => o,
            Got::Failed => continue,
            Got::Absent => break,
        };
        enums.note(o.enumtype);
        let scope = t.profile.scope.lookup(o.scope as i64);
        let mut e = entry(SubjectKind::Cvar, v.info.index, &o.name, &o.desc);
        e.attrs.insert(
            "scope".into(),
            c_name("MPI_T_SCOPE_", scope.map(Scope::spelling), o.scope),
        );
        e.attrs.insert(
            "writable".into(),
            (!matches!(scope, Some(Scope::Constant | Scope::Readonly))).to_string(),
        );
        let has_enum = o.enumtype != enums.null;
        common(
            &mut e,
            t,
            o.verbosity,
            o.bind,
            &dt_name(t, o.datatype),
            has_enum,
        );
        e.vars.insert("enumtype".into(), o.enumtype as i64);
        inv.entries.push(e);
    }
}

fn pvars(t: &Target, raw: &RawCatalog, n: i32, enums: &mut Enumtypes, inv: &mut Inventory) {
    for v in raw.pvars.iter().take_while(|v| v.info.index < n) {
        let o = match slack(t, &v.info, &mut inv.failures) {
            Got::Entry(o) => o,
            Got::Failed => continue,
            Got::Absent => break,
        };
        enums.note(o.enumtype);
        let class = t.profile.pvar_class.lookup(o.var_class as i64);
        let mut e = entry(SubjectKind::Pvar, v.info.index, &o.name, &o.desc);
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
        let has_enum = o.enumtype != enums.null;
        common(
            &mut e,
            t,
            o.verbosity,
            o.bind,
            &dt_name(t, o.datatype),
            has_enum,
        );
        e.vars.insert("var_class".into(), o.var_class as i64);
        e.vars.insert("enumtype".into(), o.enumtype as i64);
        inv.entries.push(e);
    }
}

/// Categories with their members by kind (`num_cvars`, ... and the member lists).
fn categories(t: &Target, raw: &RawCatalog, n: i32, inv: &mut Inventory) {
    let failures = &mut inv.failures;
    for c in raw.categories.iter().take_while(|c| c.info.index < n) {
        let i = c.info.index;
        let o = match slack(t, &c.info, failures) {
            Got::Entry(o) => o,
            Got::Failed => continue,
            Got::Absent => break,
        };
        // Members passed over by the reader: the category was lost with them.
        let Some(m) = &c.members else { continue };
        let mut e = entry(SubjectKind::Category, i, &o.name, &o.desc);
        let events = m
            .num_events
            .map_or(0, |(rc, n)| if rc == 0 { n } else { 0 });
        for (call, key, n) in [
            (&m.cvars, "cvars", o.num_cvars),
            (&m.pvars, "pvars", o.num_pvars),
            (&m.categories, "categories", o.num_categories),
            (&m.events, "events", events),
        ] {
            e.vars.insert(format!("num_{key}"), n as i64);
            let n = n.clamp(0, 1 << 20) as usize;
            // Guard entries past `n`: a library writing more than it was told (R-CAT-1)
            // is a finding for the category cases, not a corrupted heap here.
            let got = call.as_ref().filter(|(rc, _)| *rc == 0);
            if let Some((_, (_, true))) = got {
                failures.push(format!(
                    "MPI_T_category_get_{key}({i}, {n}) wrote past {n} entries"
                ));
            }
            let members = got.map(|(_, (v, _))| v.clone()).unwrap_or_default();
            e.members.insert(key.into(), members);
        }
        inv.entries.push(e);
    }
}

fn events(t: &Target, raw: &RawCatalog, n: i32, enums: &mut Enumtypes, inv: &mut Inventory) {
    for v in raw.events.iter().take_while(|v| v.info.index < n) {
        let o = match slack(t, &v.info, &mut inv.failures) {
            Got::Entry(o) => o,
            Got::Failed => continue,
            Got::Absent => break,
        };
        enums.note(o.enumtype);
        let mut e = entry(SubjectKind::Event, v.info.index, &o.name, &o.desc);
        let dts: Vec<String> = o
            .datatypes
            .iter()
            .take(o.num_elements.clamp(0, MAX_ELEMENTS) as usize)
            .map(|d| dt_name(t, *d))
            .collect();
        let has_enum = o.enumtype != enums.null;
        common(&mut e, t, o.verbosity, o.bind, &dts.join(","), has_enum);
        e.vars.insert("num_elements".into(), o.num_elements as i64);
        e.vars.insert("enumtype".into(), o.enumtype as i64);
        inv.entries.push(e);
    }
}

fn sources(t: &Target, raw: &RawCatalog, n: i32, inv: &mut Inventory) {
    for s in raw.sources.iter().take_while(|s| s.index < n) {
        let o = match slack(t, s, &mut inv.failures) {
            Got::Entry(o) => o,
            Got::Failed => continue,
            Got::Absent => break,
        };
        let mut e = entry(SubjectKind::Source, s.index, &o.name, &o.desc);
        e.vars.insert("ordering".into(), o.ordering as i64);
        inv.entries.push(e);
    }
}

/// The enumerations the variables and events named, each followed by its items.
fn enumerations(t: &Target, raw: &RawCatalog, enums: Vec<RawHandle>, inv: &mut Inventory) {
    for (k, h) in enums.into_iter().enumerate() {
        // Enumerations are numbered in the order the variables name them (their handles
        // differ from one process to the next); one the reader passed over is left out.
        let Some(read) = raw.enums.iter().find(|e| e.handle == h) else {
            continue;
        };
        let Some(info) = &read.info else { continue };
        let Some(got) = enum_slack(info) else { break };
        let (num, name) = match got {
            Some((0, (num, name))) => (*num, name),
            Some((rc, _)) => {
                inv.failures.push(format!(
                    "MPI_T_enum_get_info({h:#x}) returned {}",
                    t.rc(*rc)
                ));
                continue;
            }
            None => break,
        };
        let mut e = entry(SubjectKind::Enum, k as i32, name, &StrOut::default());
        e.vars.insert("enumtype".into(), h as i64);
        e.vars.insert("num_items".into(), num as i64);
        let ename = e.name.clone();
        inv.entries.push(e);
        for item in 0..num.clamp(0, MAX_ITEMS) {
            // Passed over by the reader.
            let Some(Some(r)) = read.items.get(item as usize) else {
                continue;
            };
            let Some(Some((0, (value, iname)))) = enum_slack(r) else {
                inv.failures
                    .push(format!("MPI_T_enum_get_item({ename}, {item}) failed"));
                continue;
            };
            let mut it = entry(SubjectKind::Item, item, iname, &StrOut::default());
            it.attrs.insert("enum".into(), ename.clone());
            it.vars.insert("enumtype".into(), h as i64);
            it.vars.insert("item".into(), item as i64);
            it.vars.insert("value".into(), *value as i64);
            it.vars.insert("num_items".into(), num as i64);
            inv.entries.push(it);
        }
    }
}

pub(super) fn entry(kind: SubjectKind, index: i32, name: &StrOut, desc: &StrOut) -> Entry {
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
