//! `mpit-conform abi-probe`: an ABI profile (`specs/abi/*.yaml`) made from a vendor's MPI
//! header, so no number of a vendor ABI is typed in by hand.
//!
//! 1. The header is run through the C preprocessor with a generated file that expands
//!    every name a profile needs, which tells for each name whether it is a macro (and
//!    its expansion), an identifier the header declares (an enumerator, or an `extern`
//!    object), or absent. `#ifdef` alone cannot see enumerators, and every family
//!    declares verbosity, bind, scope and class constants as enumerators.
//! 2. `c-tests/abi_probe.c` is compiled against the header with the compile-time
//!    constants among them passed as `-D` lists, linked without libmpi, and run; it
//!    prints their values.
//! 3. Handles that are the addresses of the library's objects (Open MPI's `&ompi_mpi_int`)
//!    or values stored in them (MPICH's `MPI_T_PVAR_ALL_HANDLES`) become `{symbol: ...}`
//!    entries, resolved at run time by the target layer.
//!
//! The result is checked by parsing it with `AbiProfile` before it is written.

use crate::target::{bundled_for, Release};
use mpit_process::{Cmd, Ended};
use mpit_reference::profile::{AbiProfile, Family};
use mpit_reference::spec::{
    Bind, CbSafety, Datatype, PvarClass, Scope, SourceOrder, SpecEnum, TErr, ThreadLevel, Verbosity,
};
use mpit_reference::yaml::YamlError;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The C source of the probe, compiled in so an installed binary can probe too.
const PROBE_C: &str = include_str!("../../c-tests/abi_probe.c");

/// The MPI error classes (MPI-4.1 and MPI-5.0's `MPI_ERR_ABI`), in the order of the
/// standard ABI's `mpi_abi.h`. A profile lists those its header defines (R-RC-2: no
/// MPI_T_ERR_* may equal one).
pub const MPI_ERROR_CLASSES: &[&str] = &[
    "MPI_ERR_BUFFER",
    "MPI_ERR_COUNT",
    "MPI_ERR_TYPE",
    "MPI_ERR_TAG",
    "MPI_ERR_COMM",
    "MPI_ERR_RANK",
    "MPI_ERR_REQUEST",
    "MPI_ERR_ROOT",
    "MPI_ERR_GROUP",
    "MPI_ERR_OP",
    "MPI_ERR_TOPOLOGY",
    "MPI_ERR_DIMS",
    "MPI_ERR_ARG",
    "MPI_ERR_UNKNOWN",
    "MPI_ERR_TRUNCATE",
    "MPI_ERR_OTHER",
    "MPI_ERR_INTERN",
    "MPI_ERR_PENDING",
    "MPI_ERR_IN_STATUS",
    "MPI_ERR_ACCESS",
    "MPI_ERR_AMODE",
    "MPI_ERR_ASSERT",
    "MPI_ERR_BAD_FILE",
    "MPI_ERR_BASE",
    "MPI_ERR_CONVERSION",
    "MPI_ERR_DISP",
    "MPI_ERR_DUP_DATAREP",
    "MPI_ERR_FILE_EXISTS",
    "MPI_ERR_FILE_IN_USE",
    "MPI_ERR_FILE",
    "MPI_ERR_INFO_KEY",
    "MPI_ERR_INFO_NOKEY",
    "MPI_ERR_INFO_VALUE",
    "MPI_ERR_INFO",
    "MPI_ERR_IO",
    "MPI_ERR_KEYVAL",
    "MPI_ERR_LOCKTYPE",
    "MPI_ERR_NAME",
    "MPI_ERR_NO_MEM",
    "MPI_ERR_NOT_SAME",
    "MPI_ERR_NO_SPACE",
    "MPI_ERR_NO_SUCH_FILE",
    "MPI_ERR_PORT",
    "MPI_ERR_QUOTA",
    "MPI_ERR_READ_ONLY",
    "MPI_ERR_RMA_ATTACH",
    "MPI_ERR_RMA_CONFLICT",
    "MPI_ERR_RMA_RANGE",
    "MPI_ERR_RMA_SHARED",
    "MPI_ERR_RMA_SYNC",
    "MPI_ERR_SERVICE",
    "MPI_ERR_SIZE",
    "MPI_ERR_SPAWN",
    "MPI_ERR_UNSUPPORTED_DATAREP",
    "MPI_ERR_UNSUPPORTED_OPERATION",
    "MPI_ERR_WIN",
    "MPI_ERR_RMA_FLAVOR",
    "MPI_ERR_PROC_ABORTED",
    "MPI_ERR_VALUE_TOO_LARGE",
    "MPI_ERR_SESSION",
    "MPI_ERR_ERRHANDLER",
    "MPI_ERR_ABI",
];

/// The predefined handles a profile records (those MPI_T's bind and info arguments use).
pub const HANDLES: &[&str] = &[
    "MPI_DATATYPE_NULL",
    "MPI_COMM_NULL",
    "MPI_COMM_WORLD",
    "MPI_COMM_SELF",
    "MPI_INFO_NULL",
    "MPI_SESSION_NULL",
    "MPI_GROUP_NULL",
    "MPI_WIN_NULL",
    "MPI_FILE_NULL",
    "MPI_MESSAGE_NULL",
    "MPI_ERRHANDLER_NULL",
    // MPI_Session_init's error handler in the lifecycle cases.
    "MPI_ERRORS_RETURN",
    "MPI_REQUEST_NULL",
    "MPI_OP_NULL",
    "MPI_T_ENUM_NULL",
    "MPI_T_CVAR_HANDLE_NULL",
    "MPI_T_PVAR_HANDLE_NULL",
    "MPI_T_PVAR_SESSION_NULL",
    "MPI_T_PVAR_ALL_HANDLES",
];

/// Version macros, for the description and the choice of the matching bundled profile.
const VERSION_MACROS: &[&str] = &[
    "MPI_VERSION",
    "MPI_SUBVERSION",
    "MPI_ABI_VERSION",
    "MPI_ABI_SUBVERSION",
    "MPICH_VERSION",
    "I_MPI_VERSION",
    "OMPI_MAJOR_VERSION",
    "OMPI_MINOR_VERSION",
    "OMPI_RELEASE_VERSION",
];

/// Where the compiler and the header come from.
#[derive(Debug, Clone)]
pub enum Compiler {
    /// The C compiler the `cc` crate finds (`$CC`, else `cc`), with `-I DIR`.
    Include(PathBuf),
    /// An MPI compiler wrapper (`mpicc`), which knows its own include path. It compiles
    /// only; the probe is linked by the plain C compiler, so never against libmpi.
    Wrapper(String),
}

/// One `abi-probe` run.
#[derive(Debug, Clone)]
pub struct Probe {
    pub compiler: Compiler,
    /// The header to include: `mpi.h` or `mpi_abi.h`.
    pub header: String,
    /// The command line to print in the generated file's first lines.
    pub command: String,
}

/// Why a profile could not be made. Each is one line.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("abi-probe: the header name `{0}` is not a file name like mpi.h or mpi_abi.h")]
    HeaderName(String),
    #[error("abi-probe: {0}: no such directory")]
    NoIncludeDir(String),
    #[error("abi-probe: no C compiler found: {0}")]
    NoCompiler(String),
    #[error("abi-probe: cannot run `{cmd}`: {reason}")]
    Spawn { cmd: String, reason: String },
    #[error("abi-probe: {step} failed: {first_error}")]
    Step { step: String, first_error: String },
    #[error("abi-probe: {header}: defines no {name}, which every profile needs")]
    Missing { header: String, name: String },
    #[error("abi-probe: {header}: {name} is a variable, not a constant: its value is only known at run time")]
    NotConstant { header: String, name: String },
    #[error("abi-probe: {0}")]
    Unexpected(String),
    #[error("abi-probe: cannot use the temporary directory {path}: {reason}")]
    TempDir { path: String, reason: String },
    #[error("abi-probe: the generated profile does not parse (a bug of the probe): {0}")]
    SelfCheck(YamlError),
}

/// What the preprocessor says about one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// A macro, with its expansion.
    Macro(String),
    /// Declared by the header but not a macro: an enumerator, or an `extern` object.
    Declared {
        object: bool,
    },
    Absent,
}

/// What a name's value is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    /// A compile-time constant: the compiled probe prints it.
    Constant,
    /// The address of (`deref: false`) or the value in (`deref: true`) a library object.
    Symbol {
        symbol: String,
        deref: bool,
    },
    Absent,
}

/// The preprocessed header: which identifiers it declares, which of them are `extern`
/// objects, and the expansion of every probed macro.
#[derive(Debug)]
pub struct Preprocessed {
    /// The header's path as the preprocessor found it.
    pub header_path: Option<String>,
    identifiers: BTreeSet<String>,
    objects: BTreeSet<String>,
    macros: BTreeMap<String, String>,
    /// `(type, struct tag)` of the MPI_T handle typedefs (crate::abi_tags).
    pub t_handle_tags: Vec<(String, String)>,
}

/// A C token: an identifier or one punctuation character (literals are dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Punct(char),
}

/// Tokens of preprocessed C text; string and character literals are skipped (so
/// `__attribute__((visibility("default")))` contributes no `default`), numbers dropped.
fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with('#') {
            continue; // a line marker
        }
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '"' || c == '\'' {
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == c {
                        break;
                    }
                }
            } else if c.is_ascii_alphabetic() || c == '_' {
                let mut id = String::from(c);
                while let Some(&d) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' {
                        id.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Tok::Ident(id));
            } else if c.is_ascii_digit() {
                while chars
                    .peek()
                    .is_some_and(|d| d.is_ascii_alphanumeric() || *d == '.')
                {
                    chars.next();
                }
            } else if !c.is_whitespace() {
                out.push(Tok::Punct(c));
            }
        }
    }
    out
}

/// The objects an `extern` declaration declares: per comma-separated declarator, its
/// last identifier, once `__attribute__((...))` and array bounds are dropped. A
/// declaration with parentheses left over declares a function and is skipped.
fn extern_objects(toks: &[Tok], out: &mut BTreeSet<String>) {
    let mut stmt: Vec<Tok> = Vec::new();
    let mut flush = |stmt: &mut Vec<Tok>| {
        if stmt.contains(&Tok::Ident("extern".into())) {
            // Drop attribute groups and bracketed bounds.
            let mut clean = Vec::new();
            let mut i = 0;
            while i < stmt.len() {
                match &stmt[i] {
                    Tok::Ident(a) if a == "__attribute__" || a == "__asm__" || a == "asm" => {
                        i += 1;
                        let mut depth = 0;
                        while i < stmt.len() {
                            match stmt[i] {
                                Tok::Punct('(') => depth += 1,
                                Tok::Punct(')') => {
                                    depth -= 1;
                                    if depth == 0 {
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            i += 1;
                        }
                    }
                    Tok::Punct('[') => {
                        while i < stmt.len() && stmt[i] != Tok::Punct(']') {
                            i += 1;
                        }
                    }
                    t => clean.push(t.clone()),
                }
                i += 1;
            }
            if !clean.contains(&Tok::Punct('(')) {
                for decl in clean.split(|t| *t == Tok::Punct(',')) {
                    if let Some(Tok::Ident(name)) =
                        decl.iter().rev().find(|t| matches!(t, Tok::Ident(_)))
                    {
                        out.insert(name.clone());
                    }
                }
            }
        }
        stmt.clear();
    };
    for t in toks {
        match t {
            Tok::Punct(';' | '{' | '}') => flush(&mut stmt),
            t => stmt.push(t.clone()),
        }
    }
    flush(&mut stmt);
}

/// The marker line between the header and the probed macros in the generated file.
const BEGIN: &str = "mpit_probe_begin";
const MACRO: &str = "mpit_probe_macro_";

/// The file run through the preprocessor: the header, then per name a line that shows
/// its expansion if it is a macro.
fn names_file(header: &str, names: &[String]) -> String {
    let mut s = format!("#include <{header}>\n{BEGIN}\n");
    for n in names {
        let _ = writeln!(s, "#ifdef {n}\n{MACRO}{n} {n}\n#endif");
    }
    s
}

impl Preprocessed {
    /// Reads the preprocessor's output of [`names_file`].
    pub fn parse(output: &str, header: &str) -> Result<Preprocessed, ProbeError> {
        let Some(split) = output
            .lines()
            .position(|l| l.trim() == BEGIN)
            .map(|n| output.lines().take(n).map(|l| l.len() + 1).sum::<usize>())
        else {
            return Err(ProbeError::Unexpected(format!(
                "the preprocessor's output lacks the `{BEGIN}` line"
            )));
        };
        let (head, tail) = output.split_at(split.min(output.len()));
        // `# 1 "/usr/include/mpich/mpi.h" 1`: the first file entered named like the header.
        let header_path = head.lines().find_map(|l| {
            let rest = l.strip_prefix("# ")?;
            let q = rest.find('"')?;
            let file = &rest[q + 1..q + 1 + rest[q + 1..].find('"')?];
            let name = Path::new(file).file_name()?.to_str()?;
            (name == header).then(|| file.to_string())
        });
        let toks = tokens(head);
        let identifiers = toks
            .iter()
            .filter_map(|t| match t {
                Tok::Ident(s) => Some(s.clone()),
                Tok::Punct(_) => None,
            })
            .collect();
        let mut objects = BTreeSet::new();
        extern_objects(&toks, &mut objects);
        let flat: Vec<Result<&str, char>> = toks
            .iter()
            .map(|t| match t {
                Tok::Ident(s) => Ok(s.as_str()),
                Tok::Punct(c) => Err(*c),
            })
            .collect();
        let t_handle_tags = crate::abi_tags::handle_tags(&flat);
        let mut macros = BTreeMap::new();
        for l in tail.lines() {
            if let Some(rest) = l.trim_start().strip_prefix(MACRO) {
                let (name, expansion) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                macros.insert(name.to_string(), expansion.trim().to_string());
            }
        }
        let p = Preprocessed {
            header_path,
            identifiers,
            objects,
            macros,
            t_handle_tags,
        };
        Ok(p)
    }

    pub fn seen(&self, name: &str) -> Seen {
        if let Some(e) = self.macros.get(name) {
            Seen::Macro(e.clone())
        } else if self.identifiers.contains(name) {
            Seen::Declared {
                object: self.objects.contains(name),
            }
        } else {
            Seen::Absent
        }
    }

    /// A handle's value: an expansion naming a library object (`&(ompi_mpi_int)`, or
    /// any `ompi_*` name) is that object's address, or its content without `&`; a
    /// declared object (MPICH's `MPI_T_PVAR_ALL_HANDLES`) is its content.
    fn handle(&self, name: &str) -> Value {
        match self.seen(name) {
            Seen::Macro(e) => {
                let object = tokens(&e).into_iter().find_map(|t| match t {
                    Tok::Ident(id) if self.objects.contains(&id) || id.starts_with("ompi_") => {
                        Some(id)
                    }
                    _ => None,
                });
                match object {
                    Some(symbol) => Value::Symbol {
                        symbol,
                        deref: !e.contains('&'),
                    },
                    None => Value::Constant,
                }
            }
            Seen::Declared { object: true } => Value::Symbol {
                symbol: name.to_string(),
                deref: true,
            },
            Seen::Declared { object: false } => Value::Constant,
            Seen::Absent => Value::Absent,
        }
    }

    /// An integer constant's value kind (a variable cannot be read at compile time).
    fn int(&self, name: &str, header: &str) -> Result<Value, ProbeError> {
        match self.seen(name) {
            Seen::Absent => Ok(Value::Absent),
            Seen::Declared { object: true } => Err(ProbeError::NotConstant {
                header: header.to_string(),
                name: name.to_string(),
            }),
            _ => Ok(Value::Constant),
        }
    }

    /// A version macro's expansion without quotes (`"4.0.2"` → `4.0.2`).
    fn version(&self, name: &str) -> Option<String> {
        self.macros
            .get(name)
            .map(|e| {
                e.trim_matches(|c: char| c == '"' || c.is_whitespace())
                    .to_string()
            })
            .filter(|v| !v.is_empty())
    }
}

/// Every integer constant of a profile with its C name, in the order written.
fn int_names() -> Vec<(String, String)> {
    fn table<K: SpecEnum>(out: &mut Vec<(String, String)>, table: &str, prefix: &str) {
        for k in K::ALL {
            out.push((table.to_string(), format!("{prefix}{}", k.spelling())));
        }
    }
    let mut v = vec![
        ("success".to_string(), "MPI_SUCCESS".to_string()),
        ("err_lastcode".to_string(), "MPI_ERR_LASTCODE".to_string()),
    ];
    table::<TErr>(&mut v, "t_err", "");
    for c in MPI_ERROR_CLASSES {
        v.push(("mpi_err".to_string(), c.to_string()));
    }
    table::<ThreadLevel>(&mut v, "thread_level", "");
    table::<Verbosity>(&mut v, "verbosity", "MPI_T_VERBOSITY_");
    table::<Bind>(&mut v, "bind", "MPI_T_BIND_");
    table::<Scope>(&mut v, "scope", "MPI_T_SCOPE_");
    table::<PvarClass>(&mut v, "pvar_class", "MPI_T_PVAR_CLASS_");
    table::<CbSafety>(&mut v, "cb_safety", "MPI_T_CB_REQUIRE_");
    table::<SourceOrder>(&mut v, "source_order", "MPI_T_SOURCE_");
    v
}

/// Every handle of a profile with its C name: the datatypes, then the other handles.
fn handle_names() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Datatype::ALL
        .iter()
        .map(|d| ("datatype".to_string(), d.spelling().to_string()))
        .collect();
    v.extend(
        HANDLES
            .iter()
            .map(|h| ("handles".to_string(), h.to_string())),
    );
    v
}

/// The key a C name has in its profile table (`MPI_T_VERBOSITY_USER_BASIC` → `USER_BASIC`).
fn key<'a>(table: &str, c_name: &'a str) -> &'a str {
    let prefix = match table {
        "verbosity" => "MPI_T_VERBOSITY_",
        "bind" => "MPI_T_BIND_",
        "scope" => "MPI_T_SCOPE_",
        "pvar_class" => "MPI_T_PVAR_CLASS_",
        "cb_safety" => "MPI_T_CB_REQUIRE_",
        "source_order" => "MPI_T_SOURCE_",
        _ => "",
    };
    c_name.strip_prefix(prefix).unwrap_or(c_name)
}

/// A temporary directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, ProbeError> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "mpit-abi-probe-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| ProbeError::TempDir {
            path: dir.display().to_string(),
            reason: e.to_string(),
        })?;
        Ok(TempDir(dir))
    }
    fn write(&self, name: &str, text: &str) -> Result<PathBuf, ProbeError> {
        let p = self.0.join(name);
        std::fs::write(&p, text).map_err(|e| ProbeError::TempDir {
            path: p.display().to_string(),
            reason: e.to_string(),
        })?;
        Ok(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The target triple of this build (the `cc` crate needs one outside build scripts).
fn triple() -> String {
    let arch = std::env::consts::ARCH;
    if cfg!(target_env = "musl") {
        format!("{arch}-unknown-linux-musl")
    } else {
        format!("{arch}-unknown-linux-gnu")
    }
}

/// The plain C compiler, found the way `cc` finds it for build scripts.
fn c_compiler() -> Result<Cmd, ProbeError> {
    let t = triple();
    cc::Build::new()
        .cargo_metadata(false)
        .opt_level(0)
        .debug(false)
        .warnings(false)
        .target(&t)
        .host(&t)
        .try_get_compiler()
        .map(|c| Cmd::from(c.to_command()))
        .map_err(|e| ProbeError::NoCompiler(e.to_string()))
}

/// How long one step (preprocessing, compiling, linking, running the probe) may take:
/// a safety net, far above what any of them needs.
const STEP_TIMEOUT: Duration = Duration::from_secs(300);

/// Bytes of a step's output kept (the preprocessed header is the largest, a few MB).
const STEP_OUTPUT_CAP: usize = 256 << 20;

/// Runs a compiler step (in its own process group, killed past [`STEP_TIMEOUT`] or on
/// Ctrl-C); on failure, the first error line of its output.
fn run(step: &str, mut cmd: Cmd) -> Result<String, ProbeError> {
    let shown = format!("{cmd:?}");
    let out = cmd
        .timeout(STEP_TIMEOUT)
        .stop_on(mpit_process::ctrl_c())
        .capture_limit(STEP_OUTPUT_CAP)
        .run()
        .map_err(|e| ProbeError::Spawn {
            cmd: shown.clone(),
            reason: e.to_string(),
        })?;
    let status = match out.exit.ended {
        Ended::Exited(c) => format!("exit status: {c}"),
        e => e.to_string(),
    };
    if !out.exit.ended.success() {
        let err = out.stderr.text();
        let first_error = err
            .lines()
            .find(|l| l.contains("error"))
            .or_else(|| err.lines().find(|l| !l.trim().is_empty()))
            .unwrap_or("no message")
            .trim()
            .to_string();
        return Err(ProbeError::Step {
            step: format!("{step} ({status})"),
            first_error,
        });
    }
    if out.stdout.dropped() > 0 {
        return Err(ProbeError::Step {
            step: step.to_string(),
            first_error: format!("more than {STEP_OUTPUT_CAP} bytes of output"),
        });
    }
    Ok(out.stdout.text())
}

/// What the compiled probe printed.
#[derive(Debug, Default)]
struct Printed {
    ints: BTreeMap<String, i64>,
    handles: BTreeMap<String, i64>,
    datatype_size: usize,
    pointer_size: usize,
}

fn parse_printed(out: &str) -> Result<Printed, ProbeError> {
    let mut p = Printed::default();
    for line in out.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || ProbeError::Unexpected(format!("the probe printed `{line}`"));
        match f.as_slice() {
            ["sizeof", "MPI_Datatype", n] => p.datatype_size = n.parse().map_err(|_| bad())?,
            ["sizeof", "void*", n] => p.pointer_size = n.parse().map_err(|_| bad())?,
            ["int", name, v] => {
                p.ints
                    .insert(name.to_string(), v.parse().map_err(|_| bad())?);
            }
            ["handle", name, v] => {
                p.handles
                    .insert(name.to_string(), v.parse().map_err(|_| bad())?);
            }
            _ => return Err(bad()),
        }
    }
    Ok(p)
}

/// The family a header belongs to (the same three as detection at run time).
fn family(header: &str, pp: &Preprocessed) -> Family {
    if header == "mpi_abi.h" || pp.macros.contains_key("MPI_ABI_VERSION") {
        Family::Standard
    } else if pp.identifiers.contains("ompi_mpi_comm_world")
        || pp.macros.contains_key("OMPI_MAJOR_VERSION")
    {
        Family::Openmpi
    } else {
        Family::Mpich
    }
}

/// The release a header's version macros name, as `MPI_Get_library_version` would.
fn release(pp: &Preprocessed) -> Release {
    let num = |s: &str| -> Option<(u32, u32)> {
        let mut it = s.split('.').map(|x| {
            x.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse::<u32>()
        });
        Some((
            it.next()?.ok()?,
            it.next().and_then(Result::ok).unwrap_or(0),
        ))
    };
    if let Some((year, _)) = pp.version("I_MPI_VERSION").as_deref().and_then(num) {
        Release::IntelMpi { year }
    } else if let Some((major, minor)) = pp.version("MPICH_VERSION").as_deref().and_then(num) {
        Release::Mpich { major, minor }
    } else if let Some(major) = pp
        .version("OMPI_MAJOR_VERSION")
        .and_then(|v| v.parse().ok())
    {
        Release::OpenMpi { major }
    } else {
        Release::Unknown
    }
}

/// A one-line description from the version macros.
fn description(header: &str, family: Family, pp: &Preprocessed) -> String {
    let v = |n: &str| pp.version(n).unwrap_or_else(|| "?".into());
    let vendor = if let Some(i) = pp.version("I_MPI_VERSION") {
        format!("Intel MPI {i}")
    } else if let Some(m) = pp.version("MPICH_VERSION") {
        format!("MPICH {m}")
    } else if pp.macros.contains_key("OMPI_MAJOR_VERSION") {
        format!(
            "Open MPI {}.{}.{}",
            v("OMPI_MAJOR_VERSION"),
            v("OMPI_MINOR_VERSION"),
            v("OMPI_RELEASE_VERSION")
        )
    } else {
        format!("{family} family")
    };
    let mut d = if family == Family::Standard {
        format!(
            "MPI-5.0 standard ABI ({header} {}.{})",
            v("MPI_ABI_VERSION"),
            v("MPI_ABI_SUBVERSION")
        )
    } else {
        format!("{vendor} {header}")
    };
    if pp.macros.contains_key("MPI_VERSION") {
        let _ = write!(d, ", MPI {}.{}", v("MPI_VERSION"), v("MPI_SUBVERSION"));
    }
    d
}

/// A generated profile, its text, and what the probe learned on the way.
#[derive(Debug)]
pub struct Generated {
    pub yaml: String,
    pub profile: AbiProfile,
    pub header_path: String,
    pub release: Release,
    /// Constants the header does not define (written as `null` or left out).
    pub undefined: Vec<String>,
    /// `(type, struct tag)` of the header's MPI_T handle typedefs.
    pub t_handle_tags: Vec<(String, String)>,
}

impl Probe {
    /// Preprocesses, compiles and runs the probe; returns the profile YAML.
    pub fn generate(&self) -> Result<Generated, ProbeError> {
        let header = self.header.as_str();
        if header.is_empty() || header.contains(['/', '<', '>', '"']) || header.contains(' ') {
            return Err(ProbeError::HeaderName(header.to_string()));
        }
        let (mut cpp, mut compile) = match &self.compiler {
            Compiler::Include(dir) => {
                if !dir.is_dir() {
                    return Err(ProbeError::NoIncludeDir(dir.display().to_string()));
                }
                let mut a = c_compiler()?;
                let mut b = c_compiler()?;
                a.arg("-I").arg(dir);
                b.arg("-I").arg(dir);
                (a, b)
            }
            Compiler::Wrapper(w) => (Cmd::new(w), Cmd::new(w)),
        };
        let tmp = TempDir::new()?;

        // 1. What the header defines.
        let ints = int_names();
        let handles = handle_names();
        let mut all: Vec<String> = ints.iter().map(|(_, n)| n.clone()).collect();
        all.extend(handles.iter().map(|(_, n)| n.clone()));
        all.extend(VERSION_MACROS.iter().map(|s| s.to_string()));
        let names_c = tmp.write("names.c", &names_file(header, &all))?;
        cpp.arg("-E").arg(&names_c);
        let pp = Preprocessed::parse(&run("preprocessing the header", cpp)?, header)?;
        let header_path = pp.header_path.clone().unwrap_or_else(|| header.to_string());

        let mut int_values = Vec::new();
        for (table, name) in &ints {
            int_values.push((table.clone(), name.clone(), pp.int(name, &header_path)?));
        }
        let handle_values: Vec<(String, String, Value)> = handles
            .iter()
            .map(|(t, n)| (t.clone(), n.clone(), pp.handle(n)))
            .collect();

        // 2. The compile-time constants' values.
        // -DMPIT_INTS=MPIT_INT(MPI_SUCCESS)MPIT_INT(...)... (see c-tests/abi_probe.c)
        let list = |define: &str, each: &str, v: &[(String, String, Value)]| {
            let mut s = format!("-D{define}=");
            for (_, n, val) in v {
                if *val == Value::Constant {
                    let _ = write!(s, "{each}({n})");
                }
            }
            s
        };
        let probe_c = tmp.write("abi_probe.c", PROBE_C)?;
        let object = tmp.0.join("abi_probe.o");
        let exe = tmp.0.join("abi_probe");
        compile
            .arg(format!("-DMPIT_PROBE_HEADER=<{header}>"))
            .arg(list("MPIT_INTS", "MPIT_INT", &int_values))
            .arg(list("MPIT_HANDLES", "MPIT_HANDLE", &handle_values))
            .arg("-c")
            .arg(&probe_c)
            .arg("-o")
            .arg(&object);
        run(
            &format!("compiling the probe against {header_path}"),
            compile,
        )?;
        let mut link = c_compiler()?;
        link.arg(&object).arg("-o").arg(&exe);
        run("linking the probe", link)?;
        let printed = parse_printed(&run("running the probe", Cmd::new(&exe))?)?;

        // 3. The profile.
        let family = family(header, &pp);
        let width = if printed.datatype_size == printed.pointer_size && printed.pointer_size > 4 {
            "pointer"
        } else if printed.datatype_size == 4 {
            "int"
        } else {
            return Err(ProbeError::Unexpected(format!(
                "MPI_Datatype is {} bytes, neither an int nor a pointer",
                printed.datatype_size
            )));
        };
        let release = release(&pp);
        let mut undefined = Vec::new();
        let int_of = |name: &str| printed.ints.get(name).copied();
        let mut y = String::new();
        let _ = writeln!(
            y,
            "# ABI profile generated by the abi-probe from the header\n#   {}\n# Regenerate with (from the same directory):\n#   {}\n# `null`: the header does not define the constant. Handles given as {{symbol: NAME}}\n# are the address of that library object, with `deref: true` the value stored in it.",
            display_path(&header_path),
            self.command
        );
        let _ = writeln!(y, "family: {family}");
        let _ = writeln!(
            y,
            "description: \"{}\"",
            description(header, family, &pp).replace('"', "'")
        );
        let _ = writeln!(y, "mpi_handle_width: {width}");
        for (field, name) in [
            ("success", "MPI_SUCCESS"),
            ("err_lastcode", "MPI_ERR_LASTCODE"),
        ] {
            let v = int_of(name).ok_or_else(|| ProbeError::Missing {
                header: header_path.clone(),
                name: name.to_string(),
            })?;
            let _ = writeln!(y, "{field}: {v}");
        }
        let mut current = "";
        for (table, name, val) in &int_values {
            if table == "success" || table == "err_lastcode" {
                continue;
            }
            if table != current {
                let _ = writeln!(y, "{table}:");
                current = table;
            }
            match (val, int_of(name)) {
                (Value::Constant, Some(v)) => {
                    let _ = writeln!(y, "  {}: {v}", key(table, name));
                }
                // An error class the header lacks is simply not listed.
                (Value::Absent, _) if table == "mpi_err" => {}
                (Value::Absent, _) => {
                    undefined.push(name.clone());
                    let _ = writeln!(y, "  {}: null", key(table, name));
                }
                _ => {
                    return Err(ProbeError::Unexpected(format!(
                        "the probe printed no value for {name}"
                    )))
                }
            }
        }
        let mut current = "";
        for (table, name, val) in &handle_values {
            if table != current {
                let _ = writeln!(y, "{table}:");
                current = table;
            }
            let v = match val {
                Value::Constant => match printed.handles.get(name) {
                    Some(n) if *n < 0 => n.to_string(),
                    Some(n) => format!("{n:#x}"),
                    None => {
                        return Err(ProbeError::Unexpected(format!(
                            "the probe printed no value for {name}"
                        )))
                    }
                },
                Value::Symbol { symbol, deref } => {
                    if *deref {
                        format!("{{symbol: {symbol}, deref: true}}")
                    } else {
                        format!("{{symbol: {symbol}}}")
                    }
                }
                Value::Absent if table == "datatype" => {
                    return Err(ProbeError::Missing {
                        header: header_path.clone(),
                        name: name.clone(),
                    })
                }
                Value::Absent => {
                    undefined.push(name.clone());
                    continue;
                }
            };
            let _ = writeln!(y, "  {name}: {v}");
        }
        let profile =
            AbiProfile::from_yaml(&y, "abi-probe output").map_err(ProbeError::SelfCheck)?;
        Ok(Generated {
            yaml: y,
            profile,
            header_path,
            release,
            undefined,
            t_handle_tags: pp.t_handle_tags.clone(),
        })
    }
}

/// A path relative to the current directory when it lies under it (so committed files
/// do not name the machine they were generated on).
fn display_path(p: &str) -> String {
    let path = Path::new(p);
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .map_or_else(|| p.to_string(), |r| r.display().to_string())
}

/// One line for stderr: what was probed, and how it compares with the bundled profile
/// the harness would choose for this release.
pub fn summary(g: &Generated) -> String {
    let mut s = format!(
        "abi-probe: {}: {} ({} family); {} constants undefined",
        display_path(&g.header_path),
        g.profile.description,
        g.profile.family,
        g.undefined.len()
    );
    if !g.undefined.is_empty() {
        let _ = write!(s, " ({})", g.undefined.join(", "));
    }
    match bundled_for(g.profile.family, &g.release) {
        Some(b) => match b.profile() {
            Ok(p) => {
                let d = g.profile.differences(&p);
                if d.is_empty() {
                    let _ = write!(s, "; same values as the bundled profile {}", b.name);
                } else {
                    let _ = write!(
                        s,
                        "; differs from the bundled profile {} in {} values (first: {})",
                        b.name,
                        d.len(),
                        d[0]
                    );
                }
            }
            Err(e) => {
                let _ = write!(s, "; the bundled profile {} does not parse: {e}", b.name);
            }
        },
        None => s.push_str("; no bundled profile is chosen for this release"),
    }
    if let Some(v) =
        crate::abi_tags::verdict(g.profile.family == Family::Standard, &g.t_handle_tags)
    {
        let _ = write!(s, "; {v}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"# 1 "names.c"
# 1 "/opt/x/include/mpi.h" 1
typedef int MPI_Datatype;
struct MPIR_T_pvar_handle_s;
extern struct MPIR_T_pvar_handle_s * const MPI_T_PVAR_ALL_HANDLES __attribute__((visibility ("default")));
extern int MPI_Send(const void *buf, int count, MPI_Datatype datatype) __attribute__((visibility ("default")));
extern struct ompi_predefined_datatype_t ompi_mpi_int, ompi_mpi_char;
extern int * const MPI_UNWEIGHTED;
typedef enum { MPI_T_VERBOSITY_USER_BASIC = 221, MPI_T_VERBOSITY_USER_DETAIL } v_t;
const char *s = "MPI_T_SOURCE_ORDERED";
# 5 "names.c" 2
mpit_probe_begin
mpit_probe_macro_MPI_INT ((MPI_Datatype)0x4c000405)
mpit_probe_macro_MPI_CHAR ((MPI_Datatype) &(ompi_mpi_char))
mpit_probe_macro_MPICH_VERSION "4.0.2"
"#;

    #[test]
    fn preprocessed_names_are_classified() {
        let p = Preprocessed::parse(HEADER, "mpi.h").expect("parses");
        assert_eq!(p.header_path.as_deref(), Some("/opt/x/include/mpi.h"));
        assert_eq!(
            p.seen("MPI_INT"),
            Seen::Macro("((MPI_Datatype)0x4c000405)".into())
        );
        assert_eq!(
            p.seen("MPI_T_VERBOSITY_USER_DETAIL"),
            Seen::Declared { object: false }
        );
        assert_eq!(
            p.seen("MPI_T_PVAR_ALL_HANDLES"),
            Seen::Declared { object: true }
        );
        // Inside a string literal: not declared.
        assert_eq!(p.seen("MPI_T_SOURCE_ORDERED"), Seen::Absent);
        // A function is not an object, nor are its parameter types.
        assert!(!p.objects.contains("MPI_Send") && !p.objects.contains("MPI_Datatype"));
        assert!(p.objects.contains("ompi_mpi_int") && p.objects.contains("MPI_UNWEIGHTED"));
        assert_eq!(p.handle("MPI_INT"), Value::Constant);
        assert_eq!(
            p.handle("MPI_CHAR"),
            Value::Symbol {
                symbol: "ompi_mpi_char".into(),
                deref: false
            }
        );
        assert_eq!(
            p.handle("MPI_T_PVAR_ALL_HANDLES"),
            Value::Symbol {
                symbol: "MPI_T_PVAR_ALL_HANDLES".into(),
                deref: true
            }
        );
        assert!(matches!(
            p.int("MPI_T_PVAR_ALL_HANDLES", "mpi.h"),
            Err(ProbeError::NotConstant { .. })
        ));
        assert_eq!(p.version("MPICH_VERSION").as_deref(), Some("4.0.2"));
        assert_eq!(release(&p), Release::Mpich { major: 4, minor: 0 });
        assert_eq!(family("mpi.h", &p), Family::Mpich);
        assert_eq!(family("mpi_abi.h", &p), Family::Standard);
        let ompi = HEADER.replace("ompi_mpi_int,", "ompi_mpi_comm_world, ompi_mpi_int,");
        let p = Preprocessed::parse(&ompi, "mpi.h").expect("parses");
        assert_eq!(family("mpi.h", &p), Family::Openmpi);
    }

    #[test]
    fn every_constant_of_a_profile_is_probed() {
        let ints = int_names();
        let n = |t: &str| ints.iter().filter(|(x, _)| x == t).count();
        assert_eq!(n("t_err"), TErr::ALL.len());
        assert_eq!(n("verbosity"), 9);
        assert_eq!(n("bind"), Bind::ALL.len());
        assert_eq!(n("mpi_err"), 62);
        assert_eq!(key("bind", "MPI_T_BIND_MPI_SESSION"), "MPI_SESSION");
        assert_eq!(key("t_err", "MPI_T_ERR_INVALID"), "MPI_T_ERR_INVALID");
        // The handles of the standard profile are exactly those probed.
        let std = AbiProfile::standard();
        let probed: BTreeSet<&str> = HANDLES.iter().copied().collect();
        assert_eq!(
            std.handles
                .keys()
                .map(String::as_str)
                .collect::<BTreeSet<_>>(),
            probed
        );
    }

    #[test]
    fn printed_lines_parse() {
        let p = parse_printed("sizeof MPI_Datatype 4\nsizeof void* 8\nint MPI_SUCCESS 0\nhandle MPI_T_PVAR_ALL_HANDLES -1\n")
            .expect("parses");
        assert_eq!((p.datatype_size, p.pointer_size), (4, 8));
        assert_eq!(p.handles["MPI_T_PVAR_ALL_HANDLES"], -1);
        assert!(parse_printed("garbage").is_err());
    }
}
