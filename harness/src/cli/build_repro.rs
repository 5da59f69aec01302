//! `report-bug`'s build and run of a reproducer, as a vendor's engineer would: with the
//! compiler wrapper of the library's own installation, else `cc` with that
//! installation's headers and the library itself, in child processes with a deadline
//! (`mpit_process`, like every child of mpit-conform: the vendor's code never runs in
//! this process). What is used where (scripts/repro-cc.sh says the same per target):
//!
//! - `--cc COMMAND`: that (split shell-style; the source, `-o` and the program follow);
//! - a library under `PREFIX/lib/`: `PREFIX/bin/mpicc_abi` for the MPI-5 standard ABI
//!   (`libmpi_abi.so*`) or `PREFIX/bin/mpicc`, with `I_MPI_ROOT=PREFIX` for Intel MPI,
//!   whose wheel leaves its prefix to that variable; else `cc` with `PREFIX/include`
//!   (`-DMPI_ABI` for the standard ABI) and the library file;
//! - the reference (`libmpit_reference.so`): `cc -DMPI_ABI` with `reference/include`;
//! - a library in a system directory (`/usr/lib...`, `/lib...`): the family's wrapper on
//!   PATH (`mpicc.mpich`, `mpicc.openmpi`, as Debian names them), else `mpicc`.
//!
//! The library's path is the report's (`--lib` as given): relative to this directory,
//! else to the report file's directory or one above it.

use mpit_process::{ctrl_c, Cmd, Ended};
use mpit_report::Report;
use mpit_repro::issue::Run;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long the compiler may take: far above what one small C file needs.
const BUILD_TIMEOUT: Duration = Duration::from_secs(120);

/// How long the reproducer may run: the harness's whole-case bound is of this order; a
/// hang is a finding's evidence as much as a crash (`timeout` results).
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// Bytes kept of each output stream of the reproducer.
const OUTPUT_CAP: usize = 1 << 20;

/// A compiler command: the program, arguments before the source, arguments after
/// `-o PROGRAM`, environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiler {
    program: String,
    before: Vec<String>,
    after: Vec<String>,
    env: Vec<(String, String)>,
}

impl Compiler {
    fn plain(program: impl Into<String>) -> Compiler {
        Compiler {
            program: program.into(),
            before: Vec::new(),
            after: Vec::new(),
            env: Vec::new(),
        }
    }

    /// The command line, as a reader in this directory would type it (`repro.c -o
    /// repro`, paths under this directory relative to it, as the report names them).
    pub fn shown(&self) -> String {
        let here = std::env::current_dir()
            .map(|d| format!("{}/", d.display()))
            .unwrap_or_default();
        let rel = |w: &String| w.replace(&here, "");
        let quote = |w: String| shlex::try_quote(&w).map(|q| q.into_owned()).unwrap_or(w);
        let env = self
            .env
            .iter()
            .map(|(k, v)| format!("{k}={}", quote(rel(v))));
        let words = [self.program.clone()]
            .into_iter()
            .chain(self.before.iter().cloned())
            .chain(["repro.c".into(), "-o".into(), "repro".into()])
            .chain(self.after.iter().cloned())
            .map(|w| quote(rel(&w)));
        env.chain(words).collect::<Vec<_>>().join(" ")
    }

    fn cmd(&self, src: &Path, exe: &Path) -> Cmd {
        let mut c = Cmd::new(&self.program);
        c.args(&self.before)
            .arg(src)
            .arg("-o")
            .arg(exe)
            .args(&self.after);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }
}

/// The library a report names, on this machine: its path as given to the run (`--lib`),
/// relative to this directory or, where the run was made elsewhere, to the directory of
/// the report file or one above it (a run writes `--out DIR` below where it ran).
fn located(path: &str, report_file: &Path) -> Option<PathBuf> {
    let given = Path::new(path);
    if given.is_absolute() || given.exists() {
        return given.exists().then(|| given.to_path_buf());
    }
    let dir = std::path::absolute(report_file).ok()?;
    dir.ancestors()
        .skip(1)
        .map(|d| d.join(given))
        .find(|p| p.exists())
}

/// The compiler for the library a report (read from `report_file`) judged (module
/// docs), or why there is none.
pub fn compiler(report: &Report, report_file: &Path, cc: Option<&str>) -> Result<Compiler, String> {
    if let Some(cc) = cc {
        let mut words = shlex::split(cc)
            .filter(|w| !w.is_empty())
            .ok_or_else(|| format!("--cc `{cc}` is not a command"))?
            .into_iter();
        let mut c = Compiler::plain(words.next().unwrap_or_default());
        c.before = words.collect();
        return Ok(c);
    }
    let t = &report.target;
    let Some(lib) = located(&t.path, report_file) else {
        return Err(format!(
            "the library the report names ({}) is not on this machine (--cc COMMAND builds with another compiler)",
            t.path
        ));
    };
    // Absolute, so that what the wrapper bakes into the program (an rpath) holds where
    // it runs; the shown command is relative again.
    let lib = std::path::absolute(&lib).unwrap_or(lib);
    let dir = lib.parent().unwrap_or(Path::new("."));
    let prefix = dir.parent().unwrap_or(Path::new("."));
    let file = lib.file_name().and_then(|f| f.to_str()).unwrap_or("");
    let standard_abi = file.starts_with("libmpi_abi") || t.abi_family == "standard";
    let linked = |include: PathBuf| {
        let mut c = Compiler::plain("cc");
        if standard_abi {
            c.before.push("-DMPI_ABI".into());
        }
        c.before.push(format!("-I{}", include.display()));
        c.after.push(lib.display().to_string());
        c.after.push(format!("-Wl,-rpath,{}", dir.display()));
        c
    };
    if file.starts_with("libmpit_reference") {
        let candidates = [
            std::path::absolute("reference/include").unwrap_or_default(),
            prefix.join("../reference/include"),
        ];
        return match candidates.into_iter().find(|p| p.join("mpi.h").exists()) {
            Some(include) => Ok(linked(include)),
            None => Err("the reference's headers (reference/include) are not here".into()),
        };
    }
    let wrapper = prefix
        .join("bin")
        .join(if standard_abi { "mpicc_abi" } else { "mpicc" });
    if wrapper.exists() {
        let mut c = Compiler::plain(wrapper.display().to_string());
        if t.library_version.contains("Intel(R) MPI") {
            c.env
                .push(("I_MPI_ROOT".into(), prefix.display().to_string()));
        }
        return Ok(c);
    }
    let include = prefix.join("include");
    let header = if standard_abi { "mpi_abi.h" } else { "mpi.h" };
    if include.join(header).exists() {
        return Ok(linked(include));
    }
    let system = ["/usr/lib", "/lib", "/usr/local/lib"]
        .iter()
        .any(|d| dir.starts_with(d));
    if system {
        let family = format!("mpicc.{}", t.abi_family);
        let found = [family.as_str(), "mpicc"].into_iter().find(|w| on_path(w));
        if let Some(w) = found {
            return Ok(Compiler::plain(w));
        }
    }
    Err(format!(
        "no compiler wrapper for {} (none in {}, none on PATH; --cc COMMAND names one)",
        t.path,
        prefix.join("bin").display()
    ))
}

/// Whether `program` is an executable file in a directory of PATH.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| {
            std::fs::metadata(d.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// Builds `src` (in a directory of its own, removed afterwards) and runs it: what came
/// of it, for the report. A reproducer that does not build is said, not an error.
pub fn build_and_run(src: &Path, report: &Report, report_file: &Path, cc: Option<&str>) -> Run {
    let compiler = match compiler(report, report_file, cc) {
        Ok(c) => c,
        Err(why) => {
            return Run::NotBuilt {
                build: cc.unwrap_or("mpicc").to_string(),
                why,
            }
        }
    };
    let build = compiler.shown();
    let not_built = |why: String| Run::NotBuilt {
        build: build.clone(),
        why,
    };
    let dir = match tempfile::Builder::new().prefix("mpit-repro-").tempdir() {
        Ok(d) => d,
        Err(e) => return not_built(format!("no temporary directory: {e}")),
    };
    let exe = dir.path().join("repro");
    let built = compiler
        .cmd(src, &exe)
        .timeout(BUILD_TIMEOUT)
        .stop_on(ctrl_c())
        .run();
    match built {
        Err(e) => return not_built(e.to_string()),
        Ok(o) if !o.exit.ended.success() => {
            let err = o.stderr.text();
            let first = err
                .lines()
                .find(|l| l.contains("error"))
                .or_else(|| err.lines().find(|l| !l.trim().is_empty()))
                .unwrap_or("no message");
            return not_built(format!("the compiler {}: {}", o.exit.ended, first.trim()));
        }
        Ok(_) => {}
    }
    let ran = Cmd::new(&exe)
        .current_dir(dir.path())
        .timeout(RUN_TIMEOUT)
        .stop_on(ctrl_c())
        .capture_limit(OUTPUT_CAP)
        .run();
    match ran {
        Err(e) => not_built(format!("it built, but did not start: {e}")),
        Ok(o) => {
            let mut output = o.stdout.text();
            let err = o.stderr.text();
            if !err.trim().is_empty() {
                output.push_str("\n[stderr]\n");
                output.push_str(&err);
            }
            Run::Ran {
                build,
                ended: o.exit.ended.to_string(),
                meaning: meaning(o.exit.ended).into(),
                output,
            }
        }
    }
}

/// What a reproducer's end says (reports/repro/README.md, the exit codes).
fn meaning(e: Ended) -> &'static str {
    match e {
        Ended::Exited(1) => "the deviation reproduces",
        Ended::Exited(0) => "it does not reproduce here",
        Ended::Exited(77) => "not applicable to this library",
        Ended::Signaled(_) => "a crash: the evidence of a crash finding",
        Ended::TimedOut(_) => "it hung: the evidence of a timeout finding",
        Ended::Interrupted => "interrupted",
        Ended::Exited(_) => "an exit status a reproducer does not use",
    }
}

#[cfg(test)]
mod tests {
    use super::located;

    /// A run made in ROOT with `--lib lib/libmpi.so --out out/`: its report, read from
    /// anywhere, finds the library relative to out/'s parent.
    #[test]
    fn a_relative_library_is_found_above_the_report() {
        let root = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir_all(root.path().join("lib")).expect("lib/");
        std::fs::create_dir_all(root.path().join("out")).expect("out/");
        std::fs::write(root.path().join("lib/libmpi.so"), b"").expect("the library");
        let report = root.path().join("out/report.json");
        assert_eq!(
            located("lib/libmpi.so", &report),
            Some(root.path().join("lib/libmpi.so"))
        );
        assert_eq!(located("lib/libnone.so", &report), None);
        assert_eq!(located("/nonexistent/libmpi.so", &report), None);
    }
}
