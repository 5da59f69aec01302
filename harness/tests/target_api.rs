//! The target layer's safe wrappers against the reference C-ABI library, loaded in this
//! process: every MPI_T group (cvars, pvars and sessions, events and the recorder,
//! sources, MPI_Info and communicators), with the values the default catalog
//! (specs/catalogs/default.yaml) says. MPI_Init cannot be undone in a process, so the
//! MPI_COMM binding test runs this test binary again as a child per library (the
//! reference and every real target), with the worker environment of its family.
//!
//! The reference keeps one model per process, so the tests here take one lock each.

mod common;

use common::{real_targets, reference_lib};
use mpit_target::ffi::{
    take_deliveries, take_dropped, take_freed, BufOut, Delivery, ObjArg, RawHandle, Recording,
    StrArg,
};
use mpit_target::{AbiChoice, Target};
use mpit_vocab::catalog::{Appears, Catalog};
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::{Bind, CbSafety, Datatype, PvarClass, TErr, ThreadLevel};
use mpit_vocab::value::Value;
use std::path::Path;
use std::process::Command;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// One test at a time in the reference's process-wide model.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The reference opened as a target, with MPI_T initialized (finalized on drop).
struct Ref {
    t: Target,
}

impl Ref {
    fn open() -> Ref {
        let t = Target::open(&reference_lib(), &AbiChoice::Auto, false).expect("open");
        let single = t
            .profile
            .thread_level
            .num(ThreadLevel::Single)
            .expect("single");
        let (rc, _) = t.lib.init_thread(single as i32).expect("init_thread");
        assert_eq!(t.rc(rc), ReturnCode::Success);
        Ref { t }
    }
    fn ok(&self, rc: i32) {
        assert_eq!(self.t.rc(rc), ReturnCode::Success);
    }
    fn err(&self, rc: i32) -> ReturnCode {
        self.t.rc(rc)
    }
    fn handle(&self, name: &str) -> u64 {
        *self.t.handles.get(name).unwrap_or_else(|| panic!("{name}"))
    }
    fn safety(&self, s: CbSafety) -> i32 {
        self.t.profile.cb_safety.num(s).expect("cb_safety") as i32
    }
    fn cvar(&self, name: &str) -> i32 {
        let (rc, i) = self.t.lib.cvar_get_index(name).expect("cvar_get_index");
        self.ok(rc);
        i
    }
    fn pvar(&self, name: &str, class: PvarClass) -> i32 {
        let c = self.t.profile.pvar_class.num(class).expect("class") as i32;
        let (rc, i) = self.t.lib.pvar_get_index(name, c).expect("pvar_get_index");
        self.ok(rc);
        i
    }
}

impl Drop for Ref {
    fn drop(&mut self) {
        self.t.lib.finalize();
    }
}

fn default_catalog() -> Catalog {
    Catalog::default_catalog()
}

fn u64_of(b: &BufOut) -> u64 {
    u64::from_le_bytes(b.bytes[..8].try_into().expect("8 bytes"))
}

/// R-CVAR-6..9: every unbound cvar of the default catalog allocates with its count, reads
/// as the catalog's value, and frees to MPI_T_CVAR_HANDLE_NULL; LOCAL scope writes back,
/// CONSTANT refuses, a freed handle is invalid.
#[test]
fn cvar_handles_read_write_and_free() {
    let _g = serial();
    let r = Ref::open();
    let lib = &r.t.lib;
    let null = r.handle("MPI_T_CVAR_HANDLE_NULL") as RawHandle;
    let cat = default_catalog();
    let mut checked = 0;
    for v in cat
        .cvars
        .iter()
        .filter(|v| v.bind == Bind::NoObject && v.value.is_some() && v.appears == Appears::Always)
    {
        let i = r.cvar(&v.name);
        let (rc, (h, count)) = lib.cvar_handle_alloc(i, ObjArg::Null).expect("alloc");
        r.ok(rc);
        assert_ne!(h, null, "{}", v.name);
        assert_eq!(count, v.count as i32, "{}", v.name);
        let bytes = count as usize * v.datatype.size();
        let (rc, out) = lib.cvar_read(h, bytes).expect("read");
        r.ok(rc);
        assert!(!out.overrun, "{}", v.name);
        assert_eq!(out.bytes.len(), bytes);
        let want = Value::from_cat(v.datatype, count as usize, v.value.as_ref());
        assert_eq!(
            Value::from_bytes(v.datatype, count as usize, &out.bytes),
            want,
            "{}",
            v.name
        );
        let (rc, after) = lib.cvar_handle_free(h).expect("free");
        r.ok(rc);
        assert_eq!(after, null, "R-CVAR-7: {}", v.name);
        checked += 1;
    }
    assert!(checked >= 14, "{checked}");

    // LOCAL scope: a write is read back; then the catalog value is restored.
    let i = r.cvar("ref_cvar_int_local");
    let (_, (h, _)) = lib.cvar_handle_alloc(i, ObjArg::Null).expect("alloc");
    r.ok(lib.cvar_write(h, &7i32.to_le_bytes()).expect("write").0);
    let (_, out) = lib.cvar_read(h, 4).expect("read");
    assert_eq!(out.bytes, 7i32.to_le_bytes());
    r.ok(lib.cvar_write(h, &42i32.to_le_bytes()).expect("write").0);
    assert_eq!(
        lib.cvar_read(h, 4).expect("read").1.bytes,
        42i32.to_le_bytes()
    );
    r.ok(lib.cvar_handle_free(h).expect("free").0);
    // A freed handle is no handle (the reference checks; R-GEN-3 lets others crash).
    assert_eq!(
        r.err(lib.cvar_read(h, 4).expect("read").0),
        ReturnCode::T(TErr::InvalidHandle)
    );
    assert_eq!(
        r.err(lib.cvar_handle_free(h).expect("free").0),
        ReturnCode::T(TErr::InvalidHandle)
    );

    // CONSTANT scope never; not_now_until_init before MPI_Init: not now (R-CVAR-9).
    for (name, code) in [
        ("ref_cvar_constant", TErr::CvarSetNever),
        ("ref_cvar_not_now", TErr::CvarSetNotNow),
    ] {
        let (_, (h, _)) = lib
            .cvar_handle_alloc(r.cvar(name), ObjArg::Null)
            .expect("alloc");
        assert_eq!(
            r.err(lib.cvar_write(h, &[0; 8]).expect("write").0),
            ReturnCode::T(code),
            "{name}"
        );
        r.ok(lib.cvar_handle_free(h).expect("free").0);
    }

    // A string cvar: count includes the NUL (R-TYPE-2), the value ends at it.
    let (_, (h, count)) = lib
        .cvar_handle_alloc(r.cvar("ref_cvar_string"), ObjArg::Null)
        .expect("alloc");
    assert_eq!(count, 64);
    let (_, out) = lib.cvar_read(h, 64).expect("read");
    assert_eq!(&out.bytes[..8], b"shm,tcp\0");
    r.ok(lib.cvar_handle_free(h).expect("free").0);
    // The old one-call helper still agrees.
    let (rc, (n, bytes)) = lib
        .cvar_read_unbound(r.cvar("ref_cvar_array"), 4)
        .expect("read_unbound");
    r.ok(rc);
    assert_eq!(n, 4);
    assert_eq!(
        Value::from_bytes(Datatype::Int, 4, &bytes),
        Value::Ints(vec![1, 2, 3, 4])
    );
}

/// R-SESS-1, R-PH-1, R-PSTART-1/2, R-PRESET-1, R-PRR-1, R-PWRITE-1 through the wrappers,
/// with `MPIT_Reference_simulate` moving the counters.
#[test]
fn pvar_sessions_handles_and_values() {
    let _g = serial();
    let r = Ref::open();
    let lib = &r.t.lib;
    let (snull, hnull) = (
        r.handle("MPI_T_PVAR_SESSION_NULL") as RawHandle,
        r.handle("MPI_T_PVAR_HANDLE_NULL") as RawHandle,
    );
    let all = r.handle("MPI_T_PVAR_ALL_HANDLES") as RawHandle;
    let (rc, s) = lib.pvar_session_create().expect("session");
    r.ok(rc);
    assert_ne!(s, snull);
    let (rc, s2) = lib.pvar_session_create().expect("session");
    r.ok(rc);
    assert_ne!(s2, s);

    // A COUNTER starts at 0, stopped (R-PSTART-1): counts only between start and stop.
    let counter = r.pvar("ref_pvar_counter", PvarClass::Counter);
    let (rc, (h, count)) = lib
        .pvar_handle_alloc(s, counter, ObjArg::Null)
        .expect("alloc");
    r.ok(rc);
    assert_eq!(count, 1);
    let read = |h| {
        let (rc, b) = lib.pvar_read(s, h, 8).expect("read");
        r.ok(rc);
        assert!(!b.overrun);
        u64_of(&b)
    };
    assert_eq!(read(h), 0);
    r.ok(lib.reference_simulate(3).expect("simulate").0);
    assert_eq!(read(h), 0, "stopped");
    r.ok(lib.pvar_start(s, h).expect("start").0);
    r.ok(lib.reference_simulate(5).expect("simulate").0);
    assert_eq!(read(h), 5);
    r.ok(lib.pvar_stop(s, h).expect("stop").0);
    r.ok(lib.reference_simulate(2).expect("simulate").0);
    assert_eq!(read(h), 5, "stopped again");
    r.ok(lib.pvar_reset(s, h).expect("reset").0);
    assert_eq!(read(h), 0, "R-PRESET-1: a counter restarts at 0");
    // readreset (the counter is atomic): the value before, then 0.
    r.ok(lib.pvar_start(s, h).expect("start").0);
    r.ok(lib.reference_simulate(2).expect("simulate").0);
    let (rc, b) = lib.pvar_readreset(s, h, 8).expect("readreset");
    r.ok(rc);
    assert_eq!(u64_of(&b), 2);
    assert_eq!(read(h), 0);
    // A write to a writable counter is read back (R-PWRITE-1).
    r.ok(lib.pvar_write(s, h, &9u64.to_le_bytes()).expect("write").0);
    assert_eq!(read(h), 9);
    // The handle belongs to `s`, not `s2` (R-PH-1: MPI_T_ERR_INVALID_HANDLE).
    assert_eq!(
        r.err(lib.pvar_read(s2, h, 8).expect("read").0),
        ReturnCode::T(TErr::InvalidHandle)
    );

    // A continuous counter (MPI_UNSIGNED) counts from allocation and cannot be started.
    let cont = r.pvar("ref_pvar_counter_continuous", PvarClass::Counter);
    let (_, (hc, _)) = lib.pvar_handle_alloc(s, cont, ObjArg::Null).expect("alloc");
    assert_eq!(
        r.err(lib.pvar_start(s, hc).expect("start").0),
        ReturnCode::T(TErr::PvarNoStartstop)
    );
    r.ok(lib.reference_simulate(4).expect("simulate").0);
    // Not atomic: no readreset (R-PRR-1).
    assert_eq!(
        r.err(lib.pvar_readreset(s, hc, 4).expect("readreset").0),
        ReturnCode::T(TErr::PvarNoAtomic)
    );
    let (_, b) = lib.pvar_read(s, hc, 4).expect("read");
    assert_eq!(u32::from_le_bytes(b.bytes[..4].try_into().expect("4")), 4);
    // ALL_HANDLES: start and stop succeed, ignoring the continuous one (R-PSTART-2).
    r.ok(lib.pvar_start(s, all).expect("start all").0);
    r.ok(lib.pvar_stop(s, all).expect("stop all").0);
    // A read-only LEVEL refuses writes and resets (R-PWRITE-1, R-PRESET-1).
    let level = r.pvar("ref_pvar_level", PvarClass::Level);
    let (_, (hl, _)) = lib
        .pvar_handle_alloc(s, level, ObjArg::Null)
        .expect("alloc");
    assert_eq!(
        r.err(lib.pvar_write(s, hl, &[1, 0, 0, 0]).expect("write").0),
        ReturnCode::T(TErr::PvarNoWrite)
    );
    assert_eq!(
        r.err(lib.pvar_reset(s, hl).expect("reset").0),
        ReturnCode::T(TErr::PvarNoWrite)
    );
    // Three-element counter array: count 3, 24 bytes, no overrun.
    let arr = r.pvar("ref_pvar_counter_array", PvarClass::Counter);
    let (_, (ha, n)) = lib.pvar_handle_alloc(s, arr, ObjArg::Null).expect("alloc");
    assert_eq!(n, 3);
    let (rc, b) = lib.pvar_read(s, ha, 24).expect("read");
    r.ok(rc);
    assert_eq!((b.bytes, b.overrun), (vec![0; 24], false));
    // Reading ALL_HANDLES is not allowed (R-PREAD-1); the reference says so.
    assert_ne!(
        r.err(lib.pvar_read(s, all, 8).expect("read").0),
        ReturnCode::Success
    );

    for h in [h, hc, hl, ha] {
        let (rc, after) = lib.pvar_handle_free(s, h).expect("free");
        r.ok(rc);
        assert_eq!(after, hnull, "R-PH-1");
    }
    for s in [s, s2] {
        let (rc, after) = lib.pvar_session_free(s).expect("free");
        r.ok(rc);
        assert_eq!(after, snull, "R-SESS-1");
    }
    assert_eq!(
        r.err(lib.pvar_session_free(s).expect("free").0),
        ReturnCode::T(TErr::InvalidSession)
    );
}

/// MPI-4.1 §15.3.8: a registration with the recorder receives what
/// `MPIT_Reference_raise_event` raises, with timestamps, source and data read inside the
/// callback; drops are reported to the dropped handler; hints round-trip through info
/// objects; the free callback runs with the tag.
#[test]
fn events_reach_the_recorder() {
    let _g = serial();
    let r = Ref::open();
    let lib = &r.t.lib;
    let info_null = r.handle("MPI_INFO_NULL");
    let (none, asig) = (
        r.safety(CbSafety::None),
        r.safety(CbSafety::AsyncSignalSafe),
    );
    let ev = send_event(&r);

    let (rc, reg) = lib
        .event_handle_alloc(ev, ObjArg::Null, info_null)
        .expect("alloc");
    r.ok(rc);
    let rec = Recording {
        tag: 0x7a6,
        element_sizes: vec![4, 4, 8],
    };
    assert_eq!(rec.copy_bytes(), 16);
    r.ok(lib
        .event_register_callback(reg, none, info_null, Some(rec))
        .expect("register")
        .0);
    r.ok(lib.event_set_dropped_handler(reg, true).expect("dropped").0);
    take_deliveries();
    take_dropped();
    for _ in 0..2 {
        r.ok(lib.reference_raise_event(ev, none).expect("raise").0);
    }
    // Required ASYNC_SIGNAL_SAFE, only a NONE callback: dropped (§15.3.8.4), reported
    // before the next event of that source (§15.3.8.5).
    r.ok(lib.reference_raise_event(ev, asig).expect("raise").0);
    r.ok(lib.reference_raise_event(ev, none).expect("raise").0);
    let d = take_deliveries();
    assert_eq!(d.len(), 3, "{d:?}");
    assert_eq!(take_dropped(), vec![(0x7a6, 1, 0)]);
    check_deliveries(&r, &d, none);

    // With the handler removed (NULL), drops are neither recorded nor reported
    // (§15.3.8.5); the next event is still delivered.
    r.ok(lib
        .event_set_dropped_handler(reg, false)
        .expect("dropped")
        .0);
    r.ok(lib.reference_raise_event(ev, asig).expect("raise").0);
    r.ok(lib.reference_raise_event(ev, none).expect("raise").0);
    assert_eq!(take_deliveries().len(), 1);
    assert_eq!(take_dropped(), vec![]);

    hints_round_trip(&r, reg, none);

    // A NULL callback removes the only one: nothing is delivered any more.
    r.ok(lib
        .event_register_callback(reg, none, info_null, None)
        .expect("unregister")
        .0);
    r.ok(lib.reference_raise_event(ev, none).expect("raise").0);
    assert_eq!(take_deliveries(), vec![]);

    // Freeing runs the free callback with the tag; a second free is INVALID_HANDLE.
    take_freed();
    let (rc, same) = lib.event_handle_free(reg, true).expect("free");
    r.ok(rc);
    assert_eq!(same, reg, "passed by value");
    assert_eq!(take_freed(), vec![0x7a6]);
    assert_eq!(
        r.err(lib.event_handle_free(reg, false).expect("free").0),
        ReturnCode::T(TErr::InvalidHandle)
    );
    instance_calls_outside_a_callback(&r);
}

/// `ref_event_send`'s index, its info checked.
fn send_event(r: &Ref) -> i32 {
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
fn check_deliveries(r: &Ref, d: &[Delivery], none: i32) {
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
fn hints_round_trip(r: &Ref, reg: RawHandle, none: i32) {
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
fn instance_calls_outside_a_callback(r: &Ref) {
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

/// Sources (§15.3.8.1): ad-hoc timestamps, NOT_SUPPORTED, INVALID_INDEX, and the info
/// objects of source_get_info / event_get_info (new, with the catalog's hints).
#[test]
fn sources_timestamps_and_info_objects() {
    let _g = serial();
    let r = Ref::open();
    let lib = &r.t.lib;
    let info_null = r.handle("MPI_INFO_NULL");
    let (rc, a) = lib.source_get_timestamp(0).expect("ts");
    r.ok(rc);
    let (rc, b) = lib.source_get_timestamp(0).expect("ts");
    r.ok(rc);
    assert!(b > a, "{a} then {b}");
    assert_eq!(
        r.err(lib.source_get_timestamp(1).expect("ts").0),
        ReturnCode::T(TErr::NotSupported)
    );
    assert_eq!(
        r.err(lib.source_get_timestamp(99).expect("ts").0),
        ReturnCode::T(TErr::InvalidIndex)
    );
    for (obj, key, value) in [
        (lib.source_get_info_object(0), "ref_hint", "progress"),
        (
            lib.event_get_info_object(lib.event_get_index("ref_event_send").expect("i").1),
            "ref_event_hint",
            "send",
        ),
    ] {
        let (rc, info) = obj.expect("info object");
        r.ok(rc);
        assert_ne!(info, info_null, "a new info object, never MPI_INFO_NULL");
        assert_eq!(lib.info_get_nkeys(info).expect("nkeys").1, 1);
        assert_eq!(lib.info_get_nthkey(info, 0).expect("key").1, key);
        assert_eq!(
            lib.info_get_string(info, key).expect("get").1,
            Some(value.into())
        );
        assert_eq!(lib.info_get_string(info, "nope").expect("get").1, None);
        r.ok(lib.info_free(info).expect("free").0);
    }
}

/// The MPI side before MPI_Init (this process never calls it): flags, a communicator
/// query that must fail, and the entry point table.
#[test]
fn mpi_side_and_entry_points() {
    let _g = serial();
    let r = Ref::open();
    let lib = &r.t.lib;
    assert_eq!(
        lib.initialized().map(|(rc, f)| (r.err(rc), f)),
        Some((ReturnCode::Success, false))
    );
    assert_eq!(
        lib.finalized().map(|(rc, f)| (r.err(rc), f)),
        Some((ReturnCode::Success, false))
    );
    let world = r.handle("MPI_COMM_WORLD");
    assert_ne!(
        r.err(lib.comm_size(world).expect("size").0),
        ReturnCode::Success
    );
    assert_eq!(
        lib.handle_width(),
        8,
        "the standard ABI's handles are pointer-sized"
    );
    let eps = lib.entry_points();
    assert_eq!(
        eps.iter().filter(|(n, _)| n.starts_with("MPI_T_")).count(),
        51
    );
    assert!(
        eps.iter().all(|(_, ok)| *ok),
        "the reference exports all: {eps:?}"
    );
}

/// What the child reports about one variable bound to MPI_COMM_WORLD.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Bound {
    kind: String,
    name: String,
    alloc: String,
    count: i32,
    read: Option<String>,
    value: Vec<u8>,
    overrun: bool,
    free: Option<String>,
    nulled: bool,
}

/// The child's whole report.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct BindReport {
    comm_rank: Option<(String, i32)>,
    comm_size: Option<(String, i32)>,
    bound: Vec<Bound>,
    /// Binding with a NULL obj_handle / to MPI_COMM_NULL (reference only).
    refused: Vec<(String, String)>,
    /// Binding to MPI_COMM_WORLD before MPI_Init (R-BIND-2: erroneous; reference only).
    before_init: Vec<(String, String)>,
    /// MPI_Initialized after MPI_Init, MPI_Finalized after MPI_Finalize.
    initialized: Option<bool>,
    finalized: Option<bool>,
    /// An MPI_Info round trip after MPI_Init (handles passed by value and returned
    /// through 8-byte slots with the family's width): create, set `mpit_key`, nkeys,
    /// nth key, get_string (None where MPI-4.0's MPI_Info_get_string is missing), free
    /// and whether the variable became MPI_INFO_NULL.
    info: Vec<String>,
}

/// (index, name, datatype) of the variables bound to communicators.
type Vars = Vec<(i32, String, Datatype)>;

const CHILD_ENV: &str = "MPIT_TARGET_API_CHILD_LIB";

/// Runs in a child process (see `comm_binding_after_mpi_init`): MPI_Init as a singleton,
/// then every MPI_COMM-bound cvar and pvar bound to MPI_COMM_WORLD through the address
/// of a local variable (R-BIND-3), read, freed.
#[test]
#[ignore = "run by comm_binding_after_mpi_init in a child process"]
fn child_bind_comm() {
    let Some(path) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let t = Target::open(Path::new(&path), &AbiChoice::Auto, false).expect("open");
    let lib = &t.lib;
    let ok = |rc: i32| succeeded(&t, rc);
    let name = |rc: i32| rc_name(&t, rc);
    let single = t
        .profile
        .thread_level
        .num(ThreadLevel::Single)
        .expect("single") as i32;
    let world = *t.handles.get("MPI_COMM_WORLD").expect("MPI_COMM_WORLD");
    let width = lib.handle_width();
    let is_reference = lib.exports("MPIT_Reference_simulate");
    let comm_bind = t.profile.bind.num(Bind::MpiComm).map(|b| b as i32);
    let local = ObjArg::Local {
        value: world,
        width,
    };
    let cnull = *t.handles.get("MPI_T_CVAR_HANDLE_NULL").expect("cvar null") as RawHandle;
    let pnull = *t.handles.get("MPI_T_PVAR_HANDLE_NULL").expect("pvar null") as RawHandle;
    let mut report = BindReport {
        comm_rank: None,
        comm_size: None,
        bound: Vec::new(),
        refused: Vec::new(),
        before_init: Vec::new(),
        initialized: None,
        finalized: None,
        info: Vec::new(),
    };
    if is_reference {
        // R-BIND-2: before MPI_Init MPI_COMM_WORLD is no valid handle; the reference refuses.
        assert!(ok(lib.init_thread(single).expect("init").0));
        let (cv, _) = comm_vars(&t, comm_bind);
        for (i, n, _) in &cv {
            let (rc, (h, _)) = lib.cvar_handle_alloc(*i, local).expect("alloc");
            report.before_init.push((n.clone(), name(rc)));
            if ok(rc) {
                lib.cvar_handle_free(h);
            }
        }
        lib.finalize();
    }
    assert!(ok(lib.mpi_init().expect("MPI_Init").0), "MPI_Init");
    report.comm_rank = lib.comm_rank(world).map(|(rc, v)| (name(rc), v));
    report.comm_size = lib.comm_size(world).map(|(rc, v)| (name(rc), v));
    report.initialized = lib.initialized().map(|(_, f)| f);
    report.info = info_round_trip(&t);
    assert!(ok(lib.init_thread(single).expect("init").0));
    let (cv, pv) = comm_vars(&t, comm_bind);
    for v in &cv {
        report.bound.push(bind_cvar(&t, v, local, cnull));
        if is_reference {
            for (what, obj) in [
                ("NULL obj_handle", ObjArg::Null),
                (
                    "MPI_COMM_NULL",
                    ObjArg::Local {
                        value: *t.handles.get("MPI_COMM_NULL").expect("COMM_NULL"),
                        width,
                    },
                ),
            ] {
                let (rc, (h, _)) = lib.cvar_handle_alloc(v.0, obj).expect("alloc");
                report.refused.push((what.into(), name(rc)));
                if ok(rc) {
                    lib.cvar_handle_free(h);
                }
            }
        }
    }
    let (rc, s) = lib.pvar_session_create().expect("session");
    assert!(ok(rc));
    for v in &pv {
        report.bound.push(bind_pvar(&t, s, v, local, pnull));
    }
    lib.pvar_session_free(s);
    lib.finalize();
    lib.mpi_finalize();
    report.finalized = lib.finalized().map(|(_, f)| f);
    println!(
        "BIND-REPORT {}",
        serde_json::to_string(&report).expect("json")
    );
}

/// `rc` is MPI_SUCCESS in the target's ABI.
fn succeeded(t: &Target, rc: i32) -> bool {
    t.rc(rc) == ReturnCode::Success
}

/// `rc` by its name in the target's ABI.
fn rc_name(t: &Target, rc: i32) -> String {
    t.rc(rc).to_string()
}

/// The cvars and the pvars bound to communicators (`comm_bind`, the family's
/// MPI_T_BIND_MPI_COMM), whose datatype the profile names.
fn comm_vars(t: &Target, comm_bind: Option<i32>) -> (Vars, Vars) {
    let (mut cv, mut pv) = (Vec::new(), Vec::new());
    let big = StrArg::sized(4096);
    for i in 0..t.lib.cvar_get_num().map_or(0, |(_, n)| n) {
        if let Some((0, o)) = t.lib.cvar_get_info(i, big, StrArg::LEN_ONLY) {
            if Some(o.bind) == comm_bind {
                if let Some(dt) = t.datatype(o.datatype) {
                    cv.push((i, o.name.text().unwrap_or_default(), dt));
                }
            }
        }
    }
    for i in 0..t.lib.pvar_get_num().map_or(0, |(_, n)| n) {
        if let Some((0, o)) = t.lib.pvar_get_info(i, big, StrArg::LEN_ONLY) {
            if Some(o.bind) == comm_bind {
                if let Some(dt) = t.datatype(o.datatype) {
                    pv.push((i, o.name.text().unwrap_or_default(), dt));
                }
            }
        }
    }
    (cv, pv)
}

/// The MPI_Info round trip of [`BindReport::info`] (empty when MPI_Info_create is not
/// exported).
fn info_round_trip(t: &Target) -> Vec<String> {
    let lib = &t.lib;
    let name = |rc: i32| rc_name(t, rc);
    let info_null = *t.handles.get("MPI_INFO_NULL").expect("MPI_INFO_NULL");
    let mut report = Vec::new();
    if let Some((rc, info)) = lib.info_create() {
        report.push(format!("create {}", name(rc)));
        report.push(format!("null {}", info == info_null));
        let set = lib
            .info_set(info, "mpit_key", "mpit value")
            .map(|(rc, _)| name(rc));
        report.push(format!("set {set:?}"));
        let n = lib.info_get_nkeys(info).map(|(rc, n)| (name(rc), n));
        report.push(format!("nkeys {n:?}"));
        let k = lib.info_get_nthkey(info, 0).map(|(rc, k)| (name(rc), k));
        report.push(format!("key {k:?}"));
        let v = lib.info_get_string(info, "mpit_key").map(|(_, v)| v);
        report.push(format!("value {v:?}"));
        let f = lib
            .info_free(info)
            .map(|(rc, after)| (name(rc), after == info_null));
        report.push(format!("free {f:?}"));
    }
    report
}

/// A cvar bound to `obj`: allocated, and if that succeeded read and freed (to `cnull`,
/// MPI_T_CVAR_HANDLE_NULL).
fn bind_cvar(
    t: &Target,
    (i, n, dt): &(i32, String, Datatype),
    obj: ObjArg,
    cnull: RawHandle,
) -> Bound {
    let lib = &t.lib;
    let (rc, (h, count)) = lib.cvar_handle_alloc(*i, obj).expect("alloc");
    let mut b = Bound {
        kind: "cvar".into(),
        name: n.clone(),
        alloc: rc_name(t, rc),
        count,
        read: None,
        value: Vec::new(),
        overrun: false,
        free: None,
        nulled: false,
    };
    if succeeded(t, rc) {
        let (rc, out) = lib
            .cvar_read(h, count.clamp(0, 1 << 16) as usize * dt.size())
            .expect("read");
        (b.read, b.value, b.overrun) = (Some(rc_name(t, rc)), out.bytes, out.overrun);
        let (rc, after) = lib.cvar_handle_free(h).expect("free");
        (b.free, b.nulled) = (Some(rc_name(t, rc)), after == cnull);
    }
    b
}

/// A pvar of session `s` bound to `obj`: allocated, and if that succeeded read and freed
/// (to `pnull`, MPI_T_PVAR_HANDLE_NULL).
fn bind_pvar(
    t: &Target,
    s: RawHandle,
    (i, n, dt): &(i32, String, Datatype),
    obj: ObjArg,
    pnull: RawHandle,
) -> Bound {
    let lib = &t.lib;
    let (rc, (h, count)) = lib.pvar_handle_alloc(s, *i, obj).expect("alloc");
    let mut b = Bound {
        kind: "pvar".into(),
        name: n.clone(),
        alloc: rc_name(t, rc),
        count,
        read: None,
        value: Vec::new(),
        overrun: false,
        free: None,
        nulled: false,
    };
    if succeeded(t, rc) {
        let (rc, out) = lib
            .pvar_read(s, h, count.clamp(0, 1 << 16) as usize * dt.size())
            .expect("read");
        (b.read, b.value, b.overrun) = (Some(rc_name(t, rc)), out.bytes, out.overrun);
        let (rc, after) = lib.pvar_handle_free(s, h).expect("free");
        (b.free, b.nulled) = (Some(rc_name(t, rc)), after == pnull);
    }
    b
}

/// Runs `child_bind_comm` for `lib` in a child process with its family's worker
/// environment (the private directory is removed when the child has ended).
fn bind_in_child(lib: &Path) -> BindReport {
    let env = mpit_target::worker_env(lib);
    let o = Command::new(std::env::current_exe().expect("test exe"))
        .args(["child_bind_comm", "--exact", "--ignored", "--nocapture"])
        .args(["--test-threads", "1"])
        .env(CHILD_ENV, lib)
        .envs(env.vars())
        .output()
        .expect("run child");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{}: {out}{}",
        lib.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let line = out
        .lines()
        .find_map(|l| l.find("BIND-REPORT ").map(|i| &l[i + 12..]))
        .unwrap_or_else(|| panic!("{}: no report: {out}", lib.display()));
    serde_json::from_str(line).expect("report")
}

/// The MPI-side checks of a child's report: MPI_Initialized / MPI_Finalized, and the
/// info round trip (with the family's handle width: MPICH's MPI_Info is an int).
fn mpi_side(r: &BindReport, name: &str, get_string: bool) {
    assert_eq!(
        (r.initialized, r.finalized),
        (Some(true), Some(true)),
        "{name}"
    );
    let value = if get_string {
        "value Some(Some(\"mpit value\"))"
    } else {
        "value None"
    };
    assert_eq!(
        r.info,
        [
            "create MPI_SUCCESS",
            "null false",
            "set Some(\"MPI_SUCCESS\")",
            "nkeys Some((\"MPI_SUCCESS\", 1))",
            "key Some((\"MPI_SUCCESS\", \"mpit_key\"))",
            value,
            "free Some((\"MPI_SUCCESS\", true))",
        ],
        "{name}"
    );
}

/// R-BIND-3 after MPI_Init: on the reference, `ref_cvar_bind_comm` (count: the size of
/// MPI_COMM_WORLD, 1) and `ref_pvar_comm_counter` bind to MPI_COMM_WORLD through a local
/// variable, NULL and MPI_COMM_NULL are refused, and so is MPI_COMM_WORLD before
/// MPI_Init (R-BIND-2). On every real target, each MPI_COMM-bound variable allocates,
/// reads and frees (Open MPI 4 and 5 have two such pvars after MPI_Init; the MPICH
/// family and Intel none).
#[test]
fn comm_binding_after_mpi_init() {
    let r = bind_in_child(&reference_lib());
    assert_eq!(r.comm_rank, Some(("MPI_SUCCESS".into(), 0)));
    assert_eq!(r.comm_size, Some(("MPI_SUCCESS".into(), 1)));
    mpi_side(&r, "reference", true);
    let names: Vec<_> = r.bound.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["ref_cvar_bind_comm", "ref_pvar_comm_counter"]);
    for b in &r.bound {
        assert_eq!(b.alloc, "MPI_SUCCESS", "{b:?}");
        assert_eq!(b.count, 1, "{b:?}");
        assert_eq!(b.read.as_deref(), Some("MPI_SUCCESS"), "{b:?}");
        assert!(b.value.iter().all(|x| *x == 0) && !b.overrun, "{b:?}");
        assert_eq!(b.free.as_deref(), Some("MPI_SUCCESS"));
        assert!(b.nulled);
    }
    assert_eq!(r.bound[0].value.len(), 4);
    assert_eq!(r.bound[1].value.len(), 8);
    assert_eq!(
        r.refused,
        vec![
            (
                "NULL obj_handle".to_string(),
                "MPI_T_ERR_INVALID_HANDLE".to_string()
            ),
            (
                "MPI_COMM_NULL".to_string(),
                "MPI_T_ERR_INVALID_HANDLE".to_string()
            )
        ]
    );
    assert_eq!(
        r.before_init,
        vec![(
            "ref_cvar_bind_comm".to_string(),
            "MPI_T_ERR_INVALID_HANDLE".to_string()
        )]
    );

    let Some(targets) = real_targets() else {
        return;
    };
    for (name, path, abi) in &targets {
        let r = bind_in_child(Path::new(path));
        assert_eq!(r.comm_rank, Some(("MPI_SUCCESS".into(), 0)), "{name}");
        assert_eq!(r.comm_size, Some(("MPI_SUCCESS".into(), 1)), "{name}");
        // Open MPI 4.1 has no MPI_Info_get_string (MPI-4.0); Open MPI 5 has it.
        mpi_side(&r, name, name != "debian-openmpi");
        let bound: Vec<String> = r
            .bound
            .iter()
            .map(|b| format!("{} {}", b.kind, b.name))
            .collect();
        eprintln!("{name}: MPI_COMM-bound after MPI_Init: {bound:?}");
        if abi == "openmpi" {
            assert_eq!(
                bound,
                [
                    "pvar pml_ob1_unexpected_msgq_length",
                    "pvar pml_ob1_posted_recvq_length"
                ],
                "{name}"
            );
        } else {
            assert!(bound.is_empty(), "{name}: {bound:?}");
        }
        for b in &r.bound {
            assert_eq!(b.alloc, "MPI_SUCCESS", "{name}: {b:?}");
            assert!(b.count >= 1, "{name}: {b:?}");
            assert_eq!(b.read.as_deref(), Some("MPI_SUCCESS"), "{name}: {b:?}");
            assert!(!b.overrun, "{name}: {b:?}");
            assert_eq!(b.free.as_deref(), Some("MPI_SUCCESS"), "{name}: {b:?}");
            assert!(b.nulled, "{name}: R-PH-1 {b:?}");
        }
    }
}

/// The ELF dynamic-symbol lookup the supervisor uses for the worker environment sees
/// each family's tell-tale symbol in the real libraries.
#[test]
fn worker_environment_follows_the_family() {
    let w = mpit_target::worker_env(&reference_lib());
    assert!(w.families.is_empty() && w.dir().is_none());
    let Some(targets) = real_targets() else {
        return;
    };
    for (name, path, abi) in &targets {
        let w = mpit_target::worker_env(Path::new(path));
        let dir = w.dir().map(Path::to_path_buf);
        if abi == "openmpi" {
            assert_eq!(w.families, ["openmpi"], "{name}");
            let d = dir.clone().expect("a private directory");
            assert!(d.is_dir());
            let vars: Vec<(String, String)> = w
                .vars()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            assert!(
                vars.contains(&("TMPDIR".into(), d.display().to_string())),
                "{vars:?}"
            );
            assert!(
                vars.contains(&(
                    "OMPI_MCA_btl_sm_backing_directory".into(),
                    d.display().to_string()
                )),
                "{vars:?}"
            );
        } else {
            assert!(w.families.is_empty() && dir.is_none(), "{name}");
        }
        drop(w);
        if let Some(d) = dir {
            assert!(!d.exists(), "{name}: removed on drop");
        }
    }
    // For the record: the ELF lookup itself.
    assert_eq!(
        mpit_target::elf::defines_symbol(&reference_lib(), "MPI_T_init_thread"),
        Some(true)
    );
}
