//! The C ABI from C: compiles the programs of `c-tests/` against
//! `reference/include/mpit_reference.h`, links them to the cdylib next to this test
//! executable (`target/<profile>/deps/libmpit_reference.so`) and runs each in its own
//! process, so the library's process-wide state starts fresh every time.

mod common;

use mpit_reference::faults::Fault;
use mpit_vocab::catalog::{Appears, Catalog};
use mpit_vocab::profile::AbiProfile;
use mpit_vocab::spec::TErr;
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

const LIB_NAME: &str = "mpit_reference";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The directory of the cdylib. The test executable is `target/<profile>/deps/<name>`;
/// cargo compiles this crate's rlib and cdylib together into that `deps/` directory
/// before building the tests, so `deps/libmpit_reference.so` is always the current one
/// (it is copied up to `target/<profile>/` only by `cargo build`, which is the fallback).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("deps").to_path_buf();
    let file = format!("lib{LIB_NAME}.so");
    if deps.join(&file).exists() {
        return deps;
    }
    let up = deps.parent().expect("target/<profile>").to_path_buf();
    assert!(
        up.join(&file).exists(),
        "{file} not found next to {}",
        exe.display()
    );
    up
}

fn lib_path() -> PathBuf {
    lib_dir().join(format!("lib{LIB_NAME}.so"))
}

/// Compiles `c-tests/<name>.c` once per test process and returns the executable.
fn program(name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<BTreeMap<String, PathBuf>>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = built.get(name) {
        return p.clone();
    }
    let lib = lib_dir();
    let out_dir = lib.join("c-tests");
    std::fs::create_dir_all(&out_dir).expect("create output dir");
    let exe = out_dir.join(name);
    let src = repo().join("c-tests").join(format!("{name}.c"));
    let t = common::triple();
    let mut cmd = cc::Build::new()
        .cargo_metadata(false)
        .opt_level(0)
        .debug(true)
        .target(&t)
        .host(&t)
        .get_compiler()
        .to_command();
    cmd.arg("-std=c99")
        .arg("-Wall")
        .arg("-Wextra")
        .arg("-Werror")
        .arg("-I")
        .arg(repo().join("reference/include"))
        .arg("-I")
        .arg(repo().join("c-tests"))
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-l{LIB_NAME}"))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-ldl")
        .arg("-pthread");
    let out = cmd.output().expect("run the C compiler");
    assert!(
        out.status.success(),
        "compiling {}:\n{}{}",
        src.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    built.insert(name.to_string(), exe.clone());
    exe
}

/// Runs a program with exactly these MPIT_REFERENCE_* variables set.
fn run(name: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(program(name));
    // cargo runs tests with LD_LIBRARY_PATH holding target/<profile> too, where a stale
    // copy of the library may lie; it outranks the rpath (DT_RUNPATH), so put ours first.
    let mut path = lib_dir().into_os_string();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        path.push(":");
        path.push(old);
    }
    cmd.args(args)
        .env("LD_LIBRARY_PATH", path)
        .env_remove(mpit_reference::ENV_CATALOG)
        .env_remove(mpit_reference::ENV_FAULTS);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run the C program")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs a program that must exit 0 and returns its stdout.
fn run_ok(name: &str, args: &[&str]) -> String {
    let o = run(name, args, &[]);
    assert!(
        o.status.success(),
        "{name} failed ({}):\n{}\nstderr:\n{}",
        o.status,
        stdout(&o),
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(&o)
}

fn code(e: TErr) -> i64 {
    AbiProfile::standard().code(e).expect("standard ABI code")
}

/// Example 14.4: every cvar visible before MPI_Init, in index order, with its
/// verbosity, datatype and full name and description.
#[test]
fn list_cvars_prints_the_catalog() {
    let out = run_ok("list_cvars", &[]);
    let cat = Catalog::default_catalog();
    let early: Vec<_> = cat
        .cvars
        .iter()
        .filter(|v| v.appears == Appears::Always)
        .collect();
    assert!(
        out.contains(&format!("{} control variables\n", early.len())),
        "{out}"
    );
    for (i, v) in early.iter().enumerate() {
        let line = format!(
            "Var {i}: {} verbosity=MPI_T_VERBOSITY_{} datatype={} desc=\"{}\"\n",
            v.name,
            v.verbosity.spelling(),
            v.datatype.spelling(),
            v.desc.as_deref().unwrap_or("")
        );
        assert!(out.contains(&line), "missing {line:?} in:\n{out}");
    }
    assert!(out.contains(
        "Var 0: ref_cvar_int_local verbosity=MPI_T_VERBOSITY_USER_BASIC datatype=MPI_INT"
    ));
}

/// Example 14.5: get_index, alloc, read (42), write, read back, free; a string cvar;
/// a communicator-bound cvar after MPI_Init.
#[test]
fn read_cvar_reads_and_writes() {
    let out = run_ok("read_cvar", &[]);
    assert!(
        out.contains("ref_cvar_int_local = 42 (index 0, count 1)\n"),
        "{out}"
    );
    assert!(
        out.contains("ref_cvar_int_local after write = 7\n"),
        "{out}"
    );
    assert!(
        out.contains("handle after free is MPI_T_CVAR_HANDLE_NULL\n"),
        "{out}"
    );
    assert!(
        out.contains("ref_cvar_string = \"shm,tcp\" (count 64)\n"),
        "{out}"
    );
    assert!(
        out.contains("ref_cvar_bind_comm on MPI_COMM_WORLD = 0\n"),
        "{out}"
    );
}

/// Example 14.6 reduced to MPI_T (needs the pvar bodies of model/pvar/): a started
/// counter counts simulated activity and stops counting once stopped.
#[test]
fn pvar_queue_reads_a_started_variable() {
    let out = run_ok("pvar_queue", &[]);
    let value = |key: &str| -> u64 {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("no `{key} = ` in:\n{out}"));
        line[key.len() + 3..]
            .parse()
            .unwrap_or_else(|_| panic!("{line}"))
    };
    let _queue_length = value("ref_pvar_level");
    let sent = value("ref_pvar_comm_counter");
    assert!(
        sent > 0,
        "a started COUNTER counts simulated activity:\n{out}"
    );
    assert_eq!(
        value("ref_pvar_comm_counter after stop"),
        sent,
        "a stopped variable is not updated:\n{out}"
    );
    assert!(
        out.contains("after free: handle NULL, session NULL\n"),
        "{out}"
    );
}

/// R-GEN-8: all 51 MPI_T functions and their PMPI_T twins, the MPI_ functions with
/// twins and the hooks resolve with dlsym.
#[test]
fn symbols_all_exported() {
    let lib = lib_path();
    let out = run_ok("symbols", &[lib.to_str().expect("utf-8 path")]);
    assert!(
        out.contains("MPI_T/PMPI_T symbols found: 102 of 102\n"),
        "{out}"
    );
    assert!(out.contains("MPI/PMPI symbols found: 34 of 34\n"), "{out}");
    assert!(out.contains("hooks found: 4 of 4\n"), "{out}");
    assert!(!out.contains("missing"), "{out}");
}

/// NULL pointers, garbage/stale/foreign handles: an MPI_T_ERR code, never a crash.
#[test]
fn robustness_null_and_garbage() {
    let o = run("robustness", &[], &[]);
    let out = stdout(&o);
    assert_eq!(o.status.signal(), None, "robustness crashed:\n{out}");
    assert!(o.status.success(), "{out}");
    assert!(out.contains(" checks, 0 failures\n"), "{out}");
}

/// The MPI_ functions of a singleton process and the fault hooks.
#[test]
fn mpi_functions_of_a_singleton() {
    let out = run_ok("mpi_funcs", &[]);
    assert!(out.contains("MPI_Get_version: 4.1\n"), "{out}");
    assert!(out.contains("MPI_Abi_get_version: 1.0\n"), "{out}");
    let version = format!(
        "MPI_Get_library_version: mpit-reference {}",
        env!("CARGO_PKG_VERSION")
    );
    assert!(out.contains(&version), "{out}");
    assert!(
        out.contains(&format!(
            "faults: {}, first {}\n",
            Fault::ALL.len(),
            Fault::ALL[0].name()
        )),
        "{out}"
    );
}

/// Events through the ABI (needs the event bodies of model/event.rs): callbacks run
/// without the lock, instances die with their callback, drops are reported first.
#[test]
fn events_callbacks_run_outside_the_lock() {
    let out = run_ok("events", &[]);
    assert!(out.contains("reg2 sequence: D1E\n"), "{out}");
    assert!(out.contains(" checks, 0 failures\n"), "{out}");
}

/// MPI_THREAD_MULTIPLE: concurrent calls and callbacks that call MPI_T from inside.
#[test]
fn threads_run_concurrently() {
    let out = run_ok("threads", &[]);
    assert!(
        out.contains("threads: 1200 callbacks of 1200, 0 errors\n"),
        "{out}"
    );
}

/// Runs `faults <mode>` with MPIT_REFERENCE_FAULTS=fault.
fn with_fault(mode: &str, fault: &str) -> Output {
    run("faults", &[mode], &[(mpit_reference::ENV_FAULTS, fault)])
}

fn assert_segv(o: &Output, what: &str) {
    assert_eq!(
        o.status.signal(),
        Some(libc::SIGSEGV),
        "{what}: expected death by SIGSEGV, got {}:\n{}",
        o.status,
        stdout(o)
    );
    assert!(!stdout(o).contains("survived"), "{what}");
}

#[test]
fn fault_null_len_deref_crashes() {
    let good = run_ok("faults", &["null-len"]);
    assert!(good.contains("get_info rc=0\nsurvived\n"), "{good}");
    assert_segv(&with_fault("null-len", "null-len-deref"), "null-len-deref");
}

#[test]
fn fault_crash_in_call_crashes() {
    let good = run_ok("faults", &["crash"]);
    assert!(good.contains("read rc=0\nsurvived\n"), "{good}");
    assert_segv(&with_fault("crash", "crash-in-call"), "crash-in-call");
}

#[test]
fn fault_provided_illegal() {
    let good = run_ok("faults", &["init"]);
    assert!(good.contains("init rc=0 provided=4096\n"), "{good}");
    let bad = stdout(&with_fault("init", "provided-illegal"));
    assert!(
        bad.contains(&format!("init rc=0 provided={}\n", 0x7777)),
        "{bad}"
    );
}

#[test]
fn fault_error_codes() {
    let p = AbiProfile::standard();
    let good = run_ok("faults", &["codes"]);
    assert!(
        good.contains(&format!(
            "garbage handle rc={}\n",
            code(TErr::InvalidHandle)
        )),
        "{good}"
    );
    assert!(
        good.contains(&format!("unknown name rc={}\n", code(TErr::InvalidName))),
        "{good}"
    );
    let bad = stdout(&with_fault("codes", "error-code-out-of-range"));
    assert!(
        bad.contains(&format!("garbage handle rc={}\n", p.err_lastcode + 1)),
        "{bad}"
    );
    let bad = stdout(&with_fault("codes", "mpi-err-class-returned"));
    assert!(
        bad.contains(&format!("unknown name rc={}\n", p.mpi_err["MPI_ERR_ARG"])),
        "{bad}"
    );
}

#[test]
fn fault_verbosity_out_of_range() {
    let p = AbiProfile::standard();
    let good = run_ok("faults", &["verbosity"]);
    let first = Catalog::default_catalog().cvars[0].verbosity;
    assert!(
        good.contains(&format!(
            "verbosity rc=0 value={}\n",
            p.verbosity
                .num(first)
                .expect("standard ABI defines every level")
        )),
        "{good}"
    );
    let bad = stdout(&with_fault("verbosity", "verbosity-out-of-range"));
    let v: i64 = bad
        .lines()
        .find_map(|l| l.strip_prefix("verbosity rc=0 value="))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{bad}"));
    assert!(
        p.verbosity.lookup(v).is_none(),
        "{v} is none of the nine (R-VERB-1)"
    );
}

/// An unknown fault name: MPI_T_ERR_CANNOT_INIT, one line on stderr naming it.
#[test]
fn unknown_fault_cannot_init() {
    let o = with_fault("init", "missing-nul,no-such-fault");
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(
        out.contains(&format!("init rc={} ", code(TErr::CannotInit))),
        "{out}"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("mpit-reference: "), "{err}");
    assert!(err.contains("no-such-fault"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// MPIT_REFERENCE_FAULTS=list prints the faults and initializes without any.
#[test]
fn fault_list_is_printed() {
    let o = with_fault("init", "list");
    assert!(stdout(&o).contains("init rc=0 "), "{}", stdout(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    for f in Fault::ALL {
        assert!(err.contains(f.name()), "{f} not listed:\n{err}");
    }
}

/// A malformed catalog: MPI_T_ERR_CANNOT_INIT and `file:line:col: message` on stderr.
#[test]
fn malformed_catalog_cannot_init() {
    let dir = lib_dir().join("c-tests");
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("malformed-catalog.yaml");
    std::fs::write(&path, "cvars:\n  - name: x\n    verbosity: NOT_A_LEVEL\n").expect("write");
    let p = path.to_str().expect("utf-8 path");
    let o = run("faults", &["init"], &[(mpit_reference::ENV_CATALOG, p)]);
    let out = stdout(&o);
    assert!(
        out.contains(&format!("init rc={} ", code(TErr::CannotInit))),
        "{out}"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with(&format!("mpit-reference: {p}:3:")), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // A catalog that does not exist either.
    let o = run(
        "faults",
        &["init"],
        &[(mpit_reference::ENV_CATALOG, "/nonexistent/catalog.yaml")],
    );
    assert!(stdout(&o).contains(&format!("init rc={} ", code(TErr::CannotInit))));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/catalog.yaml"));
}
