//! MPI_T_PVAR_ALL_HANDLES (R-PSTART-2, R-PRESET-1, R-PREAD-1), writes (R-PWRITE-1) and
//! readreset (R-PRR-1).

use super::{alloc, model, num};
use crate::faults::Faults;
use crate::model::PvarTarget;
use mpit_vocab::spec::{PvarClass, TErr};
use mpit_vocab::value::Value;

use PvarTarget::{All, One};

/// R-PSTART-2: ALL_HANDLES start/stop succeed with an empty session, only continuous
/// handles, and already started or stopped handles.
#[test]
fn r_pstart_2_all_handles_start_stop() {
    let mut m = model(Faults::none());
    let empty = m.pvar_session_create().unwrap();
    assert_eq!(m.pvar_start(empty, All), Ok(()));
    assert_eq!(m.pvar_stop(empty, All), Ok(()));
    let cont = m.pvar_session_create().unwrap();
    let cc = alloc(
        &mut m,
        cont,
        "ref_pvar_counter_continuous",
        PvarClass::Counter,
    );
    alloc(&mut m, cont, "ref_pvar_size", PvarClass::Size);
    assert_eq!(m.pvar_start(cont, All), Ok(()));
    assert_eq!(m.pvar_stop(cont, All), Ok(()));
    m.simulate(2);
    assert_eq!(
        num(&m, cont, cc, 0),
        2.0,
        "stop ALL_HANDLES ignores continuous handles"
    );
    let mixed = m.pvar_session_create().unwrap();
    let c = alloc(&mut m, mixed, "ref_pvar_counter", PvarClass::Counter);
    let k = alloc(
        &mut m,
        mixed,
        "ref_pvar_counter_continuous",
        PvarClass::Counter,
    );
    let t = alloc(&mut m, mixed, "ref_pvar_timer", PvarClass::Timer);
    m.pvar_start(mixed, One(c)).unwrap();
    m.simulate(1);
    assert_eq!(
        m.pvar_start(mixed, All),
        Ok(()),
        "already started and continuous are ignored"
    );
    m.simulate(1);
    assert_eq!(num(&m, mixed, c, 0), 2.0);
    assert_eq!(num(&m, mixed, k, 0), 2.0);
    assert!(num(&m, mixed, t, 0) > 0.0);
    m.pvar_stop(mixed, One(t)).unwrap();
    assert_eq!(
        m.pvar_stop(mixed, All),
        Ok(()),
        "already stopped and continuous are ignored"
    );
    assert_eq!(m.pvar_stop(mixed, All), Ok(()));
    m.simulate(1);
    assert_eq!(num(&m, mixed, c, 0), 2.0);
    assert_eq!(num(&m, mixed, k, 0), 3.0);
}

/// R-PRESET-1: ALL_HANDLES reset ignores read-only handles and succeeds "even if there
/// are no valid handles or all are read-only".
#[test]
fn r_preset_1_all_handles_reset() {
    let mut m = model(Faults::none());
    let empty = m.pvar_session_create().unwrap();
    assert_eq!(m.pvar_reset(empty, All), Ok(()));
    let ro = m.pvar_session_create().unwrap();
    let tt = alloc(&mut m, ro, "ref_pvar_timer_ticks", PvarClass::Timer);
    alloc(&mut m, ro, "ref_pvar_level", PvarClass::Level);
    m.pvar_start(ro, All).unwrap();
    m.simulate(2);
    assert_eq!(m.pvar_reset(ro, All), Ok(()));
    assert_eq!(
        num(&m, ro, tt, 0),
        2_000_000.0,
        "read-only handles are left alone"
    );
    let mixed = m.pvar_session_create().unwrap();
    let c = alloc(&mut m, mixed, "ref_pvar_counter", PvarClass::Counter);
    let k = alloc(
        &mut m,
        mixed,
        "ref_pvar_counter_continuous",
        PvarClass::Counter,
    );
    let tt = alloc(&mut m, mixed, "ref_pvar_timer_ticks", PvarClass::Timer);
    m.pvar_start(mixed, All).unwrap();
    m.simulate(3);
    assert_eq!(m.pvar_reset(mixed, All), Ok(()));
    assert_eq!(num(&m, mixed, c, 0), 0.0);
    assert_eq!(num(&m, mixed, k, 0), 0.0);
    assert_eq!(num(&m, mixed, tt, 0), 3_000_000.0);
    assert_eq!(m.pvar_reset(mixed, One(tt)), Err(TErr::PvarNoWrite));
}

/// R-PREAD-1: ALL_HANDLES may not be passed to read, write or readreset (no code named:
/// INVALID_HANDLE).
#[test]
fn r_pread_1_all_handles_rejected_for_read_write_readreset() {
    let mut m = model(Faults::none());
    let s = m.pvar_session_create().unwrap();
    alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
    assert_eq!(m.pvar_read(s, All), Err(TErr::InvalidHandle));
    assert_eq!(m.pvar_read_value(s, All), Err(TErr::InvalidHandle));
    assert_eq!(m.pvar_handle_layout(s, All), Err(TErr::InvalidHandle));
    assert_eq!(
        m.pvar_write(s, All, &0u64.to_ne_bytes()),
        Err(TErr::InvalidHandle)
    );
    assert_eq!(m.pvar_readreset(s, All), Err(TErr::InvalidHandle));
}

/// R-PWRITE-1: read-only → NO_WRITE; a writable handle takes the value written.
#[test]
fn r_pwrite_1_write() {
    let mut m = model(Faults::none());
    let s = m.pvar_session_create().unwrap();
    let l = alloc(&mut m, s, "ref_pvar_level", PvarClass::Level);
    let before = m.pvar_read(s, One(l)).unwrap();
    assert_eq!(
        m.pvar_write(s, One(l), &9u32.to_ne_bytes()),
        Err(TErr::PvarNoWrite)
    );
    assert_eq!(m.pvar_read(s, One(l)).unwrap(), before);
    let c = alloc(&mut m, s, "ref_pvar_counter_array", PvarClass::Counter);
    let bytes: Vec<u8> = [41u64, 42, 43]
        .iter()
        .flat_map(|x| x.to_ne_bytes())
        .collect();
    m.pvar_write(s, One(c), &bytes).unwrap();
    assert_eq!(m.pvar_read(s, One(c)).unwrap(), bytes);
    m.pvar_start(s, One(c)).unwrap();
    m.simulate(1);
    assert_eq!(
        m.pvar_read_value(s, One(c)).unwrap(),
        Value::Ints(vec![42, 43, 44])
    );
}

/// R-PRR-1: readreset on a non-atomic pvar is NO_ATOMIC; on an atomic one it returns
/// the value before and leaves the starting value.
#[test]
fn r_prr_1_readreset() {
    let mut m = model(Faults::none());
    let s = m.pvar_session_create().unwrap();
    let t = alloc(&mut m, s, "ref_pvar_timer", PvarClass::Timer);
    assert_eq!(m.pvar_readreset(s, One(t)), Err(TErr::PvarNoAtomic));
    let c = alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
    m.pvar_start(s, All).unwrap();
    m.simulate(4);
    assert_eq!(m.pvar_readreset(s, One(c)).unwrap(), 4u64.to_ne_bytes());
    assert_eq!(m.pvar_read(s, One(c)).unwrap(), 0u64.to_ne_bytes());
    let a = alloc(&mut m, s, "ref_pvar_aggregate", PvarClass::Aggregate);
    m.pvar_start(s, One(a)).unwrap();
    m.simulate(1);
    let got = m.pvar_readreset(s, One(a)).unwrap();
    assert!(f64::from_ne_bytes(got.try_into().unwrap()) > 0.0);
    assert_eq!(num(&m, s, a, 0), 0.0);
}
