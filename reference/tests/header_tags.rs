//! The reference's header follows MPI-5.0's final ABI, erratum included
//! (mpi-forum/mpi-issues#1001): the six MPI_T handle types are pointers to
//! `struct MPI_ABI_T_*`. A tool meets the header in two ways — `#include <mpi.h>` or the
//! reference's own `mpit_reference.h`, from C or from C++ — and in each the final ABI's
//! typedefs (as mpi-forum/mpi-abi-stubs' mpi.h writes them) must name the same types:
//! C11 and C++ accept a typedef redeclared to the same type and reject any other. In
//! C++ the struct tag is also part of every mangled name that takes a handle, so a tool
//! built against this header links with one built against any final MPI-5.0 mpi.h;
//! the test reads the tag back from the object file's symbol.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The final ABI's typedefs, as mpi-abi-stubs' mpi.h has them.
const FINAL_ABI_TYPEDEFS: &str = "
typedef struct MPI_ABI_T_enum* MPI_T_enum;
typedef struct MPI_ABI_T_cvar_handle* MPI_T_cvar_handle;
typedef struct MPI_ABI_T_pvar_handle* MPI_T_pvar_handle;
typedef struct MPI_ABI_T_pvar_session* MPI_T_pvar_session;
typedef struct MPI_ABI_T_event_registration* MPI_T_event_registration;
typedef struct MPI_ABI_T_event_instance* MPI_T_event_instance;
";

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("include")
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("header-tags");
    std::fs::create_dir_all(&d).expect("create scratch dir");
    d.join(name)
}

fn compiler(cpp: bool) -> Command {
    let t = common::triple();
    cc::Build::new()
        .cargo_metadata(false)
        .opt_level(0)
        .target(&t)
        .host(&t)
        .cpp(cpp)
        .get_compiler()
        .to_command()
}

/// Compiles one translation unit including `header` (C or C++) to an object file.
fn compile(header: &str, cpp: bool) -> Result<PathBuf, String> {
    let ext = if cpp { "cc" } else { "c" };
    let stem = format!("{}-{}", header.replace('.', "_"), ext);
    let src = scratch(&format!("{stem}.{ext}"));
    let obj = scratch(&format!("{stem}.o"));
    let body = if cpp {
        // Not extern "C": the mangled name carries the handle types' struct tags.
        "void tool_takes(MPI_T_enum, MPI_T_cvar_handle, MPI_T_pvar_handle, \
         MPI_T_pvar_session, MPI_T_event_registration, MPI_T_event_instance) {}\n"
    } else {
        "void tool_takes(MPI_T_enum e, MPI_T_cvar_handle c, MPI_T_pvar_handle h, \
         MPI_T_pvar_session s, MPI_T_event_registration r, MPI_T_event_instance i) \
         { (void)e; (void)c; (void)h; (void)s; (void)r; (void)i; }\n"
    };
    let text = format!("#include \"{header}\"\n{FINAL_ABI_TYPEDEFS}\n{body}");
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let mut cmd = compiler(cpp);
    cmd.arg(if cpp { "-std=c++11" } else { "-std=c11" })
        .args(["-Wall", "-Wextra", "-Werror", "-c"])
        .arg("-I")
        .arg(include_dir())
        .arg(&src)
        .arg("-o")
        .arg(&obj);
    let out = cmd.output().map_err(|e| format!("run the compiler: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(obj)
}

#[test]
fn the_header_names_the_final_abi_struct_tags_from_c_and_cpp() {
    for header in ["mpi.h", "mpit_reference.h"] {
        for cpp in [false, true] {
            let lang = if cpp { "C++" } else { "C" };
            let obj = compile(header, cpp).unwrap_or_else(|e| {
                panic!("{header} from {lang} with the final ABI's typedefs:\n{e}")
            });
            if cpp {
                let nm = Command::new("nm").arg(&obj).output().expect("run nm");
                let syms = String::from_utf8_lossy(&nm.stdout);
                for tag in [
                    "MPI_ABI_T_enum",
                    "MPI_ABI_T_pvar_session",
                    "MPI_ABI_T_event_instance",
                ] {
                    assert!(
                        syms.contains(tag),
                        "{header}: the mangled name of tool_takes does not carry {tag}:\n{syms}"
                    );
                }
            }
        }
    }
}

/// The check can fail: the pre-erratum tags (MPICH 5.0.2's and Intel MPI 2021.19's
/// mpi_abi.h) do not compile beside the final ABI's typedefs.
#[test]
fn pre_erratum_tags_are_rejected() {
    let old = scratch("pre_erratum.h");
    std::fs::write(&old, "typedef struct MPI_T_enum_t *MPI_T_enum;\n").expect("write");
    let src = scratch("pre_erratum.c");
    std::fs::write(
        &src,
        format!("#include \"{}\"\n{FINAL_ABI_TYPEDEFS}", old.display()),
    )
    .expect("write");
    let out = compiler(false)
        .args(["-std=c11", "-c", "-o"])
        .arg(scratch("pre_erratum.o"))
        .arg(&src)
        .output()
        .expect("run the compiler");
    assert!(!out.status.success(), "conflicting struct tags compiled");
}
