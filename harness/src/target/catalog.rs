//! Reads everything a target exposes into the reference's catalog format, plus the raw
//! observations the catalog checks judge (lengths returned, index round trips, codes).
//! Runs inside a worker process.

use super::ffi::{Members, RawHandle, StrArg, StrOut};
use super::reading::{Guard, Lost};
use super::{Detection, Target};
use mpit_reference::catalog::{self as cat, Catalog, PvarRef};
use mpit_reference::profile::ReturnCode;
use mpit_reference::spec::{Datatype, PvarClass};
use mpit_reference::value::Value;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The target index of each entry of a mirrored catalog, per kind: the catalog leaves
/// out entries the profile could not decode, so position and index can differ.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origins {
    pub cvars: Vec<i32>,
    pub pvars: Vec<i32>,
    pub categories: Vec<i32>,
    pub events: Vec<i32>,
    pub sources: Vec<i32>,
}

impl Origins {
    /// Each entry at its own index (a catalog read without gaps, or the reference's).
    pub fn identity(c: &Catalog) -> Origins {
        let seq = |n: usize| (0..n as i32).collect();
        Origins {
            cvars: seq(c.cvars.len()),
            pvars: seq(c.pvars.len()),
            categories: seq(c.categories.len()),
            events: seq(c.events.len()),
            sources: seq(c.sources.len()),
        }
    }
}

/// Counts from the `*_get_num` calls (`None`: the function is not exported).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub cvars: Option<i32>,
    pub pvars: Option<i32>,
    pub categories: Option<i32>,
    pub events: Option<i32>,
    pub sources: Option<i32>,
}

/// One name as read through the string convention (MPI-4.1 §15.3.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameObs {
    pub kind: String,
    pub index: i32,
    pub name: String,
    /// `*len` after a call with a NULL buffer (R-STR-3): must be strlen+1.
    pub len_null_buf: Option<i32>,
    /// `*len` after a call with an exact-size buffer: must be strlen+1.
    pub len_exact: Option<i32>,
    /// What `*_get_index(name)` returned: code and index.
    pub get_index: Option<(ReturnCode, i32)>,
    /// A read into a buffer one byte too small (strlen bytes): what came back.
    pub truncated: Option<StrOut>,
}

/// A call that did not return MPI_SUCCESS while reading the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedCall {
    pub call: String,
    pub returned: ReturnCode,
}

/// Everything read from one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogDump {
    pub library_version: String,
    pub mpi_version: Option<(i32, i32)>,
    pub detection: Option<Detection>,
    /// The ABI profile used to decode, and why it was chosen.
    pub profile: String,
    pub after_init: bool,
    pub counts: Counts,
    /// `MPI_T_category_changed` after the read.
    pub category_changed: Option<i32>,
    /// MPI-4.1 entry points the library does not export ("unsupported", never a crash).
    pub unsupported: Vec<String>,
    pub catalog: Catalog,
    /// The target index of each catalog entry (entries that could not be decoded are
    /// left out of the catalog, so positions and indices can differ).
    #[serde(default)]
    pub origins: Origins,
    pub names: Vec<NameObs>,
    pub failed_calls: Vec<FailedCall>,
    /// Values the profile could not decode (each is a finding to look at).
    pub undecoded: Vec<String>,
    /// The profile's predefined handles as the worker saw them (addresses for Open MPI,
    /// the stored value of MPICH's MPI_T_PVAR_ALL_HANDLES).
    pub handles: BTreeMap<String, u64>,
    /// Profile entries naming objects the library does not export.
    pub unresolved: Vec<String>,
    /// The spots the reader was told to pass over (`target::reading`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed: Vec<String>,
    /// The entries that killed or stalled a reader (filled by the supervisor).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lost: Vec<Lost>,
}

struct Reader<'a> {
    t: &'a Target,
    g: Guard<'a>,
    names: Vec<NameObs>,
    failed: Vec<FailedCall>,
    undecoded: Vec<String>,
    enums: BTreeMap<RawHandle, String>,
}

fn text(o: &StrOut) -> String {
    o.text().unwrap_or_default()
}

impl Reader<'_> {
    fn ok(&mut self, call: String, rc: i32) -> bool {
        let r = self.t.rc(rc);
        if r == ReturnCode::Success {
            true
        } else {
            self.failed.push(FailedCall { call, returned: r });
            false
        }
    }

    fn undecoded<T>(&mut self, what: String) -> Option<T> {
        self.undecoded.push(what);
        None
    }

    /// Calls `f` twice: NULL buffers to learn the lengths, then exact-size buffers.
    /// Also reads the first string into a buffer one byte too small (R-STR-2).
    fn strings<T>(
        &mut self,
        call: String,
        f: impl Fn(StrArg, StrArg) -> Option<(i32, T)>,
        lens: impl Fn(&T) -> (Option<i32>, Option<i32>),
        first_str: impl Fn(&T) -> StrOut,
    ) -> Option<(T, i32, Option<StrOut>)> {
        let (rc, first) = f(StrArg::LEN_ONLY, StrArg::LEN_ONLY)?;
        if !self.ok(call.clone(), rc) {
            return None;
        }
        let (n, d) = lens(&first);
        let size = |l: Option<i32>| l.unwrap_or(1).clamp(1, 1 << 20) as usize;
        let (rc, full) = f(StrArg::sized(size(n)), StrArg::sized(size(d)))?;
        if !self.ok(call.clone(), rc) {
            return None;
        }
        let truncated = match n {
            Some(n) if n >= 2 => {
                let (rc, t) = f(StrArg::sized(n as usize - 1), StrArg::LEN_ONLY)?;
                self.ok(call, rc).then(|| first_str(&t))
            }
            _ => None,
        };
        Some((full, n.unwrap_or(-1), truncated))
    }

    fn enum_name(&mut self, h: RawHandle) -> Option<String> {
        if h == 0 {
            return None;
        }
        self.enums.get(&h).cloned()
    }

    fn scan_enum(&mut self, h: RawHandle) {
        if h == 0 || self.enums.contains_key(&h) {
            return;
        }
        let Some((rc, (_, first))) = self.t.lib.enum_get_info(h, StrArg::LEN_ONLY) else {
            return;
        };
        if !self.ok(format!("MPI_T_enum_get_info({h:#x})"), rc) {
            return;
        }
        let cap = first.len.unwrap_or(1).clamp(1, 1 << 20) as usize;
        let Some((rc, (_, name))) = self.t.lib.enum_get_info(h, StrArg::sized(cap)) else {
            return;
        };
        if !self.ok(format!("MPI_T_enum_get_info({h:#x})"), rc) {
            return;
        }
        let name = text(&name);
        self.names.push(NameObs {
            kind: "enum".into(),
            index: self.enums.len() as i32,
            name: name.clone(),
            len_null_buf: first.len,
            len_exact: Some(cap as i32),
            get_index: None,
            truncated: None,
        });
        self.enums.insert(h, name);
    }
}

/// Reads the whole catalog of an initialized target (MPI_T_init_thread already called).
pub fn read(t: &Target, after_init: bool) -> CatalogDump {
    static NOTHING: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    fn quiet(_: &str) {}
    read_guarded(t, after_init, Guard::new(&NOTHING, &quiet))
}

/// [`read`], entry by entry through `g` (which may pass entries over).
pub fn read_guarded<'a>(t: &'a Target, after_init: bool, g: Guard<'a>) -> CatalogDump {
    let mut r = Reader {
        t,
        g,
        names: Vec::new(),
        failed: Vec::new(),
        undecoded: Vec::new(),
        enums: BTreeMap::new(),
    };
    let p = &t.profile;
    // A count passed over reads as "not exported"; `passed` says why.
    let mut count = |name: &str, f: &dyn Fn() -> Option<(i32, i32)>| {
        r.g.enter(name.to_string())
            .then(f)
            .flatten()
            .map(|(_, n)| n)
    };
    let counts = Counts {
        cvars: count("MPI_T_cvar_get_num", &|| t.lib.cvar_get_num()),
        pvars: count("MPI_T_pvar_get_num", &|| t.lib.pvar_get_num()),
        categories: count("MPI_T_category_get_num", &|| t.lib.category_get_num()),
        events: count("MPI_T_event_get_num", &|| t.lib.event_get_num()),
        sources: count("MPI_T_source_get_num", &|| t.lib.source_get_num()),
    };
    let mut c = Catalog::default();
    let mut origins = Origins::default();

    // Enumerations are reached through the variables that use them; collect them first.
    let mut raw_cvars = Vec::new();
    for i in 0..counts.cvars.unwrap_or(0) {
        if !r.g.enter(format!("MPI_T_cvar_get_info({i})")) {
            continue;
        }
        let got = r.strings(
            format!("MPI_T_cvar_get_info({i})"),
            |n, d| t.lib.cvar_get_info(i, n, d),
            |o| (o.name.len, o.desc.len),
            |o| o.name.clone(),
        );
        if let Some((o, nl, tr)) = got {
            r.scan_enum(o.enumtype);
            raw_cvars.push((i, o, nl, tr));
        }
    }
    let mut raw_pvars = Vec::new();
    for i in 0..counts.pvars.unwrap_or(0) {
        if !r.g.enter(format!("MPI_T_pvar_get_info({i})")) {
            continue;
        }
        let got = r.strings(
            format!("MPI_T_pvar_get_info({i})"),
            |n, d| t.lib.pvar_get_info(i, n, d),
            |o| (o.name.len, o.desc.len),
            |o| o.name.clone(),
        );
        if let Some((o, nl, tr)) = got {
            r.scan_enum(o.enumtype);
            raw_pvars.push((i, o, nl, tr));
        }
    }
    let handles: Vec<RawHandle> = r.enums.keys().copied().collect();
    for (e, h) in handles.into_iter().enumerate() {
        if !r.g.enter(format!("MPI_T_enum_get_info(enum #{e})")) {
            r.enums.remove(&h);
            continue;
        }
        let num = t
            .lib
            .enum_get_info(h, StrArg::LEN_ONLY)
            .map(|(_, (n, _))| n)
            .unwrap_or(0);
        let mut items = Vec::new();
        for k in 0..num.clamp(0, 10_000) {
            if !r.g.enter(format!("MPI_T_enum_get_item(enum #{e}, {k})")) {
                continue;
            }
            let Some((rc, (_, first))) = t.lib.enum_get_item(h, k, StrArg::LEN_ONLY) else {
                break;
            };
            if !r.ok(format!("MPI_T_enum_get_item({h:#x}, {k})"), rc) {
                continue;
            }
            let cap = first.len.unwrap_or(1).clamp(1, 1 << 20) as usize;
            if let Some((0, (value, name))) = t.lib.enum_get_item(h, k, StrArg::sized(cap)) {
                items.push(cat::EnumItem {
                    value,
                    name: text(&name),
                });
            }
        }
        let name = r.enums[&h].clone();
        c.enums.push(cat::Enum { name, items });
    }

    for (i, o, nl, tr) in raw_cvars {
        // The second pass over a variable (get_index, the value) is a spot of its own.
        if !r.g.enter(format!("MPI_T_cvar_get_index({i})")) {
            continue;
        }
        let name = text(&o.name);
        let gi = t.lib.cvar_get_index(&name).map(|(rc, x)| (t.rc(rc), x));
        r.names.push(NameObs {
            kind: "cvar".into(),
            index: i,
            name: name.clone(),
            len_null_buf: Some(nl),
            len_exact: o.name.len,
            get_index: gi,
            truncated: tr,
        });
        let dt = t.datatype(o.datatype).or_else(|| {
            r.undecoded(format!(
                "cvar {name}: datatype {}",
                t.describe_datatype(o.datatype)
            ))
        });
        let verbosity = p
            .verbosity
            .lookup(o.verbosity as i64)
            .or_else(|| r.undecoded(format!("cvar {name}: verbosity {}", o.verbosity)));
        let bind = p
            .bind
            .lookup(o.bind as i64)
            .or_else(|| r.undecoded(format!("cvar {name}: bind {}", o.bind)));
        let scope = p
            .scope
            .lookup(o.scope as i64)
            .or_else(|| r.undecoded(format!("cvar {name}: scope {}", o.scope)));
        let (Some(dt), Some(verbosity), Some(bind), Some(scope)) = (dt, verbosity, bind, scope)
        else {
            continue;
        };
        let mut count = 1;
        let mut value = None;
        if bind == mpit_reference::spec::Bind::NoObject {
            if let Some((rc, (n, bytes))) = t.lib.cvar_read_unbound(i, dt.size()) {
                if r.ok(format!("MPI_T_cvar_read({name})"), rc) {
                    count = n.max(1) as u32;
                    value = Some(Value::from_bytes(dt, n.max(0) as usize, &bytes).to_cat());
                }
            }
        }
        origins.cvars.push(i);
        c.cvars.push(cat::Cvar {
            name,
            desc: Some(text(&o.desc)).filter(|d| !d.is_empty()),
            verbosity,
            datatype: dt,
            enumtype: r.enum_name(o.enumtype),
            bind,
            scope,
            count,
            value,
            not_now_until_init: false,
            appears: cat::Appears::Always,
            deviations: Vec::new(),
        });
    }

    for (i, o, nl, tr) in raw_pvars {
        if !r.g.enter(format!("MPI_T_pvar_get_index({i})")) {
            continue;
        }
        let name = text(&o.name);
        let class = p
            .pvar_class
            .lookup(o.var_class as i64)
            .or_else(|| r.undecoded(format!("pvar {name}: class {}", o.var_class)));
        let gi = class
            .and_then(|_| t.lib.pvar_get_index(&name, o.var_class))
            .map(|(rc, x)| (t.rc(rc), x));
        r.names.push(NameObs {
            kind: "pvar".into(),
            index: i,
            name: name.clone(),
            len_null_buf: Some(nl),
            len_exact: o.name.len,
            get_index: gi,
            truncated: tr,
        });
        let dt = t.datatype(o.datatype).or_else(|| {
            r.undecoded(format!(
                "pvar {name}: datatype {}",
                t.describe_datatype(o.datatype)
            ))
        });
        let verbosity = p
            .verbosity
            .lookup(o.verbosity as i64)
            .or_else(|| r.undecoded(format!("pvar {name}: verbosity {}", o.verbosity)));
        let bind = p
            .bind
            .lookup(o.bind as i64)
            .or_else(|| r.undecoded(format!("pvar {name}: bind {}", o.bind)));
        let (Some(class), Some(dt), Some(verbosity), Some(bind)) = (class, dt, verbosity, bind)
        else {
            continue;
        };
        origins.pvars.push(i);
        c.pvars.push(cat::Pvar {
            name,
            desc: Some(text(&o.desc)).filter(|d| !d.is_empty()),
            verbosity,
            class,
            datatype: dt,
            enumtype: r.enum_name(o.enumtype),
            bind,
            readonly: o.readonly != 0,
            continuous: o.continuous != 0,
            atomic: o.atomic != 0,
            count: 1,
            value: None,
            appears: cat::Appears::Always,
            deviations: Vec::new(),
        });
    }

    for i in 0..counts.sources.unwrap_or(0) {
        if !r.g.enter(format!("MPI_T_source_get_info({i})")) {
            continue;
        }
        let got = r.strings(
            format!("MPI_T_source_get_info({i})"),
            |n, d| t.lib.source_get_info(i, n, d),
            |o| (o.name.len, o.desc.len),
            |o| o.name.clone(),
        );
        let Some((o, nl, tr)) = got else { continue };
        let name = text(&o.name);
        r.names.push(NameObs {
            kind: "source".into(),
            index: i,
            name: name.clone(),
            len_null_buf: Some(nl),
            len_exact: o.name.len,
            get_index: None,
            truncated: tr,
        });
        let Some(ordering) = p
            .source_order
            .lookup(o.ordering as i64)
            .or_else(|| r.undecoded(format!("source {name}: ordering {}", o.ordering)))
        else {
            continue;
        };
        let timestamps = false;
        origins.sources.push(i);
        c.sources.push(cat::Source {
            name,
            desc: Some(text(&o.desc)).filter(|d| !d.is_empty()),
            ordering,
            ticks_per_second: o.ticks_per_second,
            max_ticks: o.max_ticks,
            timestamps,
            info: BTreeMap::new(),
            appears: cat::Appears::Always,
        });
    }

    for i in 0..counts.events.unwrap_or(0) {
        if !r.g.enter(format!("MPI_T_event_get_info({i})")) {
            continue;
        }
        let got = r.strings(
            format!("MPI_T_event_get_info({i})"),
            |n, d| t.lib.event_get_info(i, n, d, 64),
            |o| (o.name.len, o.desc.len),
            |o| o.name.clone(),
        );
        let Some((o, nl, tr)) = got else { continue };
        let name = text(&o.name);
        let gi = t.lib.event_get_index(&name).map(|(rc, x)| (t.rc(rc), x));
        r.names.push(NameObs {
            kind: "event".into(),
            index: i,
            name: name.clone(),
            len_null_buf: Some(nl),
            len_exact: o.name.len,
            get_index: gi,
            truncated: tr,
        });
        r.scan_enum(o.enumtype);
        let n = (o.num_elements.max(0) as usize).min(o.datatypes.len());
        let mut elements = Vec::new();
        for k in 0..n {
            let Some(dt) = t.datatype(o.datatypes[k]).or_else(|| {
                r.undecoded(format!(
                    "event {name}: element {k} datatype {}",
                    t.describe_datatype(o.datatypes[k])
                ))
            }) else {
                continue;
            };
            elements.push(cat::EventElement {
                datatype: dt,
                displacement: Some(o.displacements[k] as i64),
            });
        }
        let verbosity = p
            .verbosity
            .lookup(o.verbosity as i64)
            .or_else(|| r.undecoded(format!("event {name}: verbosity {}", o.verbosity)));
        let bind = p
            .bind
            .lookup(o.bind as i64)
            .or_else(|| r.undecoded(format!("event {name}: bind {}", o.bind)));
        let (Some(verbosity), Some(bind)) = (verbosity, bind) else {
            continue;
        };
        // The standard gives no call from event type to source; sources are per instance.
        let source = c
            .sources
            .first()
            .map(|s| s.name.clone())
            .unwrap_or_default();
        origins.events.push(i);
        c.events.push(cat::Event {
            name,
            desc: Some(text(&o.desc)).filter(|d| !d.is_empty()),
            verbosity,
            bind,
            enumtype: r.enum_name(o.enumtype),
            elements,
            source,
            info: BTreeMap::new(),
            appears: cat::Appears::Always,
        });
    }

    read_categories(&mut r, &mut c, &mut origins, counts.categories.unwrap_or(0));
    // Enumerations are observable only through the entries that carry them: one used
    // only by entries the profile could not decode (Open MPI's `boolean`, on MPI_C_BOOL
    // cvars, listed under `undecoded`) is left out with them, so the catalog holds what a
    // library serving it would expose.
    let used: std::collections::BTreeSet<String> = c
        .cvars
        .iter()
        .filter_map(|v| v.enumtype.clone())
        .chain(c.pvars.iter().filter_map(|v| v.enumtype.clone()))
        .chain(c.events.iter().filter_map(|v| v.enumtype.clone()))
        .collect();
    c.enums.retain(|e| used.contains(&e.name));
    // Rules the library's entries break are declared, so the reference can mirror the
    // catalog (MPIT_REFERENCE_CATALOG) and serve them as the library does.
    c.mark_deviations();
    let category_changed =
        r.g.enter("MPI_T_category_changed".into())
            .then(|| t.lib.category_changed().map(|(_, n)| n))
            .flatten();
    r.g.leave();
    CatalogDump {
        library_version: t
            .lib
            .get_library_version()
            .map(|(_, v)| v)
            .unwrap_or_default(),
        mpi_version: t.lib.get_version().map(|(_, v)| v),
        detection: t.detection.clone(),
        profile: t.profile_origin.clone(),
        after_init,
        counts,
        category_changed,
        unsupported: t
            .lib
            .entry_points()
            .into_iter()
            .filter(|(_, ok)| !ok)
            .map(|(n, _)| n.to_string())
            .collect(),
        catalog: c,
        origins,
        names: r.names,
        failed_calls: r.failed,
        undecoded: r.undecoded,
        handles: t.handles.clone(),
        unresolved: t.unresolved.clone(),
        passed: r.g.passed,
        lost: Vec::new(),
    }
}

fn read_categories(r: &mut Reader<'_>, c: &mut Catalog, origins: &mut Origins, n: i32) {
    let t = r.t;
    let mut raw = Vec::new();
    for i in 0..n {
        if !r.g.enter(format!("MPI_T_category_get_info({i})")) {
            continue;
        }
        let got = r.strings(
            format!("MPI_T_category_get_info({i})"),
            |a, d| t.lib.category_get_info(i, a, d),
            |o| (o.name.len, o.desc.len),
            |o| o.name.clone(),
        );
        let Some((o, nl, tr)) = got else { continue };
        let name = text(&o.name);
        let gi = t.lib.category_get_index(&name).map(|(rc, x)| (t.rc(rc), x));
        r.names.push(NameObs {
            kind: "category".into(),
            index: i,
            name: name.clone(),
            len_null_buf: Some(nl),
            len_exact: o.name.len,
            get_index: gi,
            truncated: tr,
        });
        raw.push((i, name, o));
    }
    // Members are target indices: found through the origins, so a member after an entry
    // that could not be decoded is not mistaken for its neighbour.
    let at = |o: &[i32], i: i32| o.binary_search(&i).ok();
    let by_index = |list: &[String], o: &[i32], i: i32| at(o, i).and_then(|p| list.get(p).cloned());
    let cvar_names: Vec<String> = c.cvars.iter().map(|v| v.name.clone()).collect();
    let pvar_refs: Vec<PvarRef> = c
        .pvars
        .iter()
        .map(|p| PvarRef {
            name: p.name.clone(),
            class: p.class,
        })
        .collect();
    let event_names: Vec<String> = c.events.iter().map(|e| e.name.clone()).collect();
    let cat_names: Vec<String> = raw.iter().map(|(_, n, _)| n.clone()).collect();
    origins.categories = raw.iter().map(|(i, _, _)| *i).collect();
    for (i, name, o) in raw {
        // Passed over: the category stays, with no members (its index is in `origins`).
        let read = r.g.enter(format!("MPI_T_category_get_cvars({i})"));
        let mut members = |which: Members, count: i32| -> Vec<i32> {
            if !read {
                return Vec::new();
            }
            match t
                .lib
                .category_members(which, i, count.clamp(0, 1 << 16) as usize, -1)
            {
                Some((rc, v))
                    if r.ok(
                        format!("MPI_T_category_get_{which:?}({i})").to_lowercase(),
                        rc,
                    ) =>
                {
                    v
                }
                _ => Vec::new(),
            }
        };
        let cv = members(Members::Cvars, o.num_cvars);
        let pv = members(Members::Pvars, o.num_pvars);
        let cc = members(Members::Categories, o.num_categories);
        let ne = match read {
            true => t.lib.category_get_num_events(i).map_or(0, |(_, n)| n),
            false => 0,
        };
        let ev = members(Members::Events, ne);
        c.categories.push(cat::Category {
            name,
            desc: Some(text(&o.desc)).filter(|d| !d.is_empty()),
            cvars: cv
                .iter()
                .filter_map(|x| by_index(&cvar_names, &origins.cvars, *x))
                .collect(),
            pvars: pv
                .iter()
                .filter_map(|x| at(&origins.pvars, *x).and_then(|p| pvar_refs.get(p).cloned()))
                .collect(),
            events: ev
                .iter()
                .filter_map(|x| by_index(&event_names, &origins.events, *x))
                .collect(),
            categories: cc
                .iter()
                .filter_map(|x| by_index(&cat_names, &origins.categories, *x))
                .collect(),
            appears: cat::Appears::Always,
        });
    }
}

/// The pvar classes whose datatype is outside the class table (R-PCLASS), for checks.
pub fn class_mismatches(c: &Catalog) -> Vec<(String, PvarClass, Datatype)> {
    c.pvars
        .iter()
        .filter(|p| !p.class.allowed_datatypes().contains(&p.datatype))
        .map(|p| (p.name.clone(), p.class, p.datatype))
        .collect()
}

/// Spelled-out counts for the table view.
pub fn count_line(d: &CatalogDump) -> String {
    let f = |x: Option<i32>| x.map_or("-".to_string(), |n| n.to_string());
    format!(
        "cvars {} · pvars {} · categories {} · enums {} · events {} · sources {}",
        f(d.counts.cvars),
        f(d.counts.pvars),
        f(d.counts.categories),
        d.catalog.enums.len(),
        f(d.counts.events),
        f(d.counts.sources)
    )
}
