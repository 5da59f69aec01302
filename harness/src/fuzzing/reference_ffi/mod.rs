//! Oracle `reference_ffi`: arbitrary MPI_T call sequences with arbitrary handles,
//! indices and buffer sizes against the reference cdylib, loaded in-process through
//! [`Target::open`] and called through the case executor's engine
//! (`exec::calls::invoke`, the safe wrappers of `target::ffi`).
//!
//! An input is a sequence of functions of the case language's table
//! (`cases::funcs::Func`) with one argument per parameter, decoded by the parameter's
//! role (`input`, `roles`); what the oracle holds single functions to is the small
//! table of `judge::policy`; everything else is checked by the table's columns and the OUT
//! names (`ops::checks`).
//!
//! The reference promises (reference/src/ffi/mod.rs) that every handle value goes
//! through its registries, so a stale or garbage handle gives an error code, never
//! undefined behaviour, and that no NULL pointer is dereferenced. The oracle holds it
//! to that, and to what the standard asks of every call whatever its arguments:
//! * the process never crashes (a crash is libFuzzer's finding);
//! * every MPI_T return code is MPI_SUCCESS or an `MPI_T_ERR_*` of the loaded ABI
//!   (R-RC-1, R-RC-2), never an MPI error class (R-RC-3) or an unknown number; an MPI
//!   function's is MPI_SUCCESS or an error class (MPI-4.1 §9.4);
//! * strings keep the convention inside the buffer given (R-STR-1..4) and a
//!   `*_get_info` string's length is the one a NULL buffer got (R-STR-2, R-STR-5); data
//!   stays within count × datatype size (R-CVAR-8, R-PREAD-1), member lists within
//!   `len` (R-CAT-1), and `*_free` leaves the null handle (R-CVAR-7, R-SESS-1, R-PH-1);
//! * a freed cvar handle, an event instance whose callback returned, and
//!   `MPI_T_PVAR_ALL_HANDLES` in read/readreset/write are refused (R-CVAR-7, MPI-4.1
//!   §15.3.8.6, R-PREAD-1);
//! * MPI_T stays initialized while inits outnumber finalizes (R-INIT-1, R-FIN-1).
//!
//! MPI_T stays initialized: the fixture makes one `MPI_T_init_thread` when it opens the
//! library and never finalizes it, so calls reach their argument checks instead of
//! stopping at MPI_T_ERR_NOT_INITIALIZED. An input may init and finalize, but never
//! finalize more often than it initialized; at its end it frees every handle it still
//! holds and finalizes its own inits, so inputs replay the same in any order.
//! `MPI_Init`/`MPI_Finalize` are not called: MPI cannot be initialized again after
//! `MPI_Finalize`, so one input would change what every later one sees.

mod input;
mod ops;
mod roles;

use super::{library_from_env, setup_failed, FuzzSetupError, ENV_REFERENCE_LIB};
use crate::exec::calls::{self, Arg, Args, NoHandles, Outs};
use crate::judge::value::Val;
use arbitrary::Unstructured;
use mpit_repro::table::null_of;
use mpit_spec::cases::funcs::{Func, Group};
use mpit_spec::kind::Kind;
use mpit_target::ffi::{BufOut, StrArg, StrOut, FILL};
use mpit_target::{AbiChoice, Predefined, Target};
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::Datatype;
use mpit_vocab::spec::ThreadLevel;
use roles::{Plan, Table};
use std::borrow::Cow;
use std::path::Path;
use std::sync::{Mutex, OnceLock, PoisonError};

/// Calls per input: enough for alloc → use → free chains with noise in between, few
/// enough that one input stays well under a millisecond.
const MAX_OPS: usize = 64;

/// The loaded library and what the oracle needs to know about its catalog.
pub struct Fixture {
    target: Target,
    path: String,
    /// The functions an input picks from (`roles::callable`), each with its plan.
    callable: Vec<Plan>,
    /// The function whose success ends one initialization (`Func::depth` -1).
    ends_init: Option<Plan>,
    /// The `*_free` of each pool (`roles::freed_param`), for the end of an input.
    frees: Vec<Plan>,
    /// Element size of each variable, by kind (at [`Kind::index`]) and index (8 when
    /// the datatype is unknown; empty for kinds without a datatype).
    elem: [Vec<usize>; 5],
    /// Element sizes of each event type, for the recorder's reads inside callbacks.
    event_elems: Vec<Vec<usize>>,
    /// Names by kind (at [`Kind::index`]), for `*_get_index`.
    names: [Vec<String>; 5],
    /// The (name, description) lengths `*_get_info` returned for a NULL buffer, by
    /// kind (at [`Kind::index`]) and index: every later call returns the same (R-STR-2:
    /// strlen+1 whatever the buffer; R-STR-5: the same internal array each time).
    lens: [Vec<(Option<i32>, Option<i32>)>; 5],
    thread_levels: Vec<i64>,
    cb_safety: Vec<i64>,
    pvar_classes: Vec<i64>,
    /// Every predefined handle value of the profile (nulls, communicators, datatypes).
    predefined: Vec<u64>,
    /// The NULL handles and ALL_HANDLES of the target (`MPI_T_PVAR_ALL_HANDLES` read,
    /// readreset and write must refuse).
    nulls: Predefined,
    /// Every number the profile names a return code, with what `Target::rc` decodes
    /// it to, sorted (`Fixture::rc`).
    codes: Vec<(i32, ReturnCode)>,
    /// One input at a time: the recorder of event deliveries is process-wide, and the
    /// init balance is per input. It keeps the storage of an input's run and decoded
    /// values for the next input (`ops::Held`).
    one: Mutex<(ops::Held, Vec<input::Gen>)>,
}

/// A string OUT value of an answer.
fn out_str(o: &calls::OutMap, k: &str) -> Option<StrOut> {
    match o.get(k) {
        Some(Val::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

/// An integer OUT value of an answer.
fn out_int(o: &calls::OutMap, k: &str) -> Option<i128> {
    o.get(k).and_then(Val::int)
}

impl Fixture {
    /// Opens the library (`var` names the variable it came from, for the error), makes
    /// the held `MPI_T_init_thread` and reads the catalog, every call through the
    /// case executor's engine (`exec::calls::invoke`).
    pub fn open(path: &Path, var: &str) -> Result<Fixture, FuzzSetupError> {
        let shown = path.display().to_string();
        let target =
            Target::open(path, &AbiChoice::Auto, false).map_err(|e| FuzzSetupError::Open {
                var: var.to_string(),
                path: shown.clone(),
                reason: e.to_string(),
            })?;
        let init_failed = |what: String| FuzzSetupError::Init {
            path: shown.clone(),
            what,
        };
        let invoke = |f: Func, args: &[(&'static str, Arg)]| -> Outs {
            calls::invoke(&target, &NoHandles, f, &Args::List(args))
        };
        let ok = |rc: i32| target.rc(rc) == ReturnCode::Success;
        let single = target
            .profile
            .thread_level
            .num(ThreadLevel::Single)
            .unwrap_or(0);
        // R-INIT-1: the function whose success adds an initialization.
        let init = Func::ALL
            .iter()
            .copied()
            .find(|f| f.group() == Group::MpiT && f.depth() > 0);
        match init.and_then(|f| invoke(f, &[("required", Arg::Int(single))])) {
            None => return Err(init_failed("exports no MPI_T_init_thread".into())),
            Some((rc, _)) if !ok(rc) => {
                return Err(init_failed(format!(
                    "MPI_T_init_thread(MPI_THREAD_SINGLE) returned {}",
                    target.rc(rc)
                )))
            }
            Some(_) => {}
        }
        let size = |raw: Option<i128>| {
            raw.and_then(|r| target.datatype(r as u64))
                .map_or(8, |d| d.size())
        };
        let mut elem: [Vec<usize>; 5] = Default::default();
        let mut event_elems = vec![];
        let mut names: [Vec<String>; 5] = Default::default();
        let mut lens: [Vec<(Option<i32>, Option<i32>)>; 5] = Default::default();
        for k in Kind::ALL {
            let num = invoke(k.get_num(), &[])
                .filter(|(rc, _)| ok(*rc))
                .and_then(|(_, o)| out_int(&o, "num"))
                .map_or(0, |n| n.clamp(0, 100_000) as i64);
            for i in 0..num {
                let len_only = [
                    ("index", Arg::Int(i)),
                    ("name", Arg::Str(StrArg::LEN_ONLY)),
                    ("desc", Arg::Str(StrArg::LEN_ONLY)),
                    ("capacity", Arg::Int(0)),
                ];
                let len = |o: &calls::OutMap, n: &str| out_str(o, n).and_then(|s| s.len);
                lens[k.index()].push(match invoke(k.get_info(), &len_only) {
                    Some((rc, o)) if ok(rc) => (len(&o, "name"), len(&o, "desc")),
                    _ => (None, None),
                });
                let named = [
                    ("index", Arg::Int(i)),
                    ("name", Arg::Str(StrArg::sized(256))),
                    ("desc", Arg::Str(StrArg::LEN_ONLY)),
                    ("capacity", Arg::Int(64)),
                ];
                let o = invoke(k.get_info(), &named)
                    .map(|(_, o)| o)
                    .unwrap_or_default();
                if o.get("datatype").is_some() {
                    elem[k.index()].push(size(out_int(&o, "datatype")));
                }
                if let Some(Val::List(dts)) = o.get("datatypes") {
                    let n = out_int(&o, "num_elements").unwrap_or(0).max(0) as usize;
                    event_elems.push(dts.iter().take(n).map(|d| size(d.int())).collect());
                } else if k == Kind::Event {
                    event_elems.push(vec![]);
                }
                let text = out_str(&o, "name").and_then(|s| s.text());
                names[k.index()].push(text.unwrap_or_default());
            }
        }
        let nulls = target.predefined;
        let p = &target.profile;
        let named = [p.success]
            .into_iter()
            .chain(p.t_err.iter().filter_map(|(_, v)| *v));
        let mut codes: Vec<(i32, ReturnCode)> = named
            .chain(p.mpi_err.values().copied())
            .filter_map(|n| i32::try_from(n).ok())
            .map(|n| (n, target.rc(n)))
            .collect();
        codes.sort_by_key(|c| c.0);
        codes.dedup_by_key(|c| c.0);
        let mut predefined: Vec<u64> = target.handles.values().copied().collect();
        predefined.extend(
            Datatype::ALL
                .iter()
                .filter_map(|d| target.datatype_handle(*d)),
        );
        let defined = |m: Vec<i64>| if m.is_empty() { vec![0] } else { m };
        let mut callable: Vec<Plan> = roles::callable().into_iter().map(Plan::new).collect();
        // The constant is named by the table (`null_of`): looked up by that name.
        let handle = |name: &str| target.handles.get(name).copied().unwrap_or(0);
        for p in &mut callable {
            if let Some(free) = &mut p.frees {
                // R-CVAR-7, R-SESS-1, R-PH-1: the constant a free leaves behind.
                free.null = roles::nulled_by_free(p.f, free.param)
                    .then(|| null_of(p.f, free.param))
                    .flatten()
                    .map(|n| (n, handle(n)));
            }
        }
        let frees = callable
            .iter()
            .filter(|p| p.frees.is_some())
            .cloned()
            .collect();
        Ok(Fixture {
            thread_levels: defined(p.thread_level.defined().map(|(_, n)| n).collect()),
            cb_safety: defined(p.cb_safety.defined().map(|(_, n)| n).collect()),
            pvar_classes: defined(p.pvar_class.defined().map(|(_, n)| n).collect()),
            ends_init: callable.iter().find(|p| p.f.depth() < 0).cloned(),
            callable,
            frees,
            elem,
            event_elems,
            names,
            lens,
            predefined,
            nulls,
            codes,
            path: shown,
            one: Mutex::default(),
            target,
        })
    }

    /// The library's path, for messages.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// `rc` as `Target::rc` decodes it, from the table made at open: decoding searches
    /// the profile's tables and maps, after every call of the oracle. A number the
    /// profile does not name is decoded as it was (to `ReturnCode::Unknown`).
    fn rc(&self, rc: i32) -> Cow<'_, ReturnCode> {
        match self.codes.binary_search_by_key(&rc, |c| c.0) {
            Ok(i) => Cow::Borrowed(&self.codes[i].1),
            Err(_) => Cow::Owned(self.target.rc(rc)),
        }
    }

    /// The profile's constants of a table (never empty).
    fn table(&self, t: Table) -> &[i64] {
        match t {
            Table::ThreadLevel => &self.thread_levels,
            Table::CbSafety => &self.cb_safety,
            Table::PvarClass => &self.pvar_classes,
        }
    }
}

/// The fixture of this process: the library `MPIT_REFERENCE_LIB` names, or the
/// workspace's reference cdylib. A setup error ends the process with status 2.
pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        match library_from_env(ENV_REFERENCE_LIB).and_then(|p| Fixture::open(&p, ENV_REFERENCE_LIB))
        {
            Ok(f) => f,
            Err(e) => setup_failed(&e),
        }
    })
}

/// Runs one input against the process's fixture.
pub fn run(data: &[u8]) {
    run_with(fixture(), data);
}

/// Runs one input against `f`.
pub fn run_with(f: &Fixture, data: &[u8]) {
    let mut one = f.one.lock().unwrap_or_else(PoisonError::into_inner);
    // Taken out while the input runs: an input that panics leaves empty storage.
    let (held, mut gens) = std::mem::take(&mut *one);
    let mut u = Unstructured::new(data);
    let mut run = ops::Run::new(f, held);
    for _ in 0..MAX_OPS {
        if u.is_empty() {
            break;
        }
        match input::call(&mut u, &f.callable, &mut gens) {
            Ok(c) => run.exec(c),
            Err(_) => break,
        }
        run.check_deliveries();
    }
    *one = (run.finish(), gens);
}

/// R-RC-1/R-RC-2/R-RC-3: an MPI_T call returns MPI_SUCCESS or an `MPI_T_ERR_*` of the
/// loaded ABI. `decoded` is `rc` as the profile reads it.
pub fn check_t_rc(call: &str, rc: i32, decoded: &ReturnCode) {
    match decoded {
        ReturnCode::Success | ReturnCode::T(_) => {}
        ReturnCode::MpiErr(name) => {
            panic!("R-RC-3: {call} returned {rc} = {name}, an MPI error class, not an MPI_T code")
        }
        ReturnCode::Unknown(_) => panic!(
            "R-RC-1/R-RC-2: {call} returned {rc}, neither MPI_SUCCESS nor an MPI_T_ERR_* of the ABI"
        ),
    }
}

/// An MPI (not MPI_T) call returns MPI_SUCCESS or an error class of the ABI (MPI-4.1
/// §9.4): a number the profile does not know is a bug.
pub fn check_mpi_rc(call: &str, rc: i32, decoded: &ReturnCode) {
    if let ReturnCode::Unknown(_) = decoded {
        panic!(
            "MPI-4.1 §9.4: {call} returned {rc}, neither MPI_SUCCESS nor an error class of the ABI"
        )
    }
}

/// The string convention for one (buf, len) pair after a call (R-STR-1..4): nothing
/// outside the buffer, nothing in it past `*len` or for a NULL length or `*len <= 0`,
/// and on success exactly `min(strlen, n-1)` characters and a NUL with the length
/// strlen+1 (so at least 1).
pub fn check_str(call: &str, arg: StrArg, out: &StrOut, success: bool) {
    assert!(
        !out.overrun,
        "R-STR-1: {call} wrote outside the string buffer ({arg:?}) at offsets {:?}",
        out.stray
    );
    if success && arg.len.is_some() {
        assert!(
            out.len.is_some_and(|l| l >= 1),
            "R-STR-2/R-STR-3: {call} returned string length {:?}, not strlen+1 ({arg:?})",
            out.len
        );
    }
    let Some(buf) = &out.buf else { return };
    let untouched = |from: usize| buf.iter().skip(from).all(|b| *b == FILL);
    match arg.len {
        None => assert!(
            untouched(0),
            "R-STR-4: {call} wrote into the buffer of a NULL length pointer"
        ),
        Some(n) if n <= 0 => assert!(
            untouched(0),
            "R-STR-3: {call} wrote into a buffer of *len = {n}"
        ),
        Some(n) => {
            let n = n as usize;
            assert!(
                untouched(n),
                "R-STR-1: {call} wrote past *len = {n} ({arg:?}): {buf:?}"
            );
            if success {
                let strlen = out.len.unwrap_or(1).max(1) as usize - 1;
                let nul = buf.iter().take(n).position(|b| *b == 0);
                assert_eq!(
                    nul,
                    Some(strlen.min(n - 1)),
                    "R-STR-1/R-STR-2: {call} returned length {} and must write min(strlen, n-1) characters and a NUL into n = {n} bytes: {buf:?}",
                    strlen + 1
                );
            }
        }
    }
}

/// A data buffer after a call: nothing outside it, and on success nothing past the
/// `need` bytes the variable has (count × datatype size), when known.
pub fn check_buf(call: &str, rule: &str, out: &BufOut, need: Option<usize>, success: bool) {
    assert!(
        !out.overrun,
        "{rule}: {call} wrote outside the {}-byte buffer at offsets {:?}",
        out.bytes.len(),
        out.stray
    );
    if let (Some(n), true) = (need, success) {
        assert!(
            out.bytes.iter().skip(n).all(|b| *b == FILL),
            "{rule}: {call} wrote past count × datatype size = {n} bytes: {:?}",
            out.bytes
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpit_vocab::profile::AbiProfile;
    use mpit_vocab::spec::TErr;

    fn panics(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let e = std::panic::catch_unwind(f).expect_err("the check must fail");
        e.downcast_ref::<String>().cloned().unwrap_or_default()
    }

    #[test]
    fn return_codes_outside_mpi_t_are_flagged() {
        let p = AbiProfile::standard();
        let invalid = p.code(TErr::Invalid).expect("standard") as i32;
        check_t_rc("MPI_T_x", 0, &p.decode(0));
        check_t_rc("MPI_T_x", invalid, &p.decode(invalid as i64));
        // One past MPI_ERR_LASTCODE: what fault error-code-out-of-range returns.
        let past = p.err_lastcode as i32 + 1;
        let msg = panics(|| check_t_rc("MPI_T_x", past, &p.decode(past as i64)));
        assert!(msg.contains("R-RC-1/R-RC-2"), "{msg}");
        let arg = p.mpi_err["MPI_ERR_ARG"] as i32;
        let msg = panics(|| check_t_rc("MPI_T_x", arg, &p.decode(arg as i64)));
        assert!(msg.contains("R-RC-3"), "{msg}");
        check_mpi_rc("MPI_Info_set", arg, &p.decode(arg as i64));
        let msg = panics(|| check_mpi_rc("MPI_Info_set", past, &p.decode(past as i64)));
        assert!(msg.contains("§9.4"), "{msg}");
    }

    fn out(bytes: &[u8], len: Option<i32>) -> StrOut {
        StrOut {
            buf: Some(bytes.to_vec()),
            len,
            overrun: false,
            stray: vec![],
            stray_bytes: vec![],
        }
    }

    #[test]
    fn string_checks_follow_the_convention() {
        const F: u8 = FILL;
        let n4 = StrArg::sized(4);
        check_str("c", n4, &out(b"ab\0\xA5", Some(3)), true);
        check_str("c", n4, &out(b"abc\0", Some(6)), true);
        let msg = panics(|| check_str("c", n4, &out(b"abcd", Some(6)), true));
        assert!(msg.contains("R-STR-1"), "{msg}");
        let msg = panics(|| check_str("c", n4, &out(b"ab\0\xA5", Some(2)), true));
        assert!(msg.contains("R-STR-2"), "{msg}");
        let null_len = StrArg {
            cap: Some(2),
            len: None,
        };
        check_str("c", null_len, &out(&[F, F], None), true);
        let msg = panics(|| check_str("c", null_len, &out(&[0, F], None), true));
        assert!(msg.contains("R-STR-4"), "{msg}");
        let roomy = StrArg {
            cap: Some(4),
            len: Some(2),
        };
        let msg = panics(|| check_str("c", roomy, &out(b"a\0\0\xA5", Some(2)), true));
        assert!(msg.contains("past *len"), "{msg}");
        let mut o = out(b"a\0", Some(2));
        o.overrun = true;
        let msg = panics(move || check_str("c", StrArg::sized(2), &o, true));
        assert!(msg.contains("outside"), "{msg}");
    }

    #[test]
    fn buffer_checks_see_writes_past_the_variable() {
        let b = |bytes: &[u8]| BufOut {
            bytes: bytes.to_vec(),
            overrun: false,
            stray: vec![],
        };
        check_buf("r", "R-CVAR-8", &b(&[1, 2, FILL]), Some(2), true);
        let msg = panics(|| check_buf("r", "R-CVAR-8", &b(&[1, 2, 3]), Some(2), true));
        assert!(msg.contains("R-CVAR-8"), "{msg}");
    }
}
