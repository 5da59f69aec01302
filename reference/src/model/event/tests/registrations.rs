//! R-EVT-FREE, R-BIND-2, R-INIT-1: freeing a registration (also from inside its
//! callback), allocation's checks, and what MPI_T initialization and finalize do to them.

use super::{idx, instance_of, model, raise, reg, DROPPED_CB, SEND};
use crate::faults::Faults;
use crate::model::{BoundObject, Delivery, Instance, Model, Registration};
use mpit_vocab::catalog::Catalog;
use mpit_vocab::spec::{Bind, CbSafety, TErr, ThreadLevel};

/// R-EVT-FREE: free → INVALID_HANDLE the second time; the free callback is delivered
/// once; no events afterwards; a NULL free callback is allowed.
#[test]
fn handle_free_once() {
    let mut m = model(Faults::none());
    let r = reg(&mut m, SEND, CbSafety::None, 0x10);
    m.event_set_dropped_handler(r, Some(DROPPED_CB)).unwrap();
    let d = m.event_handle_free(r, 0x77, Some(0xF0)).unwrap();
    assert_eq!(
        d,
        [Delivery::Free {
            cb: 0xF0,
            registration: r,
            safety: CbSafety::None,
            user_data: 0x77
        }]
    );
    assert_eq!(
        m.event_handle_free(r, 0x77, Some(0xF0)),
        Err(TErr::InvalidHandle)
    );
    assert!(raise(&mut m, SEND, CbSafety::None).is_empty());
    assert_eq!(
        m.event_register_callback(r, CbSafety::None, None, 0, Some(1)),
        Err(TErr::InvalidHandle)
    );
    assert_eq!(
        m.event_set_dropped_handler(r, None),
        Err(TErr::InvalidHandle)
    );
    assert_eq!(m.event_handle_get_info(r), Err(TErr::InvalidHandle));
    assert_eq!(
        m.event_callback_get_info(r, CbSafety::None),
        Err(TErr::InvalidHandle)
    );
    assert_eq!(
        m.event_handle_free(Registration(0), 0, None),
        Err(TErr::InvalidHandle)
    );
    let r2 = reg(&mut m, SEND, CbSafety::None, 0x10);
    assert_eq!(m.event_handle_free(r2, 0, None), Ok(vec![]));
}

/// R-EVT-FREE, R-EVT-INST: a registration freed from inside its callback: the
/// instance being delivered stays readable, the free callback gets that context's
/// level.
#[test]
fn handle_free_from_inside_a_callback() {
    let mut m = model(Faults::none());
    let r = reg(&mut m, SEND, CbSafety::ThreadSafe, 0x10);
    let d = m.raise_event(idx(&m, SEND), CbSafety::ThreadSafe).unwrap();
    let inst = instance_of(&d);
    let f = m.event_handle_free(r, 1, Some(0xF0)).unwrap();
    assert!(matches!(
        f[..],
        [Delivery::Free {
            safety: CbSafety::ThreadSafe,
            ..
        }]
    ));
    assert!(m.event_read(inst, 0).is_ok());
    m.end_delivery(inst);
    assert!(raise(&mut m, SEND, CbSafety::None).is_empty());
}

/// R-BIND-2 through check_binding; bad event index → INVALID_INDEX.
#[test]
fn handle_alloc_checks_index_and_binding() {
    let mut cat = Catalog::default_catalog();
    cat.events[0].bind = Bind::MpiComm;
    let mut m = Model::new(cat, Faults::none());
    m.init_thread(ThreadLevel::Single).unwrap();
    let n = m.event_get_num().unwrap();
    assert_eq!(
        m.event_handle_alloc(n, BoundObject::None, None),
        Err(TErr::InvalidIndex)
    );
    assert_eq!(
        m.event_handle_alloc(-1, BoundObject::None, None),
        Err(TErr::InvalidIndex)
    );
    assert_eq!(
        m.event_handle_alloc(0, BoundObject::CommWorld, None),
        Err(TErr::InvalidHandle)
    );
    m.mpi_init().unwrap();
    assert_eq!(
        m.event_handle_alloc(0, BoundObject::Null, None),
        Err(TErr::InvalidHandle)
    );
    assert!(m
        .event_handle_alloc(0, BoundObject::CommWorld, None)
        .is_ok());
    assert!(
        m.event_handle_alloc(1, BoundObject::Null, None).is_ok(),
        "NO_OBJECT ignores obj"
    );
}

/// R-INIT-1: every event call returns NOT_INITIALIZED before MPI_T_init_thread, and a
/// full finalize invalidates registrations and instances.
#[test]
fn not_initialized_and_finalize_clears() {
    let mut m = Model::new(Catalog::default_catalog(), Faults::none());
    let ni: Result<(), TErr> = Err(TErr::NotInitialized);
    let (r, inst) = (Registration(0x1_0000), Instance(0x1_0000));
    assert_eq!(m.source_get_num().map(|_| ()), ni);
    assert_eq!(m.source_get_info(0, true).map(|_| ()), ni);
    assert_eq!(m.source_get_timestamp(0).map(|_| ()), ni);
    assert_eq!(m.event_get_num().map(|_| ()), ni);
    assert_eq!(m.event_get_info(0, true).map(|_| ()), ni);
    assert_eq!(m.event_get_index(SEND).map(|_| ()), ni);
    assert_eq!(
        m.event_handle_alloc(0, BoundObject::None, None).map(|_| ()),
        ni
    );
    assert_eq!(m.event_handle_set_info(r, None), ni);
    assert_eq!(m.event_handle_get_info(r).map(|_| ()), ni);
    assert_eq!(
        m.event_register_callback(r, CbSafety::None, None, 0, Some(1)),
        ni
    );
    assert_eq!(m.event_callback_set_info(r, CbSafety::None, None), ni);
    assert_eq!(m.event_callback_get_info(r, CbSafety::None).map(|_| ()), ni);
    assert_eq!(m.event_handle_free(r, 0, None).map(|_| ()), ni);
    assert_eq!(m.event_set_dropped_handler(r, None), ni);
    assert_eq!(m.event_read(inst, 0).map(|_| ()), ni);
    assert_eq!(m.event_copy(inst).map(|_| ()), ni);
    assert_eq!(m.event_get_timestamp(inst).map(|_| ()), ni);
    assert_eq!(m.event_get_source(inst).map(|_| ()), ni);
    assert_eq!(m.raise_event(0, CbSafety::None).map(|_| ()), ni);
    assert_eq!(m.info_live(), 0, "no info object created by failing calls");

    m.init_thread(ThreadLevel::Single).unwrap();
    let r = reg(&mut m, SEND, CbSafety::None, 0x10);
    let d = m.raise_event(idx(&m, SEND), CbSafety::None).unwrap();
    let inst = instance_of(&d);
    m.finalize().unwrap();
    m.init_thread(ThreadLevel::Single).unwrap();
    assert_eq!(m.event_read(inst, 0), Err(TErr::InvalidHandle));
    assert_eq!(m.event_handle_free(r, 0, None), Err(TErr::InvalidHandle));
    assert!(raise(&mut m, SEND, CbSafety::None).is_empty());
}
