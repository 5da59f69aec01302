//! The event model's unit tests: here the helpers and what sources and event types
//! tell (info objects and hints, displacements, indices, timestamps); beside it
//! `delivery` (which callback an event reaches, drops, instances and their data),
//! `registrations` (allocation, free, MPI_T finalize) and `faults` (each injectable
//! fault of the event routines).

mod delivery;
mod faults;
mod registrations;

use crate::faults::Faults;
use crate::model::{BoundObject, Delivery, Instance, Model, Registration};
use mpit_vocab::catalog::Catalog;
use mpit_vocab::spec::{CbSafety, Datatype, SourceOrder, TErr, ThreadLevel};

const SEND: &str = "ref_event_send";
const STATE: &str = "ref_event_state";
const PROGRESS: i32 = 0;
const NETWORK: i32 = 1;
const DROPPED_CB: usize = 0xD0;

fn model(f: Faults) -> Model {
    let mut m = Model::new(Catalog::default_catalog(), f);
    m.init_thread(ThreadLevel::Single).unwrap();
    m
}

fn idx(m: &Model, name: &str) -> i32 {
    m.event_get_index(name).unwrap()
}

/// A registration of `name` with one callback (`cb`, user_data `cb + 1`) at `level`.
fn reg(m: &mut Model, name: &str, level: CbSafety, cb: usize) -> Registration {
    let r = m
        .event_handle_alloc(idx(m, name), BoundObject::None, None)
        .unwrap();
    m.event_register_callback(r, level, None, cb + 1, Some(cb))
        .unwrap();
    r
}

/// Raises one event and ends every delivery, as the C ABI does.
fn raise(m: &mut Model, name: &str, required: CbSafety) -> Vec<Delivery> {
    let d = m.raise_event(idx(m, name), required).unwrap();
    for x in &d {
        if let Delivery::Event { instance, .. } = x {
            m.end_delivery(*instance);
        }
    }
    d
}

fn event_cb(d: &Delivery) -> Option<usize> {
    match d {
        Delivery::Event { cb, .. } => Some(*cb),
        _ => None,
    }
}

fn instance_of(d: &[Delivery]) -> Instance {
    d.iter()
        .find_map(|x| match x {
            Delivery::Event { instance, .. } => Some(*instance),
            _ => None,
        })
        .expect("an event delivery")
}

/// R-SRC-INFO, R-EVT-INFO: every info OUT argument is a NEW info object (never
/// MPI_INFO_NULL), holding the catalog's or the user's hints.
#[test]
fn info_objects_are_new_on_every_call() {
    let mut m = model(Faults::none());
    let live = m.info_live();
    let (_, a) = m.source_get_info(PROGRESS, true).unwrap();
    let (_, b) = m.source_get_info(PROGRESS, true).unwrap();
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_ne!(a, b);
    assert_eq!(m.info_live(), live + 2);
    assert_eq!(
        m.info_get(a, "ref_hint").unwrap().as_deref(),
        Some("progress")
    );
    let (_, empty) = m.source_get_info(NETWORK, true).unwrap();
    assert_eq!(
        m.info_nkeys(empty.expect("empty, not MPI_INFO_NULL")),
        Ok(0)
    );
    assert_eq!(m.source_get_info(PROGRESS, false).unwrap().1, None);
    assert_eq!(m.info_live(), live + 3);

    let send = idx(&m, SEND);
    let (_, e1) = m.event_get_info(send, true).unwrap();
    let (_, e2) = m.event_get_info(send, true).unwrap();
    assert_ne!(e1, e2);
    assert_eq!(
        m.info_get(e1.unwrap(), "ref_event_hint")
            .unwrap()
            .as_deref(),
        Some("send")
    );
    let (_, e3) = m.event_get_info(idx(&m, STATE), true).unwrap();
    assert_eq!(m.info_nkeys(e3.unwrap()), Ok(0));
    assert_eq!(m.event_get_info(send, false).unwrap().1, None);
    assert_eq!(m.info_live(), live + 6);

    let r = reg(&mut m, SEND, CbSafety::None, 0x10);
    let h1 = m.event_handle_get_info(r).unwrap();
    let h2 = m.event_handle_get_info(r).unwrap();
    let c1 = m.event_callback_get_info(r, CbSafety::None).unwrap();
    let c2 = m.event_callback_get_info(r, CbSafety::None).unwrap();
    assert!(h1 != h2 && c1 != c2 && h1 != c1);
    assert_eq!(m.info_live(), live + 10);
}

/// R-EVT-INFO, R-EVT-CB: set_info only adds or changes the hints it names; get_info
/// reports the hints in force; callback hints are per level and re-registering
/// replaces them.
#[test]
fn handle_and_callback_hints() {
    let mut m = model(Faults::none());
    let i = m.info_create();
    m.info_set(i, "a", "1").unwrap();
    m.info_set(i, "b", "2").unwrap();
    let r = m
        .event_handle_alloc(idx(&m, SEND), BoundObject::None, Some(i))
        .unwrap();
    let j = m.info_create();
    m.info_set(j, "b", "3").unwrap();
    m.event_handle_set_info(r, Some(j)).unwrap();
    m.event_handle_set_info(r, None).unwrap();
    let got = m.event_handle_get_info(r).unwrap();
    assert_eq!(m.info_get(got, "a").unwrap().as_deref(), Some("1"));
    assert_eq!(m.info_get(got, "b").unwrap().as_deref(), Some("3"));

    m.event_register_callback(r, CbSafety::ThreadSafe, Some(i), 0, Some(0x20))
        .unwrap();
    m.event_callback_set_info(r, CbSafety::ThreadSafe, Some(j))
        .unwrap();
    let c = m.event_callback_get_info(r, CbSafety::ThreadSafe).unwrap();
    assert_eq!(m.info_get(c, "a").unwrap().as_deref(), Some("1"));
    assert_eq!(m.info_get(c, "b").unwrap().as_deref(), Some("3"));
    // Re-registering overwrites the info too.
    m.event_register_callback(r, CbSafety::ThreadSafe, None, 0, Some(0x21))
        .unwrap();
    let c = m.event_callback_get_info(r, CbSafety::ThreadSafe).unwrap();
    assert_eq!(m.info_nkeys(c), Ok(0));
    // A level without a callback: set_info has no effect, get_info a new empty object.
    m.event_callback_set_info(r, CbSafety::None, Some(i))
        .unwrap();
    let c = m.event_callback_get_info(r, CbSafety::None).unwrap();
    assert_eq!(m.info_nkeys(c), Ok(0));
    // An info handle that is not a live info object is refused.
    m.info_free(j).unwrap();
    assert_eq!(m.event_handle_set_info(r, Some(j)), Err(TErr::Invalid));
    assert_eq!(
        m.event_callback_set_info(r, CbSafety::None, Some(j)),
        Err(TErr::Invalid)
    );
    assert_eq!(
        m.event_register_callback(r, CbSafety::None, Some(j), 0, Some(1)),
        Err(TErr::Invalid)
    );
    assert_eq!(
        m.event_handle_alloc(0, BoundObject::None, Some(j)),
        Err(TErr::Invalid)
    );
}

/// R-EVT-1, R-EVT-ELEM, R-EVT-IDX: get_info is immutable; displacements ascend from
/// 0, one per datatype; a bad index is INVALID_INDEX.
#[test]
fn displacements_ascend_from_zero_and_info_is_immutable() {
    let mut m = model(Faults::none());
    m.mpi_init().unwrap();
    let n = m.event_get_num().unwrap();
    assert_eq!(n as usize, m.catalog().events.len());
    for i in 0..n {
        let (a, _) = m.event_get_info(i, false).unwrap();
        assert_eq!(m.event_get_info(i, false).unwrap().0, a);
        assert_eq!(a.displacements.len(), a.datatypes.len());
        assert_eq!(a.displacements.first(), Some(&0), "{}", a.name);
        assert!(
            a.displacements.windows(2).all(|w| w[0] < w[1]),
            "{}",
            a.name
        );
    }
    let (st, _) = m.event_get_info(idx(&m, STATE), false).unwrap();
    assert_eq!(st.datatypes, [Datatype::Int, Datatype::Double]);
    assert_eq!(st.displacements, [0, 8]);
    assert_ne!(st.enumtype.0, 0);
    assert_eq!(
        m.event_get_info(idx(&m, SEND), false).unwrap().0.enumtype.0,
        0
    );
    assert_eq!(m.event_get_info(n, false).unwrap_err(), TErr::InvalidIndex);
    assert_eq!(m.event_get_info(-1, false).unwrap_err(), TErr::InvalidIndex);
    assert_eq!(m.source_get_info(2, false).unwrap_err(), TErr::InvalidIndex);
}

/// R-EVT-IDX, R-EVT-1: get_index(name of i) == i; unknown → INVALID_NAME; events
/// that appear at MPI_Init are appended.
#[test]
fn index_round_trip() {
    let mut m = model(Faults::none());
    let before = m.event_get_num().unwrap();
    assert_eq!(
        m.event_get_index("ref_event_after_init"),
        Err(TErr::InvalidName)
    );
    m.mpi_init().unwrap();
    assert_eq!(m.event_get_num().unwrap(), before + 1);
    for i in 0..m.event_get_num().unwrap() {
        let name = m.event_get_info(i, false).unwrap().0.name;
        assert_eq!(m.event_get_index(&name), Ok(i));
    }
    assert_eq!(m.event_get_index("no_such_event"), Err(TErr::InvalidName));
    assert_eq!(m.source_get_num(), Ok(2));
    let (s, _) = m.source_get_info(PROGRESS, false).unwrap();
    assert_eq!(
        (s.name.as_str(), s.ordering),
        ("ref_source_progress", SourceOrder::Ordered)
    );
}

/// R-SRC-TS, R-EVT-TS: bad index → INVALID_INDEX; no ad-hoc timestamps → NOT_SUPPORTED;
/// ORDERED sources give increasing timestamps (ad hoc and on events alike).
#[test]
fn source_timestamp_codes_and_order() {
    let mut m = model(Faults::none());
    assert_eq!(m.source_get_timestamp(2), Err(TErr::InvalidIndex));
    assert_eq!(m.source_get_timestamp(-1), Err(TErr::InvalidIndex));
    assert_eq!(m.source_get_timestamp(NETWORK), Err(TErr::NotSupported));
    let r = reg(&mut m, SEND, CbSafety::None, 0x10);
    let mut last = m.source_get_timestamp(PROGRESS).unwrap();
    for _ in 0..5 {
        let d = m.raise_event(idx(&m, SEND), CbSafety::None).unwrap();
        let inst = instance_of(&d);
        let ts = m.event_get_timestamp(inst).unwrap();
        assert_eq!(m.event_get_source(inst), Ok(PROGRESS));
        m.end_delivery(inst);
        assert!(ts > last);
        let now = m.source_get_timestamp(PROGRESS).unwrap();
        assert!(now > ts);
        last = now;
    }
    m.event_handle_free(r, 0, None).unwrap();
}
