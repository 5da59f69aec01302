//! Steps 2 and 3 of the probe: the functions that build and run the compiler and the
//! probe program (`c-tests/abi_probe.c` compiled against the header, linked without
//! libmpi, run), read what it printed, and write the profile. Every process the probe
//! starts is started here, so the way they are run is changed in one place.

use super::names::{handle_names, int_names, key, VERSION_MACROS};
use super::preprocess::{names_file, Preprocessed, Value};
use super::vendor::{description, family, release};
use super::{display_path, Compiler, Generated, Probe, ProbeError};
use mpit_process::ctrl_c;
use mpit_process::{Cmd, Ended};
use mpit_vocab::profile::AbiProfile;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

/// The C source of the probe, compiled in so an installed binary can probe too.
const PROBE_C: &str = include_str!("../../../c-tests/abi_probe.c");

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
        .stop_on(ctrl_c())
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

/// `(table, name, value)` of each constant a profile lists, in the tables' order.
type Values = Vec<(String, String, Value)>;

/// What step 1 read of the header.
struct Header {
    pp: Preprocessed,
    /// The header's path as the preprocessor found it (else its name).
    path: String,
    ints: Values,
    handles: Values,
}

impl Probe {
    /// Preprocesses, compiles and runs the probe; returns the profile YAML.
    pub fn generate(&self) -> Result<Generated, ProbeError> {
        let header = self.header.as_str();
        if header.is_empty() || header.contains(['/', '<', '>', '"']) || header.contains(' ') {
            return Err(ProbeError::HeaderName(header.to_string()));
        }
        let (cpp, compile) = self.compilers()?;
        let tmp = TempDir::new()?;

        // 1. What the header defines.
        let Header {
            pp,
            path: header_path,
            ints: int_values,
            handles: handle_values,
        } = read_header(cpp, &tmp, header)?;

        // 2. The compile-time constants' values.
        let printed = compile_and_run(
            compile,
            &tmp,
            header,
            &header_path,
            &int_values,
            &handle_values,
        )?;

        // 3. The profile.
        let release = release(&pp);
        let mut undefined = Vec::new();
        let mut y = self.profile_head(header, &header_path, &pp, &printed)?;
        write_ints(&mut y, &int_values, &printed, &mut undefined)?;
        write_handles(
            &mut y,
            &handle_values,
            &printed,
            &header_path,
            &mut undefined,
        )?;
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

    /// The preprocessor's command and the compiler's, each given the header's directory.
    fn compilers(&self) -> Result<(Cmd, Cmd), ProbeError> {
        Ok(match &self.compiler {
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
        })
    }

    /// The profile's comment lines, family, description, handle width, `success` and
    /// `err_lastcode`.
    fn profile_head(
        &self,
        header: &str,
        header_path: &str,
        pp: &Preprocessed,
        printed: &Printed,
    ) -> Result<String, ProbeError> {
        let family = family(header, pp);
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
        let mut y = String::new();
        let _ = writeln!(
            y,
            "# ABI profile generated by the abi-probe from the header\n#   {}\n# Regenerate with (from the same directory):\n#   {}\n# `null`: the header does not define the constant. Handles given as {{symbol: NAME}}\n# are the address of that library object, with `deref: true` the value stored in it.",
            display_path(header_path),
            self.command
        );
        let _ = writeln!(y, "family: {family}");
        let _ = writeln!(
            y,
            "description: \"{}\"",
            description(header, family, pp).replace('"', "'")
        );
        let _ = writeln!(y, "mpi_handle_width: {width}");
        for (field, name) in [
            ("success", "MPI_SUCCESS"),
            ("err_lastcode", "MPI_ERR_LASTCODE"),
        ] {
            let v = printed
                .ints
                .get(name)
                .copied()
                .ok_or_else(|| ProbeError::Missing {
                    header: header_path.to_string(),
                    name: name.to_string(),
                })?;
            let _ = writeln!(y, "{field}: {v}");
        }
        Ok(y)
    }
}

/// Step 1: the header preprocessed with every name a profile needs; what each name is.
fn read_header(mut cpp: Cmd, tmp: &TempDir, header: &str) -> Result<Header, ProbeError> {
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
    let handle_values: Values = handles
        .iter()
        .map(|(t, n)| (t.clone(), n.clone(), pp.handle(n)))
        .collect();
    Ok(Header {
        pp,
        path: header_path,
        ints: int_values,
        handles: handle_values,
    })
}

/// Step 2: the probe compiled against the header with the constants among the names,
/// linked without libmpi, run; what it printed.
fn compile_and_run(
    mut compile: Cmd,
    tmp: &TempDir,
    header: &str,
    header_path: &str,
    int_values: &[(String, String, Value)],
    handle_values: &[(String, String, Value)],
) -> Result<Printed, ProbeError> {
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
        .arg(list("MPIT_INTS", "MPIT_INT", int_values))
        .arg(list("MPIT_HANDLES", "MPIT_HANDLE", handle_values))
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
    parse_printed(&run("running the probe", Cmd::new(&exe))?)
}

/// The integer tables (error codes and classes, verbosity, bind, scope, ...): a value
/// each, `null` where the header lacks one.
fn write_ints(
    y: &mut String,
    int_values: &[(String, String, Value)],
    printed: &Printed,
    undefined: &mut Vec<String>,
) -> Result<(), ProbeError> {
    let int_of = |name: &str| printed.ints.get(name).copied();
    let mut current = "";
    for (table, name, val) in int_values {
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
    Ok(())
}

/// The handle tables: a constant's value, or the library object it is read from; a
/// predefined datatype the header lacks is an error, another handle is left out.
fn write_handles(
    y: &mut String,
    handle_values: &[(String, String, Value)],
    printed: &Printed,
    header_path: &str,
    undefined: &mut Vec<String>,
) -> Result<(), ProbeError> {
    let mut current = "";
    for (table, name, val) in handle_values {
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
                    header: header_path.to_string(),
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_lines_parse() {
        let p = parse_printed("sizeof MPI_Datatype 4\nsizeof void* 8\nint MPI_SUCCESS 0\nhandle MPI_T_PVAR_ALL_HANDLES -1\n")
            .expect("parses");
        assert_eq!((p.datatype_size, p.pointer_size), (4, 8));
        assert_eq!(p.handles["MPI_T_PVAR_ALL_HANDLES"], -1);
        assert!(parse_printed("garbage").is_err());
    }
}
