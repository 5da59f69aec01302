//! The decoded view of the one read: the reference's catalog format, with the
//! observations the catalog checks judge, walked in the order the catalog was always
//! read: the control and performance variables (which lead to the enumerations), the
//! enumerations, the second pass over each variable, sources, events, then categories.
//! What it yields is a `CatalogDump`.

use super::categories::read_categories;
use super::raw::{InfoRead, RawCatalog, RawCvar, RawEvent, RawPvar, Views};
use super::read::read_raw;
use super::reader::{text, Reader};
use super::{CatalogDump, Counts, NameObs, Origins};
use crate::ffi::{RawCvarInfo, RawHandle, RawPvarInfo, RawSourceInfo, StrOut};
use crate::reading::Guard;
use crate::Target;
use mpit_vocab::catalog::{self as cat, Catalog};
use mpit_vocab::spec::Bind;
use mpit_vocab::value::Value;
use std::collections::BTreeMap;

/// Reads the whole catalog of an initialized target (MPI_T_init_thread already called).
pub fn read(t: &Target, after_init: bool) -> CatalogDump {
    static NOTHING: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    fn quiet(_: &str) {}
    read_guarded(t, after_init, Guard::new(&NOTHING, &quiet))
}

/// [`read`], entry by entry through `g` (which may pass entries over).
pub fn read_guarded<'a>(t: &'a Target, after_init: bool, mut g: Guard<'a>) -> CatalogDump {
    let raw = read_raw(t, &mut g, Views::DECODED);
    decode(t, &raw, after_init)
}

/// An entry whose strings were read (`Reader::strings`): its read, the info as an exact
/// buffer returned it, the name length NULL buffers returned, the name one byte short.
type Strung<'a, R, I> = (&'a R, &'a I, i32, Option<StrOut>);

/// The decoded catalog of a read: entries the profile cannot decode are left out (and
/// listed under `undecoded`), `origins` gives each kept entry's target index.
pub fn decode(t: &Target, raw: &RawCatalog, after_init: bool) -> CatalogDump {
    let mut r = Reader::new(t, raw);
    // A count passed over reads as "not exported"; `passed` says why.
    let count = |c: &Option<(i32, i32)>| c.map(|(_, n)| n);
    let counts = Counts {
        cvars: count(&raw.counts.cvars),
        pvars: count(&raw.counts.pvars),
        categories: count(&raw.counts.categories),
        events: count(&raw.counts.events),
        sources: count(&raw.counts.sources),
    };
    let mut c = Catalog::default();
    let mut origins = Origins::default();

    // Enumerations are reached through the variables that use them; collect them first.
    let mut raw_cvars = Vec::new();
    for v in &raw.cvars {
        if let Some((o, nl, tr)) = r.strings(&v.info) {
            r.scan_enum(o.enumtype);
            raw_cvars.push((v, o, nl, tr));
        }
    }
    let mut raw_pvars = Vec::new();
    for v in &raw.pvars {
        if let Some((o, nl, tr)) = r.strings(&v.info) {
            r.scan_enum(o.enumtype);
            raw_pvars.push((v, o, nl, tr));
        }
    }
    decode_enums(&mut r, &mut c);
    decode_cvars(&mut r, &mut c, &mut origins, raw_cvars);
    decode_pvars(&mut r, &mut c, &mut origins, raw_pvars);
    decode_sources(&mut r, &mut c, &mut origins, &raw.sources);
    decode_events(&mut r, &mut c, &mut origins, &raw.events);
    read_categories(&mut r, &mut c, &mut origins, &raw.categories);
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
    let category_changed = raw.category_changed.map(|(_, n)| n);
    CatalogDump {
        library_version: raw
            .library_version
            .clone()
            .map(|(_, v)| v)
            .unwrap_or_default(),
        mpi_version: raw.mpi_version.map(|(_, v)| v),
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
        passed: raw.passed.clone(),
        lost: Vec::new(),
    }
}

/// The enumerations the variables named, in the order of their handles, with their items.
fn decode_enums(r: &mut Reader<'_>, c: &mut Catalog) {
    let handles: Vec<RawHandle> = r.enums.keys().copied().collect();
    for h in handles {
        let Some(e) = r.enum_read(h) else { continue };
        let num = e
            .info
            .as_ref()
            .and_then(|i| i.lens.as_ref())
            .map_or(0, |(_, (n, _))| *n);
        let mut items = Vec::new();
        for k in 0..num.clamp(0, 10_000) {
            // Passed over by the reader.
            let Some(Some(item)) = e.items.get(k as usize) else {
                continue;
            };
            let Some((rc, _)) = &item.lens else {
                break;
            };
            if !r.ok(format!("MPI_T_enum_get_item({h:#x}, {k})"), *rc) {
                continue;
            }
            if let Some((0, (value, name))) = &item.exact {
                items.push(cat::EnumItem {
                    value: *value,
                    name: text(name),
                });
            }
        }
        let name = r.enums[&h].clone();
        c.enums.push(cat::Enum { name, items });
    }
}

/// The control variables whose strings were read, each with its second pass (get_index,
/// and the value of one bound to no object).
fn decode_cvars(
    r: &mut Reader<'_>,
    c: &mut Catalog,
    origins: &mut Origins,
    raw_cvars: Vec<Strung<'_, RawCvar, RawCvarInfo>>,
) {
    let (t, p) = (r.t, &r.t.profile);
    for (v, o, nl, tr) in raw_cvars {
        // The second pass over a variable (get_index, the value) is a spot of its own.
        let (i, Some(second)) = (v.info.index, &v.second) else {
            continue;
        };
        let name = text(&o.name);
        let gi = second.get_index.map(|(rc, x)| (t.rc(rc), x));
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
        if bind == Bind::NoObject {
            if let Some((rc, (n, bytes))) = &second.value {
                if r.ok(format!("MPI_T_cvar_read({name})"), *rc) {
                    count = (*n).max(1) as u32;
                    value = Some(Value::from_bytes(dt, (*n).max(0) as usize, bytes).to_cat());
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
}

/// The performance variables whose strings were read, each with its get_index (asked
/// under the class decoded).
fn decode_pvars(
    r: &mut Reader<'_>,
    c: &mut Catalog,
    origins: &mut Origins,
    raw_pvars: Vec<Strung<'_, RawPvar, RawPvarInfo>>,
) {
    let (t, p) = (r.t, &r.t.profile);
    for (v, o, nl, tr) in raw_pvars {
        let i = v.info.index;
        if !v.second {
            continue;
        }
        let name = text(&o.name);
        let class = p
            .pvar_class
            .lookup(o.var_class as i64)
            .or_else(|| r.undecoded(format!("pvar {name}: class {}", o.var_class)));
        let gi = class.and(v.get_index).map(|(rc, x)| (t.rc(rc), x));
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
}

/// The event sources whose strings were read.
fn decode_sources(
    r: &mut Reader<'_>,
    c: &mut Catalog,
    origins: &mut Origins,
    sources: &[InfoRead<RawSourceInfo>],
) {
    let p = &r.t.profile;
    for s in sources {
        let i = s.index;
        let Some((o, nl, tr)) = r.strings(s) else {
            continue;
        };
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
}

/// The event types, after the sources (an event type names the first source).
fn decode_events(r: &mut Reader<'_>, c: &mut Catalog, origins: &mut Origins, events: &[RawEvent]) {
    let (t, p) = (r.t, &r.t.profile);
    for ev in events {
        let i = ev.info.index;
        let Some((o, nl, tr)) = r.strings(&ev.info) else {
            continue;
        };
        let name = text(&o.name);
        let gi = ev.get_index.map(|(rc, x)| (t.rc(rc), x));
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
}
