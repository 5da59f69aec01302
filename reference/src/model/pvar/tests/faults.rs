//! Each injectable fault of the pvar routines (reference/src/faults.rs) does what it
//! names.

use super::{alloc, idx, model, num};
use crate::faults::{Fault, Faults};
use crate::model::{PvarHandle, PvarTarget};
use mpit_vocab::spec::{Datatype, PvarClass, TErr};

use PvarTarget::{All, One};

#[test]
fn fault_pvar_get_index_ignores_class() {
    let m = model(Faults::one(Fault::PvarGetIndexIgnoresClass));
    let c = m
        .pvar_get_index("ref_pvar_counter", PvarClass::Counter)
        .unwrap();
    assert_eq!(
        m.pvar_get_index("ref_pvar_counter", PvarClass::Aggregate),
        Ok(c)
    );
    assert_eq!(m.pvar_get_index("ref_pvar_level", PvarClass::Timer), Ok(1));
}

#[test]
fn fault_session_not_nulled() {
    let mut m = model(Faults::one(Fault::SessionNotNulled));
    let s = m.pvar_session_create().unwrap();
    assert_eq!(m.pvar_session_free(s), Ok(s));
}

#[test]
fn fault_foreign_session_handle_accepted() {
    let mut m = model(Faults::one(Fault::ForeignSessionHandleAccepted));
    let s1 = m.pvar_session_create().unwrap();
    let s2 = m.pvar_session_create().unwrap();
    let h = alloc(&mut m, s1, "ref_pvar_counter", PvarClass::Counter);
    assert_eq!(m.pvar_start(s2, One(h)), Ok(()));
    assert!(m.pvar_read(s2, One(h)).is_ok());
    assert_eq!(m.pvar_handle_free(s2, h), Ok(PvarHandle(0)));
}

#[test]
fn fault_start_continuous_accepted() {
    let mut m = model(Faults::one(Fault::StartContinuousAccepted));
    let s = m.pvar_session_create().unwrap();
    let h = alloc(&mut m, s, "ref_pvar_counter_continuous", PvarClass::Counter);
    assert_eq!(m.pvar_start(s, One(h)), Ok(()));
}

#[test]
fn fault_all_handles_start_fails_continuous() {
    let mut m = model(Faults::one(Fault::AllHandlesStartFailsContinuous));
    let s = m.pvar_session_create().unwrap();
    assert_eq!(m.pvar_start(s, All), Ok(()));
    alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
    assert_eq!(m.pvar_start(s, All), Ok(()));
    alloc(&mut m, s, "ref_pvar_counter_continuous", PvarClass::Counter);
    assert_eq!(m.pvar_start(s, All), Err(TErr::PvarNoStartstop));
}

#[test]
fn fault_read_accepts_all_handles() {
    let mut m = model(Faults::one(Fault::ReadAcceptsAllHandles));
    let s = m.pvar_session_create().unwrap();
    assert_eq!(m.pvar_read(s, All), Ok(Vec::new()));
    let h = alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
    m.pvar_start(s, One(h)).unwrap();
    m.simulate(2);
    assert_eq!(
        m.pvar_handle_layout(s, All),
        Ok((Datatype::UnsignedLongLong, 1))
    );
    assert_eq!(
        m.pvar_read(s, All).unwrap(),
        m.pvar_read(s, One(h)).unwrap()
    );
    // Only read: write and readreset still refuse ALL_HANDLES.
    assert_eq!(m.pvar_readreset(s, All), Err(TErr::InvalidHandle));
}

#[test]
fn fault_write_readonly_pvar_accepted() {
    let mut m = model(Faults::one(Fault::WriteReadonlyPvarAccepted));
    let s = m.pvar_session_create().unwrap();
    let h = alloc(&mut m, s, "ref_pvar_level", PvarClass::Level);
    assert_eq!(m.pvar_write(s, One(h), &9u32.to_ne_bytes()), Ok(()));
    assert_eq!(m.pvar_read(s, One(h)).unwrap(), 9u32.to_ne_bytes());
}

#[test]
fn fault_reset_all_fails_readonly() {
    let mut m = model(Faults::one(Fault::ResetAllFailsReadonly));
    let s = m.pvar_session_create().unwrap();
    alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
    assert_eq!(m.pvar_reset(s, All), Ok(()));
    alloc(&mut m, s, "ref_pvar_level", PvarClass::Level);
    assert_eq!(m.pvar_reset(s, All), Err(TErr::PvarNoWrite));
}

#[test]
fn fault_counter_not_zeroed_by_reset() {
    let mut m = model(Faults::one(Fault::CounterNotZeroedByReset));
    let s = m.pvar_session_create().unwrap();
    let c = alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
    let t = alloc(&mut m, s, "ref_pvar_timer", PvarClass::Timer);
    m.pvar_start(s, All).unwrap();
    m.simulate(3);
    m.pvar_reset(s, One(c)).unwrap();
    m.pvar_reset(s, All).unwrap();
    assert_eq!(num(&m, s, c, 0), 3.0);
    assert!(num(&m, s, t, 0) > 0.0);
    assert_eq!(m.pvar_readreset(s, One(c)).unwrap(), 3u64.to_ne_bytes());
    assert_eq!(num(&m, s, c, 0), 3.0);
}

#[test]
fn fault_readreset_non_atomic_accepted() {
    let mut m = model(Faults::one(Fault::ReadresetNonAtomicAccepted));
    let s = m.pvar_session_create().unwrap();
    let t = alloc(&mut m, s, "ref_pvar_timer", PvarClass::Timer);
    assert!(m.pvar_readreset(s, One(t)).is_ok());
}

#[test]
fn fault_class_datatype_mismatch() {
    let m = model(Faults::one(Fault::ClassDatatypeMismatch));
    let i = idx(&m, "ref_pvar_counter", PvarClass::Counter);
    let info = m.pvar_get_info(i).unwrap();
    assert_eq!(info.datatype, Datatype::Double);
    assert!(!info.var_class.allowed_datatypes().contains(&info.datatype));
}

#[test]
fn fault_percentage_out_of_range() {
    let mut m = model(Faults::one(Fault::PercentageOutOfRange));
    let s = m.pvar_session_create().unwrap();
    let h = alloc(&mut m, s, "ref_pvar_percentage", PvarClass::Percentage);
    assert_eq!(num(&m, s, h, 0), 1.5);
    assert_eq!(m.pvar_read(s, One(h)).unwrap(), 1.5f64.to_ne_bytes());
}

#[test]
fn fault_watermark_wrong_direction() {
    let mut m = model(Faults::one(Fault::WatermarkWrongDirection));
    let s = m.pvar_session_create().unwrap();
    let h = alloc(&mut m, s, "ref_pvar_hwm", PvarClass::HighWatermark);
    m.pvar_start(s, One(h)).unwrap();
    let mut prev = num(&m, s, h, 0);
    let mut decreased = false;
    for _ in 0..12 {
        m.simulate(1);
        let v = num(&m, s, h, 0);
        decreased |= v < prev;
        prev = v;
    }
    assert!(decreased);
}

#[test]
fn fault_hang_in_call() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut m = model(Faults::one(Fault::HangInCall));
        let r = m.pvar_session_create();
        let _ = tx.send(r);
    });
    let got = rx.recv_timeout(std::time::Duration::from_millis(200));
    assert_eq!(got, Err(std::sync::mpsc::RecvTimeoutError::Timeout));
}
