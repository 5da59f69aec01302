//! The pvar model's unit tests: here the helpers and the variables' information
//! (R-PVAR-1, R-PVAR-4, R-PCLASS datatypes, R-INIT-1); beside it `sessions` (R-SESS-1,
//! R-PH-1), `classes` (what each class reads as the world moves, R-PCLASS, R-PSTART-1),
//! `access` (ALL_HANDLES, write, readreset), `faults` (each injectable fault of the pvar
//! routines) and `props` (the class invariants over random call sequences).

mod access;
mod classes;
mod faults;
mod props;
mod sessions;

use crate::faults::Faults;
use crate::model::{BoundObject, Model, PvarHandle, PvarTarget, Session};
use mpit_vocab::catalog::Catalog;
use mpit_vocab::spec::{Datatype, PvarClass, TErr, ThreadLevel};

use PvarTarget::{All, One};

fn model(f: Faults) -> Model {
    let mut m = Model::new(Catalog::default_catalog(), f);
    m.init_thread(ThreadLevel::Single).unwrap();
    m
}

fn idx(m: &Model, name: &str, class: PvarClass) -> i32 {
    m.pvar_get_index(name, class).unwrap()
}

fn alloc(m: &mut Model, s: Session, name: &str, class: PvarClass) -> PvarHandle {
    let i = idx(m, name, class);
    m.pvar_handle_alloc(s, i, BoundObject::None).unwrap().0
}

/// After MPI_Init, a session with a handle on every pvar (bound to MPI_COMM_WORLD), in
/// index order.
fn every_pvar_bound() -> (Model, Session, Vec<PvarHandle>) {
    let mut m = model(Faults::none());
    m.mpi_init().unwrap();
    let s = m.pvar_session_create().unwrap();
    let n = m.pvar_get_num().unwrap();
    let hs = (0..n)
        .map(|i| m.pvar_handle_alloc(s, i, BoundObject::CommWorld).unwrap().0)
        .collect();
    (m, s, hs)
}

/// Element `e` of a handle's value as f64.
fn num(m: &Model, s: Session, h: PvarHandle, e: usize) -> f64 {
    m.pvar_read_value(s, One(h)).unwrap().elem_f64(e).unwrap()
}

/// R-PCLASS / R-ENUM-1: every class uses an allowed datatype; only MPI_INT has an enum.
#[test]
fn r_pclass_every_datatype_allowed() {
    let mut m = model(Faults::none());
    m.mpi_init().unwrap();
    let n = m.pvar_get_num().unwrap();
    assert!(n > 0);
    let mut classes = std::collections::BTreeSet::new();
    for i in 0..n {
        let info = m.pvar_get_info(i).unwrap();
        assert!(
            info.var_class.allowed_datatypes().contains(&info.datatype),
            "{} {} {}",
            info.name,
            info.var_class,
            info.datatype
        );
        if info.datatype != Datatype::Int {
            assert_eq!(info.enumtype.0, 0, "{}", info.name);
        }
        classes.insert(info.var_class);
    }
    assert_eq!(
        classes.len(),
        PvarClass::ALL.len(),
        "the default catalog covers every class"
    );
}

/// R-PVAR-1: get_info identical on every call and across MPI_Init; the index space
/// only grows; bad indices are INVALID_INDEX.
#[test]
fn r_pvar_1_get_info_stable() {
    let mut m = model(Faults::none());
    let n = m.pvar_get_num().unwrap();
    let before: Vec<_> = (0..n).map(|i| m.pvar_get_info(i).unwrap()).collect();
    for (i, a) in before.iter().enumerate() {
        assert_eq!(&m.pvar_get_info(i as i32).unwrap(), a);
    }
    assert_eq!(m.pvar_get_info(n), Err(TErr::InvalidIndex));
    assert_eq!(m.pvar_get_info(-1), Err(TErr::InvalidIndex));
    m.simulate(7);
    m.mpi_init().unwrap();
    assert_eq!(m.pvar_get_num().unwrap(), n + 1);
    for (i, a) in before.iter().enumerate() {
        assert_eq!(&m.pvar_get_info(i as i32).unwrap(), a);
    }
    assert_eq!(m.pvar_get_info(n).unwrap().name, "ref_pvar_after_init");
}

/// R-PVAR-4 / R-PVAR-2: (name, class) identifies a pvar; the two `ref_pvar_counter`
/// pvars have different indices; a wrong class is INVALID_NAME.
#[test]
fn r_pvar_4_index_round_trip_by_name_and_class() {
    let mut m = model(Faults::none());
    assert_eq!(
        m.pvar_get_index("ref_pvar_after_init", PvarClass::Counter),
        Err(TErr::InvalidName)
    );
    m.mpi_init().unwrap();
    for i in 0..m.pvar_get_num().unwrap() {
        let info = m.pvar_get_info(i).unwrap();
        assert_eq!(
            m.pvar_get_index(&info.name, info.var_class),
            Ok(i),
            "{}",
            info.name
        );
    }
    let c = idx(&m, "ref_pvar_counter", PvarClass::Counter);
    let a = idx(&m, "ref_pvar_counter", PvarClass::Aggregate);
    assert_ne!(c, a);
    assert_eq!(m.pvar_get_info(c).unwrap().var_class, PvarClass::Counter);
    assert_eq!(m.pvar_get_info(a).unwrap().var_class, PvarClass::Aggregate);
    assert_eq!(
        m.pvar_get_index("ref_pvar_counter", PvarClass::Timer),
        Err(TErr::InvalidName)
    );
    assert_eq!(
        m.pvar_get_index("ref_pvar_level", PvarClass::Counter),
        Err(TErr::InvalidName)
    );
    assert_eq!(
        m.pvar_get_index("no_such_pvar", PvarClass::Counter),
        Err(TErr::InvalidName)
    );
}

/// R-INIT-1: every pvar routine is NOT_INITIALIZED before MPI_T_init_thread, and
/// Sessions and handles do not survive full finalization in the reference (the text
/// says nothing of them across it; a call with one is an invalid argument, R-GEN-3).
#[test]
fn r_init_1_not_initialized_and_finalize_drops_sessions() {
    let mut m = Model::new(Catalog::default_catalog(), Faults::none());
    let (s, h) = (Session(0x1_0000), PvarHandle(0x1_0010));
    assert_eq!(m.pvar_get_num(), Err(TErr::NotInitialized));
    assert_eq!(m.pvar_get_info(0), Err(TErr::NotInitialized));
    assert_eq!(
        m.pvar_get_index("ref_pvar_level", PvarClass::Level),
        Err(TErr::NotInitialized)
    );
    assert_eq!(m.pvar_session_create(), Err(TErr::NotInitialized));
    assert_eq!(m.pvar_session_free(s), Err(TErr::NotInitialized));
    assert_eq!(
        m.pvar_handle_alloc(s, 0, BoundObject::None),
        Err(TErr::NotInitialized)
    );
    assert_eq!(m.pvar_start(s, All), Err(TErr::NotInitialized));
    assert_eq!(m.pvar_read(s, One(h)), Err(TErr::NotInitialized));
    m.init_thread(ThreadLevel::Single).unwrap();
    let s = m.pvar_session_create().unwrap();
    let h = alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
    m.finalize().unwrap();
    m.init_thread(ThreadLevel::Single).unwrap();
    assert_eq!(m.pvar_read(s, One(h)), Err(TErr::InvalidSession));
    assert_eq!(m.pvar_session_free(s), Err(TErr::InvalidSession));
}
