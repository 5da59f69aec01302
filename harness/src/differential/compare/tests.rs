//! The comparator on traces edited by hand: agreement with itself, a divergence of each
//! kind (the string convention, return codes two errors allow either way), the level
//! after a re-initialization, and divergences passed over as known.

use super::*;
use crate::differential::gen::make;
use crate::differential::obs::{self, Out};
use crate::differential::op::{Act, Kind, Mode, Str};
use crate::differential::{props, Mirror};
use mpit_vocab::catalog::Catalog;
use mpit_vocab::spec::{Bind, ThreadLevel};
use std::sync::Arc;

fn start() -> Gen {
    let m = Mirror::of_catalog(Catalog::default_catalog(), "default".into());
    Gen::new(
        Arc::new(m),
        Mode {
            robustness: false,
            lifecycle: false,
        },
    )
}

fn info() -> Vec<Call> {
    vec![make::get_info(Kind::Cvar, 0, Str::sized(4), Str::sized(64))]
}

#[test]
fn the_model_agrees_with_itself() {
    let g = start();
    let m = props::run_model(&g, &info());
    assert_eq!(compare(&g, &info(), &m, &m.clone()), None);
}

#[test]
fn a_trace_that_ends_early_is_never_agreement() {
    let g = start();
    let m = props::run_model(&g, &info());
    let d = compare(&g, &info(), &m, &Trace::default()).expect("a divergence");
    assert!(d.what.contains("no outcome"), "{d:?}");
}

#[test]
fn a_length_off_by_one_on_truncation_breaks_r_str_2() {
    let g = start();
    let m = props::run_model(&g, &info());
    let mut t = m.clone();
    for (k, o) in &mut t.obs[0].outs {
        if let (true, Out::Str(s)) = (k == "name", o) {
            s.len = s.len.map(|l| l - 1);
        }
    }
    let d = compare(&g, &info(), &m, &t).expect("a divergence");
    assert_eq!(
        (d.rule.as_str(), d.level),
        ("R-STR-2", Level::Must),
        "{d:?}"
    );
}

/// MPI-4.1 §15.3.6 (MPI-3.1 §14.3.6): "not allowed to change the index of a control
/// variable or to delete a variable once it has been added", with no exception for a
/// full finalize: after a re-initialization a renamed entry is a MUST divergence, as
/// the string convention is.
#[test]
fn after_a_reinit_the_catalog_and_the_conventions_are_kept() {
    let mut m = Mirror::of_catalog(Catalog::default_catalog(), "vendor".into());
    m.declared = false;
    let g = Gen::new(
        Arc::new(m),
        Mode {
            robustness: false,
            lifecycle: true,
        },
    );
    let ops = vec![
        make::init_thread(ThreadLevel::Single),
        make::finalize(),
        make::init_thread(ThreadLevel::Single),
        info().remove(0),
    ];
    let m = props::run_model(&g, &ops);
    let name = |t: &mut Trace| match t.obs[3].outs.iter_mut().find(|(k, _)| k == "name") {
        Some((_, Out::Str(s))) => s.clone(),
        _ => unreachable!("get_info has a name"),
    };
    let mut t = m.clone();
    let mut s = name(&mut t);
    s.len = s.len.map(|l| l - 1);
    for (k, o) in &mut t.obs[3].outs {
        if k == "name" {
            *o = Out::Str(s.clone());
        }
    }
    let d = compare(&g, &ops, &m, &t).expect("a divergence");
    assert_eq!(
        (d.rule.as_str(), d.level),
        ("R-STR-2", Level::Must),
        "{d:?}"
    );
    // Other characters: the index names another entry now, which no sentence allows.
    let mut t = m.clone();
    let mut s = name(&mut t);
    if let Some(b) = s.buf.as_mut().and_then(|b| b.first_mut()) {
        *b ^= 0x20;
    }
    for (k, o) in &mut t.obs[3].outs {
        if k == "name" {
            *o = Out::Str(s.clone());
        }
    }
    let d = compare(&g, &ops, &m, &t).expect("a divergence");
    assert_eq!(d.level, Level::Must, "{d:?}");
}

/// Outside the interface a call with a session has two errors: NOT_INITIALIZED or
/// the table's session code conforms (specs/return-codes.yaml `either:`), another
/// code or success does not.
#[test]
fn a_stale_session_after_the_last_finalize_may_say_either_error() {
    let g = Gen::new(
        Arc::new(Mirror::of_catalog(Catalog::default_catalog(), "d".into())),
        Mode {
            robustness: true,
            lifecycle: true,
        },
    );
    let ops = vec![
        make::init_thread(ThreadLevel::Single),
        make::session_create(),
        make::finalize(),
        make::session_free(Ref::Made(0)),
    ];
    let m = props::run_model(&g, &ops);
    assert_eq!(m.obs[3].rc, ReturnCode::T(TErr::NotInitialized));
    let t = with_rc(&m, 3, ReturnCode::T(TErr::InvalidSession));
    assert_eq!(compare(&g, &ops, &m, &t), None);
    for wrong in [ReturnCode::T(TErr::InvalidHandle), ReturnCode::Success] {
        let d = compare(&g, &ops, &m, &with_rc(&m, 3, wrong)).expect("a divergence");
        assert_eq!((d.step, d.level), (3, Level::Must), "{d:?}");
    }
}

/// The first pvar without an object to bind that is (or is not) continuous.
/// specs/return-codes.yaml `either: readreset_readonly_non_atomic`: NO_WRITE
/// conforms as NO_ATOMIC does (the probe readreset-readonly-no-write); another
/// code does not (Open MPI's INVALID_HANDLE, F-6).
#[test]
fn readreset_of_a_readonly_non_atomic_pvar_may_say_either_refusal() {
    let g = start();
    let index = g
        .mirror()
        .catalog
        .pvars
        .iter()
        .position(|p| p.readonly && !p.atomic && p.bind == Bind::NoObject)
        .expect("the default catalog has one") as i32;
    let ops = vec![
        make::session_create(),
        make::pvar_handle_alloc(Ref::Made(0), index),
        make::pvar_read(Ref::Made(0), Ref::Made(0), true),
    ];
    let m = props::run_model(&g, &ops);
    assert_eq!(m.obs[2].rc, ReturnCode::T(TErr::PvarNoAtomic));
    let t = with_rc(&m, 2, ReturnCode::T(TErr::PvarNoWrite));
    assert_eq!(compare(&g, &ops, &m, &t), None);
    let t = with_rc(&m, 2, ReturnCode::T(TErr::InvalidHandle));
    let d = compare(&g, &ops, &m, &t).expect("a divergence");
    assert_eq!((d.step, d.level), (2, Level::Must), "{d:?}");
    // The case written for it accepts exactly the policy's two codes.
    let mut g2 = g.clone();
    g2.apply(&ops[0]);
    g2.apply(&ops[1]);
    assert_eq!(
        accepted(&g2, &ops[2], &m.obs[2]),
        [
            ReturnCode::T(TErr::PvarNoWrite),
            ReturnCode::T(TErr::PvarNoAtomic)
        ]
    );
}

fn pvar(g: &Gen, continuous: bool) -> i32 {
    g.mirror()
        .catalog
        .pvars
        .iter()
        .position(|p| p.continuous == continuous && p.bind == Bind::NoObject)
        .expect("the default catalog has one") as i32
}

fn with_rc(m: &Trace, step: usize, rc: ReturnCode) -> Trace {
    let mut t = m.clone();
    t.obs[step].rc = rc;
    t
}

#[test]
fn another_sessions_handle_on_a_continuous_pvar_may_say_either_error() {
    let g = start();
    let ops = vec![
        make::session_create(),
        make::session_create(),
        make::pvar_handle_alloc(Ref::Made(0), pvar(&g, true)),
        make::pvar_act(Act::Start, Ref::Made(1), Ref::Made(0)),
    ];
    let m = props::run_model(&g, &ops);
    assert_eq!(m.obs[3].rc, ReturnCode::T(TErr::InvalidHandle));
    let t = with_rc(&m, 3, ReturnCode::T(TErr::PvarNoStartstop));
    assert_eq!(compare(&g, &ops, &m, &t), None);
    // Accepting the handle is F-7, whatever the variable.
    let d = compare(&g, &ops, &m, &with_rc(&m, 3, ReturnCode::Success)).expect("R-PH-1");
    assert_eq!((d.rule.as_str(), d.level), ("R-PH-1", Level::Must), "{d:?}");
}

#[test]
fn a_second_start_of_a_started_handle_may_answer_any_mpi_t_code() {
    let g = start();
    let start = |act| make::pvar_act(act, Ref::Made(0), Ref::Made(0));
    let ops = vec![
        make::session_create(),
        make::pvar_handle_alloc(Ref::Made(0), pvar(&g, false)),
        start(Act::Start),
        start(Act::Start),
        make::get_num(Kind::Cvar),
    ];
    let m = props::run_model(&g, &ops);
    // The text is silent on a second start of the handle itself: any MPI_T code.
    let t = with_rc(&m, 3, ReturnCode::T(TErr::PvarNoStartstop));
    assert_eq!(compare(&g, &ops, &m, &t), None);
    // Not an MPI error class: R-RC-3 holds for every call with valid arguments.
    let t = with_rc(&m, 3, ReturnCode::MpiErr("MPI_ERR_ARG".into()));
    let d = compare(&g, &ops, &m, &t).expect("a divergence");
    assert_eq!(
        (d.step, d.rule.as_str(), d.level),
        (3, "R-RC-3", Level::Must)
    );
    // Passed over as known, it is recorded for the case written for a later one.
    let mut t = t;
    t.obs[4].rc = ReturnCode::T(TErr::NotInitialized);
    let known = Known::parse(&["R-RC-3".into()]).expect("a rule id");
    let d = compare_known(&g, &ops, &m, &t, &known).expect("the later divergence");
    assert_eq!(d.step, 4, "{d:?}");
    assert_eq!(
        d.passed_over,
        vec![(
            3,
            "R-RC-3".to_string(),
            ReturnCode::MpiErr("MPI_ERR_ARG".into())
        )]
    );
}

#[test]
fn avoided_entries_get_no_handle() {
    let mut m = Mirror::of_catalog(Catalog::default_catalog(), "default".into());
    let first = m
        .catalog
        .pvars
        .iter()
        .position(|p| p.bind == Bind::NoObject)
        .expect("an unbound pvar");
    let name = m.catalog.pvars[first].name.clone();
    assert_eq!(m.avoid_handles(&format!("pvar:{name}")), Ok(1));
    for bad in ["pvar", "category:*", "pvar:no_such_pvar_*", "pvar:["] {
        assert!(m.avoid_handles(bad).is_err(), "{bad}");
    }
    let mut g = Gen::new(
        Arc::new(m),
        Mode {
            robustness: false,
            lifecycle: false,
        },
    );
    g.apply(&make::session_create());
    let alloc = |index| make::pvar_handle_alloc(Ref::Made(0), index);
    assert!(!g.valid(&alloc(first as i32)));
    let other = (first as i32 + 1..g.mirror().count(Kind::Pvar))
        .find(|i| g.mirror().catalog.pvars[*i as usize].bind == Bind::NoObject)
        .expect("another unbound pvar");
    assert!(g.valid(&alloc(other)));
}

#[test]
fn an_out_named_on_one_side_only_is_a_vocabulary_divergence_not_a_pass() {
    let g = start();
    let m = props::run_model(&g, &info());
    // The target engine names an OUT differently: a divergence naming both spellings.
    let mut renamed = m.clone();
    renamed.obs[0].outs.retain(|(k, _)| k != "verbosity");
    renamed.obs[0] = renamed.obs[0]
        .clone()
        .with("verbosity_level", Out::Name("USER_BASIC".into()));
    let d = compare(&g, &info(), &m, &renamed).expect("a divergence");
    assert!(d.what.contains("vocabulary"), "{d:?}");
    assert!(
        d.what.contains("verbosity_level") && d.what.contains("\"verbosity\""),
        "{d:?}"
    );
    // An OUT the target engine does not record at all.
    let mut missing = m.clone();
    missing.obs[0].outs.retain(|(k, _)| k != "scope");
    let d = compare(&g, &info(), &m, &missing).expect("a divergence");
    assert!(
        d.what.contains("vocabulary") && d.what.contains("scope"),
        "{d:?}"
    );
}

/// R-GEN-3: a death after a call whose arguments the standard leaves undefined (a
/// MPI_T_finalize beyond the initializations, SHOULD) is judged at that call's level,
/// as the suite's runner judges a crash after an `erroneous` step (MPICH 5.0.2 aborts
/// in the MPI_T_pvar_get_num after it); the same death after valid calls is a MUST.
#[test]
fn a_death_after_an_undefined_call_is_judged_at_that_calls_level() {
    let g = Gen::new(
        start().mirror().clone(),
        Mode {
            robustness: false,
            lifecycle: true,
        },
    );
    let died = |ops: &[Call]| {
        let m = props::run_model(&g, ops);
        let mut t = m.clone();
        let last = ops.len() - 1;
        t.obs.truncate(last);
        t.died = Some((last, obs::Died::Crash("exit(1) inside the library".into())));
        compare(&g, ops, &m, &t).expect("a divergence")
    };
    let init = make::init_thread(ThreadLevel::Multiple);
    let extra = [init.clone(), make::finalize(), make::finalize()];
    let d = died(&[extra.as_slice(), &[make::get_num(Kind::Pvar)]].concat());
    assert_eq!(
        (d.rule.as_str(), d.level),
        ("R-GEN-1", Level::Should),
        "{d:?}"
    );
    assert!(d.what.contains("after call 3 (MPI_T_finalize)"), "{d:?}");
    let valid = [init, make::finalize(), make::get_num(Kind::Pvar)];
    let d = died(&valid);
    assert_eq!(
        (d.rule.as_str(), d.level),
        ("R-GEN-1", Level::Must),
        "{d:?}"
    );
    assert!(!d.what.contains("R-GEN-3"), "{d:?}");
}

/// A description read from the library with a byte that is not UTF-8 (Intel MPI 2021.19:
/// the Latin-1 ® of `I_MPI_COMPATIBILITY`'s) reaches the mirror as U+FFFD, three bytes
/// for one: the model's bytes and length are then not the library's, and the
/// comparator leaves that string to the suite. An exact one is still judged.
#[test]
fn a_string_the_mirror_holds_inexactly_is_not_judged_by_its_bytes() {
    // cvar 0's description as the mirror holds it, and the bytes the library returns.
    let judged = |mirrored: &str, lib: &[u8]| {
        let mut c = Catalog::default_catalog();
        c.cvars[0].desc = Some(mirrored.to_string());
        let g = Gen::new(
            Arc::new(Mirror::of_catalog(c, "vendor".into())),
            Mode {
                robustness: false,
                lifecycle: false,
            },
        );
        let m = props::run_model(&g, &info());
        let mut t = m.clone();
        for (k, o) in &mut t.obs[0].outs {
            if let (true, Out::Str(s)) = (k == "desc", o) {
                let mut buf = vec![0u8; 64];
                buf[..lib.len()].copy_from_slice(lib);
                s.buf = Some(buf);
                s.len = Some(lib.len() as i32 + 1);
            }
        }
        compare(&g, &info(), &m, &t)
    };
    assert_eq!(
        judged(
            "The Intel\u{FFFD} MPI Library",
            b"The Intel\xAE MPI Library"
        ),
        None
    );
    // Exact on the model's side, other bytes on the library's: judged (R-STR-1/2).
    let d = judged("The Intel(R) MPI Library", b"The Intel\xAE MPI Library");
    assert!(d.is_some_and(|d| d.rule.starts_with("R-STR")));
}
