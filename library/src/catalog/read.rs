//! The one read of a whole catalog, entry by entry through the guard so that one entry
//! that kills or stalls the reader costs that entry only (`target::reading`): the counts,
//! each kind's `*_get_info` over the same table ([`Info`]) with the categories' members,
//! the enumerations the entries name with their items, the second pass over the
//! variables (`*_get_index`, a cvar's value), `MPI_T_category_changed`. It makes the
//! calls the asked [`Views`] take, and decodes nothing but what decides whether a call
//! is made at all; the views (`decode`, and the harness's inventory) do the rest.

use super::raw::{
    cap, ok, CvarSecond, EnumCall, EnumRead, Info, InfoRead, RawCatalog, RawCategory, RawCounts,
    RawCvar, RawEnum, RawEvent, RawMembers, RawPvar, Views, SLACK,
};
use crate::ffi::{
    Members, RawCategoryInfo, RawCvarInfo, RawEventInfo, RawHandle, RawPvarInfo, StrArg, StrOut,
};
use crate::reading::Guard;
use crate::Target;
use mpit_vocab::spec::Bind;

/// Items read of one enumeration at the most.
const MAX_ITEMS: i32 = 10_000;
/// Members asked of one category call at the most.
const MAX_MEMBERS: i32 = 1 << 20;

fn text(o: &StrOut) -> String {
    o.text().unwrap_or_default()
}

/// Reads the whole catalog of an initialized target (MPI_T_init_thread already called)
/// for `views`, entry by entry through `g` (which may pass entries over).
pub fn read_raw(t: &Target, g: &mut Guard, views: Views) -> RawCatalog {
    let mut count = |name: &str, f: &dyn Fn() -> Option<(i32, i32)>| {
        g.enter(name.to_string()).then(f).flatten()
    };
    let counts = RawCounts {
        cvars: count("MPI_T_cvar_get_num", &|| t.lib.cvar_get_num()),
        pvars: count("MPI_T_pvar_get_num", &|| t.lib.pvar_get_num()),
        categories: count("MPI_T_category_get_num", &|| t.lib.category_get_num()),
        events: count("MPI_T_event_get_num", &|| t.lib.event_get_num()),
        sources: count("MPI_T_source_get_num", &|| t.lib.source_get_num()),
    };
    // The loops run to the count as written: the decoded catalog's reader ignored the
    // code of `*_get_num`; the inventory drops what lies past a failed count.
    let n = |c: &Option<(i32, i32)>| c.map_or(0, |(_, n)| n);
    let mut enums = Enums::new(t, views);
    let d = views.decoded;

    let cvars: Vec<InfoRead<RawCvarInfo>> = infos(t, g, n(&counts.cvars), &mut enums);
    let pvars: Vec<InfoRead<RawPvarInfo>> = infos(t, g, n(&counts.pvars), &mut enums);
    let categories: Vec<InfoRead<RawCategoryInfo>> = infos(t, g, n(&counts.categories), &mut enums);
    let categories = categories
        .into_iter()
        .map(|info| RawCategory {
            get_index: get_index(t, d, &info, |s| t.lib.category_get_index(s)),
            members: members(t, g, views, &info),
            info,
        })
        .collect();
    let events: Vec<InfoRead<RawEventInfo>> = infos(t, g, n(&counts.events), &mut enums);
    let events = events
        .into_iter()
        .map(|info| RawEvent {
            get_index: get_index(t, d, &info, |s| t.lib.event_get_index(s)),
            info,
        })
        .collect();
    let sources = infos(t, g, n(&counts.sources), &mut enums);
    let enums = enums.read(g);

    let cvars = cvars
        .into_iter()
        .map(|info| RawCvar {
            second: cvar_second(t, g, d, &info),
            info,
        })
        .collect();
    let pvars = pvars
        .into_iter()
        .map(|info| {
            // The second pass over a variable (get_index) is a spot of its own.
            let o = info.exact_ok(t).filter(|_| d).cloned();
            let second = o.is_some() && g.enter(format!("MPI_T_pvar_get_index({})", info.index));
            let class =
                o.filter(|o| second && t.profile.pvar_class.lookup(o.var_class as i64).is_some());
            RawPvar {
                get_index: class.and_then(|o| t.lib.pvar_get_index(&text(&o.name), o.var_class)),
                second,
                info,
            }
        })
        .collect();
    let mut raw = RawCatalog {
        counts,
        cvars,
        pvars,
        categories,
        events,
        sources,
        enums,
        ..RawCatalog::default()
    };
    if d {
        raw.category_changed = g
            .enter("MPI_T_category_changed".into())
            .then(|| t.lib.category_changed())
            .flatten();
    }
    g.leave();
    if d {
        raw.library_version = t.lib.get_library_version();
        raw.mpi_version = t.lib.get_version();
    }
    raw.passed = std::mem::take(&mut g.passed);
    raw
}

/// Each entry of one kind through the string convention, the enumerations it names noted.
fn infos<T: Info>(t: &Target, g: &mut Guard, n: i32, enums: &mut Enums) -> Vec<InfoRead<T>> {
    let views = enums.views;
    let mut out = Vec::new();
    for i in 0..n {
        if !g.enter(format!("MPI_T_{}_get_info({i})", T::KIND)) {
            continue;
        }
        let r = info::<T>(t, views, i);
        enums.note(r.exact_ok(t).and_then(Info::enumtype));
        enums.note(r.slack_ok().and_then(Info::enumtype));
        out.push(r);
    }
    out
}

/// One entry: NULL buffers to learn the lengths, then exact-size buffers and the name one
/// byte short (R-STR-2) for the decoded view, buffers with slack for the inventory.
fn info<T: Info>(t: &Target, views: Views, i: i32) -> InfoRead<T> {
    let lens = T::get_info(t, i, StrArg::LEN_ONLY, StrArg::LEN_ONLY);
    let (mut exact, mut short, mut slack) = (None, None, None);
    if let Some((rc, first)) = &lens {
        let (n, d) = (first.name().len, first.desc().len);
        if views.decoded && ok(t, *rc) {
            exact = T::get_info(t, i, StrArg::sized(cap(n)), StrArg::sized(cap(d)));
            if matches!(&exact, Some((rc, _)) if ok(t, *rc)) {
                if let Some(n) = n.filter(|n| *n >= 2) {
                    short = T::get_info(t, i, StrArg::sized(n as usize - 1), StrArg::LEN_ONLY);
                }
            }
        }
        if views.inventory && *rc == 0 {
            let (n, d) = (cap(n) + SLACK, cap(d) + SLACK);
            slack = T::get_info(t, i, StrArg::sized(n), StrArg::sized(d));
        }
    }
    InfoRead {
        index: i,
        lens,
        exact,
        short,
        slack,
    }
}

/// `*_get_index` of the name the exact read gave (for the decoded view).
fn get_index<T: Info>(
    t: &Target,
    decoded: bool,
    info: &InfoRead<T>,
    f: impl Fn(&str) -> Option<(i32, i32)>,
) -> Option<(i32, i32)> {
    let o = info.exact_ok(t).filter(|_| decoded)?;
    f(&text(o.name()))
}

/// The second pass over a control variable: `MPI_T_cvar_get_index`, and the value of one
/// the profile decodes whole and that is bound to no object.
fn cvar_second(
    t: &Target,
    g: &mut Guard,
    decoded: bool,
    info: &InfoRead<RawCvarInfo>,
) -> Option<CvarSecond> {
    let o = info.exact_ok(t).filter(|_| decoded)?;
    if !g.enter(format!("MPI_T_cvar_get_index({})", info.index)) {
        return None;
    }
    let p = &t.profile;
    let get_index = t.lib.cvar_get_index(&text(&o.name));
    let dt = t.datatype(o.datatype);
    let whole = p.verbosity.lookup(o.verbosity as i64).is_some()
        && p.scope.lookup(o.scope as i64).is_some();
    let value = match (dt, p.bind.lookup(o.bind as i64)) {
        (Some(dt), Some(Bind::NoObject)) if whole => t.lib.cvar_read_unbound(info.index, dt.size()),
        _ => None,
    };
    Some(CvarSecond { get_index, value })
}

/// The members of a category a view read, each into an array guarded past its count
/// (R-CAT-1). For the decoded view under a spot of their own
/// (`MPI_T_category_get_cvars(i)`: a category whose members kill the reader keeps its
/// name); for the inventory alone under the category's.
fn members(
    t: &Target,
    g: &mut Guard,
    views: Views,
    info: &InfoRead<RawCategoryInfo>,
) -> Option<RawMembers> {
    let exact = info.exact_ok(t).filter(|_| views.decoded);
    let o = info.slack_ok().filter(|_| views.inventory).or(exact)?;
    let i = info.index;
    if exact.is_some() && !g.enter(format!("MPI_T_category_get_cvars({i})")) {
        return None;
    }
    let num_events = t.lib.category_get_num_events(i);
    let events = num_events.map_or(0, |(rc, n)| if rc == 0 { n } else { 0 });
    let get = |which: Members, n: i32| {
        t.lib
            .category_members_guarded(which, i, n.clamp(0, MAX_MEMBERS) as usize, -1)
    };
    Some(RawMembers {
        cvars: get(Members::Cvars, o.num_cvars),
        pvars: get(Members::Pvars, o.num_pvars),
        categories: get(Members::Categories, o.num_categories),
        events: get(Members::Events, events),
        num_events,
    })
}

/// The enumerations the entries name, in the order they are first named.
struct Enums<'a> {
    t: &'a Target,
    views: Views,
    enum_null: RawHandle,
    seen: Vec<RawHandle>,
}

impl<'a> Enums<'a> {
    fn new(t: &'a Target, views: Views) -> Enums<'a> {
        Enums {
            t,
            views,
            enum_null: t.predefined.enum_null as RawHandle,
            seen: Vec::new(),
        }
    }

    /// A handle null to both views is no enumeration: the decoded catalog takes 0 for
    /// none, the inventory the profile's MPI_T_ENUM_NULL; each drops its own.
    fn note(&mut self, h: Option<RawHandle>) {
        let Some(h) = h else { return };
        if (h != 0 || h != self.enum_null) && !self.seen.contains(&h) {
            self.seen.push(h);
        }
    }

    /// Each enumeration, numbered in the order the entries named it (handles differ from
    /// one process to the next), then its items.
    fn read(self, g: &mut Guard) -> Vec<RawEnum> {
        let (t, views) = (self.t, self.views);
        let mut out = Vec::new();
        for (k, h) in self.seen.into_iter().enumerate() {
            let info = g
                .enter(format!("MPI_T_enum_get_info(enum #{k})"))
                .then(|| enum_read(t, views, |a| t.lib.enum_get_info(h, a)));
            // Items up to the larger of the two views' counts: each view reads its own.
            let num = |c: &EnumCall, good: bool| match c {
                Some((_, (n, _))) if good => *n,
                _ => 0,
            };
            let n = info.as_ref().map_or(0, |e| {
                let exact = matches!((&e.lens, &e.exact), (Some((a, _)), Some((b, _))) if ok(t, *a) && ok(t, *b));
                let slack = matches!((&e.lens, &e.slack), (Some((0, _)), Some((0, _))));
                num(&e.lens, exact).max(num(&e.slack, slack))
            });
            let items = (0..n.clamp(0, MAX_ITEMS))
                .map(|j| {
                    g.enter(format!("MPI_T_enum_get_item(enum #{k}, {j})"))
                        .then(|| enum_read(t, views, |a| t.lib.enum_get_item(h, j, a)))
                })
                .collect();
            out.push(RawEnum {
                handle: h,
                info,
                items,
            });
        }
        out
    }
}

/// An enumeration or item call: the length, then an exact buffer (decoded view) or one
/// with slack (inventory).
fn enum_read(t: &Target, views: Views, f: impl Fn(StrArg) -> EnumCall) -> EnumRead {
    let lens = f(StrArg::LEN_ONLY);
    let (mut exact, mut slack) = (None, None);
    if let Some((rc, (_, first))) = &lens {
        if views.decoded && ok(t, *rc) {
            exact = f(StrArg::sized(cap(first.len)));
        }
        if views.inventory && *rc == 0 {
            slack = f(StrArg::sized(cap(first.len) + SLACK));
        }
    }
    EnumRead { lens, exact, slack }
}
