//! The categories of a catalog and their members. Members come back as target indices,
//! so they are found through the `Origins` of the entries already read: a member after
//! an entry that could not be decoded is not mistaken for its neighbour.

use super::raw::RawCategory;
use super::reader::{text, Reader};
use super::{NameObs, Origins};
use crate::ffi::Members;
use mpit_vocab::catalog::{self as cat, Catalog, PvarRef};

pub(super) fn read_categories(
    r: &mut Reader<'_>,
    c: &mut Catalog,
    origins: &mut Origins,
    read: &[RawCategory],
) {
    let t = r.t;
    let mut raw = Vec::new();
    for rc in read {
        let i = rc.info.index;
        let Some((o, nl, tr)) = r.strings(&rc.info) else {
            continue;
        };
        let name = text(&o.name);
        let gi = rc.get_index.map(|(rc, x)| (t.rc(rc), x));
        r.names.push(NameObs {
            kind: "category".into(),
            index: i,
            name: name.clone(),
            len_null_buf: Some(nl),
            len_exact: o.name.len,
            get_index: gi,
            truncated: tr,
        });
        raw.push((i, name, o, rc));
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
    let cat_names: Vec<String> = raw.iter().map(|(_, n, _, _)| n.clone()).collect();
    origins.categories = raw.iter().map(|(i, _, _, _)| *i).collect();
    for (i, name, o, rc) in raw {
        // Passed over: the category stays, with no members (its index is in `origins`).
        let read = rc.members.as_ref();
        let mut members = |which: Members| -> Vec<i32> {
            let Some(m) = read else {
                return Vec::new();
            };
            let call = match which {
                Members::Cvars => &m.cvars,
                Members::Pvars => &m.pvars,
                Members::Categories => &m.categories,
                Members::Events => &m.events,
            };
            match call {
                Some((rc, (v, _)))
                    if r.ok(
                        format!("MPI_T_category_get_{which:?}({i})").to_lowercase(),
                        *rc,
                    ) =>
                {
                    v.clone()
                }
                _ => Vec::new(),
            }
        };
        let cv = members(Members::Cvars);
        let pv = members(Members::Pvars);
        let cc = members(Members::Categories);
        let ev = members(Members::Events);
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
