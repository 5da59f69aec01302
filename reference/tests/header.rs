//! `reference/include/mpit_reference.h` cannot drift from the rest of the project:
//! * every constant of `specs/abi/standard.yaml` is in the header with the same value,
//!   and every MPI_T constant of the header is in the profile;
//! * the header declares the 51 MPI_T functions, their PMPI_T twins with identical
//!   parameters, the MPI_ functions with their PMPI_ twins and the hooks;
//! * each declared function resolves in the cdylib (symbol lookup only: nothing is
//!   called, so the library's process-wide state is not touched);
//! * the parameters of each Rust definition in `src/ffi/` match the header's, type by
//!   type (int, MPI_Count, handle, function pointer, and the pointee of each pointer).

use mpit_vocab::profile::{AbiProfile, HandleValue};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn header() -> String {
    std::fs::read_to_string(root().join("include/mpit_reference.h")).expect("read the header")
}

fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => i64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// `#define NAME 123`, `#define NAME ((Type)0x1)` and `NAME = 0x1,` (enumerators).
fn header_constants(text: &str) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.split("/*").next().unwrap_or("").trim();
        if line.starts_with('*') {
            continue; // inside a block comment
        }
        let (name, value) = if let Some(rest) = line.strip_prefix("#define ") {
            let mut it = rest.splitn(2, char::is_whitespace);
            let name = it.next().unwrap_or("");
            let value = it.next().unwrap_or("").trim();
            // ((Type)0x1) → 0x1
            let value = value.trim_start_matches('(').trim_end_matches(')');
            let value = value.rsplit(')').next().unwrap_or(value);
            (name, value.to_string())
        } else if let Some((name, value)) = line.split_once('=') {
            (name.trim(), value.trim().trim_end_matches(',').to_string())
        } else {
            continue;
        };
        if let Some(v) = parse_int(&value) {
            if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.is_empty() {
                assert!(
                    out.insert(name.to_string(), v).is_none(),
                    "{name} defined twice"
                );
            }
        }
    }
    out
}

/// The C name of every constant of a profile, with its value.
fn profile_constants(p: &AbiProfile) -> BTreeMap<String, i64> {
    let mut m = BTreeMap::new();
    m.insert("MPI_SUCCESS".to_string(), p.success);
    m.insert("MPI_ERR_LASTCODE".to_string(), p.err_lastcode);
    for (e, v) in p.t_err.iter() {
        m.insert(
            e.spelling().to_string(),
            v.expect("standard ABI defines every code"),
        );
    }
    for (k, v) in &p.mpi_err {
        m.insert(k.clone(), *v);
    }
    let tables = p
        .complete_tables()
        .expect("standard ABI defines every enum-like constant");
    for (k, v) in tables.thread_level.iter() {
        m.insert(k.spelling().to_string(), *v);
    }
    let prefixed = [
        (
            "MPI_T_VERBOSITY_",
            tables
                .verbosity
                .iter()
                .map(|(k, v)| (k.spelling(), *v))
                .collect::<Vec<_>>(),
        ),
        (
            "MPI_T_BIND_",
            tables
                .bind
                .iter()
                .map(|(k, v)| (k.spelling(), *v))
                .collect(),
        ),
        (
            "MPI_T_SCOPE_",
            tables
                .scope
                .iter()
                .map(|(k, v)| (k.spelling(), *v))
                .collect(),
        ),
        (
            "MPI_T_PVAR_CLASS_",
            tables
                .pvar_class
                .iter()
                .map(|(k, v)| (k.spelling(), *v))
                .collect(),
        ),
        (
            "MPI_T_CB_REQUIRE_",
            tables
                .cb_safety
                .iter()
                .map(|(k, v)| (k.spelling(), *v))
                .collect(),
        ),
        (
            "MPI_T_SOURCE_",
            tables
                .source_order
                .iter()
                .map(|(k, v)| (k.spelling(), *v))
                .collect(),
        ),
    ];
    for (prefix, list) in prefixed {
        for (k, v) in list {
            m.insert(format!("{prefix}{k}"), v);
        }
    }
    let num = |v: &HandleValue| match v {
        HandleValue::Num(n) => *n,
        HandleValue::Symbol { symbol, .. } => {
            panic!("standard ABI handle given as symbol {symbol}")
        }
    };
    for (k, v) in p.datatype.iter() {
        m.insert(k.spelling().to_string(), num(v));
    }
    for (k, v) in &p.handles {
        m.insert(k.clone(), num(v));
    }
    m
}

#[test]
fn header_constants_equal_the_standard_profile() {
    let p = AbiProfile::load(&root().join("../specs/abi/standard.yaml")).expect("load the profile");
    let want = profile_constants(&p);
    let have = header_constants(&header());
    assert!(want.len() > 100, "{} constants", want.len());
    for (name, v) in &want {
        assert_eq!(
            have.get(name),
            Some(v),
            "{name}: header vs specs/abi/standard.yaml"
        );
    }
    // The other direction for MPI_T constants and return codes: nothing the profile lacks.
    for (name, v) in &have {
        let mpi_t = name.starts_with("MPI_T_") || name.starts_with("MPI_ERR_");
        if mpi_t {
            assert_eq!(
                want.get(name),
                Some(v),
                "{name} is in the header but not in the profile"
            );
        }
    }
}

/// A C parameter or return type as a comparable class.
fn c_class(t: &str) -> String {
    let t = t.replace("const ", "");
    let stars = t.matches('*').count() + t.matches("[]").count();
    let base = t.replace(['*', '[', ']'], "");
    let base = base.trim();
    let base_class = match base {
        "int" | "MPI_T_cb_safety" | "MPI_T_source_order" => "int",
        "MPI_Count" => "i64",
        "MPI_Aint" => "aint",
        "double" => "double",
        "char" => "char",
        "void" => "void",
        b if b.ends_with("_function") => "fn",
        b if b.starts_with("MPI_") => "handle",
        b => panic!("unknown C type {b}"),
    };
    match (base_class, stars) {
        ("fn", 1) => "fn".into(),
        (b, 0) => b.into(),
        (b, 1) => format!("ptr({b})"),
        (b, n) => format!("ptr{n}({b})"),
    }
}

/// A Rust FFI type as the same class.
fn rust_class(t: &str) -> String {
    let t = t.trim();
    if t.starts_with("Option<") {
        return "fn".into();
    }
    let mut stars = 0;
    let mut rest = t;
    while let Some(r) = rest
        .strip_prefix("*mut ")
        .or_else(|| rest.strip_prefix("*const "))
    {
        stars += 1;
        rest = r.trim();
    }
    let base = match rest {
        "c_int" => "int",
        "i64" => "i64",
        "isize" => "aint",
        "usize" => "handle",
        "f64" => "double",
        "c_char" => "char",
        "c_void" | "()" => "void",
        b => panic!("unknown Rust FFI type {b}"),
    };
    match stars {
        0 => base.into(),
        1 => format!("ptr({base})"),
        n => format!("ptr{n}({base})"),
    }
}

/// (return class, parameter classes) per function name.
type Sigs = BTreeMap<String, (String, Vec<String>)>;

fn header_prototypes(text: &str) -> Sigs {
    let mut out = Sigs::new();
    for line in text.lines() {
        let line = line.trim();
        let Some(open) = line.find('(') else { continue };
        let comment = line.starts_with('*') || line.starts_with("/*");
        if comment || !line.ends_with(");") || line.starts_with("typedef") || line.starts_with('#')
        {
            continue;
        }
        let head = &line[..open];
        let Some(split) = head.rfind([' ', '*']) else {
            continue;
        };
        let name = head[split + 1..].to_string();
        let ret = c_class(&head[..=split]);
        let params = &line[open + 1..line.len() - 2];
        let params = if params.trim() == "void" {
            Vec::new()
        } else {
            params
                .split(',')
                .map(|p| {
                    let p = p.trim();
                    // Drop the parameter name, keep `[]`.
                    let arr = p.ends_with("[]");
                    let p = p.trim_end_matches("[]");
                    let cut = p
                        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .map_or(0, |i| i + 1);
                    c_class(&format!("{}{}", &p[..cut], if arr { "[]" } else { "" }))
                })
                .collect()
        };
        assert!(
            out.insert(name.clone(), (ret, params)).is_none(),
            "{name} declared twice"
        );
    }
    out
}

/// The signatures of the functions defined in `src/ffi/` (`fn MPI_...(...) -> T`).
fn rust_definitions() -> Sigs {
    let mut out = Sigs::new();
    let dir = root().join("src/ffi");
    for entry in std::fs::read_dir(&dir).expect("read src/ffi") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        let mut rest = text.as_str();
        while let Some(i) = rest.find("fn MPI") {
            rest = &rest[i + 3..];
            let open = rest.find('(').expect("(");
            let name = rest[..open].to_string();
            let close = rest.find(')').expect(")");
            let params: Vec<String> = rest[open + 1..close]
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| rust_class(p.split_once(':').map_or(p, |(_, t)| t)))
                .collect();
            let after = &rest[close + 1..];
            let body = after.find('{').expect("{");
            let ret = after[..body]
                .trim()
                .strip_prefix("->")
                .map_or("()", str::trim);
            let ret = match ret {
                "*const c_char" => "ptr(char)".to_string(),
                r => rust_class(r),
            };
            assert!(
                out.insert(name.clone(), (ret, params)).is_none(),
                "{name} defined twice"
            );
        }
    }
    out
}

#[test]
fn header_declares_all_functions_and_their_twins() {
    let protos = header_prototypes(&header());
    let count = |p: &str| protos.keys().filter(|k| k.starts_with(p)).count();
    assert_eq!(count("MPI_T_"), 51, "MPI-4.1 has 51 MPI_T functions");
    assert_eq!(count("PMPI_T_"), 51);
    assert_eq!(count("MPIT_Reference_"), 4);
    let mpi = protos
        .keys()
        .filter(|k| k.starts_with("MPI_") && !k.starts_with("MPI_T_"))
        .count();
    // 17 for a singleton tool; MPI_Type_get_name and MPI_Abort, which MPICH's mpivars
    // and Intel's impi_info import (the reference as a test double); the lifecycle
    // matrix's MPI_Query_thread, sessions and communicator duplicates (ffi/world.rs).
    assert_eq!(mpi, 24);
    for (name, sig) in &protos {
        if name.starts_with("MPI_") {
            assert_eq!(
                protos.get(&format!("P{name}")),
                Some(sig),
                "P{name} differs from {name}"
            );
        }
    }
}

#[test]
fn header_matches_the_rust_definitions() {
    let protos = header_prototypes(&header());
    let defs = rust_definitions();
    let declared: Vec<_> = protos
        .keys()
        .filter(|k| !k.starts_with("PMPI_"))
        .cloned()
        .collect();
    let defined: Vec<_> = defs.keys().cloned().collect();
    assert_eq!(declared, defined, "header vs src/ffi");
    for (name, sig) in &defs {
        assert_eq!(
            Some(sig),
            protos.get(name),
            "{name}: (return, params) of src/ffi vs the header"
        );
    }
}

#[test]
fn every_declared_function_resolves_in_the_cdylib() {
    // Next to this executable (`target/<profile>/deps/`) cargo builds the current cdylib.
    let exe = std::env::current_exe().expect("current_exe");
    let path = exe.parent().expect("deps").join("libmpit_reference.so");
    // SAFETY: loading the reference library runs no initialization code of ours (Rust
    // has no life before main); nothing is called below, symbols are only looked up.
    let lib = unsafe { libloading::Library::new(&path) }.expect("load the cdylib");
    for name in header_prototypes(&header()).keys() {
        // SAFETY: the symbol is only checked for existence, never called.
        let sym = unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()) };
        assert!(
            sym.is_ok(),
            "{name} is declared but not exported by {}",
            path.display()
        );
    }
}
