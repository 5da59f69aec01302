//! The MPI_COMM binding check of harness/tests/target_api.rs: MPI_Init cannot be undone
//! in a process, so `comm_binding_after_mpi_init` runs that test binary again per
//! library (`bind_in_child`), whose ignored test `child_bind_comm` binds every
//! MPI_COMM-bound variable after MPI_Init (`bind_comm`) and prints what it saw, a
//! `BindReport`.

use mpit_target::ffi::{ObjArg, RawHandle, StrArg};
use mpit_target::{AbiChoice, Target};
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::{Bind, Datatype, ThreadLevel};
use std::path::Path;
use std::process::Command;

/// What the child reports about one variable bound to MPI_COMM_WORLD.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Bound {
    pub kind: String,
    pub name: String,
    pub alloc: String,
    pub count: i32,
    pub read: Option<String>,
    pub value: Vec<u8>,
    pub overrun: bool,
    pub free: Option<String>,
    pub nulled: bool,
}

impl Bound {
    /// A handle allocation's answer, before any read or free.
    fn allocated(kind: &str, name: &str, alloc: String, count: i32) -> Bound {
        Bound {
            kind: kind.into(),
            name: name.into(),
            alloc,
            count,
            read: None,
            value: Vec::new(),
            overrun: false,
            free: None,
            nulled: false,
        }
    }
}

/// The child's whole report.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct BindReport {
    pub comm_rank: Option<(String, i32)>,
    pub comm_size: Option<(String, i32)>,
    pub bound: Vec<Bound>,
    /// Binding with a NULL obj_handle / to MPI_COMM_NULL (reference only).
    pub refused: Vec<(String, String)>,
    /// Binding to MPI_COMM_WORLD before MPI_Init (R-BIND-2: erroneous; reference only).
    pub before_init: Vec<(String, String)>,
    /// MPI_Initialized after MPI_Init, MPI_Finalized after MPI_Finalize.
    pub initialized: Option<bool>,
    pub finalized: Option<bool>,
    /// An MPI_Info round trip after MPI_Init (handles passed by value and returned
    /// through 8-byte slots with the family's width): create, set `mpit_key`, nkeys,
    /// nth key, get_string (None where MPI-4.0's MPI_Info_get_string is missing), free
    /// and whether the variable became MPI_INFO_NULL.
    pub info: Vec<String>,
}

/// (index, name, datatype) of the variables bound to communicators.
type Vars = Vec<(i32, String, Datatype)>;

pub const CHILD_ENV: &str = "MPIT_TARGET_API_CHILD_LIB";

/// The child's side, on the library at `path`: MPI_Init as a singleton, then every
/// MPI_COMM-bound cvar and pvar bound to MPI_COMM_WORLD through the address of a local
/// variable (R-BIND-3), read, freed.
pub fn bind_comm(path: &Path) -> BindReport {
    let t = Target::open(path, &AbiChoice::Auto, false).expect("open");
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
    report
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
    let mut b = Bound::allocated("cvar", n, rc_name(t, rc), count);
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
    let mut b = Bound::allocated("pvar", n, rc_name(t, rc), count);
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
pub fn bind_in_child(lib: &Path) -> BindReport {
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
pub fn mpi_side(r: &BindReport, name: &str, get_string: bool) {
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
