//! The target layer's safe wrappers against the reference C-ABI library, loaded in this
//! process: every MPI_T group (cvars, pvars and sessions, events and the recorder,
//! sources, MPI_Info and communicators), with the values the default catalog
//! (specs/catalogs/default.yaml) says. MPI_Init cannot be undone in a process, so the
//! MPI_COMM binding test runs this test binary again as a child per library (the
//! reference and every real target), with the worker environment of its family.
//!
//! The reference keeps one model per process, so the tests here take one lock each.
//! Beside it in common/: `target_ref.rs` (the reference opened in this process),
//! `target_events.rs` (the event checks) and `comm_binding.rs` (the child's side of the
//! MPI_COMM binding test).

#[path = "common/comm_binding.rs"]
mod comm_binding;
mod common;
#[path = "common/target_events.rs"]
mod target_events;
#[path = "common/target_ref.rs"]
mod target_ref;

use comm_binding::{bind_comm, bind_in_child, mpi_side, CHILD_ENV};
use common::{real_targets, reference_lib};
use mpit_target::ffi::{take_deliveries, take_dropped, take_freed, ObjArg, RawHandle, Recording};
use mpit_vocab::catalog::Appears;
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::{Bind, CbSafety, Datatype, PvarClass, TErr};
use mpit_vocab::value::Value;
use std::path::Path;
use target_events::{
    check_deliveries, hints_round_trip, instance_calls_outside_a_callback, send_event,
};
use target_ref::{default_catalog, serial, u64_of, Ref};

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

/// Runs in a child process (see `comm_binding_after_mpi_init`): MPI_Init as a singleton,
/// then every MPI_COMM-bound cvar and pvar bound to MPI_COMM_WORLD through the address
/// of a local variable (R-BIND-3), read, freed.
#[test]
#[ignore = "run by comm_binding_after_mpi_init in a child process"]
fn child_bind_comm() {
    let Some(path) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let report = bind_comm(Path::new(&path));
    println!(
        "BIND-REPORT {}",
        serde_json::to_string(&report).expect("json")
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
