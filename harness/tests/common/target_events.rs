//! The event checks of harness/tests/target_api.rs's `events_reach_the_recorder`
//! (MPI-4.1 §15.3.8): the event type it raises, what each delivery read inside its
//! callback, hints through info objects, and instance calls outside a callback.

use crate::target_ref::Ref;
use mpit_target::ffi::{BufOut, Delivery, RawHandle, StrArg};
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::{Datatype, TErr};

/// `ref_event_send`'s index, its info checked.
pub fn send_event(r: &Ref) -> i32 {
    let lib = &r.t.lib;
    let (rc, ev) = lib.event_get_index("ref_event_send").expect("index");
    r.ok(rc);
    // event_get_info decodes its datatype array with the family's width.
    let (rc, info) = lib
        .event_get_info(ev, StrArg::LEN_ONLY, StrArg::LEN_ONLY, 8)
        .expect("info");
    r.ok(rc);
    assert_eq!(info.num_elements, 3);
    let types: Vec<_> = info.datatypes[..3]
        .iter()
        .map(|d| r.t.datatype(*d))
        .collect();
    assert_eq!(
        types,
        vec![
            Some(Datatype::Int),
            Some(Datatype::Int),
            Some(Datatype::Count)
        ]
    );
    assert_eq!(&info.displacements[..3], &[0, 4, 8]);
    ev
}

/// The three deliveries of `ref_event_send` (the third after a dropped instance), each
/// read inside the callback: tag and safety, increasing timestamps, source 0, the
/// elements and their copy.
pub fn check_deliveries(r: &Ref, d: &[Delivery], none: i32) {
    let int = |b: &BufOut| i32::from_le_bytes(b.bytes[..4].try_into().expect("4")) as i64;
    let mut last_ts = i64::MIN;
    let mut seqs = Vec::new();
    for x in d {
        assert_eq!((x.tag, x.safety), (0x7a6, none));
        let (rc, ts) = x.timestamp.expect("timestamp read");
        r.ok(rc);
        assert!(ts > last_ts, "ORDERED source: timestamps increase");
        last_ts = ts;
        assert_eq!(
            x.source.map(|(rc, s)| (r.err(rc), s)),
            Some((ReturnCode::Success, 0))
        );
        assert_eq!(x.elements.len(), 3);
        for (rc, b) in &x.elements {
            r.ok(*rc);
            assert!(!b.overrun);
        }
        // Element k of the n-th instance is n × (k+1) (reference/src/model/event.rs).
        let s = int(&x.elements[0].1);
        assert_eq!(int(&x.elements[1].1), 2 * s);
        assert_eq!(
            i64::from_le_bytes(x.elements[2].1.bytes[..8].try_into().expect("8")),
            3 * s
        );
        seqs.push(s);
        let (rc, copy) = x.copy.clone().expect("copy");
        r.ok(rc);
        assert!(!copy.overrun);
        let joined: Vec<u8> = x
            .elements
            .iter()
            .flat_map(|(_, b)| b.bytes.clone())
            .collect();
        assert_eq!(copy.bytes, joined, "event_copy = the elements at 0, 4, 8");
    }
    assert_eq!(seqs[1], seqs[0] + 1);
    assert_eq!(
        seqs[2],
        seqs[0] + 3,
        "the dropped instance took a sequence number"
    );
}

/// Hints: set on the registration `reg`, read back through a new info object; per
/// callback, a new object for the NONE level; every object freed to MPI_INFO_NULL.
pub fn hints_round_trip(r: &Ref, reg: RawHandle, none: i32) {
    let lib = &r.t.lib;
    let info_null = r.handle("MPI_INFO_NULL");
    let (rc, info) = lib.info_create().expect("info_create");
    r.ok(rc);
    r.ok(lib.info_set(info, "ref_probe", "yes").expect("set").0);
    r.ok(lib.event_handle_set_info(reg, info).expect("set_info").0);
    let (rc, used) = lib.event_handle_get_info(reg).expect("get_info");
    r.ok(rc);
    assert_ne!(used, info_null);
    assert_ne!(used, info, "a new object");
    assert_eq!(
        lib.info_get_string(used, "ref_probe").expect("get").1,
        Some("yes".into())
    );
    let (rc, n) = lib.info_get_nkeys(used).expect("nkeys");
    r.ok(rc);
    let keys: Vec<String> = (0..n)
        .map(|k| lib.info_get_nthkey(used, k).expect("nthkey").1)
        .collect();
    assert!(keys.contains(&"ref_probe".to_string()), "{keys:?}");
    // Per-callback hints: a new object for the NONE level.
    r.ok(lib
        .event_callback_set_info(reg, none, info)
        .expect("cb set_info")
        .0);
    let (rc, cb_used) = lib.event_callback_get_info(reg, none).expect("cb get_info");
    r.ok(rc);
    assert_eq!(
        lib.info_get_string(cb_used, "ref_probe").expect("get").1,
        Some("yes".into())
    );
    for i in [info, used, cb_used] {
        let (rc, after) = lib.info_free(i).expect("free");
        r.ok(rc);
        assert_eq!(after, info_null);
    }
}

/// Instance calls outside a callback: no valid instance (a robustness probe).
pub fn instance_calls_outside_a_callback(r: &Ref) {
    let lib = &r.t.lib;
    assert_eq!(
        r.err(lib.event_read(0xdead, 0, 4).expect("read").0),
        ReturnCode::T(TErr::InvalidHandle)
    );
    assert_ne!(
        r.err(lib.event_get_timestamp(0xdead).expect("ts").0),
        ReturnCode::Success
    );
    assert_ne!(
        r.err(lib.event_get_source(0xdead).expect("src").0),
        ReturnCode::Success
    );
    assert_ne!(
        r.err(lib.event_copy(0xdead, 16).expect("copy").0),
        ReturnCode::Success
    );
}
