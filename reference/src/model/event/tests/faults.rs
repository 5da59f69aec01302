//! Each injectable fault of the event routines (reference/src/faults.rs) does what it
//! names.

use super::{instance_of, model, raise, reg, DROPPED_CB, NETWORK, SEND};
use crate::faults::{Fault, Faults};
use crate::model::Delivery;
use mpit_vocab::spec::{CbSafety, TErr};

#[test]
fn fault_event_info_null() {
    let mut m = model(Faults::one(Fault::EventInfoNull));
    let live = m.info_live();
    assert_eq!(m.event_get_info(0, true).unwrap().1, None);
    assert_eq!(m.info_live(), live);
    assert!(
        m.source_get_info(0, true).unwrap().1.is_some(),
        "only event_get_info is broken"
    );
}

#[test]
fn fault_source_timestamp_unsupported_succeeds() {
    let mut m = model(Faults::one(Fault::SourceTimestampUnsupportedSucceeds));
    assert!(m.source_get_timestamp(NETWORK).is_ok());
    assert_eq!(m.source_get_timestamp(2), Err(TErr::InvalidIndex));
}

#[test]
fn fault_dropped_after_event() {
    let mut m = model(Faults::one(Fault::DroppedAfterEvent));
    let r = reg(&mut m, SEND, CbSafety::None, 0x10);
    m.event_set_dropped_handler(r, Some(DROPPED_CB)).unwrap();
    raise(&mut m, SEND, CbSafety::ThreadSafe);
    let d = raise(&mut m, SEND, CbSafety::None);
    assert!(
        matches!(
            d[..],
            [Delivery::Event { .. }, Delivery::Dropped { count: 1, .. }]
        ),
        "{d:?}"
    );
}

#[test]
fn fault_event_read_outside_callback() {
    let mut m = model(Faults::one(Fault::EventReadOutsideCallback));
    reg(&mut m, SEND, CbSafety::None, 0x10);
    let inst = instance_of(&raise(&mut m, SEND, CbSafety::None));
    assert!(m.event_read(inst, 0).is_ok());
    assert!(m.event_copy(inst).is_ok());
    assert!(m.event_get_timestamp(inst).is_ok());
}
