//! R-EVT-CB, R-EVT-DROP, R-EVT-INST: which callback an event reaches, what is dropped and
//! reported before the next event, how long an instance is valid and what its data are.

use super::{
    event_cb, idx, instance_of, model, raise, reg, DROPPED_CB, NETWORK, PROGRESS, SEND, STATE,
};
use crate::faults::Faults;
use crate::model::{Delivery, Instance, Model};
use mpit_vocab::spec::{CbSafety, TErr};
use proptest::prelude::*;

/// R-EVT-CB: the callback with the lowest level >= the required one is invoked;
/// re-registering overwrites (function and user_data); a NULL function removes.
#[test]
fn callback_selection_overwrite_and_removal() {
    let mut m = model(Faults::none());
    let r = reg(&mut m, SEND, CbSafety::MpiRestricted, 0x10);
    m.event_register_callback(r, CbSafety::AsyncSignalSafe, None, 0x41, Some(0x40))
        .unwrap();
    let pick = |m: &mut Model, req| event_cb(&raise(m, SEND, req)[0]);
    assert_eq!(pick(&mut m, CbSafety::None), Some(0x10));
    assert_eq!(pick(&mut m, CbSafety::MpiRestricted), Some(0x10));
    assert_eq!(pick(&mut m, CbSafety::ThreadSafe), Some(0x40));
    assert_eq!(pick(&mut m, CbSafety::AsyncSignalSafe), Some(0x40));
    let d = raise(&mut m, SEND, CbSafety::None);
    assert!(
        matches!(d[..], [Delivery::Event { registration, safety: CbSafety::MpiRestricted, user_data: 0x11, .. }] if registration == r)
    );

    m.event_register_callback(r, CbSafety::MpiRestricted, None, 0x99, Some(0x30))
        .unwrap();
    let d = raise(&mut m, SEND, CbSafety::None);
    assert!(matches!(
        d[..],
        [Delivery::Event {
            cb: 0x30,
            user_data: 0x99,
            ..
        }]
    ));

    m.event_register_callback(r, CbSafety::MpiRestricted, None, 0, None)
        .unwrap();
    assert_eq!(pick(&mut m, CbSafety::None), Some(0x40));
    m.event_register_callback(r, CbSafety::AsyncSignalSafe, None, 0, None)
        .unwrap();
    assert!(raise(&mut m, SEND, CbSafety::None).is_empty());
    // Only registrations of the raised event type see it.
    let other = reg(&mut m, STATE, CbSafety::None, 0x50);
    assert!(raise(&mut m, SEND, CbSafety::None).is_empty());
    assert_eq!(
        event_cb(&raise(&mut m, STATE, CbSafety::None)[0]),
        Some(0x50)
    );
    m.event_handle_free(other, 0, None).unwrap();
}

/// R-EVT-DROP (must): drops since the last notification are reported before the next
/// event of that source, with the user_data of the callback being invoked (4.0 errata).
#[test]
fn dropped_handler_runs_before_next_event() {
    let mut m = model(Faults::none());
    let r = reg(&mut m, SEND, CbSafety::MpiRestricted, 0x10);
    m.event_set_dropped_handler(r, Some(DROPPED_CB)).unwrap();
    let e1 = raise(&mut m, SEND, CbSafety::None);
    assert_eq!(e1.len(), 1, "E1 delivered, nothing dropped yet");
    assert!(
        raise(&mut m, SEND, CbSafety::ThreadSafe).is_empty(),
        "E2 dropped"
    );
    assert!(
        raise(&mut m, SEND, CbSafety::AsyncSignalSafe).is_empty(),
        "E3 dropped"
    );
    let e4 = raise(&mut m, SEND, CbSafety::MpiRestricted);
    assert_eq!(e4.len(), 2);
    assert_eq!(
        e4[0],
        Delivery::Dropped {
            cb: DROPPED_CB,
            count: 2,
            registration: r,
            source_index: PROGRESS,
            safety: CbSafety::MpiRestricted,
            user_data: 0x11,
        }
    );
    assert_eq!(event_cb(&e4[1]), Some(0x10));
    assert_eq!(
        raise(&mut m, SEND, CbSafety::None).len(),
        1,
        "count reset after reporting"
    );
}

/// R-EVT-DROP: a NULL handler disables recording; a (new) handler counts from when it
/// was set; a registration with no callbacks at all neither delivers nor drops.
#[test]
fn dropped_recording_follows_the_handler() {
    let mut m = model(Faults::none());
    let r = reg(&mut m, SEND, CbSafety::None, 0x10);
    assert!(raise(&mut m, SEND, CbSafety::ThreadSafe).is_empty());
    m.event_set_dropped_handler(r, Some(DROPPED_CB)).unwrap();
    assert_eq!(
        raise(&mut m, SEND, CbSafety::None).len(),
        1,
        "drops before the handler are not counted"
    );
    raise(&mut m, SEND, CbSafety::ThreadSafe);
    m.event_set_dropped_handler(r, None).unwrap();
    raise(&mut m, SEND, CbSafety::ThreadSafe);
    m.event_set_dropped_handler(r, Some(DROPPED_CB + 1))
        .unwrap();
    raise(&mut m, SEND, CbSafety::ThreadSafe);
    let d = raise(&mut m, SEND, CbSafety::None);
    assert!(
        matches!(
            d[0],
            Delivery::Dropped {
                cb: 0xD1,
                count: 1,
                ..
            }
        ),
        "{d:?}"
    );
    m.event_register_callback(r, CbSafety::None, None, 0, None)
        .unwrap();
    raise(&mut m, SEND, CbSafety::ThreadSafe);
    m.event_register_callback(r, CbSafety::None, None, 0, Some(0x10))
        .unwrap();
    assert_eq!(raise(&mut m, SEND, CbSafety::None).len(), 1);
}

/// R-EVT-INST, R-EVT-ELEM: an instance is valid only during its callback; element data
/// are laid out at the get_info displacements, padding zeroed.
#[test]
fn instance_valid_only_during_delivery() {
    let mut m = model(Faults::none());
    let r = reg(&mut m, STATE, CbSafety::None, 0x10);
    let d = m.raise_event(idx(&m, STATE), CbSafety::None).unwrap();
    let inst = instance_of(&d);
    let e0 = m.event_read(inst, 0).unwrap();
    let e1 = m.event_read(inst, 1).unwrap();
    assert_eq!((e0.len(), e1.len()), (4, 8));
    let copy = m.event_copy(inst).unwrap();
    assert_eq!(
        copy.len(),
        m.catalog().events[idx(&m, STATE) as usize].extent()
    );
    assert_eq!(&copy[0..4], &e0[..]);
    assert_eq!(&copy[4..8], &[0; 4], "padding");
    assert_eq!(&copy[8..16], &e1[..]);
    assert_eq!(m.event_get_source(inst), Ok(NETWORK));
    // The MPI_INT element of an enum-typed event is one of the enum's values.
    let en = &m
        .catalog()
        .enums
        .iter()
        .find(|e| e.name == "ref_enum_state")
        .unwrap()
        .items;
    assert!(en.iter().any(|it| it.value.to_ne_bytes() == e0[..]));
    assert_eq!(m.event_read(inst, 2), Err(TErr::InvalidIndex));
    assert_eq!(m.event_read(inst, -1), Err(TErr::InvalidIndex));
    m.end_delivery(inst);
    assert_eq!(m.event_read(inst, 0), Err(TErr::InvalidHandle));
    assert_eq!(m.event_copy(inst), Err(TErr::InvalidHandle));
    assert_eq!(m.event_get_timestamp(inst), Err(TErr::InvalidHandle));
    assert_eq!(m.event_get_source(inst), Err(TErr::InvalidHandle));
    m.end_delivery(inst);
    m.end_delivery(Instance(12345));
    assert_eq!(m.event_read(Instance(0), 0), Err(TErr::InvalidHandle));
    m.event_handle_free(r, 0, None).unwrap();
}

/// Event data and timestamps are reproducible, and differ between instances.
#[test]
fn event_data_is_deterministic() {
    let run = || {
        let mut m = model(Faults::none());
        reg(&mut m, SEND, CbSafety::None, 0x10);
        (0..3)
            .map(|_| {
                let d = m.raise_event(idx(&m, SEND), CbSafety::None).unwrap();
                let inst = instance_of(&d);
                let out = (
                    m.event_copy(inst).unwrap(),
                    m.event_get_timestamp(inst).unwrap(),
                );
                m.end_delivery(inst);
                out
            })
            .collect::<Vec<_>>()
    };
    let a = run();
    assert_eq!(a, run());
    assert_ne!(a[0].0, a[1].0);
    assert_eq!(&a[0].0[0..4], &1i32.to_ne_bytes());
    assert_eq!(&a[1].0[8..16], &6i64.to_ne_bytes());
}

proptest! {
    /// R-EVT-CB, R-EVT-DROP: with one callback at level `l` and a dropped handler, every
    /// raised instance is either delivered (iff required <= l) or counted as dropped,
    /// and the counts reported before deliveries add up.
    #[test]
    fn every_instance_is_delivered_or_counted(
        l in 0usize..4,
        reqs in proptest::collection::vec(0usize..4, 0..40),
    ) {
        let level = CbSafety::ALL[l];
        let mut m = model(Faults::none());
        let r = reg(&mut m, SEND, level, 0x10);
        m.event_set_dropped_handler(r, Some(DROPPED_CB)).unwrap();
        let (mut delivered, mut reported) = (0i64, 0i64);
        for q in reqs.iter().copied().chain([0]) {
            let d = raise(&mut m, SEND, CbSafety::ALL[q]);
            prop_assert_eq!(d.iter().filter(|x| event_cb(x).is_some()).count(), usize::from(q <= l));
            for x in &d {
                match x {
                    Delivery::Event { safety, .. } => { delivered += 1; prop_assert_eq!(*safety, level); }
                    Delivery::Dropped { count, .. } => reported += count,
                    Delivery::Free { .. } => prop_assert!(false),
                }
            }
        }
        prop_assert_eq!(delivered + reported, reqs.len() as i64 + 1);
    }
}
