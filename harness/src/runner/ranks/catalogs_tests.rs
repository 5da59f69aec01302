//! Unit tests of the comparator: a differing attribute fails naming it; other indices
//! and names on some ranks only pass.

use super::*;
use mpit_vocab::catalog::{Appears, Cvar, Enum, EnumItem, Pvar};
use mpit_vocab::spec::{Bind, Datatype, PvarClass, Scope, Verbosity};

fn cvar(name: &str, scope: Scope) -> Cvar {
    Cvar {
        name: name.into(),
        desc: Some(format!("about {name}")),
        verbosity: Verbosity::UserBasic,
        datatype: Datatype::Int,
        enumtype: None,
        bind: Bind::NoObject,
        scope,
        count: 1,
        value: None,
        not_now_until_init: false,
        appears: Appears::Always,
        deviations: Vec::new(),
    }
}

fn pvar(name: &str, class: PvarClass, readonly: bool) -> Pvar {
    Pvar {
        name: name.into(),
        desc: None,
        verbosity: Verbosity::UserBasic,
        class,
        datatype: Datatype::UnsignedLongLong,
        enumtype: None,
        bind: Bind::NoObject,
        readonly,
        continuous: true,
        atomic: false,
        count: 1,
        value: None,
        appears: Appears::Always,
        deviations: Vec::new(),
    }
}

fn catalog(cvars: Vec<Cvar>) -> Catalog {
    Catalog {
        cvars,
        ..Catalog::default()
    }
}

fn result<'a>(rs: &'a [CaseResult], id: &str) -> &'a CaseResult {
    rs.iter().find(|r| r.case == id).expect(id)
}

#[test]
fn one_differing_cvar_attribute_fails_naming_it() {
    let a = catalog(vec![cvar("x", Scope::All), cvar("y", Scope::Local)]);
    let b = catalog(vec![cvar("x", Scope::Local), cvar("y", Scope::Local)]);
    let rs = judge(&[(0, &a), (1, &b)]);
    let r = result(&rs, "ranks.cvars.identical");
    assert_eq!(r.status, Status::Fail, "{}", r.message);
    assert!(r.message.contains("x scope"), "{}", r.message);
    assert!(r.message.contains("R-CVAR-4"), "{}", r.message);
    assert_eq!(r.evidence.len(), 1);
    let e = &r.evidence[0];
    assert_eq!(e.call, "MPI_T_cvar_get_info");
    assert_eq!(e.args.value()["name"], "x");
    assert_eq!(e.args.value()["rank"], 1);
    assert_eq!(
        e.out.value()["scope"],
        Value::String(Scope::Local.to_string())
    );
    let want = e.expected.as_deref().unwrap_or("");
    assert!(want.contains(&Scope::All.to_string()), "{want}");
    assert!(want.contains("rank 0"), "{want}");
}

#[test]
fn a_differing_description_fails_too() {
    let a = catalog(vec![cvar("x", Scope::All)]);
    let mut other = cvar("x", Scope::All);
    other.desc = Some("something else".into());
    let b = catalog(vec![other]);
    let rs = judge(&[(0, &a), (1, &b)]);
    let r = result(&rs, "ranks.cvars.identical");
    assert_eq!(r.status, Status::Fail);
    assert!(r.message.contains("x description"), "{}", r.message);
}

#[test]
fn entries_at_other_indices_pass() {
    let a = catalog(vec![cvar("x", Scope::All), cvar("y", Scope::Local)]);
    let b = catalog(vec![cvar("y", Scope::Local), cvar("x", Scope::All)]);
    let rs = judge(&[(0, &a), (1, &b), (2, &a)]);
    let r = result(&rs, "ranks.cvars.identical");
    assert_eq!(r.status, Status::Pass, "{}", r.message);
    assert!(r.message.contains("2 cvars compared"), "{}", r.message);
    assert!(r.evidence.is_empty());
}

#[test]
fn a_name_on_one_rank_only_passes_and_is_noted() {
    let a = catalog(vec![cvar("x", Scope::All), cvar("only_here", Scope::Local)]);
    let b = catalog(vec![cvar("x", Scope::All)]);
    let rs = judge(&[(0, &a), (1, &b)]);
    let r = result(&rs, "ranks.cvars.identical");
    assert_eq!(r.status, Status::Pass, "{}", r.message);
    assert!(
        r.message.contains("1 cvar only on some ranks"),
        "{}",
        r.message
    );
    assert_eq!(r.evidence.len(), 1);
    assert_eq!(r.evidence[0].out.value()["names"][0], "only_here: rank 0");
    assert!(r.evidence[0].expected.is_none());
}

#[test]
fn pvars_are_matched_by_name_and_class() {
    let a = Catalog {
        pvars: vec![
            pvar("p", PvarClass::Counter, true),
            pvar("p", PvarClass::Level, false),
        ],
        ..Catalog::default()
    };
    let b = Catalog {
        pvars: vec![
            pvar("p", PvarClass::Level, false),
            pvar("p", PvarClass::Counter, false),
        ],
        ..Catalog::default()
    };
    let rs = judge(&[(0, &a), (1, &b)]);
    let r = result(&rs, "ranks.pvars.identical");
    assert_eq!(r.status, Status::Fail, "{}", r.message);
    assert_eq!(r.evidence.len(), 1, "only the counter differs");
    assert_eq!(
        r.evidence[0].args.value()["class"],
        Value::String(PvarClass::Counter.to_string())
    );
    assert_eq!(r.evidence[0].out.value()["readonly"], false);
}

#[test]
fn events_may_differ_in_displacements_only() {
    use mpit_vocab::catalog::{Event, EventElement};
    let event = |disp: i64, dt: Datatype| Event {
        name: "ev".into(),
        desc: None,
        verbosity: Verbosity::UserBasic,
        bind: Bind::NoObject,
        enumtype: None,
        elements: vec![
            EventElement {
                datatype: Datatype::Int,
                displacement: Some(0),
            },
            EventElement {
                datatype: dt,
                displacement: Some(disp),
            },
        ],
        source: "s".into(),
        info: BTreeMap::new(),
        appears: Appears::Always,
    };
    let (mut a, mut b, mut c) = (Catalog::default(), Catalog::default(), Catalog::default());
    a.events = vec![event(4, Datatype::Int)];
    b.events = vec![event(8, Datatype::Int)];
    c.events = vec![event(8, Datatype::Double)];
    let rs = judge(&[(0, &a), (1, &b)]);
    assert_eq!(result(&rs, "ranks.events.identical").status, Status::Pass);
    let rs = judge(&[(0, &a), (1, &b), (2, &c)]);
    let r = result(&rs, "ranks.events.identical");
    assert_eq!(r.status, Status::Fail, "{}", r.message);
    assert!(r.message.contains("ev array_of_datatypes"), "{}", r.message);
    assert_eq!(r.evidence[0].args.value()["rank"], 2);
}

#[test]
fn nothing_to_compare_is_a_skip_and_enum_items_may_differ() {
    let mut a = Catalog::default();
    let mut b = Catalog::default();
    let item = |name: &str, value| EnumItem {
        value,
        name: name.into(),
    };
    a.enums = vec![Enum {
        name: "e".into(),
        items: vec![item("on", 1), item("off", 0)],
    }];
    b.enums = vec![Enum {
        name: "e".into(),
        items: vec![item("on", 2), item("auto", 3)],
    }];
    let rs = judge(&[(0, &a), (1, &b)]);
    assert_eq!(result(&rs, "ranks.events.identical").status, Status::Skip);
    let r = result(&rs, "ranks.enums.identical");
    assert_eq!(r.status, Status::Pass, "{}", r.message);
    assert!(r.message.contains("1 same-named items"), "{}", r.message);
    assert_eq!(
        r.evidence[0].out.value()["items_with_other_values"][0],
        "e.on: 1 on rank 0, 2 on rank 1"
    );
}
