//! The read of a whole catalog, in the order it must happen: the counts, the control
//! and performance variables (which lead to the enumerations), the enumerations, the
//! second pass over each variable, sources, events, then categories, each entry through
//! the guard. What it yields is a `CatalogDump`.

use super::categories::read_categories;
use super::reader::{text, Reader};
use super::{CatalogDump, Counts, NameObs, Origins};
use crate::ffi::{RawHandle, StrArg};
use crate::reading::Guard;
use crate::Target;
use mpit_reference::catalog::{self as cat, Catalog};
use mpit_reference::value::Value;
use std::collections::BTreeMap;

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
        unsupported: t.unsupported(),
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
