//! R-SESS-1 and R-PH-1: sessions are isolated, a handle belongs to its session, a freed
//! session or handle is invalid, allocation checks its index and binding.

use super::{alloc, idx, model, num};
use crate::faults::Faults;
use crate::model::{BoundObject, PvarHandle, PvarTarget, Session};
use mpit_vocab::spec::{Datatype, PvarClass, TErr};

use PvarTarget::{All, One};

/// R-SESS-1: start, stop, write and reset in one session do not influence another.
#[test]
fn r_sess_1_sessions_are_isolated() {
    let mut m = model(Faults::none());
    let s1 = m.pvar_session_create().unwrap();
    let s2 = m.pvar_session_create().unwrap();
    assert_ne!(s1, s2);
    let h1 = alloc(&mut m, s1, "ref_pvar_counter", PvarClass::Counter);
    let h2 = alloc(&mut m, s2, "ref_pvar_counter", PvarClass::Counter);
    m.pvar_start(s1, All).unwrap();
    m.simulate(4);
    assert_eq!(num(&m, s1, h1, 0), 4.0);
    assert_eq!(num(&m, s2, h2, 0), 0.0);
    m.pvar_start(s2, One(h2)).unwrap();
    m.simulate(1);
    m.pvar_reset(s1, All).unwrap();
    m.pvar_stop(s1, All).unwrap();
    assert_eq!(num(&m, s1, h1, 0), 0.0);
    assert_eq!(num(&m, s2, h2, 0), 1.0);
    m.simulate(2);
    assert_eq!(num(&m, s1, h1, 0), 0.0);
    assert_eq!(num(&m, s2, h2, 0), 3.0);
    m.pvar_write(s2, One(h2), &100u64.to_ne_bytes()).unwrap();
    assert_eq!(num(&m, s1, h1, 0), 0.0);
    assert_eq!(num(&m, s2, h2, 0), 100.0);
}

/// R-PH-1 (MUST): a handle not associated with the session is INVALID_HANDLE, in every
/// routine taking both.
#[test]
fn r_ph_1_foreign_session_handle_is_invalid_handle() {
    let mut m = model(Faults::none());
    let s1 = m.pvar_session_create().unwrap();
    let s2 = m.pvar_session_create().unwrap();
    let h = alloc(&mut m, s1, "ref_pvar_counter", PvarClass::Counter);
    let bytes = 1u64.to_ne_bytes();
    assert_eq!(m.pvar_start(s2, One(h)), Err(TErr::InvalidHandle));
    assert_eq!(m.pvar_stop(s2, One(h)), Err(TErr::InvalidHandle));
    assert_eq!(m.pvar_read(s2, One(h)), Err(TErr::InvalidHandle));
    assert_eq!(m.pvar_read_value(s2, One(h)), Err(TErr::InvalidHandle));
    assert_eq!(m.pvar_handle_layout(s2, One(h)), Err(TErr::InvalidHandle));
    assert_eq!(m.pvar_write(s2, One(h), &bytes), Err(TErr::InvalidHandle));
    assert_eq!(m.pvar_reset(s2, One(h)), Err(TErr::InvalidHandle));
    assert_eq!(m.pvar_readreset(s2, One(h)), Err(TErr::InvalidHandle));
    assert_eq!(m.pvar_handle_free(s2, h), Err(TErr::InvalidHandle));
    // Still fine in its own session; freed handles and HANDLE_NULL are invalid.
    assert_eq!(
        m.pvar_handle_layout(s1, One(h)),
        Ok((Datatype::UnsignedLongLong, 1))
    );
    assert_eq!(m.pvar_handle_free(s1, h), Ok(PvarHandle(0)));
    assert_eq!(m.pvar_read(s1, One(h)), Err(TErr::InvalidHandle));
    assert_eq!(m.pvar_handle_free(s1, h), Err(TErr::InvalidHandle));
    assert_eq!(
        m.pvar_read(s1, One(PvarHandle(0))),
        Err(TErr::InvalidHandle)
    );
}

/// R-SESS-1: free nulls the session and its handles; a freed session is INVALID_SESSION.
#[test]
fn r_sess_1_freed_session_is_invalid_session() {
    let mut m = model(Faults::none());
    let s = m.pvar_session_create().unwrap();
    let h = alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
    assert_eq!(m.pvar_session_free(s), Ok(Session(0)));
    assert_eq!(m.pvar_session_free(s), Err(TErr::InvalidSession));
    assert_eq!(m.pvar_session_free(Session(0)), Err(TErr::InvalidSession));
    assert_eq!(
        m.pvar_handle_alloc(s, 0, BoundObject::None),
        Err(TErr::InvalidSession)
    );
    assert_eq!(m.pvar_start(s, All), Err(TErr::InvalidSession));
    assert_eq!(m.pvar_stop(s, One(h)), Err(TErr::InvalidSession));
    assert_eq!(m.pvar_reset(s, All), Err(TErr::InvalidSession));
    assert_eq!(m.pvar_read(s, One(h)), Err(TErr::InvalidSession));
    assert_eq!(m.pvar_read(s, All), Err(TErr::InvalidSession));
    assert_eq!(m.pvar_handle_free(s, h), Err(TErr::InvalidSession));
    // Its handles went with it: not usable from another session either.
    let s2 = m.pvar_session_create().unwrap();
    assert_eq!(m.pvar_read(s2, One(h)), Err(TErr::InvalidHandle));
}

/// R-PH-1 / R-CVAR-6: bad index, binding checked like cvars (R-BIND-2).
#[test]
fn r_ph_1_alloc_checks_index_and_binding() {
    let mut m = model(Faults::none());
    let s = m.pvar_session_create().unwrap();
    let n = m.pvar_get_num().unwrap();
    assert_eq!(
        m.pvar_handle_alloc(s, n, BoundObject::None),
        Err(TErr::InvalidIndex)
    );
    assert_eq!(
        m.pvar_handle_alloc(s, -1, BoundObject::None),
        Err(TErr::InvalidIndex)
    );
    let i = idx(&m, "ref_pvar_comm_counter", PvarClass::Counter);
    assert_eq!(
        m.pvar_handle_alloc(s, i, BoundObject::CommWorld),
        Err(TErr::InvalidHandle)
    );
    m.mpi_init().unwrap();
    assert_eq!(
        m.pvar_handle_alloc(s, i, BoundObject::Null),
        Err(TErr::InvalidHandle)
    );
    let (h, count) = m.pvar_handle_alloc(s, i, BoundObject::CommWorld).unwrap();
    assert_eq!(count, 1);
    assert_eq!(m.pvar_read(s, One(h)).unwrap(), 0u64.to_ne_bytes());
    let i = idx(&m, "ref_pvar_counter_array", PvarClass::Counter);
    let (h, count) = m.pvar_handle_alloc(s, i, BoundObject::None).unwrap();
    assert_eq!(count, 3);
    assert_eq!(m.pvar_read(s, One(h)).unwrap().len(), 3 * 8);
}
