//! The categories of a catalog and their members. Members come back as target indices,
//! so they are found through the `Origins` of the entries already read: a member after
//! an entry that could not be decoded is not mistaken for its neighbour.

use super::reader::{text, Reader};
use super::{NameObs, Origins};
use crate::ffi::Members;
use mpit_reference::catalog::{self as cat, Catalog, PvarRef};

pub(super) fn read_categories(r: &mut Reader<'_>, c: &mut Catalog, origins: &mut Origins, n: i32) {
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
